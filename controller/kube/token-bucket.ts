// A small in-process token bucket: keeps the controller's writes to the API server under a rate
// (like client-go's client-side QPS/burst), however many Sends change at once.
export class TokenBucket {
  private tokens: number;
  private last = Date.now();

  constructor(private readonly perSecond: number, private readonly burst = perSecond) {
    this.tokens = burst;
  }

  /** Resolves when a token is taken. */
  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(((1 - this.tokens) / this.perSecond) * 1000)));
    }
  }
}
