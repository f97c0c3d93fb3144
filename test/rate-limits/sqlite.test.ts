// Per-client rate limits on the embedded store: counted in the server's memory.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { describeRateLimits } from './suite.ts';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-rate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describeRateLimits(
  'SQLite, counted in memory',
  async () => createSqliteStore({ path: join(dir, 'latchkey.db') }),
  {
    shared: false,
    // Every counter the server holds: the memory counters say how many keys they keep.
    countersFor: async (store: Store) => {
      const counters = store.rateCounters;
      assert.ok('size' in counters && typeof counters.size === 'number');
      return counters.size;
    },
  },
);
