import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.js';

describe('FairQueue', () => {
  it('serves keys round-robin, keeping order within a key', () => {
    const q = new FairQueue<string>();
    for (let i = 0; i < 5; i++) q.push('a', `a${i}`);
    q.push('b', 'b0');
    q.push('c', 'c0');
    q.push('b', 'b1');
    expect(q.size).toBe(8);
    expect(q.drain()).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'a3', 'a4']);
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
  });

  it('a key that arrives late is served next-but-one, not after the whole burst', () => {
    const q = new FairQueue<string>();
    for (let i = 0; i < 100; i++) q.push('burst', `x${i}`);
    expect(q.shift()).toBe('x0');
    q.push('late', 'L');
    expect([q.shift(), q.shift()]).toEqual(['x1', 'L']);
  });

  it('unshift puts an item back at the very front', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a0');
    q.push('b', 'b0');
    const first = q.shift()!;
    q.unshift('a', first);
    expect(q.drain()).toEqual(['a0', 'b0']);
  });

  it('remove takes one item out (a cancelled run) and keeps the others in their turn', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a0');
    q.push('b', 'b0');
    q.push('a', 'a1');
    expect(q.remove('b', 'b0')).toBe(true);
    expect(q.remove('b', 'b0')).toBe(false);
    expect(q.size).toBe(2);
    q.push('c', 'c0');
    expect(q.drain()).toEqual(['a0', 'c0', 'a1']);
  });
});
