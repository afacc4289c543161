// The audience pages of issue 27 (point 7) and issue 40 (point 5, one user model): the app's users
// (users rows, and users named only by the external id their installs carry) and installs to
// browse, page by page with their totals, a user found by any alias; a user's page (aliases,
// tags, installs, the sends that reached it); and the question before erasing one (the POST of its
// form is the only change, as a send's cancel).
import type { UserView } from '../../../core/users/user-store.js';
import type { UnnamedUserView, UserEntry } from '../../../core/dashboard-reads/users-list.js';
import { USER_LIMITS } from '../../../core/users/user-limits.js';
import type { BrowsedInstall } from '../../../core/subscriptions/browse-installs.js';
import type { NotificationReport } from '../../../core/send/report.js';
import type { Erased } from '../../../core/users/erase.js';
import { html, type Html } from '../html.js';
import { audienceTabs, maskedToken } from './audience.js';
import { count, when } from './format.js';
import { sendsTable } from './sends-table.js';
import { pager, plural, type Paging } from './pager.js';
import { aliasHref, ownerLink, platformWord, subscribedWord } from './install-words.js';
import type { InstallPlatform } from '../../../core/subscriptions/find.js';
import { errorList } from '../errors.js';

export type { Paging };

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/** What an erasure removed, in words, for the note after it. */
export function erasedText(e: Erased): string {
  return `The user was erased: ${plural(e.installs, 'install')}, ${plural(e.aliases, 'alias', 'aliases')}, ${plural(e.live_activity_tokens, 'Live Activity token')}, ${plural(e.push_type_tokens, 'push type token')} and ${plural(e.opens, 'open')} deleted; its ids taken out of ${plural(e.sends_scrubbed, 'list send')}.`;
}

/** Find a user by any alias: its label (external_id, onesignal_id or the app's own) and id. */
function findUser(find: { label: string; id: string; error?: string }): Html {
  return html`<form method="get" action="/dashboard/audience/users/by-alias" class="filters" role="search" aria-label="Find a user">
    <label>Alias label <input name="label" value="${find.label}" maxlength="64" required></label>
    <label class="grow">Alias id <input type="search" name="id" value="${find.id}" maxlength="${USER_LIMITS.alias_id}" required placeholder="user-42"></label>
    <button type="submit">Find the user</button>
  </form>${errorList('find', find.error ? [find.error] : [])}`;
}

function userRow(u: UserEntry): Html {
  if (u.kind === 'unnamed') {
    return html`<tr data-external="${u.external_id}">
      <td data-label="OneSignal id"><a class="row-link" href="${aliasHref('external_id', u.external_id)}"><span class="note">not made yet</span></a></td>
      <td data-label="External id">${u.external_id}</td>
      <td data-label="Aliases" class="num">1</td>
      <td data-label="Installs" class="num">${count(u.installs)}</td>
      <td data-label="Tags" class="num">${count(u.tags)}</td>
      <td data-label="Last active" class="date">${when(seconds(u.last_active), false)}</td>
    </tr>`;
  }
  return html`<tr data-id="${u.id}">
      <td data-label="OneSignal id"><a class="row-link mono" href="/dashboard/audience/users/${u.id}">${u.id}</a></td>
      <td data-label="External id">${u.external_id ?? '—'}</td>
      <td data-label="Aliases" class="num">${count(u.aliases)}</td>
      <td data-label="Installs" class="num">${count(u.installs)}</td>
      <td data-label="Tags" class="num">${count(u.tags)}</td>
      <td data-label="Last active" class="date">${when(seconds(u.last_active), false)}</td>
    </tr>`;
}

export function usersPage(users: UserEntry[], paging: Paging, erased?: string, find = { label: 'external_id', id: '' } as { label: string; id: string; error?: string }): Html {
  return html`<h1>Audience</h1>${audienceTabs('users')}
  ${erased ? html`<p class="ok" role="status" id="erased">${erased}</p>` : ''}
  ${findUser(find)}
  ${pager('/dashboard/audience/users', users.length, 'user', paging)}
  ${users.length ? html`<div class="table-wrap"><table id="users">
    <thead><tr><th scope="col">OneSignal id</th><th scope="col">External id</th><th scope="col" class="num">Aliases</th>
      <th scope="col" class="num">Installs</th><th scope="col" class="num">Tags</th><th scope="col">Last active (UTC)</th></tr></thead>
    <tbody class="rows">${users.map(userRow)}</tbody></table></div>` : ''}
  <p class="note">Users made or named through the API (createUser, an alias call) in OneSignal id order, then the users your app named only by an external id, in its order: their OneSignal id is made the first time a user call names them, and their installs carry their tags until then. An install with neither is a user of its own: it is under Installs.</p>`;
}

