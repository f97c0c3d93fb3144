// The OAuth Request Body Hash extension on Latchkey's own protected resource (/api/me):
// `oauth_body_hash` is signed like every protocol parameter and then compared with the body
// that arrived, with the digest of the signature method (SHA-1 for the SHA-1 methods,
// SHA-256 and SHA-512 for theirs). It is refused on a form-encoded body; with PLAINTEXT it is
// compared too, with the digest its length names.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { send } from './support/http.ts';
import { PATHS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

const JSON_BODY = '{"amount":10,"to":"alice"}';
const json = { 'Content-Type': 'application/json' };
const sha = (digest: string, body: string) => createHash(digest).update(body).digest('base64');

describe('Request Body Hash extension on /api/me', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(() => world.close());

  async function token() {
    const issued = await world.server.provider.tokens.issue({
      clientKey: world.sharedClient.key,
      ownerId: world.owner.id,
    });
    return { token: issued.token, secret: issued.secret };
  }

  it('accepts a JSON POST whose oauth_body_hash is the SHA-1 of the body (HMAC-SHA1)', async () => {
    const wire = world.sign({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      httpMethod: 'POST',
      token: await token(),
      headers: json,
      body: JSON_BODY,
      protocolParameters: { oauth_body_hash: sha('sha1', JSON_BODY) },
    });
    assertOk(await send(wire));
  });

  it('refuses a JSON POST with a bogus oauth_body_hash with 401 body_hash_invalid', async () => {
    const wire = world.sign({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      httpMethod: 'POST',
      token: await token(),
      headers: json,
      body: JSON_BODY,
      protocolParameters: { oauth_body_hash: sha('sha1', 'something else') },
    });
    assertProblem(await send(wire), 401, 'body_hash_invalid');
  });

  for (const method of ['HMAC-SHA1', 'RSA-SHA1'] as const) {
    it(`refuses a body changed after signing (the signature still matches) with 401 body_hash_invalid (${method})`, async () => {
      const signed = () =>
        world.sign({
          signatureMethod: method,
          transmission: 'query',
          path: PATHS.me,
          httpMethod: 'PUT',
          headers: json,
          body: JSON_BODY,
          protocolParameters: { oauth_body_hash: sha('sha1', JSON_BODY) },
        });
      assertOk(await send(signed()));
      const changed = { ...signed(), body: '{"amount":1000,"to":"mallory"}' };
      assertProblem(await send(changed), 401, 'body_hash_invalid');
    });
  }

  it('checks a request without a body against the hash of the empty string', async () => {
    const call = {
      signatureMethod: 'HMAC-SHA1' as const,
      transmission: 'header' as const,
      path: PATHS.me,
    };
    assertOk(
      await world.call({ ...call, protocolParameters: { oauth_body_hash: sha('sha1', '') } }),
    );
    assertProblem(
      await world.call({ ...call, protocolParameters: { oauth_body_hash: sha('sha1', 'x') } }),
      401,
      'body_hash_invalid',
    );
  });

  for (const [method, digest] of [
    ['HMAC-SHA256', 'sha256'],
    ['HMAC-SHA512', 'sha512'],
  ] as const) {
    it(`uses ${digest.toUpperCase()} with ${method} (and refuses a SHA-1 hash there)`, async () => {
      const signed = (hash: string) =>
        signRequest({
          method: 'POST',
          url: world.url + PATHS.me,
          headers: json,
          body: JSON_BODY,
          client: { key: world.otherClient.key, secret: world.otherClient.secret },
          signatureMethod: method,
          protocolParameters: { oauth_body_hash: hash },
        });
      assertOk(await send(signed(sha(digest, JSON_BODY))));
      assertProblem(await send(signed(sha('sha1', JSON_BODY))), 401, 'body_hash_invalid');
      // The client SDK computes the same.
      const bySdk = signRequest({
        method: 'POST',
        url: world.url + PATHS.me,
        headers: json,
        body: JSON_BODY,
        client: { key: world.otherClient.key, secret: world.otherClient.secret },
        signatureMethod: method,
        bodyHash: true,
      });
      assert.match(bySdk.headers['Authorization'] ?? '', /oauth_body_hash=/);
      assertOk(await send(bySdk));
    });
  }

  for (const transmission of ['header', 'body', 'query'] as const) {
    it(`refuses oauth_body_hash on a form-encoded body with 400 parameter_rejected (${transmission})`, async () => {
      const answer = await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission,
        path: PATHS.me,
        httpMethod: 'POST',
        body: new URLSearchParams([['status', 'hello']]),
        protocolParameters: { oauth_body_hash: sha('sha1', 'status=hello') },
      });
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_body_hash');
    });
  }

  it('checks oauth_body_hash with PLAINTEXT too: the right hash accepted, another body 401 body_hash_invalid', async () => {
    const call = (body: string) =>
      world.call({
        signatureMethod: 'PLAINTEXT',
        transmission: 'header',
        path: PATHS.me,
        httpMethod: 'POST',
        headers: json,
        body,
        protocolParameters: { oauth_body_hash: sha('sha1', JSON_BODY) },
      });
    assertOk(await call(JSON_BODY));
    assertProblem(await call('{"amount":1000}'), 401, 'body_hash_invalid');
  });

  it('refuses a malformed oauth_body_hash with 400 parameter_rejected', async () => {
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      protocolParameters: { oauth_body_hash: 'not base64 of a digest' },
    });
    assertProblem(answer, 400, 'parameter_rejected');
  });
});
