// The Settings page (issue 40 point 2): the App ID with a copy button (dashboard.js), the push
// credentials' state, APNs and Firebase (core/apps/credentials-state.ts and fcm-state.ts, the
// controller's conditions in the same words), the app's keys (name, scope, allow-list, created, last used, where each was made) with
// New key and Revoke for a session whose key is of scope admin, and the event destinations. What
// comes from the App resource (its keys, credentials and destinations) is shown read-only with
// that said, as its segments are.
import type { AppRecord } from '../../../core/apps/app-store.js';
import type { CredentialsState } from '../../../core/apps/credentials-state.js';
import type { FcmState } from '../../../core/apps/fcm-state.js';
import { mayUse, type KeyRecord } from '../../../core/apps/keys.js';
import type { DestinationView } from '../../../core/dashboard-reads/app-events.js';
import { STREAM_DESTINATION } from '../../../core/events/stream.js';
import { html, type Html } from '../html.js';
import type { DashboardSession } from '../session.js';
import { shownUrl, STATE_WORDS } from './events.js';
import { when } from './format.js';

export interface SettingsData {
  app: AppRecord;
  credentials: CredentialsState;
  /** The Firebase credentials (issue 39): the FcmCredentialsReady condition's words. */
  fcm: FcmState;
  keys: KeyRecord[];
  destinations: DestinationView[];
  /** A sentence on top: what the last change did, or why it was refused. */
  notice?: { text: string; refused?: boolean };
}

const seconds = (d: Date | null | undefined) => (d ? Math.floor(d.getTime() / 1000) : null);
const SOURCE_WORDS: Record<KeyRecord['source'], string> = {
  app_resource: 'the App resource (spec.apiKeys)',
  cli: 'herald keys create',
  dashboard: 'this dashboard',
};

/** The text of element `target` copied by dashboard.js; a status line says it was. */
export const copyButton = (target: string, label: string) =>
  html`<button type="button" class="secondary-button copy" data-copy="${target}" aria-describedby="${target}-copied">${label}</button><span class="note" id="${target}-copied" role="status"></span>`;

function appSection(app: AppRecord): Html {
  return html`<h2>App</h2>
  <dl class="header" id="app">
    <div class="wide"><dt>App ID</dt><dd><code id="app-id" class="mono">${app.id}</code> ${copyButton('app-id', 'Copy the App ID')}</dd></div>
    <div><dt>Name</dt><dd>${app.name}</dd></div>
    <div><dt>Bundle id</dt><dd class="mono">${app.bundleId}</dd></div>
    <div><dt>APNs environment</dt><dd>${app.environment}</dd></div>
  </dl>
  <p class="note">Every REST call names the App ID (<code>app_id</code>); the iOS app carries it too. It is not a secret.</p>`;
}

function credentialsSection(c: CredentialsState): Html {
  return html`<h2>Push credentials: APNs (iOS)</h2>
  <dl class="header" id="credentials">
    <div><dt>State</dt><dd data-field="State" class="${c.ready ? 'ok' : 'error'}">${c.ready ? 'Ready' : 'Not ready'} <span class="note mono">(${c.reason})</span></dd></div>
    ${c.kind ? html`<div><dt>Kind</dt><dd data-field="Kind">${c.kind === 'token' ? 'Token (.p8 key)' : 'Certificate'}</dd></div>` : ''}
    ${c.keyId ? html`<div><dt>Key id</dt><dd data-field="Key id" class="mono">${c.keyId}</dd></div>` : ''}
    ${c.teamId ? html`<div><dt>Team id</dt><dd data-field="Team id" class="mono">${c.teamId}</dd></div>` : ''}
    ${c.expiresAt ? html`<div><dt>Expires</dt><dd data-field="Expires">${when(seconds(c.expiresAt))}</dd></div>` : ''}
  </dl>
  <p id="credentials-message">${c.message}</p>
  ${c.refused ? html`<p class="error" id="credentials-refused">Apple refused them for <a href="/dashboard/sends/${c.refused.sendId}">send ${c.refused.sendId}</a> at ${when(seconds(c.refused.at))}: ${c.refused.reason}.</p>` : ''}
  <p class="note">Credentials come from the App resource's Secret (spec.credentials), or <code>herald apps apply</code>: change them there. The key itself is never shown.</p>`;
}

