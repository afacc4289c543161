// One FCM client per App (its service account, its access token, its connections), built on first
// use and rebuilt when the App's FCM credentials change (fcm_credentials.updated_at, read with each
// chunk that has Android devices). An App without FCM credentials has no client: its Android
// devices are skipped (docs/decisions.md "Issue 39").
import type { Queryable } from '../store/db.js';
import type { Logger } from '../log.js';
import { getFcmCredentials, type FcmServiceAccount } from './credentials-store.js';
import { FcmAccessTokens } from './access-token.js';
import { FcmKeyError } from './assertion.js';
import { createFcmClient } from './client.js';
import { clearFcmRefusal, recordFcmRefusal } from './refusals.js';
import type { FcmClient, FcmClientOptions } from './types.js';
import type { FleetTokenSource } from '../gateway/fleet-token.js';

export interface FcmSettings {
  /** HERALD_FCM_URL: overrides https://fcm.googleapis.com (the simulator). */
  url?: string;
  /** Content of HERALD_FCM_CA_FILE: trusted for FCM and for the token endpoint. */
  ca?: string;
  client?: Omit<FcmClientOptions, 'logger'>;
  /**
   * The App's access tokens. Default: minted in this process (`FcmAccessTokens`, one per App
   * client). The fleet-wide store (one token per App for every process, core/gateway/) plugs in
   * here, wrapping the in-process source it is given as its minter.
   */
  tokens?: (account: FcmServiceAccount, inProcess: FcmAccessTokens) => FleetTokenSource;
}

/** The App's service account could not make a client (a key that does not load). */
export class FcmCredentialsUnusableError extends Error {
  override name = 'FcmCredentialsUnusableError';
}

interface Known {
  version: string;
  client: FcmClient;
}

/** How long a replaced client stays open: past the gateway hold a chunk's rounds may last. */
const RETIRE_AFTER_MS = 10 * 60_000;

export class FcmClients {
  private readonly clients = new Map<string, Known>();
  private readonly retired = new Set<FcmClient>();
  private readonly refusedApps = new Set<string>();

  constructor(
    private readonly db: Queryable,
    private readonly settings: FcmSettings,
    private readonly logger: Logger,
  ) {}

  /** The App's client; undefined when it has no FCM credentials. */
  async get(appId: string): Promise<FcmClient | undefined> {
    const res = await this.db.query<{ version: string }>('SELECT updated_at::text AS version FROM fcm_credentials WHERE app_id = $1', [appId]);
    const version = res.rows[0]?.version;
    const known = this.clients.get(appId);
    if (version === undefined) {
      if (known) this.drop(appId, known);
      return undefined;
    }
    if (known && known.version === version) return known.client;
    const account = await getFcmCredentials(this.db, appId);
    if (!account) return undefined;
    let tokens: FcmAccessTokens;
    try {
      tokens = new FcmAccessTokens(account, { ca: this.settings.ca, dialer: this.settings.client?.dialer });
    } catch (error) {
      if (error instanceof FcmKeyError) throw new FcmCredentialsUnusableError(error.message);
      throw error;
    }
    const source = this.settings.tokens ? this.settings.tokens(account, tokens) : tokens;
    const client = createFcmClient({ projectId: account.projectId, url: this.settings.url, ca: this.settings.ca, tokens: source }, { ...this.settings.client, logger: this.logger });
    if (known) this.drop(appId, known);
    this.clients.set(appId, { version, client });
    return client;
  }

  /** FCM refused the App's service account (a stop action): recorded for its condition (refusals.ts). */
  async refused(appId: string, reason: string): Promise<void> {
    this.refusedApps.add(appId);
    await recordFcmRefusal(this.db, appId, reason);
  }

  /** FCM accepted a message of the App: a refusal this process recorded is over. */
  async accepted(appId: string): Promise<void> {
    if (!this.refusedApps.delete(appId)) return;
    await clearFcmRefusal(this.db, appId);
  }

  /**
   * A replaced client closes once the chunks still sending through it are done (RETIRE_AFTER_MS,
   * as core/apns/clients.ts): closed at once, their later rounds would meet a closed client.
   */
  private drop(appId: string, known: Known): void {
    this.clients.delete(appId);
    this.retired.add(known.client);
    setTimeout(() => {
      if (this.retired.delete(known.client)) void known.client.close().catch(() => undefined);
    }, RETIRE_AFTER_MS).unref();
  }

  async close(): Promise<void> {
    const all = [...[...this.clients.values()].map((c) => c.client), ...this.retired];
    this.clients.clear();
    this.retired.clear();
    await Promise.all(all.map((c) => c.close().catch(() => undefined)));
  }
}
