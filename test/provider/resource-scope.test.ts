// The provider's resource check (used by the middleware and the gateway): the token's scope
// is enforced on every request, 403 permission_denied when the resource needs more, and a
// resource that needs an owner refuses a request signed by the client alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { IncomingRequest } from '../../src/provider/index.ts';
import { startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';

let world: World;
let readOnly: TokenCredentials;
before(async () => {
  world = await startWorld();
  readOnly = await world.server.provider.tokens.issue({
    clientKey: world.sharedClient.key,
    ownerId: world.owner.id,
    scope: 'read',
  });
});
after(() => world.close());

/** A request to https://api.example.com/photos signed now, as an adapter would hand it over. */
function incoming(token: TokenCredentials | undefined): IncomingRequest {
  const signed = signRequest({
    method: 'GET',
    url: 'https://api.example.com/photos',
    client: { key: world.sharedClient.key, secret: world.sharedClient.secret },
    token,
    timestamp: world.clock.seconds(),
  });
  return {
    method: 'GET',
    scheme: 'https',
    host: 'api.example.com',
    path: '/photos',
    query: '',
    authorization: signed.headers['Authorization'],
    contentType: undefined,
    body: undefined,
    secure: true,
  };
}

describe('Provider: scope enforced on resource requests', () => {
  it('accepts a token whose scope covers what the resource requires', async () => {
    const verified = await world.server.provider.verifyResourceRequest(incoming(readOnly), {
      scope: 'read',
    });
    assert.equal(verified.caller.scope, 'read');
  });

  it('returns the caller (client, owner, scope, token), the signed parameters and the rate-limit standing, and no secret', async () => {
    const verified = await world.server.provider.verifyResourceRequest(incoming(readOnly));
    assert.deepEqual(Object.keys(verified).sort(), ['caller', 'parameters', 'rateLimit']);
    // The client's standing in its rate-limit window (the RateLimit-* fields): numbers only.
    assert.deepEqual(Object.keys(verified.rateLimit ?? {}).sort(), [
      'limit',
      'remaining',
      'resetSeconds',
    ]);
    assert.deepEqual(verified.caller, {
      client: { key: world.sharedClient.key, name: world.sharedClient.name },
      owner: {
        id: world.owner.id,
        subject: world.owner.subject,
        name: world.owner.name,
        source: world.owner.source,
      },
      scope: 'read',
      token: readOnly.token,
    });
    const text = JSON.stringify(verified);
    assert.ok(!text.includes(world.sharedClient.secret), 'no client secret');
    assert.ok(!text.includes(readOnly.secret), 'no token secret');
  });

  it('refuses a token without the required scope with 403 permission_denied', async () => {
    await assert.rejects(
      world.server.provider.verifyResourceRequest(incoming(readOnly), { scope: 'write' }),
      { problem: 'permission_denied', status: 403 },
    );
  });

  it('refuses a request signed by the client alone where a scope is required, even if two-legged requests are allowed', async () => {
    await assert.rejects(
      world.server.provider.verifyResourceRequest(incoming(undefined), {
        scope: 'read',
        tokenRequired: false,
      }),
      { problem: 'permission_denied' },
    );
  });

  it('refuses a request signed by the client alone where a token is required', async () => {
    await assert.rejects(world.server.provider.verifyResourceRequest(incoming(undefined)), {
      problem: 'parameter_absent',
    });
  });
});
