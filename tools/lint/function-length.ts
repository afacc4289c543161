// The functions of Herald's product sources that run over 80 lines (issue 36: "no closure over 80
// lines"). ESLint's TypeScript parser does not support this project's TypeScript 7 (see
// tools/lint/regex.ts), so each file is stripped of its types by esbuild with a source map, the
// JavaScript is walked by an ESLint rule of our own, and each function's first and last tokens are
// mapped back to the TypeScript's lines. A function's length counts its whole text, nested
// closures included: the lines a reader holds at once.
//
//   npx tsx tools/lint/function-length.ts          # every function over 80 lines, longest first
import { readFileSync, readdirSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { Linter, type Rule } from 'eslint';

export const MAX_FUNCTION_LINES = 80;
/** The roles' sources (core/import-graph.test.ts reads the same folders). */
export const PRODUCT_ROOTS = ['api', 'core', 'sender', 'controller', 'cli', 'apns-sim', 'fcm-sim'];

export interface LongFunction {
  file: string;
  /** The function's name, or where it is passed or assigned (`startX`, `server.on`, `(arrow)`). */
  name: string;
  /** 1-based line of the TypeScript source where the function starts. */
  line: number;
  lines: number;
}

/** The name a reader would use for a function node: its own, its variable's, its key's, or its call's. */
function functionName(node: Rule.Node): string {
  const named = node as unknown as { id?: { name?: string } | null };
  if (named.id?.name) return named.id.name;
  const parent = node.parent as unknown as { type: string; id?: { name?: string }; key?: { name?: string; value?: unknown }; callee?: { type: string; name?: string; property?: { name?: string } } };
  if (parent?.type === 'VariableDeclarator' && parent.id?.name) return parent.id.name;
  if ((parent?.type === 'Property' || parent?.type === 'MethodDefinition' || parent?.type === 'PropertyDefinition') && parent.key) {
    return String(parent.key.name ?? parent.key.value);
  }
  if (parent?.type === 'CallExpression' && parent.callee) {
    const callee = parent.callee;
    return `(passed to ${callee.type === 'Identifier' ? callee.name : callee.property?.name ?? 'a call'})`;
  }
  return '(anonymous)';
}

/** An ESLint rule reporting every function whose TypeScript lines, read through `map`, exceed `max`. */
function lengthRule(map: SourceMap, max: number, found: Omit<LongFunction, 'file'>[]): Rule.RuleModule {
  // The TypeScript line (0-based) of a JavaScript position (ESLint's lines are 1-based).
  const tsLine = (loc: { line: number; column: number }) => (map.findEntry(loc.line - 1, loc.column) as { originalLine?: number }).originalLine;
  const measure = (node: Rule.Node) => {
    if (!node.loc) return;
    const first = tsLine(node.loc.start);
    // The function's last character (esbuild maps a block's closing brace, and an arrow's last token).
    const last = tsLine({ line: node.loc.end.line, column: Math.max(0, node.loc.end.column - 1) });
    if (first === undefined || last === undefined) return;
    const lines = last - first + 1;
    if (lines > max) found.push({ name: functionName(node), line: first + 1, lines });
  };
  return {
    create: () => ({ FunctionDeclaration: measure, FunctionExpression: measure, ArrowFunctionExpression: measure }),
  };
}

/** The functions of `source` (TypeScript text) longer than `max` lines. */
export function longFunctions(file: string, source: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const { code, map } = transformSync(source, { loader: 'ts', format: 'esm', sourcemap: 'external', target: 'es2022' });
  const found: Omit<LongFunction, 'file'>[] = [];
  const linter = new Linter({ configType: 'flat' });
  const plugin = { rules: { 'function-length': lengthRule(new SourceMap(JSON.parse(map)), max, found) } };
  const config = [{ plugins: { herald: plugin }, rules: { 'herald/function-length': 'error' as const }, languageOptions: { ecmaVersion: 'latest' as const, sourceType: 'module' as const } }];
  const problems = linter.verify(code, config, { filename: 'source.js' }).filter((m) => m.ruleId !== 'herald/function-length');
  if (problems.length) throw new Error(`${file}: ${problems[0].message}`);
  return found.map((f) => ({ file, ...f }));
}

/** The product .ts files under the roles' folders, tests and test support left out. */
export function productFiles(root: string): string[] {
  return PRODUCT_ROOTS.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.test.ts') && !f.includes('test-support') && !f.endsWith('.contract.ts'))
      .map((f) => join(dir, f)),
  );
}

/** Every product function over `max` lines, longest first. */
export function longProductFunctions(root: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  return productFiles(root)
    .flatMap((file) => longFunctions(file, readFileSync(join(root, file), 'utf8'), max))
    .sort((a, b) => b.lines - a.lines);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = longProductFunctions(process.cwd());
  for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${found.length} functions over ${MAX_FUNCTION_LINES} lines`);
}
