// `herald events replay --app APP --from TIME --to TIME [--destination NAME]` and `herald events
// replays --app APP` (docs/cli.md, docs/events.md "Replay"): starts a replay that the senders'
// dispatchers serve, then follows its progress until it is done (Ctrl-C stops following, not the
// replay); or lists an app's replays.
import { getApp } from '../../core/apps/app-store.js';
import type { AppRecord } from '../../core/apps/app-store.js';
import { loadConfig } from '../../core/config.js';
import { isUuid } from '../../core/formats/uuid.js';
import { replayWindowDays } from '../../core/events/replay-window.js';
import { ReplayError, replays, startReplays, type Replay } from '../../core/events/replay.js';
import type { Pool } from '../../core/store/db.js';
import { fail, usageError } from '../runtime.js';
import { appByName, withPool } from './admin.js';

const USAGE = 'usage: herald events replay --app APP --from TIME --to TIME [--destination NAME]';
/** ISO 8601: a date (midnight UTC), or a date and time with its zone (Z or ±hh:mm). */
const TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** How often the progress is read while following. */
const FOLLOW_EVERY_MS = 500;

export interface ReplayOptions {
  app?: string;
  from?: string;
  to?: string;
  destination?: string;
}

function time(option: string, text: string | undefined): Date {
  if (text === undefined) usageError(`${USAGE} (${option} is missing)`);
  const at = TIME.test(text) ? new Date(text.length === 10 ? `${text}T00:00:00Z` : text) : undefined;
  if (!at || Number.isNaN(at.getTime())) usageError(`${option} must be an ISO 8601 time such as 2026-11-25T14:00:00Z (or a date, 2026-11-25), not ${JSON.stringify(text.slice(0, 40))}`);
  return at;
}

/** --app takes the app id as well as its name. */
async function appOf(pool: Pool, app: string | undefined): Promise<AppRecord> {
  if (app && isUuid(app)) return (await getApp(pool, app.toLowerCase())) ?? fail(`no app with id ${app}; herald apps list shows them`);
  return appByName(pool, app);
}

const count = (n: number) => n.toLocaleString('en-US');

function progressLine(r: Replay): string {
  const done = `${count(r.recordsDone)} of ${count(r.records)} records, ${count(r.eventsDelivered)} events delivered`;
  if (r.state === 'done') return `${r.destination}: done, ${done}`;
  if (r.state === 'delivering') return `${r.destination}: ${done}`;
  return `${r.destination}: ${r.state} (${r.lastError ?? 'no answer'}; attempt ${r.attempts}), ${done}`;
}

export async function eventsReplay(opts: ReplayOptions): Promise<void> {
  if (!opts.app) usageError(`${USAGE} (--app is missing)`);
  const from = time('--from', opts.from);
  const to = time('--to', opts.to);
  if (opts.destination !== undefined && !/^[a-z0-9@]([-a-z0-9]{0,61}[a-z0-9])?$/.test(opts.destination)) {
    usageError(`--destination is a destination's name (1-63 of a-z, 0-9, -), not ${JSON.stringify(opts.destination.slice(0, 70))}`);
  }
  await withPool(async (pool) => {
    const app = await appOf(pool, opts.app);
    let started: Replay[];
    try {
      started = await startReplays(pool, { appId: app.id, destination: opts.destination, from, to, windowDays: replayWindowDays(loadConfig(process.env).chunkRetentionDays) });
    } catch (error) {
      if (error instanceof ReplayError) return error.usage ? usageError(error.message) : fail(error.message);
      throw error;
    }
    const ids = started.map((r) => r.id);
    process.stdout.write(
      `replaying the events of ${app.name} recorded from ${from.toISOString()} to ${to.toISOString()} (${count(started[0].records)} records) to ${started.map((r) => `${r.destination} (replay ${r.id})`).join(', ')}; the senders deliver them, Ctrl-C stops following\n`,
    );
    // Follow: a line whenever a replay moves or its state changes, until every one is done.
    const last = new Map<string, string>();
    for (;;) {
      const now = await replays(pool, app.id, ids);
      for (const r of now) {
        const line = progressLine(r);
        if (last.get(r.id) !== line) process.stdout.write(`${line}\n`);
        last.set(r.id, line);
      }
      if (now.every((r) => r.state === 'done')) return;
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
    }
  });
}

/** `herald events replays --app APP`: the app's replays, newest first, tab-separated. */
export async function eventsReplays(appOption: string | undefined): Promise<void> {
  if (!appOption) usageError('usage: herald events replays --app APP');
  await withPool(async (pool) => {
    const app = await appOf(pool, appOption);
    const rows = await replays(pool, app.id);
    const lines = [['ID', 'DESTINATION', 'FROM', 'TO', 'RECORDS', 'EVENTS', 'STATE', 'LAST_ERROR']];
    for (const r of rows) {
      lines.push([r.id, r.destination, r.fromTime.toISOString(), r.toTime.toISOString(), `${r.recordsDone}/${r.records}`, String(r.eventsDelivered), r.state, r.lastError ?? '']);
    }
    process.stdout.write(`${lines.map((l) => l.join('\t')).join('\n')}\n`);
  });
}
