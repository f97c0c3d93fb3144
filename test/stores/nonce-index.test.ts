// The SQLite store's in-memory nonce index (src/store/sqlite/nonce-index.ts): hashes grouped
// by their request's timestamp second, each group dropped whole once its latest expiry passed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NonceIndex } from '../../src/store/sqlite/nonce-index.ts';

describe('NonceIndex', () => {
  it('adds a hash once and reports it present', () => {
    const index = new NonceIndex();
    assert.equal(index.add(100, 400, 7, 9), true);
    assert.equal(index.add(100, 400, 7, 9), false);
    assert.equal(index.has(100, 7, 9), true);
    assert.equal(index.size, 1);
  });

  it('keeps the same hash under another timestamp apart', () => {
    const index = new NonceIndex();
    index.add(100, 400, 7, 9);
    assert.equal(index.has(101, 7, 9), false);
    assert.equal(index.add(101, 401, 7, 9), true);
  });

  it('finds a hash under its timestamp whatever expiry (window) either use gave', () => {
    const index = new NonceIndex();
    assert.equal(index.add(100, 400, 7, 9), true);
    assert.equal(index.add(100, 700, 7, 9), false);
    assert.equal(index.has(100, 7, 9), true);
  });

  it('keeps a group until the latest expiry of its hashes', () => {
    const index = new NonceIndex();
    index.add(100, 400, 1, 1);
    index.add(100, 700, 1, 2);
    assert.equal(index.purge(500), 0);
    assert.equal(index.has(100, 1, 1), true);
    assert.equal(index.purge(701), 2);
    assert.equal(index.size, 0);
  });

  it('treats an unsigned low half and its signed form as the same 32 bits', () => {
    const index = new NonceIndex();
    index.add(100, 400, -1, 0xffffffff);
    assert.equal(index.has(100, -1, -1), true);
  });

  it('holds the all-zero hash, which an empty slot cannot stand for', () => {
    const index = new NonceIndex();
    assert.equal(index.has(100, 0, 0), false);
    assert.equal(index.add(100, 400, 0, 0), true);
    assert.equal(index.add(100, 400, 0, 0), false);
    assert.equal(index.size, 1);
  });

  it('keeps every hash across growth of a group', () => {
    const index = new NonceIndex();
    for (let i = 0; i < 10_000; i++) index.add(100, 400, i * 7919, i * 104_729);
    assert.equal(index.size, 10_000);
    for (let i = 0; i < 10_000; i++) assert.equal(index.has(100, i * 7919, i * 104_729), true);
    assert.equal(index.has(100, 1, 1), false);
  });

  it('purges the seconds before now and keeps now and later', () => {
    const index = new NonceIndex();
    index.add(99, 399, 1, 1);
    index.add(99, 399, 1, 2);
    index.add(100, 400, 1, 3);
    index.add(101, 401, 1, 4);
    assert.equal(index.purge(400), 2);
    assert.equal(index.size, 2);
    assert.equal(index.has(99, 1, 1), false);
    assert.equal(index.has(100, 1, 3), true);
    assert.equal(index.add(99, 399, 1, 1), true, 'a purged entry is forgotten');
  });

  it('agrees with a Set for any sequence of adds (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer(), fc.integer()), {
          maxLength: 300,
        }),
        (entries) => {
          const index = new NonceIndex();
          const reference = new Set<string>();
          for (const [timestamp, high, low] of entries) {
            const key = `${timestamp}/${high | 0}/${low | 0}`;
            assert.equal(index.add(timestamp, timestamp + 300, high, low), !reference.has(key));
            reference.add(key);
          }
          assert.equal(index.size, reference.size);
        },
      ),
    );
  });
});
