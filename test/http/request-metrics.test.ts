// The per-request metrics (docs/events.md), tallied off prom-client and read through its
// registry: the exposition must be what a prom-client Counter and Histogram would give.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { registerRequestMetrics } from '../../src/http/request-metrics.ts';
import { sample } from '../ops/world.ts';

function tallied(record: (metrics: ReturnType<typeof registerRequestMetrics>) => void) {
  const registry = new Registry();
  const metrics = registerRequestMetrics([registry]);
  record(metrics);
  return { registry, metrics };
}

const bucket = (text: string, le: string) =>
  sample(text, 'latchkey_http_request_duration_seconds_bucket', { endpoint: '/api/me', le });

describe('request metrics', () => {
  it('counts a duration equal to a bound in that bound’s bucket, as Prometheus’s le means', async () => {
    const { registry } = tallied((m) => m.record('/api/me', 200, 0.005));
    const text = await registry.metrics();
    assert.deepEqual([bucket(text, '0.0025'), bucket(text, '0.005')], [0, 1]);
  });

  it('gives cumulative buckets, +Inf, sum and count per endpoint', async () => {
    const { registry } = tallied((m) => {
      m.record('/api/me', 200, 0.0005);
      m.record('/api/me', 200, 0.02);
      m.record('/api/me', 401, 7);
      m.record('/healthz', 200, 0.0001);
    });
    const text = await registry.metrics();
    const name = 'latchkey_http_request_duration_seconds';
    assert.deepEqual(
      [
        bucket(text, '0.001'),
        bucket(text, '0.025'),
        bucket(text, '5'),
        bucket(text, '+Inf'),
        sample(text, `${name}_count`, { endpoint: '/api/me' }),
        sample(text, `${name}_sum`, { endpoint: '/api/me' }),
        sample(text, `${name}_count`, { endpoint: '/healthz' }),
      ],
      [1, 2, 2, 3, 3, 7.0205, 1],
    );
  });

  it('counts each outcome of an endpoint, and only what was added since the last read', async () => {
    const { registry, metrics } = tallied((m) => {
      for (const status of [200, 204, 302, 401, 503, 500]) m.record('/api/me', status, 0.001);
    });
    const count = (text: string, outcome: string) =>
      sample(text, 'latchkey_http_requests_total', { endpoint: '/api/me', outcome });
    const first = await registry.metrics();
    metrics.record('/api/me', 200, 0.001);
    const second = await registry.metrics();
    assert.deepEqual(
      ['success', 'redirect', 'rejected', 'unavailable', 'error'].map((o) => count(first, o)),
      [2, 1, 1, 1, 1],
    );
    assert.equal(count(second, 'success'), 3);
  });

  it('starts the histogram again when the registry is reset', async () => {
    const { registry, metrics } = tallied((m) => m.record('/api/me', 200, 0.001));
    registry.resetMetrics();
    metrics.record('/api/me', 200, 0.001);
    const text = await registry.metrics();
    assert.equal(
      sample(text, 'latchkey_http_request_duration_seconds_count', { endpoint: '/api/me' }),
      1,
    );
  });
});
