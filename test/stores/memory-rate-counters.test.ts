// The embedded store's rate counters: a fixed window from the first hit, and a bounded map.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRateCounters } from '../../src/store/memory-rate-counters.ts';

describe('Rate counters in memory (the embedded store)', () => {
  it('counts hits in a window that starts with the first, then starts a new one', async () => {
    let now = 1_000;
    const counters = createMemoryRateCounters({ now: () => now });
    assert.deepEqual(await counters.incr('k', 60_000), { count: 1, ttlMs: 60_000 });
    now += 10_000;
    assert.deepEqual(await counters.incr('k', 60_000, 5), { count: 6, ttlMs: 50_000 });
    now += 50_000;
    assert.deepEqual(await counters.incr('k', 60_000), { count: 1, ttlMs: 60_000 });
  });

  it('keeps at most maxKeys keys, so made-up keys cannot grow it without bound', async () => {
    const counters = createMemoryRateCounters({ now: () => 0, maxKeys: 3 });
    for (const key of ['a', 'b', 'c', 'd']) await counters.incr(key, 60_000);
    // 'a', the oldest, made room for 'd': it starts again from 1.
    assert.equal((await counters.incr('a', 60_000)).count, 1);
    assert.equal((await counters.incr('d', 60_000)).count, 2);
  });

  it('gives up the key used least recently, so a flood of new keys keeps a busy counter', async () => {
    const counters = createMemoryRateCounters({ now: () => 0, maxKeys: 100 });
    await counters.incr('busy', 60_000);
    for (let i = 0; i < 1000; i++) {
      await counters.incr(`flood-${i}`, 60_000);
      if (i % 50 === 0) await counters.incr('busy', 60_000);
    }
    assert.equal(counters.size, 100);
    assert.equal((await counters.incr('busy', 60_000)).count, 22);
  });
});
