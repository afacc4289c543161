// One message on its way through the lean transport: where its result goes, how many times it
// went out, and the state of its current stream. A plain object per message (no promise, no
// emitter): a batch resolves once, when its last message settles.
import type { ApnsMessage, ApnsResult } from './types.js';

export class Batch {
  readonly results: ApnsResult[];
  private remaining: number;

  constructor(size: number, private readonly resolve: (results: ApnsResult[]) => void) {
    this.results = new Array<ApnsResult>(size);
    this.remaining = size;
    if (size === 0) resolve(this.results);
  }

  settle(index: number, result: ApnsResult): void {
    this.results[index] = result;
    if (--this.remaining === 0) this.resolve(this.results);
  }
}

export class Pending {
  /** Times handed to a connection. */
  attempts = 0;
  /** Already retried once after ExpiredProviderToken. */
  tokenRetried = false;
  /** The provider token generation its current request carried (token auth). */
  generation = 0;
  settled = false;
  // The current stream.
  streamId = 0;
  sendWindow = 0;
  dataSent = 0;
  deadline = 0;
  status = 0;
  apnsId: string | undefined;
  retryAfter: string | undefined;
  body: Buffer[] | undefined;
  bodyLength = 0;
  /** The request's :path (request-block.ts requestPath), set once before it is queued. */
  path = '';

  constructor(
    readonly message: ApnsMessage,
    readonly payload: Buffer,
    private readonly batch: Batch,
    private readonly index: number,
  ) {}

  reset(streamId: number, window: number, deadline: number): void {
    this.attempts++;
    this.streamId = streamId;
    this.sendWindow = window;
    this.dataSent = 0;
    this.deadline = deadline;
    this.status = 0;
    this.apnsId = undefined;
    this.retryAfter = undefined;
    this.body = undefined;
    this.bodyLength = 0;
  }

  /** Records the result once; a second settle (a late frame, a retry race) is ignored. */
  settle(result: ApnsResult): void {
    if (this.settled) return;
    this.settled = true;
    this.batch.settle(this.index, result);
  }
}
