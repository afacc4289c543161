// The transaction of a user call. Calls that lock a user's rows and alias names can, rarely, wait
// on each other in a circle (an alias call on an install while an import moves that install to the
// user of the alias); PostgreSQL then ends one with SQLSTATE 40P01 and nothing of it is written.
// That call is run again, up to ATTEMPTS times, instead of answering a 500.
import { inTransaction, type Pool, type PoolClient } from '../store/db.js';

const DEADLOCK = '40P01';
const ATTEMPTS = 3;

export async function inUserTransaction<T>(pool: Pool, work: (db: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(pool, work);
    } catch (error) {
      if (attempt >= ATTEMPTS || (error as { code?: unknown }).code !== DEADLOCK) throw error;
    }
  }
}
