// `herald apns-sim`: the APNs provider-API simulator (apns-sim/). Flags or HERALD_APNS_SIM_*.
// Prints one JSON line {url, controlUrl, caFile} on stdout when it listens, for scripts and tests.
import { runApnsSimCommand } from '../../apns-sim/index.js';

export async function runApnsSim(args: string[]): Promise<void> {
  const sim = await runApnsSimCommand({ argv: args, env: process.env });
  if (process.env.HERALD_PRINT_PORT) {
    process.stdout.write(`${JSON.stringify({ url: sim.url, port: sim.port, controlUrl: sim.controlUrl, caFile: sim.caFile })}\n`);
  }
}
