// kill -9 of the real `latchkey serve` under full load, a few times in a row on the embedded
// store and once on PostgreSQL + Redis (bench/faults/kill-9.ts runs 20 and 5 cycles of the
// same): every token credential returned before a kill works after the restart, no nonce
// accepted before a kill is accepted after it, and the SQLite file passes integrity_check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runKillCycles, temporaryDatabase } from '../../bench/faults/kill-9-cycles.ts';
import type { KillCyclesResult } from '../../bench/faults/kill-9-cycles.ts';
import { postgresUrl, redisUrl, servicesSkip, useDeployment } from '../ops/support.ts';

function assertSurvived(result: KillCyclesResult, t: { diagnostic(message: string): void }) {
  for (const cycle of result.cycles) t.diagnostic(JSON.stringify(cycle));
  for (const cycle of result.cycles) {
    // Each kill came under load: answers returned, and requests still on the wire.
    assert.ok(cycle.tokensReturned > 0 && cycle.noncesAccepted > 0, `cycle ${cycle.cycle}`);
    assert.ok(cycle.inFlightAtKill > 0, `cycle ${cycle.cycle}: nothing in flight at the kill`);
  }
  assert.deepEqual(
    {
      tokensLost: result.tokensLost,
      replaysAccepted: result.replaysAccepted,
      integrityFailures: result.integrityFailures,
      unexpected: result.cycles.flatMap((c) => c.unexpected),
    },
    { tokensLost: 0, replaysAccepted: 0, integrityFailures: 0, unexpected: [] },
  );
}

describe('kill -9 of latchkey serve under full load, SQLite', () => {
  it('loses no token, forgets no nonce and leaves the file intact, 3 kills in a row', async (t) => {
    const database = temporaryDatabase();
    try {
      assertSurvived(await runKillCycles({ database: database.path, cycles: 3, loadMs: 800 }), t);
    } finally {
      database.remove();
    }
  });
});

describe(
  'kill -9 of latchkey serve under full load, PostgreSQL + Redis',
  { skip: await servicesSkip() },
  () => {
    const deployment = useDeployment();
    it('loses no token and forgets no nonce', async (t) => {
      const result = await runKillCycles({
        database: postgresUrl,
        redis: redisUrl,
        schema: deployment.schema,
        prefix: deployment.prefix,
        cycles: 1,
        loadMs: 800,
      });
      assertSurvived(result, t);
    });
  },
);
