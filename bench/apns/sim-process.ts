// Runs the simulator in its own process for benchmarks (so it does not share an event loop with
// the client being measured) and prints one JSON line {url, port, controlUrl, caFile} on stdout.
import { pino } from 'pino';
import { runApnsSimCommand } from '../../apns-sim/index.js';

const sim = await runApnsSimCommand({ argv: process.argv.slice(2), env: {}, logger: pino({ level: 'warn' }) });
process.stdout.write(`${JSON.stringify({ url: sim.url, port: sim.port, controlUrl: sim.controlUrl, caFile: sim.caFile })}\n`);
