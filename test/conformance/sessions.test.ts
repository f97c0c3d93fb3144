// The session extension (OAuth Session 1.0 draft), for a client registered with it: token
// responses carry oauth_expires_in, oauth_session_handle and oauth_authorization_expires_in;
// the token endpoint renews a token credential, expired or live, given the handle and signed
// with that token (new token and secret, the old ones dead at once); the session ends when the
// owner revokes or when its time is up; of two concurrent renewals exactly one wins. A client
// without the extension sees the token response of RFC 5849 §2.3, byte for byte.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { Transmission } from '../../src/protocol/index.ts';
import { PATHS, startWorld } from './support/world.ts';
import type { MethodName, World } from './support/world.ts';
import type { RawResponse } from './support/http.ts';
import { assertOk, assertProblem } from './support/wire.ts';

const HOUR = 3600;
const YEAR = 365 * 24 * HOUR;

let world: World;
before(async () => {
  world = await startWorld();
  // The shared-secret and RSA clients use sessions; the third client keeps the default (off).
  for (const client of [world.sharedClient, world.rsaClient])
    await world.server.provider.clients.update(client.key, { sessionExtension: true });
});
after(() => world.close());

interface Session extends TokenCredentials {
  readonly handle: string;
}

function sessionOf(answer: RawResponse): Session {
  assertOk(answer);
  return {
    token: answer.fields['oauth_token']!,
    secret: answer.fields['oauth_token_secret']!,
    handle: answer.fields['oauth_session_handle']!,
  };
}

async function begin(
  method: MethodName,
  transmission: Transmission,
  lifetime?: number,
): Promise<{ answer: RawResponse; session: Session }> {
  const temporary = await world.temporary(method, transmission);
  const verifier = await world.approve(temporary, lifetime === undefined ? {} : { lifetime });
  const answer = await world.exchange(method, transmission, temporary, verifier);
  return { answer, session: sessionOf(answer) };
}

const renew = (
  method: MethodName,
  transmission: Transmission,
  token: TokenCredentials,
  handle: string,
) =>
  world.call({
    signatureMethod: method,
    transmission,
    path: PATHS.accessToken,
    httpMethod: 'POST',
    token,
    protocolParameters: { oauth_session_handle: handle },
  });

const combinations: ReadonlyArray<[MethodName, Transmission]> = [
  ['HMAC-SHA1', 'header'],
  ['HMAC-SHA1', 'body'],
  ['RSA-SHA1', 'query'],
  ['PLAINTEXT', 'header'],
];

for (const [method, transmission] of combinations) {
  describe(`session extension (${method}, parameters in the ${transmission})`, () => {
    it('answers the token request with the three session parameters', async () => {
      const { answer } = await begin(method, transmission);
      assert.deepEqual(
        answer.pairs.map(([name]) => name),
        [
          'oauth_token',
          'oauth_token_secret',
          'oauth_expires_in',
          'oauth_session_handle',
          'oauth_authorization_expires_in',
        ],
      );
      assert.equal(answer.fields['oauth_expires_in'], String(HOUR));
      // The owner approved no end: the session lasts the policy's session lifetime.
      assert.equal(answer.fields['oauth_authorization_expires_in'], String(YEAR));
      assert.ok((answer.fields['oauth_session_handle'] ?? '').length >= 43);
    });

    it('renews an expired token: new token and secret, the same handle, the old token dead', async () => {
      const { session } = await begin(method, transmission);
      world.clock.advance(HOUR + 1);
      assertProblem(await world.me(method, transmission, session), 401, 'token_expired');
      const renewedEvents: unknown[] = [];
      const onRenewed = (event: unknown) => renewedEvents.push(event);
      world.server.provider.events.on('token.renewed', onRenewed);
      const answer = await renew(method, transmission, session, session.handle).finally(() =>
        world.server.provider.events.off('token.renewed', onRenewed),
      );
      assert.equal(renewedEvents.length, 1);
      assert.equal((renewedEvents[0] as { token: string }).token, session.token);
      const renewed = sessionOf(answer);
      assert.notEqual(renewed.token, session.token);
      assert.notEqual(renewed.secret, session.secret);
      assert.equal(renewed.handle, session.handle);
      assert.equal(answer.fields['oauth_expires_in'], String(HOUR));
      assert.equal(answer.fields['oauth_authorization_expires_in'], String(YEAR - HOUR - 1));
      assertOk(await world.me(method, transmission, renewed));
      assertProblem(await world.me(method, transmission, session), 401, 'token_rejected');
      assertProblem(
        await renew(method, transmission, session, session.handle),
        401,
        'token_rejected',
      );
    });
  });
}

