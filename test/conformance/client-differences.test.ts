// Three ways real client libraries shape a request that Latchkey accepts (docs/decisions.md,
// "What differences are tolerated"), with every signature method in every transmission the
// shape allows, and each still refused when its signature or body hash is wrong:
// 1. `oauth_body_hash` with any signature method, PLAINTEXT included, on any request;
// 2. the server's own answer fields echoed on later requests (`oauth_callback_confirmed`, the
//    session extension's `oauth_expires_in`, `oauth_authorization_expires_in`);
// 3. non-protocol parameters in the `Authorization` header, signed as RFC 5849 §3.4.1.3.1
//    reads them, copies of the query or body included.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { Transmission } from '../../src/protocol/index.ts';
import { send } from './support/http.ts';
import { eachCombination, METHODS, PATHS, startWorld } from './support/world.ts';
import type { MethodName, World } from './support/world.ts';
import { append, assertOk, assertProblem, editProtocol, setValue } from './support/wire.ts';

const sha1 = (body: string) => createHash('sha1').update(body).digest('base64');
const JSON_BODY = '{"amount":10}';
const json = { 'Content-Type': 'application/json' };

interface Me {
  query: [string, string][];
  form: [string, string][];
  header: [string, string][];
}

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

/** A signature that cannot be right, for any method. */
const wrongSignature = (wire: ReturnType<World['sign']>, transmission: Transmission) =>
  editProtocol(wire, transmission, setValue('oauth_signature', 'AAAA'));

/** Transmissions a request with a body that is not form-encoded can use (§3.5.2 needs a form). */
const NOT_BODY: readonly Transmission[] = ['header', 'query'];

describe('1. oauth_body_hash with every signature method', () => {
  const tokens = new Map<MethodName, TokenCredentials>();
  before(async () => {
    for (const method of METHODS)
      tokens.set(method, await world.tokenCredentials(method, 'header'));
  });

  for (const method of METHODS) {
    for (const transmission of NOT_BODY) {
      const call = (httpMethod: string, body: string | undefined, hash: string) =>
        world.sign({
          signatureMethod: method,
          transmission,
          path: PATHS.me,
          httpMethod,
          token: tokens.get(method),
          ...(body === undefined ? {} : { headers: json, body }),
          protocolParameters: { oauth_body_hash: hash },
        });

      it(`${method}, ${transmission}: a GET with the hash of the empty body is accepted, a wrong hash is 401 body_hash_invalid`, async () => {
        assertOk(await send(call('GET', undefined, sha1(''))));
        assertProblem(await send(call('GET', undefined, sha1('x'))), 401, 'body_hash_invalid');
      });

      it(`${method}, ${transmission}: a JSON POST with its hash is accepted; another body is 401 body_hash_invalid, a wrong signature 401 signature_invalid`, async () => {
        const wire = call('POST', JSON_BODY, sha1(JSON_BODY));
        assertOk(await send(wire));
        const changed = call('POST', JSON_BODY, sha1(JSON_BODY));
        assertProblem(
          await send({ ...changed, body: '{"amount":1000}' }),
          401,
          'body_hash_invalid',
        );
        assertProblem(
          await send(wrongSignature(call('POST', JSON_BODY, sha1(JSON_BODY)), transmission)),
          401,
          'signature_invalid',
        );
      });
    }
  }
});

describe('2. answer fields echoed on later requests', () => {
  for (const { method, transmission } of eachCombination()) {
    it(`${method}, ${transmission}: the token request with oauth_callback_confirmed echoed is accepted; with a wrong signature 401 signature_invalid`, async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      const exchange = () =>
        world.sign({
          signatureMethod: method,
          transmission,
          path: PATHS.accessToken,
          httpMethod: 'POST',
          token: temporary,
          protocolParameters: { oauth_verifier: verifier, oauth_callback_confirmed: 'true' },
        });
      assertProblem(await send(wrongSignature(exchange(), transmission)), 401, 'signature_invalid');
      const answer = await send(exchange());
      assertOk(answer);
      assert.ok(answer.fields['oauth_token']);
    });

    it(`${method}, ${transmission}: a resource request echoing the token answer's session fields is accepted, and echoes none of them`, async () => {
      const token = await world.tokenCredentials(method, transmission);
      const resource = () =>
        world.sign({
          signatureMethod: method,
          transmission,
          path: PATHS.me,
          token,
          protocolParameters: {
            oauth_callback_confirmed: 'true',
            oauth_expires_in: '3600',
            oauth_authorization_expires_in: '31536000',
          },
        });
      const answer = await send(resource());
      assertOk(answer);
      const me = JSON.parse(answer.text) as Me;
      assert.deepEqual([...me.query, ...me.form, ...me.header], []);
      assertProblem(await send(wrongSignature(resource(), transmission)), 401, 'signature_invalid');
      // PLAINTEXT signs no base string (§3.4.4); the others cover an echoed field too.
      if (method !== 'PLAINTEXT') {
        const edited = editProtocol(resource(), transmission, setValue('oauth_expires_in', '1'));
        assertProblem(await send(edited), 401, 'signature_invalid');
      }
    });
  }

  it('still refuses an echoed oauth_token_secret with 400 parameter_rejected: a secret never travels', async () => {
    const token = await world.tokenCredentials('HMAC-SHA1', 'header');
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      token,
      protocolParameters: { oauth_token_secret: token.secret },
    });
    assertProblem(answer, 400, 'parameter_rejected');
    assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_token_secret');
  });
});

describe('3. non-protocol parameters in the Authorization header', () => {
  for (const method of METHODS) {
    let token: TokenCredentials;
    before(async () => {
      token = await world.tokenCredentials(method, 'header');
    });
    // As a library that copies every request parameter into the header: the query's `a` and
    // the form's `b` twice each in the base string, and `c` only in the header.
    const copying = (httpMethod: string) =>
      world.sign({
        signatureMethod: method,
        transmission: 'header',
        path: `${PATHS.me}?a=1`,
        httpMethod,
        token,
        ...(httpMethod === 'POST' ? { body: new URLSearchParams('b=2') } : {}),
        protocolParameters:
          httpMethod === 'POST' ? { a: '1', b: '2', c: '3 4' } : { a: '1', c: '3 4' },
      });

    for (const httpMethod of ['GET', 'POST']) {
      it(`${method}, header, ${httpMethod}: accepted; copies are handed over once, the header's own pair as "header"`, async () => {
        const answer = await send(copying(httpMethod));
        assertOk(answer);
        const me = JSON.parse(answer.text) as Me;
        assert.deepEqual(me.query, [['a', '1']]);
        assert.deepEqual(me.form, httpMethod === 'POST' ? [['b', '2']] : []);
        assert.deepEqual(me.header, [['c', '3 4']]);
      });
    }

    it(`${method}, header: a wrong signature is 401 signature_invalid`, async () => {
      assertProblem(
        await send(wrongSignature(copying('POST'), 'header')),
        401,
        'signature_invalid',
      );
    });

    if (method !== 'PLAINTEXT') {
      it(`${method}, header: a header parameter changed or added after signing is 401 signature_invalid`, async () => {
        assertProblem(
          await send(editProtocol(copying('GET'), 'header', setValue('c', 'other'))),
          401,
          'signature_invalid',
        );
        assertProblem(
          await send(editProtocol(copying('GET'), 'header', append('d', 'smuggled'))),
          401,
          'signature_invalid',
        );
      });
    }
  }
});
