// Every link of README.md and docs/ names a file of this repository that exists (a reader of a
// clone cannot follow a link out of it). Web links are not checked; anchors are dropped.
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pages = ['README.md', ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
// Bounded and linear: no nested quantifiers (tools/lint/regex.ts checks this file too).
const LINK = /\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g;
const problems: string[] = [];
for (const page of pages) {
  const text = readFileSync(join(root, page), 'utf8');
  for (const [, target] of text.matchAll(LINK)) {
    if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
    const file = resolve(root, dirname(page), target);
    if (relative(root, file).startsWith('..')) problems.push(`${page}: ${target} is outside the repository`);
    else if (!existsSync(file)) problems.push(`${page}: ${target} does not exist`);
  }
}
for (const p of problems) process.stderr.write(`${p}\n`);
process.stdout.write(`${pages.length} pages, ${problems.length} link problems\n`);
process.exit(problems.length ? 1 : 0);
