// Spec "States and transitions": a temporary credential is issued, authorized, consumed,
// or expires, or the owner denies it; every row, for each signature method and each way of
// sending the protocol parameters (RFC 5849 §2.1–§2.3, §3.5).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eachCombination, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §2 state table (${method}, parameters in the ${transmission})`, () => {
    it('(none) -> issued: the temporary credential request answers 200 with exactly oauth_token, oauth_token_secret and oauth_callback_confirmed=true', async () => {
      const answer = await world.call({
        signatureMethod: method,
        transmission,
        path: '/oauth/request_token',
        httpMethod: 'POST',
        protocolParameters: { oauth_callback: 'oob' },
      });
      assertOk(answer);
      assert.match(answer.headers['content-type'] ?? '', /^application\/x-www-form-urlencoded/);
      assert.deepEqual(
        answer.pairs.map(([name]) => name),
        ['oauth_token', 'oauth_token_secret', 'oauth_callback_confirmed'],
      );
      assert.equal(answer.fields['oauth_callback_confirmed'], 'true');
      assert.ok(answer.fields['oauth_token']!.length > 0);
      assert.ok(answer.fields['oauth_token_secret']!.length > 0);
    });

    it('issued -> authorized -> consumed: the token request answers 200 with exactly oauth_token and oauth_token_secret', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      const answer = await world.exchange(method, transmission, temporary, verifier);
      assertOk(answer);
      assert.match(answer.headers['content-type'] ?? '', /^application\/x-www-form-urlencoded/);
      assert.deepEqual(
        answer.pairs.map(([name]) => name),
        ['oauth_token', 'oauth_token_secret'],
      );
      assert.notEqual(answer.fields['oauth_token'], temporary.token);
    });

    it('consumed: a second token request with the same temporary credential fails with token_used', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      assertOk(await world.exchange(method, transmission, temporary, verifier));
      const again = await world.exchange(method, transmission, temporary, verifier);
      assertProblem(again, 401, 'token_used');
    });

    it('consumed: temporary credentials are not token credentials and open no protected resource', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      assertOk(await world.exchange(method, transmission, temporary, verifier));
      assertProblem(await world.me(method, transmission, temporary), 401, 'token_rejected');
    });

    it('issued: a token request before the owner authorized fails', async () => {
      const temporary = await world.temporary(method, transmission);
      const answer = await world.exchange(method, transmission, temporary, 'guess');
      assertProblem(answer, 401, 'permission_unknown');
    });

    it('issued -> expired: after the 10-minute lifetime the owner can no longer authorize', async () => {
      const temporary = await world.temporary(method, transmission);
      world.clock.advance(601);
      await assert.rejects(world.approve(temporary), { problem: 'token_expired' });
    });

    it('authorized -> expired: a token request after the 10-minute lifetime fails with token_expired', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      world.clock.advance(601);
      const answer = await world.exchange(method, transmission, temporary, verifier);
      assertProblem(answer, 401, 'token_expired');
    });

    it('authorized: a token request just inside the 10-minute lifetime succeeds', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      world.clock.advance(590);
      assertOk(await world.exchange(method, transmission, temporary, verifier));
    });

    it('issued -> denied: the token request fails with user_refused and the credential never works again', async () => {
      const temporary = await world.temporary(method, transmission);
      await world.server.provider.authorization.deny(temporary.token);
      const answer = await world.exchange(method, transmission, temporary, 'any');
      assertProblem(answer, 401, 'user_refused');
      await assert.rejects(world.approve(temporary), { problem: 'token_revoked' });
      assertProblem(
        await world.exchange(method, transmission, temporary, 'any'),
        401,
        'user_refused',
      );
    });
  });
}
