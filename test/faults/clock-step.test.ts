// The server's clock stepped ten minutes forward or back, then returned, with upkeep running
// while it was wrong: no nonce used before the step is accepted again after it (no replay
// window), and after the return the server accepts fresh requests and the authorizations in
// flight as before (no mass refusal). Through the provider's injectable clocks: a wall clock
// the test steps and a monotonic one that only real time moves. test/faults/clock-step-process.test.ts
// does the same to the real `latchkey serve` under libfaketime.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';

const STEP_MS = 10 * 60 * 1000;

/** Real time, moved only by the test (it stands still otherwise), and a step on top of it. */
class SteppedClock {
  private readonly startedMs = Date.now();
  passedMs = 0;
  stepMs = 0;
  readonly wall = (): number => this.startedMs + this.passedMs + this.stepMs;
  readonly monotonic = (): number => this.passedMs;
  /** The clients' clock: right all along. */
  seconds(): number {
    return Math.floor((this.startedMs + this.passedMs) / 1000);
  }
}

describe('the server clock stepped ±10 minutes and back', () => {
  const clock = new SteppedClock();
  let server: TestServer;
  let client: ClientCredentials;
  let token: TokenCredentials;
  let sent = 0;

  before(async () => {
    server = await startServer({ now: clock.wall, monotonicNow: clock.monotonic });
    const registered = await server.provider.clients.register({
      name: 'Clock probe',
      callbacks: ['https://probe.example/ready'],
    });
    const owner = await server.provider.owners.create('clock-owner', 'a long password');
    const issued = await server.provider.tokens.issue({
      clientKey: registered.key,
      ownerId: owner.id,
    });
    client = { key: registered.key, secret: registered.secret };
    token = { token: issued.token, secret: issued.secret };
  });
  after(() => server.close());

  /** A request signed by a client whose clock is right; `nonce` and `timestamp` fixed. */
  function signed(nonce = `fresh-${++sent}`, timestamp = clock.seconds()) {
    return signRequest({
      method: 'GET',
      url: `${server.url}/api/me`,
      client,
      token,
      nonce,
      timestamp,
    });
  }

  async function send(request: ReturnType<typeof signed>) {
    const response = await fetch(request.url, { headers: request.headers });
    const body = await response.text();
    return [response.status, new URLSearchParams(body).get('oauth_problem')] as const;
  }

  for (const [name, step] of [
    ['forward', STEP_MS],
    ['back', -STEP_MS],
  ] as const) {
    describe(`stepped ${name}`, () => {
      let used: ReturnType<typeof signed>;
      let pending: string;

      before(async () => {
        used = signed();
        assert.deepEqual(await send(used), [200, null]);
        // An authorization in flight: temporary credentials issued, the owner not yet back.
        const temporary = signRequest({
          method: 'POST',
          url: `${server.url}/oauth/request_token`,
          client,
          protocolParameters: { oauth_callback: 'oob' },
          timestamp: clock.seconds(),
        });
        const issued = await fetch(temporary.url, {
          method: 'POST',
          headers: temporary.headers,
        });
        pending = new URLSearchParams(await issued.text()).get('oauth_token') ?? '';
        assert.equal(issued.status, 200);
        clock.passedMs += 5_000; // the owner reads the consent page a while
        clock.stepMs = step;
        await server.provider.maintain(); // upkeep while the clock is wrong
        clock.stepMs = 0;
        await server.provider.maintain(); // and once it is right again
      });

      it('refuses, once the clock is back, a nonce used before the step', async () => {
        assert.deepEqual(await send(used), [401, 'nonce_used']);
      });

      it('accepts fresh requests once the clock is back', async () => {
        for (let i = 0; i < 5; i++) assert.deepEqual(await send(signed()), [200, null]);
      });

      it('still knows the authorization that was in flight', async () => {
        const described = await server.provider.authorization.describe(pending);
        assert.equal(described.client.key, client.key);
      });
    });
  }

  it('still forgets nonces once the window has really passed', async () => {
    const before = await server.store.nonces.size();
    assert.ok(before > 0, 'nonces of the requests above');
    clock.passedMs += (300 + 1) * 1000;
    await server.provider.maintain();
    assert.equal(await server.store.nonces.size(), 0);
  });
});
