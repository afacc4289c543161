// `make services`: PostgreSQL, Redis and NATS JetStream running locally (see test/env/services.ts).
import { ensureServices } from '../test/env/services.js';

await ensureServices();
process.stdout.write('PostgreSQL :5432, Redis :6379 and NATS JetStream :4222 are up; nghttpd and h2load installed\n');
