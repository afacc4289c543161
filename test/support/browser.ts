// Debian's Chromium driven by playwright-core for the dashboard's browser tests. Installs the
// package on a fresh machine as test/env/services.ts does for the servers; each launch gets a
// fresh user-data-dir, removed on close.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.HERALD_TEST_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
  '--no-first-run', '--disable-component-update', '--disable-sync'];

export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const res = spawnSync('bash', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 chromium'], { stdio: 'inherit' });
  if (res.status !== 0 || !existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM} and apt-get install chromium failed`);
}

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(opts: { width?: number; height?: number } = {}): Promise<TestBrowser> {
  ensureChromium();
  const dir = await mkdtemp(join(tmpdir(), 'herald-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: opts.width ?? 1200, height: opts.height ?? 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Signs a page in to the dashboard at `base` with `key` (a fresh session: its cookies cleared first); it lands on the overview. */
export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel('REST API key of your app').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/dashboard/`);
}

/** A browser of its own and a page of it signed in with `key` (the usual start of a dashboard test file). */
export async function signedInBrowser(base: string, key: string): Promise<{ browser: TestBrowser; page: Page }> {
  const browser = await launchBrowser();
  const page = await browser.context.newPage();
  await signIn(page, base, key);
  return { browser, page };
}
