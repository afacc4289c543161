// Shared set-up for the APNs tests: a simulator on random ports with a throw-away key, clients
// pointed at it, and a raw HTTP/2 request for cases no client library would produce.
import { connect } from 'node:http2';
import { readFile } from 'node:fs/promises';
import apn from '@parse/node-apn';
import { generateApnsKeyPair, startApnsSim, type ApnsKeyPair, type ApnsSim, type ApnsSimOptions } from '../../apns-sim/index.js';

export const TEAM_ID = 'TEAM000001';
export const TOPIC = 'com.example.herald';
export const PAYLOAD = JSON.stringify({ aps: { alert: { title: 'Hello', body: 'From Herald' } } });

/** A 64-hex-digit device token, distinct per n. */
export function hexToken(n: number, prefix = ''): string {
  return prefix + n.toString(16).padStart(64 - prefix.length, '0');
}

export interface SimFixture {
  sim: ApnsSim;
  key: ApnsKeyPair;
  ca: string;
}

export async function startSimWithKey(opts: ApnsSimOptions = {}): Promise<SimFixture> {
  const key = generateApnsKeyPair();
  const sim = await startApnsSim({ keys: [{ keyId: key.keyId, teamId: TEAM_ID, publicKey: key.publicKeyPem }], ...opts });
  return { sim, key, ca: await readFile(sim.caFile, 'utf8') };
}

/** @parse/node-apn's Provider aimed at the simulator; no internal retries so answers are visible. */
export function nodeApnProvider(f: SimFixture, options: Partial<apn.ProviderOptions> = {}): apn.Provider {
  return new apn.Provider({
    token: { key: f.key.privateKeyP8, keyId: f.key.keyId, teamId: TEAM_ID },
    address: '127.0.0.1',
    port: f.sim.port,
    ca: [f.ca],
    production: false,
    connectionRetryLimit: 0,
    ...options,
  });
}

export function note(fields: Partial<apn.Notification> = {}): apn.Notification {
  const n = new apn.Notification();
  n.rawPayload = JSON.parse(PAYLOAD);
  n.topic = TOPIC;
  Object.assign(n, fields);
  return n;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

/** One request with exactly the headers given (e.g. no authorization at all). */
export function rawRequest(f: SimFixture, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const session = connect(f.sim.url, { ca: f.ca });
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ...headers });
    let status = 0;
    let responseHeaders: Record<string, unknown> = {};
    let data = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.on('data', (c: string) => (data += c));
    stream.on('end', () => {
      session.close();
      resolve({ status, headers: responseHeaders, body: data ? JSON.parse(data) : undefined });
    });
    stream.on('error', reject);
    stream.end(body);
  });
}

export async function control(sim: ApnsSim, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${sim.controlUrl}${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  return res.json();
}