describe('session extension: the rules of a renewal', () => {
  const method: MethodName = 'HMAC-SHA1';
  const transmission: Transmission = 'header';

  it('stores only the hash of the session handle', async () => {
    const { session } = await begin(method, transmission);
    const stored = await world.server.provider.tokens.find(session.token);
    assert.equal(
      stored?.sessionHandleHash,
      createHash('sha256').update(session.handle).digest('hex'),
    );
  });

  it('renews a live token too, and the old one is refused at once', async () => {
    const { session } = await begin(method, transmission);
    const renewed = sessionOf(await renew(method, transmission, session, session.handle));
    assertOk(await world.me(method, transmission, renewed));
    assertProblem(await world.me(method, transmission, session), 401, 'token_rejected');
  });

  it('bounds the session by the lifetime the owner approved, and the token by the session', async () => {
    const { answer, session } = await begin(method, transmission, 2 * HOUR);
    assert.equal(answer.fields['oauth_authorization_expires_in'], String(2 * HOUR));
    world.clock.advance(HOUR + 1800);
    const renewed = await renew(method, transmission, session, session.handle);
    assert.equal(renewed.fields['oauth_expires_in'], String(1800));
    assert.equal(renewed.fields['oauth_authorization_expires_in'], String(1800));
    world.clock.advance(1800);
    const late = await renew(method, transmission, sessionOf(renewed), session.handle);
    assertProblem(late, 401, 'session_expired');
  });

  it('refuses a wrong handle with session_handle_rejected; the right one still renews', async () => {
    const { session } = await begin(method, transmission);
    const wrong = await renew(method, transmission, session, `${session.handle}x`);
    assertProblem(wrong, 401, 'session_handle_rejected');
    assertOk(await renew(method, transmission, session, session.handle));
  });

  it('refuses a handle of another session of the same client', async () => {
    const first = await begin(method, transmission);
    const second = await begin(method, transmission);
    const crossed = await renew(method, transmission, first.session, second.session.handle);
    assertProblem(crossed, 401, 'session_handle_rejected');
  });

  it("ends the session with the owner's revocation: an expired token is not renewed", async () => {
    const { session } = await begin(method, transmission);
    world.clock.advance(HOUR + 1);
    const revoked = await world.server.provider.tokens.revokeGrant(
      world.owner.id,
      world.sharedClient.key,
    );
    assert.ok(revoked >= 1);
    assertProblem(await renew(method, transmission, session, session.handle), 401, 'token_revoked');
  });

  it('lets exactly one of two concurrent renewals win; the loser gets a 401', async () => {
    const { session } = await begin(method, transmission);
    world.clock.advance(HOUR + 1);
    const answers = await Promise.all([
      renew(method, transmission, session, session.handle),
      renew(method, transmission, session, session.handle),
    ]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 401]);
    const loser = answers.find((answer) => answer.status === 401)!;
    assert.ok(
      ['token_used', 'token_rejected'].includes(loser.fields['oauth_problem'] ?? ''),
      loser.text,
    );
    const winner = sessionOf(answers.find((answer) => answer.status === 200)!);
    assertOk(await world.me(method, transmission, winner));
  });

  it('ignores an echoed oauth_session_handle on a protected resource request: signed, deciding nothing', async () => {
    const { session } = await begin(method, transmission);
    const answer = await world.call({
      signatureMethod: method,
      transmission,
      path: PATHS.me,
      token: session,
      protocolParameters: { oauth_session_handle: session.handle },
    });
    assertOk(answer);
    const me = JSON.parse(answer.text) as { query: unknown[]; form: unknown[] };
    assert.deepEqual([...me.query, ...me.form], []);
  });

  it('needs the token: a renewal signed without it is 400 parameter_absent', async () => {
    const answer = await world.call({
      signatureMethod: method,
      transmission,
      path: PATHS.accessToken,
      httpMethod: 'POST',
      protocolParameters: { oauth_session_handle: 'any' },
    });
    assertProblem(answer, 400, 'parameter_absent');
  });
});

describe('session extension: off by default', () => {
  const other = () => ({ key: world.otherClient.key, secret: world.otherClient.secret });

  it('answers a client without it with oauth_token and oauth_token_secret only', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header', { client: other() });
    const verifier = await world.approve(temporary);
    const answer = await world.exchange('HMAC-SHA1', 'header', temporary, verifier, other());
    assertOk(answer);
    assert.deepEqual(
      answer.pairs.map(([name]) => name),
      ['oauth_token', 'oauth_token_secret'],
    );
    const token = {
      token: answer.fields['oauth_token']!,
      secret: answer.fields['oauth_token_secret']!,
    };
    const renewal = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.accessToken,
      httpMethod: 'POST',
      client: other(),
      token,
      protocolParameters: { oauth_session_handle: 'guessed' },
    });
    assertProblem(renewal, 401, 'session_handle_rejected');
  });
});
