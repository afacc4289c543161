// Outbound connections (core/net/dialer.ts): the egress proxy settings, the CONNECT tunnel, the dialer.
export { createDialer, directDialer, type Dialer, type DialerSettings, type DialOptions, type EgressTarget } from './dialer.js';
export { parseProxyUrl, parseNoProxy, bypassesProxy, ProxySettingError, type NoProxy, type ProxyAddress } from '../formats/proxy-settings.js';
export { openTunnel, TunnelError, type TunnelFailure } from './tunnel.js';
export { registerEgressMetrics, EGRESS_METRICS } from './egress-metrics.js';
export type { EgressSnapshot } from './egress-state.js';
