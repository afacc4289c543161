// The dashboard's static files, read once from ./assets (copied next to the build by
// `make build`); any other name is a 404, so no path from the URL ever reaches the file system.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'assets');
const FILES: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
const cache = new Map<string, Buffer>();

export function serveAsset(ctx: Context): void {
  const name = String(ctx.params.file);
  const type = FILES[name];
  if (!type) {
    ctx.status = 404;
    return;
  }
  if (!cache.has(name)) cache.set(name, readFileSync(join(DIR, name)));
  ctx.type = type;
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.body = cache.get(name);
}
