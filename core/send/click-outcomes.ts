// getOutcomes (GET /apps/{app_id}/outcomes; issue 30 point 4, docs/api.md "Outcomes"): OneSignal's
// outcome query read as Herald can answer it. Herald records one outcome, the click (an open the
// app's SDK reports, core/send/opens.ts): `os__click.count`, the opens of the app's sends within
// the time range. Every parameter is OneSignal's (outcome_names, outcome_names[],
// outcome_time_range, outcome_platforms, outcome_attribution), bounded; any other outcome name,
// or an aggregation other than count, is a 400 naming it.
import { BadRequestError } from '../errors.js';
import type { Queryable } from '../store/db.js';

export const CLICK_OUTCOME = 'os__click';

/** OneSignal's time ranges (1mo: 30 days; 30d is taken as the same). Default 1h. */
export const OUTCOME_TIME_RANGES: Readonly<Record<string, number>> = { '1h': 3_600, '1d': 86_400, '1mo': 30 * 86_400, '30d': 30 * 86_400 };
/** OneSignal's subscription types (device_type); Herald's installs are 0, iOS, and 1, Android. */
export const OUTCOME_PLATFORMS = ['0', '1', '2', '5', '8', '11', '14', '17'] as const;
export const IOS_PLATFORM = '0';
export const ANDROID_PLATFORM = '1';
/** A click is direct only (OneSignal: os__click has direct attribution). Default total. */
export const OUTCOME_ATTRIBUTIONS = ['direct', 'influenced', 'unattributed', 'total'] as const;

export const OUTCOME_LIMITS = { names: 20, name: 128, platforms: OUTCOME_PLATFORMS.length } as const;

/** Why a name other than os__click.count has no answer. */
export const unknownOutcome = (name: string) =>
  `outcome_names: Herald records one outcome, the click (os__click.count); ${name.slice(0, OUTCOME_LIMITS.name)} is not recorded.`;

export interface OutcomeQuery {
  /** The names asked for, each os__click.count (repeats dropped). */
  names: string[];
  seconds: number;
  /** Whether the platforms asked for include iOS, Android (none asked: all, so both). */
  ios: boolean;
  android: boolean;
  attribution: (typeof OUTCOME_ATTRIBUTIONS)[number];
}

type Query = Record<string, string | string[] | undefined>;

function one(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new BadRequestError(`Give ${name} once.`);
  return value === undefined || value === '' ? undefined : value;
}

/** The outcome query of the call's parameters; a 400 naming the parameter for anything else. */
export function parseOutcomeQuery(query: Query): OutcomeQuery {
  // outcome_names is comma-separated; outcome_names[] gives one name each (a name with a comma).
  const listed = one(query, 'outcome_names')?.split(',') ?? [];
  const single = query['outcome_names[]'];
  const names = [...listed, ...(single === undefined ? [] : Array.isArray(single) ? single : [single])].map((n) => n.trim()).filter(Boolean);
  if (!names.length) throw new BadRequestError('outcome_names is required: os__click.count.');
  if (names.length > OUTCOME_LIMITS.names) throw new BadRequestError(`outcome_names: at most ${OUTCOME_LIMITS.names} names.`);
  for (const name of names) {
    if (name === `${CLICK_OUTCOME}.count`) continue;
    if (name === `${CLICK_OUTCOME}.sum`) throw new BadRequestError('outcome_names: os__click is counted only (os__click.count); a click has no value to sum.');
    throw new BadRequestError(unknownOutcome(name));
  }
  const range = one(query, 'outcome_time_range') ?? '1h';
  const seconds = OUTCOME_TIME_RANGES[range];
  if (!Object.hasOwn(OUTCOME_TIME_RANGES, range)) throw new BadRequestError('outcome_time_range is one of 1h, 1d, 1mo (30d is read as 1mo).');
  const platforms = one(query, 'outcome_platforms')?.split(',').map((p) => p.trim());
  if (platforms && (platforms.length > OUTCOME_LIMITS.platforms || platforms.some((p) => !(OUTCOME_PLATFORMS as readonly string[]).includes(p)))) {
    throw new BadRequestError(`outcome_platforms is a comma-separated list of OneSignal's device types (${OUTCOME_PLATFORMS.join(', ')}; Herald's installs are 0, iOS, and 1, Android).`);
  }
  const attribution = one(query, 'outcome_attribution') ?? 'total';
  if (!(OUTCOME_ATTRIBUTIONS as readonly string[]).includes(attribution)) throw new BadRequestError(`outcome_attribution is one of ${OUTCOME_ATTRIBUTIONS.join(', ')}.`);
  return {
    names: [...new Set(names)], seconds, attribution: attribution as OutcomeQuery['attribution'],
    ios: !platforms || platforms.includes(IOS_PLATFORM), android: !platforms || platforms.includes(ANDROID_PLATFORM),
  };
}

export interface OutcomeData {
  id: string;
  value: number;
  aggregation: 'count';
}

/**
 * The app's clicks in the range: each open of one of its sends reported since then (an install
 * counts once per send, as `clicked`), of iOS and Android installs both. One platform asked for:
 * the opens of its installs only (each open's install by its primary key). Influenced and
 * unattributed clicks are none, as are another platform's (web, email, SMS).
 */
export async function clickOutcomes(db: Queryable, appId: string, q: OutcomeQuery, now: Date): Promise<{ outcomes: OutcomeData[] }> {
  let value = 0;
  if ((q.ios || q.android) && (q.attribution === 'direct' || q.attribution === 'total')) {
    const one = q.ios && q.android ? '' : ` AND EXISTS (SELECT 1 FROM subscriptions i WHERE i.id = o.subscription_id AND i.platform = '${q.ios ? 'ios' : 'android'}')`;
    const res = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM opens o JOIN sends s ON s.id = o.send_id WHERE s.app_id = $1 AND o.opened_at > $2${one}`,
      [appId, new Date(now.getTime() - q.seconds * 1000)],
    );
    value = Number(res.rows[0].n);
  }
  return { outcomes: q.names.map(() => ({ id: CLICK_OUTCOME, value, aggregation: 'count' as const })) };
}
