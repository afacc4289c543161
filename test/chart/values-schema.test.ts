// values.schema.json refuses bad values before anything is installed (STYLE.md "Config").
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { chartDir, valuesDir, useHelm } from './helm.js';

const minimal = join(valuesDir, 'minimal.yaml');

describe('charts/herald: values.schema.json refuses bad values before anything is installed', function () {
  const helm = useHelm();

  const cases: { title: string; set: string[]; values?: string; says: string[] }[] = [
    { title: 'a negative replica count', set: ['api.replicas=-1'], says: ["at '/api/replicas': minimum: got -1, want 0"] },
    { title: 'an unknown mirror mode', set: ['controller.mirrorSends=sometimes'], says: ["at '/controller/mirrorSends': value must be one of 'all', 'broadcasts', 'none'"] },
    {
      title: 'a missing database URL',
      set: [],
      values: stringify({ redis: { url: 'redis://redis:6379' }, nats: { url: 'nats://nats:4222' } }),
      says: ["at '/database'", "at '/database/url': minLength: got 0, want 1", "at '/database/existingSecret/name': minLength: got 0, want 1"],
    },
    { title: 'a misspelt key', set: ['api.replica=3'], says: ["at '/api': additional properties 'replica' not allowed"] },
    { title: 'a top-level key of another chart', set: ['postgresql.enabled=true'], says: ["additional properties 'postgresql' not allowed"] },
    { title: 'zero sender concurrency', set: ['sender.concurrency=0'], says: ["at '/sender/concurrency': minimum: got 0, want 1"] },
    { title: 'an ack wait under a second', set: ['sender.ackWaitMs=999'], says: ["at '/sender/ackWaitMs': minimum: got 999, want 1,000"] },
    { title: 'an unknown log level', set: ['logLevel=verbose'], says: ["at '/logLevel': value must be one of"] },
    { title: 'too many proxy hops', set: ['api.trustProxyHops=11'], says: ["at '/api/trustProxyHops': maximum: got 11, want 10"] },
    { title: 'a port out of range', set: ['httpPort=70000'], says: ["at '/httpPort': maximum: got 70,000, want 65,535"] },
    { title: 'a replica count in words', set: ['--set-string', 'sender.replicas=two'], says: ["at '/sender/replicas': got string, want integer"] },
    { title: 'an unknown ingress pathType', set: ['ingress.hosts[0].paths[0].pathType=Anything'], says: ["at '/ingress/hosts/0/paths/0/pathType': value must be one of"] },
    { title: 'a plain-http APNs URL', set: ['apns.url=http://apns.local'], says: ["at '/apns/url'", 'does not match pattern'] },
    { title: 'a lease shorter than 2 s', set: ['controller.leaderElection.leaseDurationSeconds=1'], says: ["at '/controller/leaderElection/leaseDurationSeconds': minimum: got 1, want 2"] },
    { title: 'an unknown simulator auth mode', set: ['apnsSimulator.auth=password'], says: ["at '/apnsSimulator/auth': value must be one of"] },
    { title: 'an https or socks proxy (HTTPS_PROXY is an http:// CONNECT proxy)', set: ['proxy.https=socks5://proxy:1080'], says: ["at '/proxy/https'", 'does not match pattern'] },
    { title: 'a NO_PROXY entry holding a comma', set: ['proxy.noProxy[0]=a.svc\\,b.svc'], says: ["at '/proxy/noProxy/0'", 'does not match pattern'] },
    { title: 'a session URL that is not PostgreSQL', set: ['database.sessionUrl=mysql://db/herald'], says: ["at '/database/sessionUrl'", 'does not match pattern'] },
    { title: 'a pool of one connection', set: ['sender.databaseConnections=1'], says: ["at '/sender/databaseConnections': minimum: got 1, want 2"] },
  ];
  for (const c of cases) {
    it(`refuses ${c.title}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'herald-chart-'));
      try {
        const file = join(dir, 'values.yaml');
        await writeFile(file, c.values ?? (await readFile(minimal, 'utf8')));
        const sets = c.set[0] === '--set-string' ? c.set : c.set.flatMap((s) => ['--set', s]);
        const result = await helm().run(['template', 'herald', chartDir, '-f', file, ...sets]);
        expect(result.code, result.stdout).not.to.equal(0);
        expect(result.stderr).to.contain("values don't meet the specifications of the schema");
        for (const says of c.says) expect(result.stderr).to.contain(says);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
