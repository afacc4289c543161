// Where a sender's CPU went: reads V8 .cpuprofile files (HERALD_BENCH_PROFILE=DIR with
// bench/delivery/run.ts) and prints self time by area (core/apns, other Herald code, each
// dependency, Node internals, GC, idle) and the top functions.
//
//   npx tsx bench/delivery/profile-summary.ts DIR/*.cpuprofile
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

function area(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return '(program: native, outside JS)';
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return `dependency ${dep[1]}`;
  if (url.includes('/core/apns/')) return 'core/apns (the transport)';
  if (/\/(sender|core|cli|api)\//.test(url)) return 'Herald, other';
  if (url.startsWith('node:') || url === '') return `node internals${fn.startsWith('(') ? '' : ''}`;
  return 'other';
}

const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
for (const file of process.argv.slice(2)) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  p.samples.forEach((id, i) => {
    const n = nodes.get(id)!;
    const us = p.timeDeltas[i] ?? 0;
    const { functionName, url, lineNumber } = n.callFrame;
    const a = area(url, functionName);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|wt\/i\d+)\//, '')}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    total += us;
  });
}
const busy = total - (byArea.get('idle') ?? 0);
console.log(`profiled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s`);
for (const [a, us] of [...byArea].sort((x, y) => y[1] - x[1])) console.log(`${((100 * us) / busy).toFixed(1).padStart(5)} %  ${a}`);
console.log('\ntop functions (share of busy time):');
for (const [f, us] of [...byFunction].filter(([f]) => !f.startsWith('(idle)')).sort((x, y) => y[1] - x[1]).slice(0, 25)) console.log(`${((100 * us) / busy).toFixed(1).padStart(5)} %  ${f}`);
