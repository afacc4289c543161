// Waiting for etcd and kube-apiserver to answer. Polls an HTTP(S) endpoint until it returns
// 200, and gives up early when the process died (its log tail says why).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RunningProcess } from './processes.js';
import { waitFor } from '../support/wait.js';

export interface ClientTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export async function getStatus(url: string, tls?: ClientTls): Promise<number> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy(new Error(`timeout on ${url}`)));
    req.once('error', reject);
    req.end();
  });
}

export async function waitForOk(
  proc: RunningProcess,
  url: string,
  opts: { tls?: ClientTls; timeoutMs?: number } = {},
): Promise<void> {
  // A process that died ends the wait at once (a throw in the probe would only read as "not yet").
  const outcome = await waitFor(`${proc.name} answering 200 at ${url}`, async () => {
    if (proc.hasExited()) return 'exited';
    const status = await getStatus(url, opts.tls);
    if (status !== 200) throw new Error(`HTTP ${status}`); // "not yet", and what a timeout reports
    return 'ready';
  }, opts.timeoutMs ?? 60_000).catch((error: Error) => {
    throw new Error(`${proc.name} not ready: ${error.message}; log ${proc.logFile}:\n${proc.logTail()}`);
  });
  if (outcome === 'exited') throw new Error(`${proc.name} exited while starting (log ${proc.logFile}):\n${proc.logTail()}`);
}