/** Beside APNs: the state, the project and the service account; never the private key. */
function fcmSection(f: FcmState): Html {
  return html`<h2>Push credentials: Firebase (Android)</h2>
  <dl class="header" id="fcm-credentials">
    <div><dt>State</dt><dd data-field="State" class="${f.ready ? 'ok' : f.reason === 'NotConfigured' ? '' : 'error'}">${f.ready ? 'Ready' : f.reason === 'NotConfigured' ? 'Not configured' : 'Not ready'} <span class="note mono">(${f.reason})</span></dd></div>
    ${f.projectId ? html`<div><dt>Project id</dt><dd data-field="Project id" class="mono">${f.projectId}</dd></div>` : ''}
    ${f.clientEmail ? html`<div class="wide"><dt>Service account</dt><dd data-field="Service account" class="mono">${f.clientEmail}</dd></div>` : ''}
    ${f.updatedAt ? html`<div><dt>Stored</dt><dd data-field="Stored">${when(seconds(f.updatedAt))}</dd></div>` : ''}
  </dl>
  <p id="fcm-credentials-message">${f.message}</p>
  <p class="note">Firebase credentials come from the App resource's Secret (spec.fcm, its service-account.json), or <code>herald apps apply</code>: change them there. The private key is never shown.</p>`;
}

function keyRow(k: KeyRecord, s: DashboardSession): Html {
  const mayRevoke = mayUse(s.scope, 'admin') && !k.revokedAt && k.source !== 'app_resource';
  return html`<tr data-id="${k.id}" data-name="${k.name}">
    <td data-label="Name">${k.name}${k.id === s.keyId ? html` <span class="note">(this session's)</span>` : ''}</td>
    <td data-label="Scope">${k.scope}</td>
    <td data-label="Allowed from" class="mono">${k.allowIps.join(', ') || 'anywhere'}</td>
    <td data-label="Created" class="date">${when(seconds(k.createdAt), false)}</td>
    <td data-label="Last used" class="date">${k.lastUsedAt ? when(seconds(k.lastUsedAt), false) : 'not yet'}</td>
    <td data-label="Made with">${SOURCE_WORDS[k.source]}</td>
    <td data-label="State">${k.revokedAt ? `revoked ${when(seconds(k.revokedAt), false)}` : 'active'}</td>
    <td data-label="Revoke">${mayRevoke
      ? html`<a href="/dashboard/settings/keys/${k.id}/revoke" class="danger-link">Revoke…</a>`
      : k.source === 'app_resource' && !k.revokedAt ? html`<span class="note">change it in the App</span>` : ''}</td>
  </tr>`;
}

function keysSection(keys: KeyRecord[], s: DashboardSession): Html {
  return html`<h2>REST API keys</h2>
  ${mayUse(s.scope, 'admin')
    ? html`<p><a class="button" id="new-key" href="/dashboard/settings/keys/new">New key…</a></p>`
    : html`<p class="note" id="keys-read-only">Creating and revoking keys needs a key of scope admin (<code>herald keys create --scope admin</code>); this session's may only see them.</p>`}
  <div class="table-wrap"><table id="keys">
    <thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Allowed from</th><th scope="col">Created (UTC)</th>
      <th scope="col">Last used (UTC)</th><th scope="col">Made with</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
    <tbody>${keys.map((k) => keyRow(k, s))}</tbody>
  </table></div>
  <p class="note">A key is shown once, when it is made; Herald keeps only its SHA-256. Last used: to the minute. Keys made by the App resource follow its spec.apiKeys and are changed there.</p>`;
}

function destinationsSection(destinations: DestinationView[]): Html {
  return html`<h2>Event destinations</h2>
  ${destinations.length
    ? html`<div class="table-wrap"><table id="destinations">
        <thead><tr><th scope="col">Name</th><th scope="col">Where</th><th scope="col">Kinds</th><th scope="col">State</th></tr></thead>
        <tbody>${destinations.map((d) => html`<tr data-name="${d.name}">
          <td data-label="Name">${d.name === STREAM_DESTINATION ? 'NATS stream' : d.name}</td>
          <td data-label="Where" class="mono">${d.name === STREAM_DESTINATION ? 'JetStream, subjects herald.events.<app>.<kind>' : shownUrl(d.url)}</td>
          <td data-label="Kinds">${d.kinds?.join(', ') ?? 'every kind'}</td>
          <td data-label="State"><span class="state state-${d.state}">${STATE_WORDS[d.state]}</span></td>
        </tr>`)}</tbody></table></div>`
    : html`<p id="destinations">None.</p>`}
  <p class="note">Destinations are set in the App resource (spec.events, docs/events.md): change them there. Their backlog and errors: <a href="/dashboard/events">Events</a>.</p>`;
}

export function settingsPage(d: SettingsData, s: DashboardSession): Html {
  return html`<h1>Settings</h1>
  ${d.notice ? html`<p class="${d.notice.refused ? 'error' : 'ok'}" role="${d.notice.refused ? 'alert' : 'status'}" id="notice">${d.notice.text}</p>` : ''}
  ${appSection(d.app)}
  ${credentialsSection(d.credentials)}
  ${fcmSection(d.fcm)}
  ${keysSection(d.keys, s)}
  ${destinationsSection(d.destinations)}`;
}
