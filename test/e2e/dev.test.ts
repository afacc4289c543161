// `make dev` as a newcomer runs it (scripts/dev.sh, with this test's database, port and state
// directory): it listens on 127.0.0.1 only and says so, prints where the simulators show what
// Apple and Google would receive, and the curl it prints delivers a push that shows there, to an
// iOS demo device at apns-sim and an Android one at fcm-sim (the demo App has both credentials).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { freePorts } from '../kube/processes.js';
import { waitFor } from '../support/wait.js';

/** Sockets listening on a TCP port, from /proc/net/tcp{,6}: their local addresses in hex. */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/)).filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A').map((f) => f[1].split(':')[0]),
  );
}

describe('make dev (scripts/dev.sh)', function () {
  this.timeout(180_000);
  const env = useTestEnv({ bus: false, redis: false });
  let child: ChildProcess | undefined;
  let out = '';

  after(() => {
    if (child?.pid) process.kill(-child.pid, 'SIGTERM');
  });

  it('listens on 127.0.0.1 only, prints the simulators\' deliveries URLs, and its curl delivers a push shown there, iOS and Android', async () => {
    const [port] = await freePorts(1);
    const state = mkdtempSync(join(tmpdir(), 'herald-dev-'));
    const childEnv = env.childEnv({ HERALD_HTTP_PORT: String(port), HERALD_DEV_STATE: state, HERALD_LOG_LEVEL: 'warn' });
    delete childEnv.HERALD_HTTP_HOST;
    child = spawn('bash', ['scripts/dev.sh'], { env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const [deliveries, fcmDeliveries] = await new Promise<[string, string]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no deliveries URLs printed:\n${out}`)), 120_000);
      const check = () => {
        const apple = /what Apple would receive is at (http:\/\/127\.0\.0\.1:\d+\/deliveries\?limit=20)/.exec(out);
        const google = /what Google would receive is at (http:\/\/127\.0\.0\.1:\d+\/deliveries\?limit=20)/.exec(out);
        if (apple && google) {
          clearTimeout(timer);
          resolve([apple[1], google[1]]);
        }
      };
      child!.stdout!.on('data', check);
      child!.once('exit', (code) => reject(new Error(`dev.sh exited ${code}:\n${out}`)));
    });
    expect(out).to.contain(`Herald is starting on http://127.0.0.1:${port}, listening on 127.0.0.1`);
    expect(out).to.contain('Demo devices: 1,000 iOS (user-0 … user-999) and 500 Android (user-1000 … user-1499).');

    // The api comes up after the simulator: wait for its socket, then check where it listens.
    const base = `http://127.0.0.1:${port}`;
    await waitFor('the api answering /healthz', async () => (await fetch(`${base}/healthz`)).ok, 20_000);
    expect(listeners(port)).to.deep.equal(['0100007F']); // 127.0.0.1, not 0.0.0.0 or ::

    // The curl the script printed, as fetch.
    const key = readFileSync(join(state, 'rest-api-key'), 'utf8').trim();
    const appId = /app id ([0-9a-f-]{36})/.exec(out)![1];
    const sent = await fetch(`${base}/api/v1/notifications`, {
      method: 'POST',
      headers: { Authorization: `Key ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ app_id: appId, contents: { en: 'Hello from make dev' }, include_external_ids: ['user-1', 'user-1001'] }),
    });
    expect(sent.status, await sent.clone().text()).to.equal(200);
    const shown = await waitFor('the send at the APNs simulator', async () => {
      const now = (await (await fetch(deliveries)).json()) as { deliveries: Array<{ payload: string }> };
      return now.deliveries.some((d) => d.payload.includes('Hello from make dev')) && now;
    }, 20_000);
    expect(shown.deliveries.map((d) => JSON.parse(d.payload).aps.alert.body)).to.include('Hello from make dev');

    // The Android demo device of user-1001, at fcm-sim, through the demo App's FCM credentials.
    type FcmShown = { deliveries: Array<{ token: string; status: number; message: { notification?: { body?: string } } }> };
    const google = await waitFor('the send at the FCM simulator', async () => {
      const now = (await (await fetch(fcmDeliveries)).json()) as FcmShown;
      return now.deliveries.some((d) => d.message.notification?.body === 'Hello from make dev') && now;
    }, 20_000);
    const android = google.deliveries.filter((d) => d.message.notification?.body === 'Hello from make dev');
    expect(android.map((d) => [d.token, d.status])).to.deep.equal([[`demo1:APA91b${'x'.repeat(140)}`, 200]]);
  });
});
