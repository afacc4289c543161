// The steady load of the fault suite: list and segment sends from several apps, and stats reads,
// spread over the api processes, each answer judged as it comes. Allowed: 2xx, 429, 503; a reset
// or refused connection only from an api process the suite killed.
import type { Proc } from '../e2e/harness.js';

export interface LoadApp {
  appId: string;
  key: string;
  /** Subscription ids and their tokens, in the same order. */
  subscriptionIds: string[];
  tokens: string[];
}

export interface Accepted {
  id: number;
  app: LoadApp;
  /** Tokens the send targets (its whole audience). */
  tokens: string[];
}

export class Load {
  readonly accepted: Accepted[] = [];
  readonly unexpected: string[] = [];
  readonly answers = new Map<number, number>();
  private running = false;
  private loops: Promise<void>[] = [];
  private n = 0;

  constructor(private readonly apps: LoadApp[], private readonly apis: () => Proc[], private readonly killed: Set<Proc>) {}

  start(loops = 2, pauseMs = 250): void {
    this.running = true;
    for (let i = 0; i < loops; i++) this.loops.push(this.loop(pauseMs));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  count(status: number): number {
    return this.answers.get(status) ?? 0;
  }

  private async loop(pauseMs: number): Promise<void> {
    while (this.running) {
      await this.once().catch((error) => this.unexpected.push(`load threw: ${(error as Error).message}`));
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }

  private async once(): Promise<void> {
    const n = this.n++;
    const live = this.apis().filter((p) => !this.killed.has(p));
    const api = live[n % live.length];
    const app = this.apps[n % this.apps.length];
    const kind = n % 3;
    if (kind === 2 && this.accepted.length) {
      const pick = this.accepted[(n * 7919) % this.accepted.length];
      await this.call(api, 'GET', `/api/v1/notifications/${pick.id}`, pick.app.key);
      return;
    }
    let body: Record<string, unknown>;
    let tokens: string[];
    if (kind === 0) {
      body = { app_id: app.appId, included_segments: ['All'], contents: { en: `segment ${n}` } };
      tokens = app.tokens;
    } else {
      const start = (n * 37) % (app.subscriptionIds.length - 50);
      body = { app_id: app.appId, include_subscription_ids: app.subscriptionIds.slice(start, start + 50), contents: { en: `list ${n}` } };
      tokens = app.tokens.slice(start, start + 50);
    }
    const answer = await this.call(api, 'POST', '/api/v1/notifications', app.key, body);
    if (answer && answer.status >= 200 && answer.status < 300 && typeof answer.body?.id === 'number') {
      this.accepted.push({ id: answer.body.id, app, tokens });
    }
  }

  private async call(api: Proc, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any } | undefined> {
    try {
      const res = await fetch(`http://127.0.0.1:${api.port}${path}`, {
        method,
        headers: { authorization: `Key ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const parsed = (await res.json().catch(() => undefined)) as any;
      this.answers.set(res.status, (this.answers.get(res.status) ?? 0) + 1);
      const ok = (res.status >= 200 && res.status < 300) || res.status === 429 || res.status === 503;
      if (!ok) this.unexpected.push(`${method} ${path} → ${res.status} ${JSON.stringify(parsed)}`);
      if (res.status === 503 && (!res.headers.get('retry-after') || !Array.isArray(parsed?.errors))) {
        this.unexpected.push(`${method} ${path} → 503 without Retry-After or errors body`);
      }
      return { status: res.status, body: parsed };
    } catch (error) {
      // A connection reset or refused is allowed only from an api the suite killed.
      if (!this.killed.has(api)) this.unexpected.push(`${method} ${path} on a live api: ${(error as Error).message} ${(error as any).cause?.code ?? ''}`);
      return undefined;
    }
  }
}
