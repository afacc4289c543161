// APNs credentials and Firebase private keys are sealed in PostgreSQL (AES-256-GCM). A dump of
// the tables holds no key, certificate or passphrase; `herald credentials rotate-key` seals rows stored in clear
// before and moves rows to a new key.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { makeApp } from '../support/apps.js';
import { getCredentials, setCredentials } from '../../core/apps/app-store.js';
import { SealError, useKeyring } from '../../core/secrets/seal.js';
import { herald } from '../support/cli.js';
import { getFcmCredentials, setFcmCredentials } from '../../core/fcm/credentials-store.js';

describe('APNs credentials sealed at rest', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);
  after(() => useKeyring({ previous: [] }));

  /** What `pg_dump` would print of the table: every column as text. */
  const dump = async () =>
    JSON.stringify((await env.pool.query("SELECT row_to_json(c)::text AS row, encode(material, 'escape') AS m FROM app_credentials c")).rows);

  it('stores no key, certificate or passphrase in clear, and reads them back', async () => {
    useKeyring({ current: k1, previous: [] });
    const app = await makeApp(env.pool);
    const passphrase = 'p12-passphrase-4d1c';
    await setCredentials(env.pool, app.app.id, { kind: 'certificate', material: Buffer.from(app.p8), passphrase });
    const text = await dump();
    expect(text).to.not.include('PRIVATE KEY');
    expect(text).to.not.include(app.p8.split('\n')[1]);
    expect(text).to.not.include(passphrase);
    const back = await getCredentials(env.pool, app.app.id);
    expect(back!.material.toString()).to.equal(app.p8);
    expect(back!.passphrase).to.equal(passphrase);
  });

  it('rotate-key seals rows written in clear and moves sealed rows to the new key', async () => {
    useKeyring({ previous: [] }); // a row from before encryption
    const legacy = await makeApp(env.pool);
    expect(await dump()).to.include('PRIVATE KEY');
    const run = await herald(['credentials', 'rotate-key'], env.childEnv({
      HERALD_ENCRYPTION_KEY: k2.toString('base64'),
      HERALD_ENCRYPTION_KEYS_PREVIOUS: k1.toString('hex'),
    }));
    expect(run.stderr).to.equal('');
    expect(run.stdout).to.match(/^sealed \d+ app credentials?, \d+ identity secrets? and \d+ event signing secrets? with the current key\n$/);
    expect(await dump()).to.not.include('PRIVATE KEY');
    useKeyring({ current: k2, previous: [] }); // the old key is gone
    expect((await getCredentials(env.pool, legacy.app.id))!.material.toString()).to.equal(legacy.p8);
  });

  /** The fcm_credentials table as a dump prints it. */
  const fcmDump = async () =>
    JSON.stringify((await env.pool.query("SELECT row_to_json(f)::text AS row, encode(private_key, 'escape') AS k FROM fcm_credentials f")).rows);
  const serviceAccount = () => ({
    projectId: 'herald-demo', clientEmail: 'push@herald-demo.iam.gserviceaccount.com', tokenUri: 'https://oauth2.googleapis.com/token',
    privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });

  it('the Firebase private key: never in clear in fcm_credentials; rotate-key seals a row in clear and moves sealed rows to the new key', async () => {
    useKeyring({ current: k1, previous: [] });
    const sealedApp = await makeApp(env.pool);
    const sealedAccount = serviceAccount();
    await setFcmCredentials(env.pool, sealedApp.app.id, sealedAccount);
    expect(await fcmDump()).to.not.include('PRIVATE KEY');
    expect(await fcmDump()).to.not.include(sealedAccount.privateKey.split('\n')[1]);
    useKeyring({ previous: [] }); // a row from before encryption
    const legacyApp = await makeApp(env.pool);
    const legacyAccount = serviceAccount();
    await setFcmCredentials(env.pool, legacyApp.app.id, legacyAccount);
    expect(await fcmDump()).to.include('PRIVATE KEY');

    const run = await herald(['credentials', 'rotate-key'], env.childEnv({
      HERALD_ENCRYPTION_KEY: k2.toString('base64'),
      HERALD_ENCRYPTION_KEYS_PREVIOUS: k1.toString('hex'),
    }));
    expect(run.stderr).to.equal('');
    expect(await fcmDump()).to.not.include('PRIVATE KEY');
    useKeyring({ current: k2, previous: [] }); // k1 is gone: both rows open with k2 alone
    expect((await getFcmCredentials(env.pool, sealedApp.app.id))!.privateKey).to.equal(sealedAccount.privateKey);
    expect((await getFcmCredentials(env.pool, legacyApp.app.id))!.privateKey).to.equal(legacyAccount.privateKey);
    // Nothing left to move: a second run changes no Firebase row.
    const before = (await env.pool.query('SELECT private_key FROM fcm_credentials ORDER BY app_id')).rows;
    await herald(['credentials', 'rotate-key'], env.childEnv({ HERALD_ENCRYPTION_KEY: k2.toString('base64') }));
    expect((await env.pool.query('SELECT private_key FROM fcm_credentials ORDER BY app_id')).rows).to.deep.equal(before);
  });

  it("a sealed value copied to another app's row does not open there", async () => {
    useKeyring({ current: k1, previous: [] });
    const a = await makeApp(env.pool);
    const b = await makeApp(env.pool);
    await env.pool.query('UPDATE app_credentials SET material = (SELECT material FROM app_credentials WHERE app_id = $1) WHERE app_id = $2', [a.app.id, b.app.id]);
    expect((await getCredentials(env.pool, a.app.id))!.material.toString()).to.equal(a.p8);
    const error = await getCredentials(env.pool, b.app.id).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(SealError);
  });

  it('refuses a key that is not 32 bytes, naming the setting', async () => {
    const run = await herald(['credentials', 'rotate-key'], env.childEnv({ HERALD_ENCRYPTION_KEY: 'short' }));
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include('HERALD_ENCRYPTION_KEY must be 32 bytes');
  });
});
