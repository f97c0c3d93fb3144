// Faults: PostgreSQL or Redis stopped under load. Requests get 503 with Retry-After,
// never a 500 and never a hang; no request is accepted without its nonce check (fail closed);
// service resumes by itself when the backend returns. Real HTTP requests of every kind (a
// protected resource, the temporary credential endpoint, the authorization page, the gateway,
// /readyz) run against a server on openStore whose services sit behind loopback proxies.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { servicesSkip, useDeployment } from '../ops/support.ts';
import { duringOutage, HANG_MS, kinds, runOutage, startFaultWorld } from './support.ts';
import type { FaultWorld, Kind, OutageRun } from './support.ts';

const skip = await servicesSkip();

function statuses(run: OutageRun, kind: Kind): number[] {
  return duringOutage(run)
    .filter((answer) => answer.kind === kind)
    .map((answer) => answer.status);
}

/** `503×12 200×3`: how often each status came. */
function tally(list: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const status of list) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${status}×${count}`).join(' ') || 'none';
}

/** The checks every outage must pass, one test each. */
function describeOutage(
  title: string,
  service: 'postgres' | 'redis',
  needsService: readonly Kind[],
  mode: 'cut' | 'freeze',
) {
  describe(title, () => {
    const deployment = useDeployment();
    let world: FaultWorld;
    let run: OutageRun;
    before(async () => {
      world = deployment.track(await startFaultWorld(deployment));
      const proxy = world[service];
      run = await runOutage(world, {
        takeAway: mode === 'cut' ? () => proxy.cut() : () => proxy.freeze(),
        // A frozen proxy's connections have lost bytes: drop them, then listen again.
        giveBack: async () => {
          if (mode === 'freeze') await proxy.cut();
          await proxy.restore();
        },
        downMs: mode === 'cut' ? 3000 : 7000,
        workers: mode === 'cut' ? 5 : 10,
      });
    });

    it('answers 503 with Retry-After to every request that needs the service', (t) => {
      for (const kind of kinds)
        t.diagnostic(`${kind} during the outage: ${tally(statuses(run, kind))}`);
      const needing = duringOutage(run).filter((a) => needsService.includes(a.kind));
      assert.ok(needing.length > 0, 'no request ran during the outage');
      const wrong = needing.filter((a) => a.status !== 503 || a.retryAfter === null);
      assert.deepEqual(wrong, []);
    });

    it('never answers 500 (or any 5xx but 503)', () => {
      const errors = run.answers.filter((a) => a.status >= 500 && a.status !== 503);
      assert.deepEqual(errors, []);
    });

    it(`never leaves a request waiting past ${HANG_MS} ms`, () => {
      assert.deepEqual(
        run.answers.filter((a) => a.hung),
        [],
      );
    });

    it('serves every kind of request again once the service returns, without a restart', () => {
      assert.equal(run.recovered, true);
    });
  });
}

describe('faults', { skip }, () => {
  describeOutage('PostgreSQL cut under load', 'postgres', ['temporary', 'page', 'ready'], 'cut');
  describeOutage(
    'Redis cut under load',
    'redis',
    ['resource', 'temporary', 'gateway', 'ready'],
    'cut',
  );
  describeOutage(
    'PostgreSQL frozen under load (connections open, nothing answers)',
    'postgres',
    ['temporary', 'page', 'ready'],
    'freeze',
  );
  describeOutage(
    'Redis frozen under load (connections open, nothing answers)',
    'redis',
    ['resource', 'temporary', 'gateway', 'ready'],
    'freeze',
  );
});
