/**
 * Runs waiting for the sandbox, served round-robin across their keys (a chat, a CLI invocation), so
 * a burst from one chat never starves the others: with k keys waiting, a run waits at most k - 1
 * other runs per run queued before it in its own key. Within a key, order is kept.
 */
export class FairQueue<T> {
  private readonly byKey = new Map<string, T[]>();
  /** Keys with waiting items, in serving order (the next one served first). */
  private readonly order: string[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(key: string, item: T): void {
    let q = this.byKey.get(key);
    if (!q) {
      q = [];
      this.byKey.set(key, q);
      this.order.push(key);
    }
    q.push(item);
    this.count++;
  }

  /** Put an item back at the very front (a run that could not start yet keeps its turn). */
  unshift(key: string, item: T): void {
    let q = this.byKey.get(key);
    if (!q) {
      q = [];
      this.byKey.set(key, q);
    } else {
      const i = this.order.indexOf(key);
      if (i >= 0) this.order.splice(i, 1);
    }
    this.order.unshift(key);
    q.unshift(item);
    this.count++;
  }

  /** The next item: the oldest of the key whose turn it is; that key then goes to the back. */
  shift(): T | undefined {
    const key = this.order.shift();
    if (key === undefined) return undefined;
    const q = this.byKey.get(key)!;
    const item = q.shift()!;
    this.count--;
    if (q.length > 0) this.order.push(key);
    else this.byKey.delete(key);
    return item;
  }

  /** Take `item` out of `key`'s line (a run cancelled while waiting); false when it is not there. */
  remove(key: string, item: T): boolean {
    const q = this.byKey.get(key);
    const i = q ? q.indexOf(item) : -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    this.count--;
    if (q.length === 0) {
      this.byKey.delete(key);
      const k = this.order.indexOf(key);
      if (k >= 0) this.order.splice(k, 1);
    }
    return true;
  }

  /** Remove and return every item (oldest first within each key). */
  drain(): T[] {
    const out: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) out.push(item);
    return out;
  }
}
