// No product function over 80 lines (issue 36 point 5; STYLE.md): a function a reader cannot hold
// at once is split into named helpers with one job each. The measure is tools/lint/function-length.ts
// (`npx tsx tools/lint/function-length.ts` lists them, longest first).
import { expect } from 'chai';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { longFunctions, longProductFunctions, MAX_FUNCTION_LINES } from '../tools/lint/function-length.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A TypeScript function of exactly `lines` lines, with a type, an arrow and a template in it. */
function functionOf(lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, i) => `  const v${i}: number = ${i};`);
  return ['function long(a: string): string {', ...body, '  const f = (x: number) =>', '    `${x}`;', '}'].join('\n');
}

describe('function length', () => {
  it('measures a function to its closing line (the check can fail)', () => {
    expect(longFunctions('x.ts', functionOf(MAX_FUNCTION_LINES + 1))).to.deep.equal([{ file: 'x.ts', name: 'long', line: 1, lines: MAX_FUNCTION_LINES + 1 }]);
    expect(longFunctions('x.ts', functionOf(MAX_FUNCTION_LINES))).to.deep.equal([]);
    const nested = `// a comment\nconst outer = {\n  run(): void {\n${functionOf(MAX_FUNCTION_LINES + 1)}\n  },\n};\n`;
    expect(longFunctions('x.ts', nested).map((f) => [f.name, f.line, f.lines])).to.deep.equal([
      ['run', 3, MAX_FUNCTION_LINES + 3],
      ['long', 4, MAX_FUNCTION_LINES + 1],
    ]);
  });

  it(`has no product function over ${MAX_FUNCTION_LINES} lines `, function () {
    this.timeout(60_000); // every product file through esbuild and ESLint: ~5 s on a quiet machine
    const long = longProductFunctions(ROOT);
    expect(long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).to.deep.equal([]);
  });
});
