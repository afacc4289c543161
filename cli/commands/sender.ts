// `herald sender`: the delivery worker (issue "Delivery").
import type { Runtime } from '../runtime.js';
import { fail } from '../runtime.js';

export async function runSender(_rt: Runtime): Promise<void> {
  fail('herald sender is not built yet');
}
