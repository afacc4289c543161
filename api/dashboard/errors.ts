// The dashboard's one error renderer, as api/middleware/errors.ts is the REST side's. A page that
// cannot be shown throws an error of the family (NotFoundError, ForbiddenError, RateLimitedError…)
// and `dashboardErrors` answers it as an HTML page with its status and headers; a form shows what
// it refused with `errorList`, beside the field it is about or at the top of the form. Paths
// ending in .json are the page script's: their errors stay the REST body {"errors": [...]}.
import type { Context, Middleware } from 'koa';
import { HeraldError } from '../../core/errors.js';
import { html, type Html } from './html.js';
import { layoutOf, page } from './respond.js';

const TITLES: Record<number, string> = {
  400: 'Not understood',
  401: 'Sign in again',
  402: 'Payment required',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Try again shortly',
  422: 'Not accepted',
  429: 'Too many requests',
  503: 'Unavailable for a moment',
};

/** The id of the list of errors about `area` (a form field, `form` or `page`), for aria-describedby. */
export const errorsId = (area: string) => `${area}-errors`;

/** The sentences about one area, announced to screen readers; nothing when there are none. */
export function errorList(area: string, messages: readonly string[] | undefined): Html {
  if (!messages || messages.length === 0) return html``;
  return html`<ul class="field-errors" id="${errorsId(area)}" role="alert">${messages.map((m) => html`<li>${m}</li>`)}</ul>`;
}

/** The attributes of a control whose value was refused: it points at its errors. */
export const invalidWhen = (area: string, refused: boolean): Html =>
  refused ? html`aria-describedby="${errorsId(area)}" aria-invalid="true"` : html``;

/** An error page: its title by status, its sentences, and the way back. */
export function errorPage(ctx: Context, error: HeraldError): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  const title = TITLES[error.status] ?? 'Not possible';
  const home = ctx.path.startsWith('/dashboard/audience') ? html`<a href="/dashboard/audience">Back to the audience</a>` : html`<a href="/dashboard/">Back to the overview</a>`;
  page(ctx, layoutOf(ctx, title), html`<h1>${title}</h1>${errorList('page', error.messages)}<p>${home}</p>`, error.status);
}

/** Renders what a dashboard page throws, when it may be shown (a 5xx goes on to errorBody, logged once). */
export function dashboardErrors(): Middleware {
  return async function dashboardErrorPages(ctx, next) {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof HeraldError) || !error.expose || ctx.path.endsWith('.json')) throw error;
      errorPage(ctx, error);
    }
  };
}
