// The audience pages of issue 27 (point 7): the app's users and installs to browse, page by page
// with their totals; a user's page (aliases, tags, installs, the sends that reached it); and the
// question before erasing one (the POST of its form is the only change, as a send's cancel).
import type { UserView } from '../../../core/users/user-store.js';
import type { UserSummary } from '../../../core/users/browse-users.js';
import type { BrowsedInstall } from '../../../core/subscriptions/browse-installs.js';
import type { NotificationReport } from '../../../core/send/report.js';
import type { Erased } from '../../../core/users/erase.js';
import { html, type Html } from '../html.js';
import { audienceTabs, maskedToken } from './audience.js';
import { count, when } from './format.js';
import { sendsTable } from './sends-table.js';
import { pager, plural, type Paging } from './pager.js';

export type { Paging };

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/** What an erasure removed, in words, for the note after it. */
export function erasedText(e: Erased): string {
  return `The user was erased: ${plural(e.installs, 'install')}, ${plural(e.aliases, 'alias', 'aliases')}, ${plural(e.live_activity_tokens, 'Live Activity token')}, ${plural(e.push_type_tokens, 'push type token')} and ${plural(e.opens, 'open')} deleted; its ids taken out of ${plural(e.sends_scrubbed, 'list send')}.`;
}

export function usersPage(users: UserSummary[], paging: Paging, erased?: string): Html {
  return html`<h1>Audience</h1>${audienceTabs('users')}
  ${erased ? html`<p class="ok" role="status" id="erased">${erased}</p>` : ''}
  ${pager('/dashboard/audience/users', users.length, 'user', paging)}
  ${users.length ? html`<div class="table-wrap"><table id="users">
    <thead><tr><th scope="col">OneSignal id</th><th scope="col">External id</th><th scope="col" class="num">Aliases</th>
      <th scope="col" class="num">Installs</th><th scope="col" class="num">Tags</th><th scope="col">Last active (UTC)</th></tr></thead>
    <tbody class="rows">${users.map((u) => html`<tr data-id="${u.id}">
      <td data-label="OneSignal id"><a class="row-link mono" href="/dashboard/audience/users/${u.id}">${u.id}</a></td>
      <td data-label="External id">${u.external_id ?? '—'}</td>
      <td data-label="Aliases" class="num">${count(u.aliases)}</td>
      <td data-label="Installs" class="num">${count(u.installs)}</td>
      <td data-label="Tags" class="num">${count(u.tags)}</td>
      <td data-label="Last active" class="date">${when(seconds(u.last_active), false)}</td>
    </tr>`)}</tbody></table></div>` : ''}
  <p class="note">Users made or named through the API (createUser, an alias call, an external id), in OneSignal id order. An install your app registered that no user call has named yet is a user of its own: it is under Installs.</p>`;
}

export function installsPage(installs: BrowsedInstall[], paging: Paging): Html {
  return html`<h1>Audience</h1>${audienceTabs('installs')}
  ${pager('/dashboard/audience/installs', installs.length, 'install', paging)}
  ${installs.length ? html`<div class="table-wrap"><table id="installs">
    <thead><tr><th scope="col">Subscription id</th><th scope="col">User</th><th scope="col">External id</th><th scope="col">Token</th>
      <th scope="col">Language</th><th scope="col">Subscribed</th><th scope="col">Last active (UTC)</th></tr></thead>
    <tbody class="rows">${installs.map((i) => html`<tr data-id="${i.id}">
      <td data-label="Subscription id"><a class="mono" href="/dashboard/audience/installs/${i.id}">${i.id}</a></td>
      <td data-label="User">${i.user_id ? html`<a class="mono" href="/dashboard/audience/users/${i.user_id}">${i.user_id.slice(0, 8)}…</a>` : html`<span class="note">its own</span>`}</td>
      <td data-label="External id">${i.external_id ?? '—'}</td>
      <td data-label="Token" class="mono">${maskedToken(i.token)}</td>
      <td data-label="Language">${i.language ?? '—'}</td>
      <td data-label="Subscribed">${i.subscribed ? 'Yes' : 'No'}</td>
      <td data-label="Last active" class="date">${when(seconds(i.last_active), false)}</td>
    </tr>`)}</tbody></table></div>` : ''}
  <p class="note">Newest first. Find an install looks one up by id, external id, token or tag.</p>`;
}

export interface UserPageData {
  id: string;
  view: UserView;
  installs: BrowsedInstall[];
  sends: NotificationReport[];
  checked: number;
  canErase: boolean;
}

export function userPage(d: UserPageData): Html {
  const p = d.view.properties;
  const aliases = Object.entries(d.view.identity).filter(([label]) => label !== 'onesignal_id').sort(([a], [b]) => a.localeCompare(b));
  const tags = Object.entries(p.tags).sort(([a], [b]) => a.localeCompare(b));
  return html`<p><a href="/dashboard/audience/users">← Users</a></p>
  <h1>User <span class="mono">${d.id}</span></h1>
  <dl class="header" id="user">
    <div><dt>Language</dt><dd>${p.language ?? '—'}</dd></div>
    <div><dt>Time zone</dt><dd>${p.timezone_id ?? '—'}</dd></div>
    <div><dt>First active</dt><dd>${when(p.first_active)}</dd></div>
    <div><dt>Last active</dt><dd>${when(p.last_active)}</dd></div>
  </dl>
  <h2>Aliases</h2>
  ${aliases.length
    ? html`<table class="tags" id="aliases"><thead><tr><th scope="col">Label</th><th scope="col">Id</th></tr></thead>
        <tbody>${aliases.map(([label, id]) => html`<tr><td class="mono">${label}</td><td>${id}</td></tr>`)}</tbody></table>`
    : html`<p>No aliases besides its OneSignal id.</p>`}
  <h2>Tags</h2>
  ${tags.length
    ? html`<table class="tags" id="tags"><thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
        <tbody>${tags.map(([k, v]) => html`<tr><td class="mono">${k}</td><td>${v}</td></tr>`)}</tbody></table>`
    : html`<p>No tags.</p>`}
  <p class="note">Its installs carry these tags, language and time zone: a send targets them through the installs.</p>
  <h2>Installs</h2>
  ${d.installs.length
    ? html`<div class="table-wrap"><table id="user-installs">
        <thead><tr><th scope="col">Subscription id</th><th scope="col">Token</th><th scope="col">Subscribed</th><th scope="col">Last active (UTC)</th></tr></thead>
        <tbody class="rows">${d.installs.map((i) => html`<tr data-id="${i.id}">
          <td data-label="Subscription id"><a class="row-link mono" href="/dashboard/audience/installs/${i.id}">${i.id}</a></td>
          <td data-label="Token" class="mono">${maskedToken(i.token)}</td>
          <td data-label="Subscribed">${i.subscribed ? 'Yes' : 'No'}</td>
          <td data-label="Last active" class="date">${when(seconds(i.last_active), false)}</td>
        </tr>`)}</tbody></table></div>`
    : html`<p>No installs (OneSignal keeps a user without subscriptions).</p>`}
  <h2>Latest sends that reached it</h2>
  ${sendsTable(d.sends, d.checked)}
  <p class="note">Through any of its installs, of the app's latest ${d.checked} sends that started: rebuilt from each send's audience with today's tags, as on an install's page.</p>
  <h2>Erase</h2>
  ${d.canErase
    ? html`<p><a class="button danger" href="/dashboard/audience/users/${d.id}/erase" id="erase">Erase this user…</a></p>`
    : html`<p class="note">Erasing a user needs a key of scope send.</p>`}`;
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
