// The audience pages: find an install (one box: a subscription id, an external id, a token prefix
// or a tag, the select narrowing it to one kind), one install's page, and the segments with their
// sizes (each at most 30 s old). Read only: no form here changes an install, and a read key sees them all.
import type { SegmentDefinition } from '../../../core/apps/app-store.js';
import type { NotificationReport } from '../../../core/send/report.js';
import { ANY, FIND_BY, MAX_FOUND, MAX_QUERY_CHARS, type FindBy, type InstallPlatform, type InstallSummary, type Lookup } from '../../../core/subscriptions/find.js';
import type { Install } from '../../../core/subscriptions/subscription-store.js';
import { errorList, invalidWhen } from '../errors.js';
import { html, type Html } from '../html.js';
import { count, when } from './format.js';
import { sendsTable } from './sends-table.js';
import { ACTIVE_DAYS, isBuiltInSegment, type BuiltInSegment } from '../../../core/formats/built-in-segments.js';
import { ownerLink, platformWord, subscribedWord, subscriptionSentence } from './install-words.js';

const FIND_WORDS: Record<FindBy | typeof ANY, string> = {
  any: 'Anything (the text says what it is)',
  subscription_id: 'Subscription id',
  external_id: 'External id',
  token: 'Token prefix',
  tag: 'Tag (key=value)',
};
const FIND_CHOICES: readonly (FindBy | typeof ANY)[] = [ANY, ...FIND_BY];
/** How the page says what it looked for. */
const LOOKED_FOR: Record<FindBy, string> = {
  subscription_id: 'a subscription id',
  external_id: 'an external id',
  token: 'a token prefix',
  tag: 'a tag',
};
const either = (words: string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`);

/** The token's start and end: enough to recognise a device, not a whole handle to it on screen. */
export const maskedToken = (token: string) => (token.length > 24 ? `${token.slice(0, 16)}…${token.slice(-4)}` : token);
const seconds = (d: Date | null | undefined) => (d ? Math.floor(d.getTime() / 1000) : null);

export function audienceTabs(current: 'users' | 'installs' | 'find' | 'segments'): Html {
  return html`<nav class="tabs" aria-label="Audience">
    <a href="/dashboard/audience/users" ${current === 'users' ? html`aria-current="page"` : ''}>Users</a>
    <a href="/dashboard/audience/installs" ${current === 'installs' ? html`aria-current="page"` : ''}>Installs</a>
    <a href="/dashboard/audience" ${current === 'find' ? html`aria-current="page"` : ''}>Find an install</a>
    <a href="/dashboard/audience/segments" ${current === 'segments' ? html`aria-current="page"` : ''}>Segments</a>
  </nav>`;
}

export interface FindResult {
  lookups: Lookup[];
  found: InstallSummary[];
}

export function findPage(by: string, q: string, result: FindResult | undefined, error?: string): Html {
  const found = result?.found;
  const lookedFor = result ? html`<p class="note" id="looked-for">Looked for ${either(result.lookups.map((l) => LOOKED_FOR[l.by]))}.</p>` : '';
  return html`<h1>Audience</h1>${audienceTabs('find')}
  <form method="get" action="/dashboard/audience" class="filters" role="search" aria-label="Find an install">
    <label class="grow">Look for <input type="search" name="q" value="${q}" maxlength="${MAX_QUERY_CHARS}" required
      placeholder="subscription id, external id, token start or key=value" ${invalidWhen('find', !!error)}></label>
    <label>Find by <select name="by">${FIND_CHOICES.map((b) => html`<option value="${b}" ${b === by ? html`selected` : ''}>${FIND_WORDS[b]}</option>`)}</select></label>
    <button type="submit">Find</button>
  </form>
  ${errorList('find', error ? [error] : [])}
  ${found === undefined
    ? html`<p class="note">An install is one device of the app. Type its subscription id, the external id your app gave it, the start of its token (the first hex digits of an APNs token, or 8 or more characters of an FCM token, case kept), or a tag as key=value, and press Enter: the text says which it is. Find by narrows the search to one kind.</p>`
    : found.length === 0
      ? html`${lookedFor}<p aria-live="polite">No install matches.</p>`
      : html`${lookedFor}<p aria-live="polite">${found.length === MAX_FOUND ? `The newest ${MAX_FOUND} matches` : `${found.length} match${found.length === 1 ? '' : 'es'}`}</p>
        <div class="table-wrap"><table>
          <thead><tr><th scope="col">Subscription id</th><th scope="col">Platform</th><th scope="col">External id</th><th scope="col">Token</th><th scope="col">Language</th>
            <th scope="col">Subscribed</th><th scope="col">Last active (UTC)</th></tr></thead>
          <tbody class="rows">${found.map((i) => html`<tr data-id="${i.id}">
            <td data-label="Subscription id"><a class="row-link mono" href="/dashboard/audience/installs/${i.id}">${i.id}</a></td>
            <td data-label="Platform">${platformWord(i.platform)}</td>
            <td data-label="External id">${i.external_id ?? '—'}</td>
            <td data-label="Token" class="mono">${maskedToken(i.token)}</td>
            <td data-label="Language">${i.language ?? '—'}</td>
            <td data-label="Subscribed">${subscribedWord(i)}</td>
            <td data-label="Last active" class="date">${when(seconds(i.last_active), false)}</td>
          </tr>`)}</tbody>
        </table></div>`}`;
}

export function installPage(i: Install & { platform: InstallPlatform }, sends: NotificationReport[], checked: number): Html {
  const tags = Object.entries(i.tags).sort(([a], [b]) => a.localeCompare(b));
  return html`<p><a href="/dashboard/audience">← Audience</a></p>
  <h1>Install <span class="mono">${i.id}</span></h1>
  <p id="subscription" class="${i.subscribed ? 'ok' : 'error'}">${subscriptionSentence(i)}</p>
  <dl class="header" id="install">
    <div><dt>User</dt><dd id="install-user">${ownerLink(i, true)}</dd></div>
    <div><dt>Platform</dt><dd id="install-platform">${platformWord(i.platform)} (${i.platform === 'android' ? 'FCM' : 'APNs'})</dd></div>
    <div><dt>External id</dt><dd>${i.external_id ?? '—'}</dd></div>
    <div><dt>Token</dt><dd class="mono">${maskedToken(i.token)}</dd></div>
    <div><dt>Language</dt><dd>${i.language ?? '—'}</dd></div>
    <div><dt>Time zone</dt><dd>${i.timezone ?? '—'}</dd></div>
    <div><dt>Environment</dt><dd>${i.environment ?? 'the App\'s own'}</dd></div>
    <div><dt>Last registration</dt><dd>${when(seconds(i.registered_at))}</dd></div>
    <div><dt>Last active</dt><dd>${when(seconds(i.last_active))}</dd></div>
    <div><dt>First seen</dt><dd>${when(seconds(i.created_at))}</dd></div>
  </dl>
  <h2>Tags</h2>
  ${tags.length
    ? html`<table class="tags" id="tags"><thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
        <tbody>${tags.map(([k, v]) => html`<tr><td class="mono">${k}</td><td>${v}</td></tr>`)}</tbody></table>`
    : html`<p>No tags.</p>`}
  <h2>Latest sends it was in</h2>
  ${sendsTable(sends, checked)}
  <p class="note">Of the app's latest ${checked} sends that started. Herald keeps no record per device and send: a segment or tag send counts the install when it was registered before the send and matches its audience with today's tags.</p>`;
}

export interface SegmentSize {
  /** The segment's id (core/audience/segments.ts): its page is /dashboard/audience/segments/{id}. */
  id: string;
  name: string;
  builtIn: boolean;
  conditions: SegmentDefinition['conditions'];
  /** Who an API segment holds, in words (core/audience/segments.ts describeSegment); its conditions are not only tags. */
  who?: string;
  size: number;
}

const BUILT_IN_MEANING: Record<BuiltInSegment, string> = {
  'Subscribed Users': 'every subscribed install',
  'Active Users': `active in the last ${ACTIVE_DAYS} days`,
  'Inactive Users': `not active in the last ${ACTIVE_DAYS} days`,
};

/**
 * The segments and their sizes, each name linking to its page; `keptSeconds`: how old a size may be
 * (each is counted at most that often); `canCreate`: a send key's session, offered New segment.
 */
export function segmentsPage(segments: SegmentSize[], keptSeconds: number, canCreate: boolean): Html {
  return html`<h1>Audience</h1>${audienceTabs('segments')}
  ${canCreate ? html`<p><a href="/dashboard/audience/segments/new" id="new-segment">New segment</a></p>` : ''}
  <p class="note" id="sizes-note">Subscribed installs only, as a send would reach them. Each size is counted at most once every ${keptSeconds} seconds, so it may be up to ${keptSeconds} s old.</p>
  <div class="table-wrap"><table id="segments">
    <thead><tr><th scope="col">Segment</th><th scope="col">Who</th><th scope="col" class="num">Installs</th></tr></thead>
    <tbody>${segments.map((s) => html`<tr data-name="${s.name}">
      <td data-label="Segment"><a href="/dashboard/audience/segments/${s.id}">${s.name}</a>${s.builtIn ? html` <span class="note">(built in)</span>` : ''}</td>
      <td data-label="Who">${s.builtIn
        ? isBuiltInSegment(s.name) ? BUILT_IN_MEANING[s.name] : ''
        : s.who !== undefined ? html`<span class="mono">${s.who}</span>`
        : s.conditions.length
          ? s.conditions.map((c, i) => html`${i ? ' and ' : ''}<span class="mono">${c.key} ${c.relation}${c.value !== undefined ? ` ${c.value}` : ''}</span>`)
          : 'every subscribed install'}</td>
      <td data-label="Installs" class="num size">${count(s.size)}</td>
    </tr>`)}</tbody>
  </table></div>`;
}
