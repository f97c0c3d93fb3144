// Operations: GET /healthz (the process is up) and GET /readyz (the stores answer),
// for a load balancer's probes. The PostgreSQL and Redis outage cases are in test/faults/.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startWorld } from './world.ts';

describe('health probes', () => {
  it('answers GET /healthz with 200 while the process runs', async () => {
    const world = await startWorld();
    try {
      const response = await world.app.inject({ method: 'GET', url: '/healthz' });
      assert.deepEqual([response.statusCode, response.json()], [200, { status: 'ok' }]);
    } finally {
      await world.close();
    }
  });

  it('answers GET /readyz with 200 when the store answers', async () => {
    const world = await startWorld();
    try {
      const response = await world.app.inject({ method: 'GET', url: '/readyz' });
      assert.deepEqual([response.statusCode, response.json()], [200, { status: 'ready' }]);
    } finally {
      await world.close();
    }
  });

  it('answers GET /readyz with 503 and Retry-After when the store does not answer', async () => {
    const world = await startWorld();
    try {
      await world.store.close();
      const response = await world.app.inject({ method: 'GET', url: '/readyz' });
      assert.deepEqual([response.statusCode, response.headers['retry-after']], [503, '5']);
    } finally {
      await world.close();
    }
  });

  it('keeps GET /healthz at 200 when the store does not answer', async () => {
    const world = await startWorld();
    try {
      await world.store.close();
      const response = await world.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(response.statusCode, 200);
    } finally {
      await world.close();
    }
  });

  it('keeps the probes out of shared caches', async () => {
    const world = await startWorld();
    try {
      const responses = await Promise.all(
        ['/healthz', '/readyz'].map((url) => world.app.inject({ method: 'GET', url })),
      );
      assert.deepEqual(
        responses.map((response) => response.headers['cache-control']),
        ['no-store', 'no-store'],
      );
    } finally {
      await world.close();
    }
  });
});
