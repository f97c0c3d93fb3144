// RFC 5849 §3 protected resource requests, on the resource every deployment has: /api/me
// answers any method with the client, the owner (null when the client signs alone), the
// scope, the method, and the non-protocol parameters the signature covered, decoded, as
// ordered [name, value] pairs with repeated names kept. The token's scope and lifetime are
// enforced on every request and a revocation takes effect on the next one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { Transmission } from '../../src/protocol/index.ts';
import { eachCombination, PATHS, startWorld } from './support/world.ts';
import type { MethodName, World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

function json(answer: { text: string }): Record<string, unknown> {
  return JSON.parse(answer.text) as Record<string, unknown>;
}

/** The flow with a scope asked for on the temporary credential request. */
async function scopedToken(
  method: MethodName,
  transmission: Transmission,
  scope: string,
): Promise<TokenCredentials> {
  const answer = await world.call({
    signatureMethod: method,
    transmission,
    httpMethod: 'POST',
    path: transmission === 'query' ? `${PATHS.requestToken}?scope=${scope}` : PATHS.requestToken,
    ...(transmission === 'query' ? {} : { body: new URLSearchParams({ scope }) }),
    protocolParameters: { oauth_callback: 'oob' },
  });
  assertOk(answer);
  const temporary = {
    token: answer.fields['oauth_token']!,
    secret: answer.fields['oauth_token_secret']!,
  };
  const verifier = await world.approve(temporary);
  const exchanged = await world.exchange(method, transmission, temporary, verifier);
  assertOk(exchanged);
  return {
    token: exchanged.fields['oauth_token']!,
    secret: exchanged.fields['oauth_token_secret']!,
  };
}

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §3 /api/me (${method}, parameters in the ${transmission})`, () => {
    let token: TokenCredentials;
    before(async () => {
      token = await world.tokenCredentials(method, transmission);
    });
    const client = () => (method === 'RSA-SHA1' ? world.rsaClient : world.sharedClient);

    it('answers with the client, the owner, the scope, the method, and the signed query and form pairs in order', async () => {
      const answer = await world.call({
        signatureMethod: method,
        transmission,
        httpMethod: 'POST',
        path: `${PATHS.me}?a=1&b=x%20y&a=3&empty=`,
        body: 'z=last&plus=1+2&z=first&uni=%E2%9C%93',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        token,
      });
      assertOk(answer);
      assert.deepEqual(json(answer), {
        client: { key: client().key, name: client().name },
        owner: {
          id: world.owner.id,
          subject: world.owner.subject,
          name: world.owner.name,
          source: 'local',
        },
        scope: 'read write',
        method: 'POST',
        query: [
          ['a', '1'],
          ['b', 'x y'],
          ['a', '3'],
          ['empty', ''],
        ],
        form: [
          ['z', 'last'],
          ['plus', '1 2'],
          ['z', 'first'],
          ['uni', '✓'],
        ],
        header: [],
      });
    });

    it('answers a request signed by the client alone with owner null', async () => {
      const answer = await world.me(method, transmission);
      assertOk(answer);
      const body = json(answer);
      assert.deepEqual(body['client'], { key: client().key, name: client().name });
      assert.equal(body['owner'], null);
      assert.equal(body['scope'], null);
    });

    it('keeps the answer out of shared caches (Cache-Control: no-store)', async () => {
      const answer = await world.me(method, transmission, token);
      assertOk(answer);
      assert.match(answer.headers['cache-control'] ?? '', /no-store/);
    });

    it('carries the scope asked for with a scope parameter on the temporary credential request', async () => {
      const scoped = await scopedToken(method, transmission, 'read');
      const answer = await world.me(method, transmission, scoped);
      assertOk(answer);
      assert.equal(json(answer)['scope'], 'read');
    });

    it('refuses an unknown scope on the temporary credential request with 400', async () => {
      const answer = await world.call({
        signatureMethod: method,
        transmission,
        httpMethod: 'POST',
        path: `${PATHS.requestToken}?scope=launch-missiles`,
        protocolParameters: { oauth_callback: 'oob' },
      });
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'scope');
    });

    it('carries the narrower scope the owner approved', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary, { scope: 'read' });
      const exchanged = await world.exchange(method, transmission, temporary, verifier);
      assertOk(exchanged);
      const answer = await world.me(method, transmission, {
        token: exchanged.fields['oauth_token']!,
        secret: exchanged.fields['oauth_token_secret']!,
      });
      assert.equal(json(answer)['scope'], 'read');
    });

    it('refuses a token past the lifetime the owner approved with token_expired', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary, { lifetime: 60 });
      const exchanged = await world.exchange(method, transmission, temporary, verifier);
      const short = {
        token: exchanged.fields['oauth_token']!,
        secret: exchanged.fields['oauth_token_secret']!,
      };
      world.clock.advance(55);
      assertOk(await world.me(method, transmission, short));
      world.clock.advance(10);
      assertProblem(await world.me(method, transmission, short), 401, 'token_expired');
    });

    it('refuses a revoked token on the very next request with token_revoked', async () => {
      const revocable = await world.tokenCredentials(method, transmission);
      assertOk(await world.me(method, transmission, revocable));
      await world.server.provider.tokens.revoke(revocable.token);
      assertProblem(await world.me(method, transmission, revocable), 401, 'token_revoked');
    });

    it("refuses every token of a grant after the owner revokes the client's access", async () => {
      const revocable = await world.tokenCredentials(method, transmission);
      await world.server.provider.tokens.revokeGrant(world.owner.id, client().key);
      assertProblem(await world.me(method, transmission, revocable), 401, 'token_revoked');
    });
  });
}

describe('RFC 5849 §3 /api/me answers any HTTP method', () => {
  for (const httpMethod of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    it(`echoes ${httpMethod}`, async () => {
      const answer = await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        httpMethod,
        path: PATHS.me,
      });
      assertOk(answer);
      assert.equal(json(answer)['method'], httpMethod);
    });
  }

  it('lists no form pairs for a body that is not form-encoded (it is not signed, §3.4.1.3.1)', async () => {
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      httpMethod: 'POST',
      path: PATHS.me,
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":"1"}',
    });
    assertOk(answer);
    assert.deepEqual(json(answer)['form'], []);
  });
});
