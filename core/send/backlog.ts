// What the alerts need from the system of record (charts/herald/templates/prometheusrule.yaml):
// the outbox rows not yet published, how long the oldest running send has gone without progress,
// and when each app's APNs certificate expires. Read by the api's /metrics at scrape time; each
// query is on a small table or a partial index (sends_running).
import type { Queryable } from '../store/db.js';
import { statusInSql } from '../send-model/states.js';

export interface Backlog {
  outboxPending: number;
  /** Age of the oldest unpublished outbox row (s); 0 when empty. */
  outboxOldestSeconds: number;
  /** Sends queued or sending, and the longest any of them has gone without an update (s). */
  sendsRunning: number;
  sendsOldestUpdateSeconds: number;
  /** Certificate credentials with a known expiry (token keys do not expire). */
  credentialExpiries: { app: string; expiresAt: Date }[];
}

export async function readBacklog(db: Queryable): Promise<Backlog> {
  const [outbox, sends, creds] = await Promise.all([
    db.query(`SELECT count(*)::int AS n, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age FROM outbox`),
    db.query(`SELECT count(*)::int AS n, COALESCE(EXTRACT(EPOCH FROM now() - min(updated_at)), 0)::float8 AS age
              FROM sends WHERE ${statusInSql('status', 'underway')}`),
    db.query(`SELECT a.name, c.expires_at FROM app_credentials c JOIN apps a ON a.id = c.app_id
              WHERE c.expires_at IS NOT NULL AND NOT a.disabled`),
  ]);
  return {
    outboxPending: outbox.rows[0].n,
    outboxOldestSeconds: Math.max(0, outbox.rows[0].age),
    sendsRunning: sends.rows[0].n,
    sendsOldestUpdateSeconds: Math.max(0, sends.rows[0].age),
    credentialExpiries: creds.rows.map((r) => ({ app: r.name as string, expiresAt: r.expires_at as Date })),
  };
}
