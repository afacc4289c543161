// `herald apns-sim`: the APNs provider-API simulator (apns-sim/). Flags or HERALD_APNS_SIM_*.
// Prints one JSON line {url, controlUrl, managementUrl, caFile} on stdout when it listens, for scripts and tests.
import { runApnsSimCommand } from '../../apns-sim/index.js';
import { parseApnsSimConfig } from '../../apns-sim/command.js';
import { usageError } from '../runtime.js';

export async function runApnsSim(args: string[]): Promise<void> {
  try {
    parseApnsSimConfig(args, process.env); // a flag it cannot use is a usage error (exit 2), before anything starts
  } catch (error) {
    // node:util's own parse errors go to main, which words them; a bad value names its flag.
    if (String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS')) throw error;
    usageError((error as Error).message);
  }
  const sim = await runApnsSimCommand({ argv: args, env: process.env });
  if (process.env.HERALD_PRINT_PORT) {
    process.stdout.write(`${JSON.stringify({ url: sim.url, port: sim.port, controlUrl: sim.controlUrl, managementUrl: sim.managementUrl, caFile: sim.caFile })}\n`);
  }
}
