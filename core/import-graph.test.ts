// The import graph of the roles' source (api, core, sender, controller, cli, apns-sim, fcm-sim; tests left
// out): no file imports itself through others, and no folder does either: a folder's modules never
// lead back to it through another folder (the send's model, core/send-model, is a leaf that
// core/delivery, core/audience and core/validation read, and core/send's lifecycle imports them
// all; docs/architecture.md "Shared rules"). Imports are read as text: `import … from './x.js'` and
// `export … from`.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROLES = ['api', 'core', 'sender', 'controller', 'cli', 'apns-sim', 'fcm-sim'];
// `from '…'` closes every static import and re-export; matched alone, so the scan stays linear.
const IMPORT = /\bfrom '(\.{1,2}\/[^']+)'/g;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.includes('test-support') && !name.endsWith('.contract.ts')) out.push(path);
  }
  return out;
}

/** file → the files it imports (paths relative to the repository). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ROLES.flatMap((role) => sourceFiles(join(ROOT, role)))) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => relative(ROOT, resolve(dirname(file), m[1].replace(/\.js$/, '.ts'))));
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** The strongly connected groups of more than one file (Tarjan), or a file importing itself. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || graph.get(v)!.includes(v)) circles.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

describe('import graph', () => {
  const graph = importGraph();

  it('finds a circle when there is one (the check can fail)', () => {
    const circular = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]]);
    expect(importCircles(circular)).to.deep.equal([['a.ts', 'b.ts', 'c.ts']]);
    expect(importCircles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).to.deep.equal([]);
  });

  it('reads the imports of the source (a known arrow is seen)', () => {
    expect(graph.get('core/delivery/claim.ts')).to.include('core/send-model/transitions.ts');
  });

  it('has no import circle between files', () => {
    expect(importCircles(graph)).to.deep.equal([]);
  });

  it('has no import circle between folders', () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = dirname(file);
      const to = targets.map(dirname).filter((d) => d !== from);
      folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to])]);
    }
    expect(importCircles(folders)).to.deep.equal([]);
  });

  // STYLE.md "Boundaries": api/, sender/ and controller/ import core/, never each other (the
  // simulator neither); what two roles need is core's (the APNs client: core/apns). cli/ wires them.
  // The two simulators share one throw-away PKI (apns-sim/certs.ts), so a client trusts one CA file.
  const SHARED = new Set(['apns-sim/certs.ts']);
  it('keeps the roles apart: no role but cli imports another, and core imports none', () => {
    const roleOf = (file: string) => file.split('/')[0];
    const crossings = [...graph].flatMap(([file, targets]) =>
      roleOf(file) === 'cli'
        ? []
        : targets.filter((t) => ROLES.includes(roleOf(t)) && roleOf(t) !== roleOf(file) && roleOf(t) !== 'core' && !(roleOf(file) === 'fcm-sim' && SHARED.has(t))).map((t) => `${file} → ${t}`),
    );
    expect(crossings).to.deep.equal([]);
  });
});
