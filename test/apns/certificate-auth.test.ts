// Certificate (TLS client certificate) auth, with @parse/node-apn and with our client.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import apn from '@parse/node-apn';
import { createClientCertificate, ensureCa, startApnsSim, type ApnsSim, type ClientCertificate } from '../../apns-sim/index.js';
import { createApnsClient } from '../../core/apns/index.js';
import { PAYLOAD, TOPIC, hexToken, note } from './helpers.js';

describe('apns-sim certificate auth', function () {
  let sim: ApnsSim;
  let ca: string;
  let trusted: ClientCertificate;
  let stranger: ClientCertificate;

  before(async function () {
    sim = await startApnsSim({ auth: 'certificate' });
    ca = await readFile(sim.caFile, 'utf8');
    // The simulator trusts client certificates from its own CA by default.
    trusted = await createClientCertificate(sim.certDir, await ensureCa(sim.certDir), 'client-trusted', TOPIC);
    const elsewhere = await mkdtemp(join(tmpdir(), 'herald-other-ca-'));
    stranger = await createClientCertificate(elsewhere, await ensureCa(elsewhere, 'other'), 'client-stranger', TOPIC);
  });

  after(async function () {
    await sim.close();
  });

  function provider(cert: ClientCertificate): apn.Provider {
    return new apn.Provider({ cert: cert.cert, key: cert.key, address: '127.0.0.1', port: sim.port, ca: [ca], production: false, connectionRetryLimit: 0 });
  }

  it('accepts a client certificate signed by the configured CA (@parse/node-apn)', async function () {
    const p = provider(trusted);
    try {
      const { sent, failed } = await p.send(note(), hexToken(1));
      expect(failed).to.deep.equal([]);
      expect(sent).to.have.length(1);
    } finally {
      await p.shutdown();
    }
  });

  it('answers 403 BadCertificate to a certificate from another CA (@parse/node-apn)', async function () {
    const p = provider(stranger);
    try {
      const { failed } = await p.send(note(), hexToken(2));
      expect(failed[0].status).to.equal(403);
      expect(failed[0].response?.reason).to.equal('BadCertificate');
    } finally {
      await p.shutdown();
    }
  });

  it('our client sends with certificate credentials, and gets BadCertificate with a stranger', async function () {
    const target = (c: ClientCertificate) => ({
      credentials: { kind: 'certificate' as const, cert: c.cert, key: c.key },
      topic: TOPIC,
      environment: 'sandbox' as const,
      url: sim.url,
      ca,
    });
    const good = createApnsClient(target(trusted));
    const bad = createApnsClient(target(stranger));
    try {
      expect((await good.send([{ token: hexToken(3), payload: PAYLOAD }]))[0]).to.include({ status: 200 });
      expect((await bad.send([{ token: hexToken(4), payload: PAYLOAD }]))[0]).to.include({ status: 403, reason: 'BadCertificate' });
    } finally {
      await good.close();
      await bad.close();
    }
  });
});
