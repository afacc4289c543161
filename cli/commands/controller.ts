// `herald controller`: the Kubernetes operator (issue "The operator").
import type { Runtime } from '../runtime.js';
import { fail } from '../runtime.js';

export async function runController(_rt: Runtime): Promise<void> {
  fail('herald controller is not built yet');
}