const PLATFORM_FILTERS: readonly { value?: InstallPlatform; label: string }[] = [{ label: 'All' }, { value: 'ios', label: 'iOS' }, { value: 'android', label: 'Android' }];

export function installsPage(installs: BrowsedInstall[], paging: Paging, platform?: InstallPlatform): Html {
  const base = `/dashboard/audience/installs${platform ? `?platform=${platform}` : ''}`;
  return html`<h1>Audience</h1>${audienceTabs('installs')}
  <nav class="tabs" id="platform-filter" aria-label="Platform">${PLATFORM_FILTERS.map((f) => html`<a href="/dashboard/audience/installs${f.value ? `?platform=${f.value}` : ''}" ${f.value === platform ? html`aria-current="page"` : ''}>${f.label}</a>`)}</nav>
  ${pager(base, installs.length, platform ? `${platformWord(platform)} install` : 'install', paging)}
  ${installs.length ? html`<div class="table-wrap"><table id="installs">
    <thead><tr><th scope="col">Subscription id</th><th scope="col">User</th><th scope="col">Platform</th><th scope="col">External id</th><th scope="col">Token</th>
      <th scope="col">Language</th><th scope="col">Subscribed</th><th scope="col">Last active (UTC)</th></tr></thead>
    <tbody class="rows">${installs.map((i) => html`<tr data-id="${i.id}">
      <td data-label="Subscription id"><a class="mono" href="/dashboard/audience/installs/${i.id}">${i.id}</a></td>
      <td data-label="User">${ownerLink(i)}</td>
      <td data-label="Platform">${platformWord(i.platform)}</td>
      <td data-label="External id">${i.external_id ?? '—'}</td>
      <td data-label="Token" class="mono">${maskedToken(i.token)}</td>
      <td data-label="Language">${i.language ?? '—'}</td>
      <td data-label="Subscribed">${subscribedWord(i)}</td>
      <td data-label="Last active" class="date">${when(seconds(i.last_active), false)}</td>
    </tr>`)}</tbody></table></div>` : ''}
  <p class="note">Newest first${platform ? `, ${platformWord(platform)} only` : ''}. Find an install looks one up by id, external id, token or tag.</p>`;
}

export interface UserPageData {
  id: string;
  view: UserView;
  installs: BrowsedInstall[];
  sends: NotificationReport[];
  checked: number;
  canErase: boolean;
}

/** What a user's page shows, whether it has its users row yet or not. */
interface UserShown {
  heading: Html;
  language: string | null;
  timezone: string | null;
  firstActive: number | null;
  lastActive: number | null;
  aliases: [string, string][];
  tags: [string, string][];
  installs: BrowsedInstall[];
  sends: NotificationReport[];
  checked: number;
  /** What the page ends with: its erasure, or why there is none here. */
  end: Html;
  note?: Html;
}

const byKey = (a: [string, string], b: [string, string]) => a[0].localeCompare(b[0]);

