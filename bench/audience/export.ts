// exportSubscriptions at scale, for bench/audience/run.ts --export: a fresh `herald api` (so its
// peak RSS is the export's, not the sends' before it) answers the link, then the file is read to
// its last byte as fast as this process takes it (counted, not kept or unzipped). Reports the
// link's answer time, time to the first and the last byte, the gzip size and the api's peak RSS
// before and after (VmHWM).
import { readFileSync } from 'node:fs';
import { spawnHerald } from '../support/herald-process.js';

export interface ExportFigures { linkMs: number; firstByteMs: number; lastByteS: number; gzipMb: number; rssIdleMb: number; rssPeakMb: number }

const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

export async function measureExport(env: Record<string, string>, key: string, appId: string): Promise<ExportFigures> {
  const [figures] = await measureFiles(env, [
    (base) => askLink(`${base}/api/v1/players/csv_export?app_id=${appId}`, key, '{}', 'csv_file_url'),
  ]);
  return figures;
}

/** Asks for a one-time link (POST, JSON); resolves its URL, read from the answer's `field`. */
export async function askLink(url: string, key: string, body: string | undefined, field: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { Authorization: `Key ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, body });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as Record<string, string>)[field];
}

/**
 * A fresh `herald api` answers each link `asks` makes (one after another), and each file is read to
 * its last byte; the peak RSS after each is the api's highest so far (VmHWM).
 */
export async function measureFiles(env: Record<string, string>, asks: Array<(base: string) => Promise<string>>): Promise<ExportFigures[]> {
  const api = await spawnHerald(['api'], { ...env, HERALD_HTTP_PORT: '0' }, /^listening \d+/);
  try {
    const base = `http://127.0.0.1:${/listening (\d+)/.exec(api.line)![1]}`;
    await fetch(`${base}/healthz`);
    const rssIdleMb = peakRss(api.child.pid!);
    const figures: ExportFigures[] = [];
    for (const ask of asks) {
      const asked = performance.now();
      const url = await ask(base);
      const linkMs = performance.now() - asked;
      const started = performance.now();
      const file = await fetch(url);
      if (file.status !== 200 || !file.body) throw new Error(`download: ${file.status}`);
      let firstByteMs = 0;
      let bytes = 0;
      for await (const chunk of file.body) {
        if (bytes === 0) firstByteMs = performance.now() - started;
        bytes += (chunk as Uint8Array).byteLength;
      }
      const lastByteS = (performance.now() - started) / 1000;
      figures.push({ linkMs, firstByteMs, lastByteS, gzipMb: bytes / 2 ** 20, rssIdleMb, rssPeakMb: peakRss(api.child.pid!) });
    }
    return figures;
  } finally {
    api.child.kill('SIGTERM');
    await new Promise((r) => api.child.once('exit', r));
  }
}
