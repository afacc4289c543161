// One APNs client per app and environment (its credentials, topic and gateway: an App holds
// installs of both, docs/delivery.md "Token hygiene"), built on first use and
// rebuilt when the app's credentials change (their updated_at, read with every chunk).
import type { Pool } from '../store/db.js';
import type { Logger } from '../log.js';
import type { AppRecord } from '../apps/app-store.js';
import { getCredentials } from '../apps/app-store.js';
import type { StoredCredentials } from '../apps/credentials.js';
import { createApnsClient } from './index.js';
import type { ApnsClient, ApnsClientOptions, ApnsCredentials } from './types.js';

export interface ApnsSettings {
  /** HERALD_APNS_URL: overrides Apple's host (the simulator). */
  url?: string;
  /** HERALD_APNS_SANDBOX_URL: overrides the sandbox host; `url` when unset. */
  sandboxUrl?: string;
  /** Content of HERALD_APNS_CA_FILE. */
  ca?: string;
  client?: Omit<ApnsClientOptions, 'logger'>;
}

/** The app's credentials could not be turned into a client: the send stops (draft). */
export class CredentialsUnusableError extends Error {
  override name = 'CredentialsUnusableError';
}

export function toApnsCredentials(c: StoredCredentials): ApnsCredentials {
  if (c.kind === 'token') return { kind: 'token', keyP8: c.material.toString('utf8'), keyId: c.keyId ?? '', teamId: c.teamId ?? '' };
  const text = c.material.toString('utf8');
  // PEM certificate followed by its key, or a binary .p12.
  if (text.includes('-----BEGIN')) return { kind: 'certificate', cert: text, key: text, passphrase: c.passphrase };
  return { kind: 'certificate', pfx: c.material, passphrase: c.passphrase };
}

/**
 * How long a client replaced by newer credentials stays open. A chunk claimed under the older
 * credentials version keeps sending through it, round after round, for as long as the gateway
 * hold lets it (5 minutes by default): closed at once, every later round of that chunk met
 * ClientClosed, an outage that never ends (seen in test/controller/pgbouncer-roles.test.ts, where
 * the App's credentials are stored twice as it is applied).
 */
const RETIRE_AFTER_MS = 10 * 60_000;

export class ApnsClients {
  private readonly clients = new Map<string, { version: number; client: ApnsClient }>();
  private readonly retired = new Set<ApnsClient>();

  constructor(
    private readonly pool: Pool,
    private readonly settings: ApnsSettings,
    private readonly logger: Logger,
    private readonly factory: typeof createApnsClient = createApnsClient,
  ) {}

  async get(app: AppRecord, credentialsVersion: number, environment: AppRecord['environment'] = app.environment): Promise<ApnsClient> {
    const cacheKey = `${app.id}:${environment}`;
    const known = this.clients.get(cacheKey);
    if (known && known.version === credentialsVersion) return known.client;
    const stored = await getCredentials(this.pool, app.id);
    if (!stored) throw new CredentialsUnusableError('the app has no push key or certificate');
    let client: ApnsClient;
    try {
      client = this.factory(
        { credentials: toApnsCredentials(stored), topic: app.bundleId, environment, url: environment === 'sandbox' ? (this.settings.sandboxUrl ?? this.settings.url) : this.settings.url, ca: this.settings.ca },
        { ...this.settings.client, logger: this.logger },
      );
    } catch (error) {
      throw new CredentialsUnusableError((error as Error).message);
    }
    this.clients.set(cacheKey, { version: credentialsVersion, client });
    if (known) this.retire(known.client);
    return client;
  }

  /** Closes a replaced client once the chunks still using it are done (RETIRE_AFTER_MS). */
  private retire(client: ApnsClient): void {
    this.retired.add(client);
    setTimeout(() => {
      if (this.retired.delete(client)) void client.close().catch(() => undefined);
    }, RETIRE_AFTER_MS).unref();
  }

  async close(): Promise<void> {
    const all = [...[...this.clients.values()].map((c) => c.client), ...this.retired];
    this.clients.clear();
    this.retired.clear();
    await Promise.all(all.map((c) => c.close().catch(() => undefined)));
  }
}
