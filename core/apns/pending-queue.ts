// The lean transport's one FIFO of messages waiting for a connection (transport.ts). A head
// index, not shift()/slice() of the rest per dispatch: a send of 500 messages is taken in shares
// without copying what still waits.
import type { Pending } from './pending.js';

export class PendingQueue {
  private queue: Pending[] = [];
  private head = 0;

  /** Messages waiting. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  push(p: Pending): void {
    this.queue.push(p);
  }

  /** Back at the front: a message the peer never processed goes out before the ones behind it. */
  requeue(p: Pending): void {
    if (this.head > 0) this.queue[--this.head] = p;
    else this.queue.unshift(p);
  }

  /** The next `n` messages (fewer when fewer wait). */
  take(n: number): Pending[] {
    const batch = this.queue.slice(this.head, this.head + n);
    this.head += n;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 4096) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  /** Every waiting message, the queue left empty. */
  drain(): Pending[] {
    const all = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    return all;
  }
}
