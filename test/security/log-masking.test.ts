// Every secret form of a URL is masked in the logs of a run. The api is started with a
// password, a bare password, a token and secret query parameters in its URLs, at debug level; its
// whole output is then searched for each secret.
import { expect } from 'chai';
import { useTestEnv, NATS_URL, REDIS_URL } from '../env/index.js';
import { startRole } from '../e2e/harness.js';
import { maskUrlSecrets } from '../../core/secrets/mask.js';

const SECRETS = {
  userPass: 'pg-user-pass-1f3a',
  queryPassword: 'pg-query-pass-7c2e',
  bareRedisPassword: 'redis-bare-pass-5b9d',
  natsToken: 'nats-token-8e4f',
};

describe('secrets in URLs are masked in logs', () => {
  const env = useTestEnv();

  it('masks user:pass@, :pw@, token@, ?password= and ?token= forms', () => {
    const cases: Array<[string, string]> = [
      ['postgres://herald:pw1@db:5432/herald', 'postgres://***@db:5432/herald'],
      ['redis://:pw2@redis:6379/0', 'redis://***@redis:6379/0'],
      ['nats://tok3@nats:4222', 'nats://***@nats:4222'],
      ['postgres://db/h?sslmode=require&password=pw4', 'postgres://db/h?sslmode=require&password=***'],
      ['nats://n:4222?token=tok5', 'nats://n:4222?token=***'],
      ['https://x.example/cb?api_key=k6&page=2', 'https://x.example/cb?api_key=***&page=2'],
      ['rediss://default:pw7@r:6380', 'rediss://***@r:6380'],
    ];
    for (const [url, masked] of cases) expect(maskUrlSecrets(url)).to.equal(masked);
    expect(maskUrlSecrets('write to ops@example.com, page=2')).to.equal('write to ops@example.com, page=2');
  });

  it('a run of the api with secrets in every URL form logs none of them', async () => {
    const db = new URL(env.databaseUrl);
    db.username = 'postgres';
    db.password = SECRETS.userPass;
    db.searchParams.set('password', SECRETS.queryPassword);
    const redis = new URL(REDIS_URL);
    redis.password = SECRETS.bareRedisPassword;
    const nats = new URL(NATS_URL);
    nats.username = SECRETS.natsToken;
    const api = await startRole('api', env.childEnv({
      HERALD_LOG_LEVEL: 'debug',
      HERALD_DATABASE_URL: db.toString(),
      HERALD_REDIS_URL: redis.toString(),
      HERALD_NATS_URL: nats.toString(),
    }));
    await api.kill('SIGTERM');
    const output = api.output();
    expect(output).to.include('herald api starting');
    expect(output).to.include('***@');
    for (const [form, secret] of Object.entries(SECRETS)) {
      expect(output, `${form} leaked`).to.not.include(secret);
    }
  });
});
