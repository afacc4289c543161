// `herald dev`: every role in one process for a laptop (filled in as the roles land).
import type { Runtime } from '../runtime.js';
import { runApi } from './api.js';

export async function runDev(rt: Runtime): Promise<void> {
  await runApi(rt);
}
