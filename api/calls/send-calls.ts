// Sends and their reports: notifications, their history, outcomes, Live Activities, exports.
import type { Call } from './call.js';

export const SEND_CALLS: readonly Call[] = [];
