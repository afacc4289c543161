// Public entry of the delivery worker (`herald sender`, `herald dev`, tests).
export { startSender, senderPoolSize, type Sender, type SenderOptions } from './sender.js';
export { createSenderMetrics, serveMetrics, type SenderMetrics } from './metrics.js';
export { DEFAULT_WORKER_SETTINGS, type WorkerSettings } from './chunk-worker.js';
export { actionFor, type Action } from './outcomes.js';
