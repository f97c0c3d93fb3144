// The rows of the SQLite nonce log (src/store/sqlite/nonce-batch.ts): a commit's nonces in as
// few rows as a one-byte expiry offset and one window per row allow, each entry read back
// with its own expiry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  encodeRows,
  ENTRY_BYTES,
  forEachEntry,
  type NonceEntry,
} from '../../src/store/sqlite/nonce-batch.ts';

function decode(rows: ReturnType<typeof encodeRows>): NonceEntry[] {
  const entries: NonceEntry[] = [];
  for (const row of rows) {
    forEachEntry(row.expiresAt, row.entries, (expiresAt, high, low) =>
      entries.push({ expiresAt, windowSeconds: row.windowSeconds, high, low }),
    );
  }
  return entries;
}

const byValue = (a: NonceEntry, b: NonceEntry) =>
  a.expiresAt - b.expiresAt || a.high - b.high || a.low - b.low;

describe('nonce log rows', () => {
  it('puts nonces expiring within 255 s of each other in one row dated by the latest', () => {
    const rows = encodeRows([
      { expiresAt: 1_000, windowSeconds: 300, high: 1, low: 2 },
      { expiresAt: 1_255, windowSeconds: 300, high: 3, low: 4 },
    ]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.expiresAt, 1_255);
    assert.equal(rows[0]!.entries.length, 2 * ENTRY_BYTES);
  });

  it('starts another row for a nonce more than 255 s earlier', () => {
    const rows = encodeRows([
      { expiresAt: 1_000, windowSeconds: 300, high: 1, low: 2 },
      { expiresAt: 1_256, windowSeconds: 300, high: 3, low: 4 },
    ]);
    assert.deepEqual(
      rows.map((row) => row.expiresAt),
      [1_256, 1_000],
    );
  });

  it('starts another row for nonces checked under another window', () => {
    const rows = encodeRows([
      { expiresAt: 1_000, windowSeconds: 300, high: 1, low: 2 },
      { expiresAt: 1_000, windowSeconds: 600, high: 3, low: 4 },
    ]);
    assert.deepEqual(rows.map((row) => row.windowSeconds).sort(), [300, 600]);
  });

  it('writes no row for no nonces', () => {
    assert.deepEqual(encodeRows([]), []);
  });

  it('reads back every entry with its own expiry and hash (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            expiresAt: fc.integer({ min: 1_700_000_000, max: 1_700_001_000 }),
            windowSeconds: fc.constantFrom(300, 600),
            high: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
            low: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          }),
          { maxLength: 200 },
        ),
        (entries) => {
          const rows = encodeRows(entries);
          const plain = entries.map((entry) => ({ ...entry }));
          assert.deepEqual(decode(rows).sort(byValue), plain.sort(byValue));
          for (const row of rows) {
            assert.ok(row.windowSeconds === 300 || row.windowSeconds === 600);
            forEachEntry(row.expiresAt, row.entries, (expiresAt) => {
              assert.ok(expiresAt <= row.expiresAt && row.expiresAt - expiresAt <= 255);
            });
          }
        },
      ),
    );
  });

  it('reads an unsigned low half back as the same 32 bits, signed', () => {
    const [row] = encodeRows([{ expiresAt: 5, windowSeconds: 300, high: -1, low: 0xffffffff }]);
    assert.deepEqual(decode([row!]), [{ expiresAt: 5, windowSeconds: 300, high: -1, low: -1 }]);
  });
});
