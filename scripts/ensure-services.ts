// `make services`: PostgreSQL, Redis, NATS JetStream and PgBouncer running locally (see test/env/services.ts),
// and the HTTP/2 tools the tests use. `--only=postgres,redis,nats` (`make dev`): those servers,
// nothing more.
import { ensureNats, ensurePostgres, ensureRedis, ensureServices } from '../test/env/services.js';

const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
if (only) {
  if (only.includes('postgres')) await ensurePostgres();
  if (only.includes('redis')) await ensureRedis();
  if (only.includes('nats')) await ensureNats();
  process.stdout.write(`up: ${only.join(', ')}\n`);
} else {
  await ensureServices();
  process.stdout.write('PostgreSQL :5432, Redis :6379, NATS JetStream :4222 and PgBouncer :6432 are up; nghttpd and h2load installed\n');
}
