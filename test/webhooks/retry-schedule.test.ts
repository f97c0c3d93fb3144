// The retry schedule of a failed delivery: exponential backoff from the base, half of each
// delay random, capped, and given up once the next try would fall past the retry window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextAttemptAt } from '../../src/provider/webhooks/retry-schedule.ts';

const options = { retryBaseMs: 1000, retryMaxDelayMs: 60_000, retryForMs: 86_400_000 };
const created = 1_000_000;

describe('webhook retry schedule', () => {
  it('doubles the delay with each attempt, half of it random', () => {
    for (const [attempts, delay] of [
      [1, 1000],
      [2, 2000],
      [3, 4000],
      [6, 32_000],
    ] as const) {
      const at = created + 10;
      assert.equal(
        nextAttemptAt(options, { attempts, createdAt: created }, at, () => 0),
        at + delay / 2,
      );
      assert.equal(
        nextAttemptAt(options, { attempts, createdAt: created }, at, () => 1),
        at + delay,
      );
    }
  });

  it('never waits longer than the largest delay', () => {
    const at = created + 5000;
    assert.equal(
      nextAttemptAt(options, { attempts: 500, createdAt: created }, at, () => 1),
      at + options.retryMaxDelayMs,
    );
  });

  it('gives up once the next try would fall past the retry window', () => {
    const late = created + options.retryForMs - 1000;
    assert.equal(
      nextAttemptAt(options, { attempts: 30, createdAt: created }, late, () => 0.5),
      null,
    );
    const inTime = created + options.retryForMs - 60_000;
    assert.notEqual(
      nextAttemptAt(options, { attempts: 1, createdAt: created }, inTime, () => 1),
      null,
    );
  });
});
