// The app-facing calls of the SDKs and OneSignal's v1 device calls (players).
import type { Call } from './call.js';

export const SDK_CALLS: readonly Call[] = [];
