#!/usr/bin/env node
// The `herald` command. In a checkout (the TypeScript sources are here) it runs them through tsx,
// so a stale dist/ can never shadow the code under test; in the image (only dist/ is shipped) it
// runs the compiled build. HERALD_USE_DIST=1 forces the build in a checkout (after `make build`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const source = join(root, 'cli', 'main.ts');
const built = join(root, 'dist', 'cli', 'main.js');
if (existsSync(built) && (!existsSync(source) || process.env.HERALD_USE_DIST === '1')) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
}