function userDetails(d: UserShown): Html {
  return html`<p><a href="/dashboard/audience/users">← Users</a></p>
  <h1>${d.heading}</h1>
  ${d.note ?? ''}
  <dl class="header" id="user">
    <div><dt>Language</dt><dd>${d.language ?? '—'}</dd></div>
    <div><dt>Time zone</dt><dd>${d.timezone ?? '—'}</dd></div>
    <div><dt>First active</dt><dd>${when(d.firstActive)}</dd></div>
    <div><dt>Last active</dt><dd>${when(d.lastActive)}</dd></div>
  </dl>
  <h2>Aliases</h2>
  ${d.aliases.length
    ? html`<table class="tags" id="aliases"><thead><tr><th scope="col">Label</th><th scope="col">Id</th></tr></thead>
        <tbody>${d.aliases.map(([label, id]) => html`<tr><td class="mono">${label}</td><td>${id}</td></tr>`)}</tbody></table>`
    : html`<p>No aliases besides its OneSignal id.</p>`}
  <h2>Tags</h2>
  ${d.tags.length
    ? html`<table class="tags" id="tags"><thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
        <tbody>${d.tags.map(([k, v]) => html`<tr><td class="mono">${k}</td><td>${v}</td></tr>`)}</tbody></table>`
    : html`<p>No tags.</p>`}
  <p class="note">Its installs carry these tags, language and time zone: a send targets them through the installs.</p>
  <h2>Installs</h2>
  ${d.installs.length
    ? html`<div class="table-wrap"><table id="user-installs">
        <thead><tr><th scope="col">Subscription id</th><th scope="col">Platform</th><th scope="col">Token</th><th scope="col">Subscribed</th><th scope="col">Last active (UTC)</th></tr></thead>
        <tbody class="rows">${d.installs.map((i) => html`<tr data-id="${i.id}">
          <td data-label="Subscription id"><a class="row-link mono" href="/dashboard/audience/installs/${i.id}">${i.id}</a></td>
          <td data-label="Platform">${platformWord(i.platform)}</td>
          <td data-label="Token" class="mono">${maskedToken(i.token)}</td>
          <td data-label="Subscribed">${subscribedWord(i)}</td>
          <td data-label="Last active" class="date">${when(seconds(i.last_active), false)}</td>
        </tr>`)}</tbody></table></div>`
    : html`<p>No installs (OneSignal keeps a user without subscriptions).</p>`}
  <h2>Latest sends that reached it</h2>
  ${sendsTable(d.sends, d.checked)}
  <p class="note">Through any of its installs, of the app's latest ${d.checked} sends that started: rebuilt from each send's audience with today's tags, as on an install's page.</p>
  <h2>Erase</h2>
  ${d.end}`;
}

export function userPage(d: UserPageData): Html {
  const p = d.view.properties;
  return userDetails({
    heading: html`User <span class="mono">${d.id}</span>`,
    language: p.language ?? null, timezone: p.timezone_id ?? null, firstActive: p.first_active, lastActive: p.last_active,
    aliases: Object.entries(d.view.identity).filter(([label]) => label !== 'onesignal_id').sort(byKey),
    tags: Object.entries(p.tags).sort(byKey),
    installs: d.installs, sends: d.sends, checked: d.checked,
    end: d.canErase
      ? html`<p><a class="button danger" href="/dashboard/audience/users/${d.id}/erase" id="erase">Erase this user…</a></p>`
      : html`<p class="note">Erasing a user needs a key of scope send.</p>`,
  });
}

/** A user named only by the external id its installs carry: the same page, its OneSignal id not made yet. */
export function unnamedUserPage(v: UnnamedUserView, sends: NotificationReport[], checked: number): Html {
  return userDetails({
    heading: html`User of external id <span class="mono" id="user-external-id">${v.external_id}</span>`,
    note: html`<p class="note" id="unnamed-note">Your app registered these installs with this external id; no user call has named it yet, so its OneSignal id is made the first time one does (its tags are then these, the latest written winning a key). Until then the installs carry them.</p>`,
    language: v.language, timezone: v.timezone, firstActive: seconds(v.first_active), lastActive: seconds(v.last_active),
    aliases: [['external_id', v.external_id]],
    tags: Object.entries(v.tags).sort(byKey),
    installs: v.installs, sends, checked,
    end: html`<p class="note">To erase it, call deleteUser with the alias external_id ${v.external_id}: it names the user and erases it with its installs.</p>`,
  });
}

export function eraseConfirmPage(id: string, view: UserView, csrf: string): Html {
  const external = view.identity.external_id;
  return html`<h1>Erase user <span class="mono">${id}</span>?</h1>
  <p>${external ? html`External id <strong>${external}</strong>. ` : ''}This deletes it for good, now: its ${plural(view.subscriptions.length, 'install')} and their
    tokens, its aliases, Live Activity tokens and opens, and its ids in list sends. A send in flight skips its installs. It cannot be undone.</p>
  <form method="post" action="/dashboard/audience/users/${id}/erase" class="confirm">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit" class="danger">Yes, erase this user</button>
    <a class="button secondary" href="/dashboard/audience/users/${id}">No, keep it</a>
  </form>`;
}
