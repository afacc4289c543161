// What every page says of an install, in one place so no two pages say different things of the
// same install (issue 40 point 5): whether it is subscribed and, if not, who said so (the app's
// SDK, or the gateway with its reason, Apple's or Google's by the install's platform: told apart
// everywhere, as the overview counts them), its platform, and whose it is (a user's, the user its
// external id names before any user call made its row, or its own).
import { html, type Html } from '../html.js';

export interface InstallOwner {
  user_id: string | null;
  external_id: string | null;
}

type Unsubscribed = { subscribed: boolean; unsubscribed_reason: string | null; platform?: 'ios' | 'android' };

/** Whose gateway refused the install's token: Apple's (APNs) or Google's (FCM). */
const gatewayOf = (i: Unsubscribed) => (i.platform === 'android' ? 'Google' : 'Apple');

/** The platform as people name it. */
export const platformWord = (platform: 'ios' | 'android') => (platform === 'android' ? 'Android' : 'iOS');

/** "Yes", or "No: …" naming who unsubscribed it. */
export function subscribedWord(i: Unsubscribed): string {
  if (i.subscribed) return 'Yes';
  if (!i.unsubscribed_reason) return 'No (no reason recorded)';
  return i.unsubscribed_reason === 'app' ? 'No: the app turned it off' : `No: ${gatewayOf(i)} (${i.unsubscribed_reason})`;
}

/** The same, as the sentence an install's page opens with. */
export function subscriptionSentence(i: Unsubscribed): string {
  if (i.subscribed) return 'Subscribed: it receives pushes.';
  if (!i.unsubscribed_reason) return `Not subscribed: the app or ${gatewayOf(i)} said it no longer takes pushes (no reason recorded).`;
  return i.unsubscribed_reason === 'app' ? 'Not subscribed: the app turned it off (its user turned notifications off).' : `Not subscribed: ${gatewayOf(i)} answered ${i.unsubscribed_reason} for its token.`;
}

/** The page of the user an external id names (its users row, or its installs before one is made). */
export const aliasHref = (label: string, id: string) => `/dashboard/audience/users/by-alias?${new URLSearchParams({ label, id })}`;

/** The install's user as a link, or that it is a user of its own. */
export function ownerLink(i: InstallOwner, long = false): Html {
  if (i.user_id) return html`<a class="mono" href="/dashboard/audience/users/${i.user_id}">${long ? i.user_id : `${i.user_id.slice(0, 8)}…`}</a>`;
  if (i.external_id !== null) return html`<a href="${aliasHref('external_id', i.external_id)}">the user of external id ${i.external_id}</a>`;
  return html`<span class="note">its own (no external id, and no user call has named it)</span>`;
}
