// `herald fcm-sim`: FCM HTTP v1 and Google's token endpoint, simulated (fcm-sim/). Flags or HERALD_FCM_SIM_*.
// Prints one JSON line {url, tokenUri, controlUrl, caFile} on stdout when it listens, for scripts and tests.
import { runFcmSimCommand, parseFcmSimConfig } from '../../fcm-sim/index.js';
import { usageError } from '../runtime.js';

export async function runFcmSim(args: string[]): Promise<void> {
  try {
    parseFcmSimConfig(args, process.env); // a flag it cannot use is a usage error (exit 2), before anything starts
  } catch (error) {
    if (String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS')) throw error;
    usageError((error as Error).message);
  }
  const sim = await runFcmSimCommand({ argv: args, env: process.env });
  if (process.env.HERALD_PRINT_PORT) {
    process.stdout.write(`${JSON.stringify({ url: sim.url, tokenUri: sim.tokenUri, controlUrl: sim.controlUrl, caFile: sim.caFile })}\n`);
  }
}
