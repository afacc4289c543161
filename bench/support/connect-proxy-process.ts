// A CONNECT proxy in a process of its own for `bench/delivery/run.ts --proxy` (the tests' proxy,
// test/support/connect-proxy.ts), so that its CPU is never counted as the senders'. PROXY_HOSTS
// (JSON, name → address) names the hosts only it resolves. Prints `proxy <port>` when listening.
import { ConnectProxy } from '../../test/support/connect-proxy.js';

const proxy = await ConnectProxy.start({ hosts: JSON.parse(process.env.PROXY_HOSTS ?? '{}') as Record<string, string> });
process.stdout.write(`proxy ${proxy.port}\n`);
