/** A read waiting for the next statement. */
interface Waiting<K, V> {
  key: K;
  resolve: (value: V | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * Reads by key that share statements: the reads asked for while one statement runs wait for the next,
 * which answers all of them at once (up to `max` keys). Each read's answer comes from a statement
 * sent after it was asked, so it is as current as a statement of its own would be; under load one
 * round trip serves many requests instead of one each.
 */
export class CoalescedReads<K, V> {
  private waiting: Waiting<K, V>[] = [];
  private running = false;

  constructor(
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    private readonly max = 500,
  ) {}

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain() {
    this.running = true;
    try {
      while (this.waiting.length) {
        const batch = this.waiting.splice(0, this.max);
        try {
          const found = await this.read([...new Set(batch.map((w) => w.key))]);
          for (const w of batch) w.resolve(found.get(w.key));
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
