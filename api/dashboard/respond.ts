// Rendering a dashboard page into the Koa answer.
import type { Context } from 'koa';
import { layout, type Html, type LayoutOptions } from './html.js';
import type { DashboardSession } from './session.js';

export const session = (ctx: Context) => ctx.state.session as DashboardSession;

export const layoutOf = (ctx: Context, title: string, current?: LayoutOptions['current']): LayoutOptions => ({ title, session: session(ctx), current });

export function page(ctx: Context, opts: LayoutOptions, body: Html, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = layout(opts, body);
}
