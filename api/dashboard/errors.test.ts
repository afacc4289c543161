// The dashboard's one error renderer: what a page throws becomes an HTML page with its status and
// headers; a .json path keeps the REST body; a bug is not rendered here (the REST middleware logs
// it once and answers 500).
import { expect } from 'chai';
import Koa from 'koa';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { NotFoundError, RateLimitedError, ValidationError } from '../../core/errors.js';
import { errorBody } from '../middleware/errors.js';
import { dashboardErrors, errorList } from './errors.js';
import { toString } from './html.js';

async function answer(error: unknown, path: string) {
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    ctx.state.requestId = 'req-1';
    ctx.state.log = pino({ level: 'silent' });
    await next();
  });
  app.use(errorBody());
  app.use(dashboardErrors());
  app.use(async () => {
    throw error;
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', retryAfter: res.headers.get('retry-after'), text: await res.text() };
  } finally {
    server.close();
  }
}

describe('dashboard errors: one renderer', () => {
  it('renders a page that cannot be shown as HTML with its status, title and sentence', async () => {
    const res = await answer(new NotFoundError('No such send in this app.'), '/dashboard/sends/9');
    expect(res.status).to.equal(404);
    expect(res.type).to.match(/^text\/html/);
    expect(res.text).to.contain('<h1>Not found</h1>').and.contain('<ul class="field-errors" id="page-errors" role="alert"><li>No such send in this app.</li></ul>');
    expect(res.text).to.contain('<a href="/dashboard/">Back to the overview</a>');
  });

  it('keeps the headers of the error: a 429 page says when to retry', async () => {
    const res = await answer(new RateLimitedError(7), '/dashboard/audience');
    expect(res.status).to.equal(429);
    expect(res.retryAfter).to.equal('7');
    expect(res.text).to.contain('<h1>Too many requests</h1>').and.contain('Retry after 7 seconds.').and.contain('Back to the audience');
  });

  it('answers a .json path with the REST body', async () => {
    const res = await answer(new ValidationError([{ field: 'tag.key', message: 'tag.key must be the name of a tag.' }]), '/dashboard/compose/estimate.json');
    expect(res.status).to.equal(422);
    expect(JSON.parse(res.text)).to.deep.equal({ errors: ['tag.key must be the name of a tag.'] });
  });

  it('leaves a bug to the REST middleware: a 500 naming the request id, nothing of its text', async () => {
    const res = await answer(new TypeError('secret internals'), '/dashboard/');
    expect(res.status).to.equal(500);
    expect(res.text).to.contain('req-1');
    expect(res.text).to.not.contain('secret internals');
  });

  it('escapes the sentences it lists, and lists nothing when there is nothing', () => {
    expect(toString(errorList('url', ['<b>url</b> is longer than 500 characters.']))).to.equal(
      '<ul class="field-errors" id="url-errors" role="alert"><li>&lt;b&gt;url&lt;/b&gt; is longer than 500 characters.</li></ul>',
    );
    expect(toString(errorList('url', []))).to.equal('');
  });
});
