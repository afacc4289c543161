// Long words in a real browser (issue 40 point 6): the sends list's message and the report's link
// and image wrap without breaking a word in two, at a desktop's width and a phone's, and no page
// scrolls sideways. A break is mid-word when it falls between two letters or digits.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { signedInBrowser, type TestBrowser } from '../support/browser.js';
import { makeApp, type TestApp } from '../support/apps.js';

describe('dashboard: long words wrap whole', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  let browser: TestBrowser;
  let page: Page;
  let app: TestApp;

  before(async function () {
    this.timeout(180_000);
    app = await makeApp(env.pool, { name: 'wrapshop' });
    ({ browser, page } = await signedInBrowser(api.url, app.key));
  });

  after(async () => {
    await browser?.close();
  });

  it("wraps long words whole in the sends list and the report's link and image, on a phone's width too", async () => {
    const words = 'Internationalisation notifications: extraordinarily comprehensive announcements reaching everybody';
    const link = 'https://example.com/promotions/spring-collection/extraordinarily-long-landing-page?campaign=internationalisation&source=push';
    const sent = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: words }, url: link, big_picture: `${link}&image=yes`, included_segments: ['All'], send_after: new Date(Date.now() + 86_400_000).toISOString() } });
    const id = sent.body.id as number;
    /** Where a line break falls between two letters or digits (mid-word): the text around each such break. */
    const cut = (selector: string) => page.locator(selector).evaluate((root) => {
      const found: string[] = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      let last: { top: number; char: string; before: string } | undefined;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent!;
        for (let i = 0; i < text.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (!rect) continue; // a collapsed space
          const top = Math.round(rect.top);
          if (last && top !== last.top && /[\p{L}\p{N}]/u.test(last.char) && /[\p{L}\p{N}]/u.test(text[i])) found.push(`${last.before}|${text.slice(i, i + 6)}`);
          last = { top, char: text[i], before: (last?.before ?? '').concat(text[i]).slice(-6) };
        }
      }
      return found;
    });
    for (const width of [1200, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${api.url}/dashboard/sends`);
      expect(await cut(`tbody tr[data-id="${id}"] td.message`), `list at ${width}`).to.deep.equal([]);
      await page.goto(`${api.url}/dashboard/sends/${id}`);
      expect(await page.locator('#message-fields dd[data-field="Link"]').textContent()).to.equal(link); // <wbr> adds no character
      expect(await cut('#message-fields dd[data-field="Link"]'), `link at ${width}`).to.deep.equal([]);
      expect(await cut('#message-fields dd[data-field="Image"]'), `image at ${width}`).to.deep.equal([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `no sideways scroll at ${width}`).to.be.at.most(0);
    }
    await page.setViewportSize({ width: 1200, height: 900 });
  });
});
