// An app's webhook destinations, from `spec.events.destinations[]` of its App resource or of the
// same manifest in a file (`herald apps apply`): checked, their signing secrets read from the
// named Secret and stored sealed like push credentials (core/secrets/seal.ts), never logged.
import type { Queryable } from '../store/db.js';
import { isSealedWithCurrent, seal, sealContext, unseal } from '../secrets/seal.js';
import { EVENT_KINDS, isEventKind, type EventKind } from './kinds.js';
import { destinationUrlProblem } from './destination-url.js';
import { STREAM_DESTINATION, STREAM_URL } from './stream.js';

export interface DestinationSpec {
  name: string;
  url: string;
  /** Omitted: every kind. */
  kinds?: EventKind[];
  secretRef: { name: string; key: string };
}

export interface EventsSpec {
  destinations?: DestinationSpec[];
  /** The app's events on the NATS JetStream stream too (core/events/stream.ts). */
  stream?: boolean;
}

/** A destination problem the App's author fixes; `reason` is CamelCase (the controller's condition). */
export class DestinationError extends Error {
  override name = 'DestinationError';
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

/** Destinations per App: each is a dispatch lane of its own (the CRD's maxItems says the same). */
export const MAX_DESTINATIONS = 10;
/** A destination's name: a DNS label, as Kubernetes names go (1–63). */
export const DESTINATION_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';
const NAME = new RegExp(DESTINATION_NAME_PATTERN);
/** Standard Webhooks: `whsec_` then the base64 of 24 to 64 random bytes. */
const SECRET_PREFIX = 'whsec_';
export const SECRET_BYTES = { min: 24, max: 64 } as const;

/** base64 without its trailing padding (Buffer.from ignores what is not base64: compare back). */
function unpadded(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '=') end--;
  return text.slice(0, end);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks `spec.events` (the CRD's schema says the same for a cluster; a file has no schema) and the
 * URL rules. Returns the destinations, or throws DestinationError naming the field.
 */
export function checkEventsSpec(events: unknown, httpHosts: readonly string[]): DestinationSpec[] {
  if (events === undefined || events === null) return [];
  if (!isObject(events)) throw new DestinationError('EventsInvalid', 'spec.events must be an object');
  if (events.stream !== undefined && typeof events.stream !== 'boolean') throw new DestinationError('EventsInvalid', 'spec.events.stream must be true or false');
  const list = events.destinations ?? [];
  if (!Array.isArray(list)) throw new DestinationError('EventsInvalid', 'spec.events.destinations must be a list');
  if (list.length > MAX_DESTINATIONS) throw new DestinationError('EventsInvalid', `spec.events.destinations has ${list.length} entries: at most ${MAX_DESTINATIONS}`);
  const seen = new Set<string>();
  return list.map((d: unknown, i) => {
    const at = `spec.events.destinations[${i}]`;
    if (!isObject(d)) throw new DestinationError('DestinationInvalid', `${at} must be an object`);
    if (typeof d.name !== 'string' || !NAME.test(d.name)) {
      throw new DestinationError('DestinationInvalid', `${at}.name must be 1-63 lower-case letters, digits and "-" (a DNS label)`);
    }
    if (seen.has(d.name)) throw new DestinationError('DestinationInvalid', `${at}.name ${d.name} is used twice: destination names are unique in an App`);
    seen.add(d.name);
    if (typeof d.url !== 'string') throw new DestinationError('DestinationInvalid', `${at}.url is required`);
    const urlProblem = destinationUrlProblem(d.url, httpHosts);
    if (urlProblem) throw new DestinationError('DestinationRefused', `${at}: ${urlProblem}`);
    let kinds: EventKind[] | undefined;
    if (d.kinds !== undefined) {
      if (!Array.isArray(d.kinds) || d.kinds.length === 0) throw new DestinationError('DestinationInvalid', `${at}.kinds must list at least one kind (omit it for every kind)`);
      const unknown = d.kinds.find((k) => !isEventKind(k));
      if (unknown !== undefined) throw new DestinationError('DestinationInvalid', `${at}.kinds: ${JSON.stringify(unknown)} is not one of ${EVENT_KINDS.join(', ')}`);
      kinds = [...new Set(d.kinds as EventKind[])];
    }
    const ref = d.secretRef;
    if (!isObject(ref) || typeof ref.name !== 'string' || !ref.name || typeof ref.key !== 'string' || !ref.key) {
      throw new DestinationError('DestinationInvalid', `${at}.secretRef needs name and key (the Secret entry holding the whsec_ signing secret)`);
    }
    return { name: d.name, url: d.url, kinds, secretRef: { name: ref.name, key: ref.key } };
  });
}

/** The destination's signing secret as stored (`whsec_…`), from its Secret's data. */
export function signingSecretOf(d: DestinationSpec, secrets: ReadonlyMap<string, Record<string, Buffer>>): string {
  const data = secrets.get(d.secretRef.name);
  const where = `Secret ${d.secretRef.name}`;
  if (!data) throw new DestinationError('SecretMissing', `destination ${d.name}: ${where} was not found`);
  const value = data[d.secretRef.key]?.toString('utf8').trim();
  if (!value) throw new DestinationError('SecretKeyMissing', `destination ${d.name}: ${where} has no ${d.secretRef.key} entry`);
  const key = value.startsWith(SECRET_PREFIX) ? Buffer.from(value.slice(SECRET_PREFIX.length), 'base64') : undefined;
  if (!key || key.length < SECRET_BYTES.min || key.length > SECRET_BYTES.max || unpadded(key.toString('base64')) !== unpadded(value.slice(SECRET_PREFIX.length))) {
    // Never the value itself: it is a secret even when malformed.
    throw new DestinationError('SecretInvalid', `destination ${d.name}: ${d.secretRef.key} in ${where} must be a Standard Webhooks secret, whsec_ then the base64 of ${SECRET_BYTES.min}-${SECRET_BYTES.max} bytes`);
  }
  return value;
}

const secretContext = (appId: string) => sealContext('event_destinations', 'secret', appId);

/**
 * Makes the app's destinations these (in the caller's transaction): new ones start after the
 * app's last recorded event (a destination receives what happens from now on), changed ones keep
 * their place, removed ones go with it. `stream`: the app's stream row (core/events/stream.ts)
 * is kept, or made, the same way.
 */
export async function storeDestinations(db: Queryable, appId: string, destinations: Array<DestinationSpec & { secret: string }>, opts: { stream?: boolean } = {}): Promise<void> {
  const kept = [...destinations.map((d) => d.name), ...(opts.stream ? [STREAM_DESTINATION] : [])];
  await db.query('DELETE FROM event_destinations WHERE app_id = $1 AND NOT (name = ANY($2::text[]))', [appId, kept]);
  if (opts.stream) {
    // No signing secret: an empty one, sealed like the others so a key rotation reseals it alike.
    await db.query(
      `INSERT INTO event_destinations (app_id, name, url, secret, delivered_through)
       VALUES ($1, $2, $3, $4, coalesce((SELECT max(id) FROM event_records WHERE app_id = $1), 0))
       ON CONFLICT (app_id, name) DO NOTHING`,
      [appId, STREAM_DESTINATION, STREAM_URL, seal(Buffer.alloc(0), secretContext(appId))],
    );
  }
  for (const d of destinations) await storeDestination(db, appId, d);
}

/** One destination written, the app's others left as they are: a new one starts after the app's last record (no history). */
export async function storeDestination(db: Queryable, appId: string, d: DestinationSpec & { secret: string }): Promise<void> {
  await db.query(
    `INSERT INTO event_destinations (app_id, name, url, kinds, secret, delivered_through)
     VALUES ($1, $2, $3, $4, $5, coalesce((SELECT max(id) FROM event_records WHERE app_id = $1), 0))
     ON CONFLICT (app_id, name) DO UPDATE SET url = EXCLUDED.url, kinds = EXCLUDED.kinds, secret = EXCLUDED.secret`,
    [appId, d.name, d.url, d.kinds ?? null, seal(Buffer.from(d.secret, 'utf8'), secretContext(appId))],
  );
}

/** `herald credentials rotate-key`: every signing secret sealed with the current key. Returns how many changed. */
export async function resealEventSecrets(db: Queryable): Promise<number> {
  const rows = (await db.query<{ app_id: string; name: string; secret: Buffer }>('SELECT app_id, name, secret FROM event_destinations')).rows;
  let changed = 0;
  for (const r of rows) {
    if (isSealedWithCurrent(r.secret)) continue;
    const context = secretContext(r.app_id);
    await db.query('UPDATE event_destinations SET secret = $3 WHERE app_id = $1 AND name = $2', [r.app_id, r.name, seal(unseal(r.secret, context), context)]);
    changed++;
  }
  return changed;
}

/** A stored destination's signing secret (`whsec_…`), for signing only. */
export function openSigningSecret(appId: string, sealed: Buffer): string {
  return unseal(sealed, secretContext(appId)).toString('utf8');
}
