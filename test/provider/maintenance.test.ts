// The provider's upkeep: nonces older than the window are purged so the table stays bounded
// (the provider's rules), expired temporary credentials are deleted, and the last use of
// a token is written off the hot path.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import { startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertOk, assertProblem } from '../conformance/support/wire.ts';

let world: World;
let token: TokenCredentials;
before(async () => {
  world = await startWorld();
  token = await world.tokenCredentials('HMAC-SHA1', 'header');
});
after(() => world.close());

describe('Provider upkeep', () => {
  it('keeps used nonces while the timestamp window could still accept a replay', async () => {
    const request = {
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: '/api/me',
      token,
      nonce: 'kept-through-upkeep',
      timestamp: world.clock.seconds(),
    } as const;
    assertOk(await world.call(request));
    world.clock.advance(299); // still inside the 300 s window
    await world.server.provider.maintain();
    assertProblem(await world.call(request), 401, 'nonce_used');
  });

  it('purges used nonces once the timestamp window has passed', async () => {
    assertOk(await world.me('HMAC-SHA1', 'header', token));
    world.clock.advance(302);
    await world.server.provider.maintain();
    assert.equal(await world.server.store.nonces.size(), 0);
  });

  it('deletes temporary credentials once they expired', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header');
    world.clock.advance(601);
    await world.server.provider.maintain();
    assert.equal(await world.server.store.temporaryCredentials.find(temporary.token), undefined);
  });

  it('records the last use of a token credential', async () => {
    const before = world.clock.now();
    assertOk(await world.me('HMAC-SHA1', 'header', token));
    await world.server.provider.flushLastUse();
    const stored = await world.server.provider.tokens.find(token.token);
    assert.ok(stored?.lastUsedAt !== null && stored!.lastUsedAt! >= before);
  });
});
