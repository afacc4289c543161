// OneSignal's users, aliases and their subscriptions.
import type { Call } from './call.js';

export const USER_CALLS: readonly Call[] = [];
