// Spec "Nonce and timestamp" (RFC 5849 §3.3): a nonce is used once per timestamp, client and
// token, also across a restart; the timestamp must fall inside the server's window (300 s
// either way by default), and a refusal says which timestamps are acceptable.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import { send } from './support/http.ts';
import type { RawResponse } from './support/http.ts';
import { eachCombination, PATHS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

/** The refusal names the acceptable range, and the server's own time lies inside it. */
function assertAcceptableRange(answer: RawResponse, nowSeconds: number): void {
  const range = answer.fields['oauth_acceptable_timestamps'] ?? '';
  const match = /^(\d+)-(\d+)$/.exec(range);
  assert.ok(match, `oauth_acceptable_timestamps is "from-to": ${range}`);
  const from = Number(match[1]);
  const to = Number(match[2]);
  assert.equal(to - from, 600);
  assert.ok(from <= nowSeconds && nowSeconds <= to + 1, `${nowSeconds} within ${range}`);
}

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §3.3 nonce and timestamp (${method}, parameters in the ${transmission})`, () => {
    let token: TokenCredentials;
    before(async () => {
      token = await world.tokenCredentials(method, transmission);
    });
    const me = (options: {
      timestamp?: number | string;
      nonce?: string;
      with?: TokenCredentials;
    }) =>
      world.sign({
        signatureMethod: method,
        transmission,
        path: PATHS.me,
        token: options.with ?? token,
        timestamp: options.timestamp,
        nonce: options.nonce,
      });

    it('refuses a replayed request with nonce_used', async () => {
      const wire = me({});
      assertOk(await send(wire));
      assertProblem(await send(wire), 401, 'nonce_used');
    });

    it('refuses a replayed request after the server restarts on the same database', async () => {
      const wire = me({});
      assertOk(await send(wire));
      await world.restart();
      assertProblem(await send(wire), 401, 'nonce_used');
    });

    it('refuses a replayed temporary credential request with nonce_used', async () => {
      const wire = world.sign({
        signatureMethod: method,
        transmission,
        path: PATHS.requestToken,
        httpMethod: 'POST',
        protocolParameters: { oauth_callback: 'oob' },
      });
      assertOk(await send(wire));
      assertProblem(await send(wire), 401, 'nonce_used');
    });

    it('accepts the same nonce with another timestamp', async () => {
      const nonce = `n-${method}-${transmission}-ts`;
      const now = world.clock.seconds();
      assertOk(await send(me({ nonce, timestamp: now })));
      assertOk(await send(me({ nonce, timestamp: now - 1 })));
    });

    it('accepts the same nonce and timestamp with another token', async () => {
      const nonce = `n-${method}-${transmission}-token`;
      const now = world.clock.seconds();
      const second = await world.server.provider.tokens.issue({
        clientKey: world.credentials(method).key,
        ownerId: world.owner.id,
      });
      assertOk(await send(me({ nonce, timestamp: now })));
      assertOk(await send(me({ nonce, timestamp: now, with: second })));
    });

    it('accepts a timestamp 290 seconds old and one 290 seconds ahead', async () => {
      assertOk(await send(me({ timestamp: world.clock.seconds() - 290 })));
      assertOk(await send(me({ timestamp: world.clock.seconds() + 290 })));
    });

    it('refuses a timestamp older than the window with timestamp_refused and the acceptable range', async () => {
      const now = world.clock.seconds();
      const answer = await send(me({ timestamp: now - 301 }));
      assertProblem(answer, 401, 'timestamp_refused');
      assertAcceptableRange(answer, now);
    });

    it('refuses a timestamp ahead of the window with timestamp_refused and the acceptable range', async () => {
      const now = world.clock.seconds();
      const answer = await send(me({ timestamp: now + 301 }));
      assertProblem(answer, 401, 'timestamp_refused');
      assertAcceptableRange(answer, now);
    });

    it('refuses a 13-digit millisecond timestamp with timestamp_refused, the range, and says why', async () => {
      const now = world.clock.seconds();
      const answer = await send(me({ timestamp: world.clock.now() }));
      assertProblem(answer, 401, 'timestamp_refused');
      assertAcceptableRange(answer, now);
      assert.match(answer.fields['oauth_problem_advice'] ?? '', /millisecond/i);
    });
  });
}
