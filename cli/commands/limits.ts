// Builds the rate limiter and the idempotency guard of the api (issue "Rate buckets and
// idempotent retries"). Until they exist the api runs without them.
import type { Pool } from '../../core/store/db.js';
import type { ApiDeps } from '../../api/deps.js';
import type { Runtime } from '../runtime.js';

export async function buildLimits(_rt: Runtime, _pool: Pool): Promise<{ deps: Partial<ApiDeps>; close(): Promise<void> }> {
  return { deps: {}, close: async () => undefined };
}
