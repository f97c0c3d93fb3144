// RFC 5849 §2.1 and §2.2 callbacks: `oob` or an absolute URI; where the client registered
// callbacks, one of them exactly, refused at the temporary credential request so the
// authorization page can never send a verifier elsewhere; a custom scheme only when
// registered. The redirect adds oauth_token and oauth_verifier after any existing query and
// keeps a fragment out of the query; a denial redirects with oauth_problem=user_refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eachCombination, PATHS, REGISTERED_CALLBACKS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

const [WEB_CALLBACK, APP_CALLBACK] = REGISTERED_CALLBACKS;

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §2.1 oauth_callback rules (${method}, parameters in the ${transmission})`, () => {
    const requestToken = (callback: string) =>
      world.call({
        signatureMethod: method,
        transmission,
        path: PATHS.requestToken,
        httpMethod: 'POST',
        protocolParameters: { oauth_callback: callback },
      });

    it('accepts a callback the client registered', async () => {
      assertOk(await requestToken(WEB_CALLBACK));
    });

    it('accepts oob even when the client registered callbacks', async () => {
      assertOk(await requestToken('oob'));
    });

    it('refuses with 400 a callback the client did not register', async () => {
      const answer = await requestToken('https://attacker.example/steal');
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_callback');
    });

    it('refuses with 400 a registered callback with another query', async () => {
      const answer = await requestToken(WEB_CALLBACK.replace('from=latchkey', 'from=elsewhere'));
      assertProblem(answer, 400, 'parameter_rejected');
    });

    it('accepts a custom-scheme callback the client registered', async () => {
      assertOk(await requestToken(APP_CALLBACK));
    });

    it('refuses "OOB": the literal oob is case-sensitive', async () => {
      assertProblem(await requestToken('OOB'), 400, 'parameter_rejected');
    });
  });
}

describe('RFC 5849 §2.1 callbacks of a client that registered none', () => {
  const client = () => ({ key: world.otherClient.key, secret: world.otherClient.secret });
  const requestToken = (callback: string) =>
    world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.requestToken,
      httpMethod: 'POST',
      client: client(),
      protocolParameters: { oauth_callback: callback },
    });

  it('accepts any absolute https callback', async () => {
    assertOk(await requestToken('https://anywhere.example/cb?x=1'));
  });

  // Unregistered, an http callback sends the verifier in clear to a host nobody vouched for.
  it('refuses an http callback off loopback with 400, naming oauth_callback', async () => {
    const answer = await requestToken('http://anywhere.example/cb');
    assertProblem(answer, 400, 'parameter_rejected');
    assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_callback');
  });

  for (const callback of [
    'http://127.0.0.1:8123/cb',
    'http://localhost:8123/cb',
    'http://[::1]:8123/cb',
  ]) {
    it(`accepts an http callback on loopback (${callback}), as a native app listens`, async () => {
      assertOk(await requestToken(callback));
    });
  }

  it('refuses a custom-scheme callback that was not registered', async () => {
    assertProblem(await requestToken('myapp://authorized'), 400, 'parameter_rejected');
  });

  it('refuses a relative callback', async () => {
    assertProblem(await requestToken('/callback'), 400, 'parameter_rejected');
  });

  it('refuses a javascript: callback', async () => {
    assertProblem(await requestToken('javascript:alert(1)'), 400, 'parameter_rejected');
  });
});

describe('RFC 5849 §2.2 the redirect to the callback', () => {
  it('adds oauth_token and oauth_verifier after the existing query and keeps the fragment out of the query', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header', { callback: WEB_CALLBACK });
    const approval = await world.server.provider.authorization.approve(
      temporary.token,
      world.owner.id,
    );
    assert.equal(
      approval.redirect,
      `https://app.example/callback?from=latchkey&oauth_token=${temporary.token}&oauth_verifier=${approval.verifier}#done`,
    );
  });

  it('redirects to a custom-scheme callback with oauth_token and oauth_verifier in its query', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header', { callback: APP_CALLBACK });
    const approval = await world.server.provider.authorization.approve(
      temporary.token,
      world.owner.id,
    );
    assert.equal(
      approval.redirect,
      `myapp://authorized?oauth_token=${temporary.token}&oauth_verifier=${approval.verifier}`,
    );
  });

  it('has no redirect for oob: the page shows the verifier instead', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header', { callback: 'oob' });
    const approval = await world.server.provider.authorization.approve(
      temporary.token,
      world.owner.id,
    );
    assert.equal(approval.redirect, undefined);
    assert.equal(approval.displayVerifier, approval.verifier);
  });

  it('redirects a denial with oauth_problem=user_refused after the existing query, fragment last', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header', { callback: WEB_CALLBACK });
    const denial = await world.server.provider.authorization.deny(temporary.token);
    assert.equal(
      denial.redirect,
      `https://app.example/callback?from=latchkey&oauth_token=${temporary.token}&oauth_problem=user_refused#done`,
    );
  });

  it('a denied temporary credential is never authorized afterwards', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header', { callback: WEB_CALLBACK });
    await world.server.provider.authorization.deny(temporary.token);
    await assert.rejects(world.server.provider.authorization.describe(temporary.token), {
      problem: 'token_revoked',
    });
    await assert.rejects(world.approve(temporary), { problem: 'token_revoked' });
  });
});
