// Invalidation by the client: POST /oauth/invalidate_token, signed with the token it ends
// (as Twitter's oauth/invalidate_token and the OAuth Session draft's revocation). 200 once,
// with the token named in a form body; from then on the token is refused as revoked, on the
// endpoint itself and on every protected resource. An expired token whose session (the
// session extension) can still renew it is ended too, and with it the session; any other
// expired token is refused as expired.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { send } from './support/http.ts';
import { eachCombination, PATHS, startWorld } from './support/world.ts';
import type { MethodName, World } from './support/world.ts';
import type { Transmission } from '../../src/protocol/index.ts';
import type { TokenCredentials } from '../../src/client/index.ts';
import { assertOk, assertProblem } from './support/wire.ts';

const INVALIDATE = '/oauth/invalidate_token';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

const invalidate = (
  method: MethodName,
  transmission: Transmission,
  token: TokenCredentials | undefined,
) =>
  world.call({
    signatureMethod: method,
    transmission,
    path: INVALIDATE,
    httpMethod: 'POST',
    token,
  });

for (const { method, transmission } of eachCombination()) {
  describe(`token invalidation by the client (${method}, parameters in the ${transmission})`, () => {
    it('answers 200 once, then token_revoked; the token is refused on /api/me', async () => {
      const token = await world.tokenCredentials(method, transmission);
      assertOk(await world.me(method, transmission, token));
      const ended = await invalidate(method, transmission, token);
      assertOk(ended);
      assert.match(ended.headers['content-type'] ?? '', /^application\/x-www-form-urlencoded/);
      assert.equal(ended.headers['cache-control'], 'no-store');
      assert.deepEqual(ended.fields, { oauth_token: token.token });
      assertProblem(await invalidate(method, transmission, token), 401, 'token_revoked');
      assertProblem(await world.me(method, transmission, token), 401, 'token_revoked');
    });
  });
}

describe('token invalidation by the client: what it refuses', () => {
  it('ends a token once under concurrent invalidations: exactly one 200', async () => {
    const token = await world.tokenCredentials('HMAC-SHA1', 'header');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => invalidate('HMAC-SHA1', 'header', token)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 401, 401, 401, 401, 401]);
    for (const answer of answers.filter((a) => a.status === 401))
      assertProblem(answer, 401, 'token_revoked');
  });

  it('needs a token: a request signed by the client alone is 400 parameter_absent', async () => {
    const answer = await invalidate('HMAC-SHA1', 'header', undefined);
    assertProblem(answer, 400, 'parameter_absent');
    assert.equal(answer.fields['oauth_parameters_absent'], 'oauth_token');
  });

  it("refuses another client's token with token_rejected, and leaves it alive", async () => {
    const token = await world.tokenCredentials('HMAC-SHA1', 'header');
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: INVALIDATE,
      httpMethod: 'POST',
      token,
      client: { key: world.otherClient.key, secret: world.otherClient.secret },
    });
    assertProblem(answer, 401, 'token_rejected');
    assertOk(await world.me('HMAC-SHA1', 'header', token));
  });

  it('refuses a request signed with the wrong token secret, and leaves the token alive', async () => {
    const token = await world.tokenCredentials('HMAC-SHA1', 'header');
    const answer = await invalidate('HMAC-SHA1', 'header', { ...token, secret: 'not-the-secret' });
    assertProblem(answer, 401, 'signature_invalid');
    assertOk(await world.me('HMAC-SHA1', 'header', token));
  });

  it('is POST only: a GET is not routed (404), and the token stays alive', async () => {
    const token = await world.tokenCredentials('HMAC-SHA1', 'query');
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'query',
      path: INVALIDATE,
      httpMethod: 'GET',
      token,
    });
    assert.equal(answer.status, 404);
    assertOk(await world.me('HMAC-SHA1', 'query', token));
  });

  it('is advertised: the advertisement names the endpoint, and it answers there', async () => {
    const advertised = await send({
      method: 'GET',
      url: `${world.url}/.well-known/oauth1-provider`,
    });
    const endpoint = (JSON.parse(advertised.text) as Record<string, string>)[
      'token_invalidation_endpoint'
    ];
    assert.equal(endpoint, `${world.url}${INVALIDATE}`);
    const unsigned = await send({ method: 'POST', url: endpoint! });
    assert.equal(unsigned.status, 401); // no OAuth at all: an authentication challenge
    assert.equal(unsigned.fields['oauth_problem'], 'parameter_absent');
  });
});

describe('token invalidation by the client: an expired token', () => {
  const HOUR = 3600;
  before(() =>
    world.server.provider.clients.update(world.sharedClient.key, { sessionExtension: true }),
  );
  after(() =>
    world.server.provider.clients.update(world.sharedClient.key, { sessionExtension: false }),
  );

  /** A session-extension token (HMAC-SHA1, header) and its handle. */
  async function session(lifetime?: number): Promise<{ token: TokenCredentials; handle: string }> {
    const temporary = await world.temporary('HMAC-SHA1', 'header');
    const verifier = await world.approve(temporary, lifetime === undefined ? {} : { lifetime });
    const answer = await world.exchange('HMAC-SHA1', 'header', temporary, verifier);
    assertOk(answer);
    return {
      token: { token: answer.fields['oauth_token']!, secret: answer.fields['oauth_token_secret']! },
      handle: answer.fields['oauth_session_handle']!,
    };
  }

  const renew = (token: TokenCredentials, handle: string) =>
    world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.accessToken,
      httpMethod: 'POST',
      token,
      protocolParameters: { oauth_session_handle: handle },
    });

  it('ends a live session through its expired token: 200, then the handle renews nothing', async () => {
    const { token, handle } = await session();
    world.clock.advance(HOUR + 1);
    assertProblem(await world.me('HMAC-SHA1', 'header', token), 401, 'token_expired');
    const ended = await invalidate('HMAC-SHA1', 'header', token);
    assertOk(ended);
    assert.deepEqual(ended.fields, { oauth_token: token.token });
    assertProblem(await renew(token, handle), 401, 'token_revoked');
    assertProblem(await invalidate('HMAC-SHA1', 'header', token), 401, 'token_revoked');
  });

  it('refuses an expired token with nothing left to end as token_expired', async () => {
    // A session that ended with its token: the handle renews nothing either.
    const { token, handle } = await session(2 * HOUR);
    world.clock.advance(2 * HOUR + 1);
    assertProblem(await invalidate('HMAC-SHA1', 'header', token), 401, 'token_expired');
    assertProblem(await renew(token, handle), 401, 'session_expired');
    // A client without the extension: an expired token is simply over.
    const temporary = await world.temporary('RSA-SHA1', 'header');
    const verifier = await world.approve(temporary, { lifetime: 60 });
    const answer = await world.exchange('RSA-SHA1', 'header', temporary, verifier);
    assertOk(answer);
    assert.equal(answer.fields['oauth_session_handle'], undefined);
    const plain = {
      token: answer.fields['oauth_token']!,
      secret: answer.fields['oauth_token_secret']!,
    };
    world.clock.advance(61);
    assertProblem(await invalidate('RSA-SHA1', 'header', plain), 401, 'token_expired');
  });
});
