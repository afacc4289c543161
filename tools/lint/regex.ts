// `make lint-regex`: every regular expression in Herald's sources is checked for super-linear
// backtracking (a padded send_after once held the api for seconds). ESLint's TypeScript
// parser does not support this project's TypeScript 7, so each file is first stripped of its
// types by esbuild (tsx's own transpiler) and the JavaScript is linted with eslint-plugin-regexp;
// regex literals and `new RegExp("…")` survive the stripping unchanged, and line numbers are kept.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { Linter } from 'eslint';
import regexp from 'eslint-plugin-regexp';

const RULES = {
  // Exponential or polynomial backtracking inside one match attempt.
  'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
  // Polynomial work across the match attempts of an unanchored regex.
  'regexp/no-super-linear-move': ['error', { report: 'potential' }],
  'regexp/no-misleading-capturing-group': 'error',
} as const;

const ROOTS = ['api', 'core', 'sender', 'controller', 'cli', 'apns-sim', 'bench', 'scripts', 'tools', 'test', 'bin'];

export function lintRegexes(files: string[]): string[] {
  const linter = new Linter({ configType: 'flat' });
  const config = [{ plugins: { regexp }, rules: RULES, languageOptions: { ecmaVersion: 'latest' as const, sourceType: 'module' as const } }];
  const problems: string[] = [];
  for (const file of files) {
    const { code } = transformSync(readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm', sourcemap: false, target: 'es2022', minifyWhitespace: false });
    for (const m of linter.verify(code, config, { filename: 'source.js' })) {
      problems.push(`${file}: ${m.ruleId ?? 'parse'}: ${m.message}`);
    }
  }
  return problems;
}

/** The .ts files under `dir` (Node 20 has no fs.globSync). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes('node_modules'))
    .map((f) => join(dir, f));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = ROOTS.flatMap((root) => tsFiles(root));
  const problems = lintRegexes(files);
  for (const p of problems) console.error(p);
  console.log(`${files.length} files, ${problems.length} regex problems`);
  process.exit(problems.length ? 1 : 0);
}
