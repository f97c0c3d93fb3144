// How the provider counts requests against a client's limit: far from the limit in batches
// (no store call for most requests, the hot path), near it one by one (the limit holds
// exactly, also across instances sharing one count).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OAuthError } from '../../src/protocol/index.ts';
import { defaultPolicy } from '../../src/provider/policy.ts';
import { createRateLimits } from '../../src/provider/verify/rate-limits.ts';
import { createMemoryRateCounters } from '../../src/store/memory-rate-counters.ts';
import type { Client, RateCounterStore } from '../../src/store/index.ts';
import { newClient } from '../stores/contract/fixtures.ts';

/** The real memory counters, with the calls made to them counted. */
function countedCounters(): RateCounterStore & { calls: number } {
  const inner = createMemoryRateCounters();
  const counters = {
    calls: 0,
    incr(key: string, windowMs: number, hits?: number) {
      counters.calls += 1;
      return inner.incr(key, windowMs, hits);
    },
  };
  return counters;
}

function client(requestsPerMinute: number | null): Client {
  return {
    ...newClient(),
    sessionExtension: false,
    rememberConsent: 'never',
    tokenResponseIdentity: false,
    scopes: [],
    requestsPerMinute,
    failuresPerMinute: null,
    createdAt: 0,
  };
}

async function count(limits: ReturnType<typeof createRateLimits>, c: Client): Promise<boolean> {
  try {
    await limits.countRequest(c);
    return true;
  } catch (error) {
    assert.ok(error instanceof OAuthError && error.problem === 'rate_limit_exceeded');
    return false;
  }
}

describe('Per-client request limits in the provider', () => {
  it('far from the limit, reports requests in batches: 1,000 requests, at most 17 store calls', async () => {
    const counters = countedCounters();
    const limits = createRateLimits(counters, defaultPolicy, Date.now);
    const c = client(null);
    for (let i = 0; i < 1000; i++) assert.equal(await count(limits, c), true);
    assert.ok(counters.calls <= 17, `${counters.calls} store calls`);
  });

  it('near the limit, reports every request: two instances sharing one count allow exactly the limit', async () => {
    const counters = countedCounters();
    const a = createRateLimits(counters, defaultPolicy, Date.now);
    const b = createRateLimits(counters, defaultPolicy, Date.now);
    const c = client(50);
    let allowed = 0;
    for (let i = 0; i < 60; i++) if (await count(i % 2 === 0 ? a : b, c)) allowed += 1;
    assert.equal(allowed, 50);
  });
});
