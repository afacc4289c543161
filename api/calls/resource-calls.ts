// Segments and templates.
import type { Call } from './call.js';

export const RESOURCE_CALLS: readonly Call[] = [];
