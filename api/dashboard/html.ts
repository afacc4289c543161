// Server-rendered HTML for the dashboard: a tagged template that escapes every interpolated value
// (only values made by `html` itself pass through raw), and the page layout. Hand-written because
// it is 30 lines; a template engine would add a dependency and a second syntax for the same thing.
import { mayUse, type KeyScope } from '../../core/apps/keys.js';

const RAW = Symbol('raw html');
export interface Html {
  [RAW]: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

type Value = Html | string | number | boolean | null | undefined | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'object' && RAW in value) return value[RAW];
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0];
  values.forEach((v, i) => (out += render(v) + strings[i + 1]));
  return { [RAW]: out };
}

export const toString = (h: Html) => h[RAW];

export type NavPage = 'overview' | 'sends' | 'compose' | 'audience' | 'templates' | 'events' | 'settings';

export interface LayoutOptions {
  title: string;
  /** The signed-in app's name and the key's scope; absent on the sign-in page. */
  session?: { appName: string; scope: KeyScope; csrf: string };
  current?: NavPage;
}

const SCOPE_WORDS: Record<KeyScope, string> = { read: 'read-only key', send: 'send key', admin: 'admin key' };
/** The main menu, in its order; compose is offered to keys that may send. */
const NAV: [NavPage, string, string][] = [
  ['overview', '/dashboard/', 'Overview'],
  ['sends', '/dashboard/sends', 'Sends'],
  ['audience', '/dashboard/audience', 'Audience'],
  ['templates', '/dashboard/templates', 'Templates'],
  ['events', '/dashboard/events', 'Events'],
  ['settings', '/dashboard/settings', 'Settings'],
  ['compose', '/dashboard/compose', 'New message'],
];

export function layout(opts: LayoutOptions, body: Html): string {
  const s = opts.session;
  const nav = s
    ? html`<nav aria-label="Main">
        ${NAV.filter(([p]) => p !== 'compose' || mayUse(s.scope, 'send')).map(([p, href, label]) => html`<a href="${href}" ${opts.current === p ? html`aria-current="page"` : ''}>${label}</a>`)}
        <span class="who">${s.appName} · ${SCOPE_WORDS[s.scope]}</span>
        <form method="post" action="/dashboard/sign-out" class="inline">
          <input type="hidden" name="_csrf" value="${s.csrf}"><button type="submit" class="link">Sign out</button>
        </form>
      </nav>`
    : '';
  return toString(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Herald</title>
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<header><a class="brand" href="/dashboard/">Herald</a>${nav}</header>
<main id="main">
${body}
</main>
</body>
</html>`);
}
