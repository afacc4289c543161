// `herald apns-sim`: the APNs provider-API simulator (apns-sim/).
import { fail } from '../runtime.js';

export async function runApnsSim(_args: string[]): Promise<void> {
  fail('herald apns-sim is not wired yet');
}
