#!/usr/bin/env node
// The `herald` command. Runs the compiled build when present (containers, `npm run build`),
// otherwise the TypeScript sources through tsx (a clean checkout, `make dev`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const built = join(root, 'dist', 'cli', 'main.js');
if (existsSync(built) && !process.env.HERALD_FROM_SOURCE) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'cli', 'main.ts')).href);
}
