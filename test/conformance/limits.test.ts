// Spec "Limits": sizes of identifiers, nonces and parameters are left to the server. Ours:
// keys, tokens and nonces of any unreserved characters up to 255 bytes (no 20–30 character
// rule, which breaks real clients), one byte more refused with 400; a request carries at
// most 1000 parameters; the body is bounded (413).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { send } from './support/http.ts';
import {
  eachCombination,
  PATHS,
  RSA_PRIVATE_KEY,
  RSA_PUBLIC_KEY,
  startWorld,
} from './support/world.ts';
import type { MethodName, World } from './support/world.ts';
import { assertOk, assertProblem, editProtocol, setValue } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
/** `length` unreserved characters, every one of them used, starting with `prefix`. */
function unreserved(prefix: string, length: number): string {
  return (prefix + UNRESERVED.repeat(5)).slice(0, length);
}

/** A client and token whose identifiers are exactly 255 unreserved characters. */
async function longCredentials(
  method: MethodName,
  tag: string,
): Promise<{ client: ClientCredentials; token: TokenCredentials }> {
  const provider = world.server.provider;
  const rsa = method === 'RSA-SHA1';
  const client = await provider.clients.register({
    name: `Long ${tag}`,
    key: unreserved(`K${tag}`, 255),
    secret: unreserved(`S${tag}`, 255),
    ...(rsa ? { publicKey: RSA_PUBLIC_KEY } : {}),
  });
  const token = await provider.tokens.issue({
    clientKey: client.key,
    ownerId: world.owner.id,
    token: unreserved(`T${tag}`, 255),
    secret: unreserved(`X${tag}`, 255),
  });
  return {
    client: rsa
      ? { key: client.key, privateKey: RSA_PRIVATE_KEY }
      : { key: client.key, secret: client.secret },
    token,
  };
}

for (const { method, transmission } of eachCombination()) {
  describe(`Spec Limits: 255-byte values (${method}, parameters in the ${transmission})`, () => {
    const tag = `${method}-${transmission}`;
    let credentials: { client: ClientCredentials; token: TokenCredentials };
    before(async () => {
      credentials = await longCredentials(method, tag);
    });
    const call = (nonce: string) =>
      world.sign({
        signatureMethod: method,
        transmission,
        path: PATHS.me,
        client: credentials.client,
        token: credentials.token,
        nonce,
      });

    it('accepts a client key, token and nonce of 255 unreserved characters each', async () => {
      const answer = await send(call(unreserved(`N${tag}`, 255)));
      assertOk(answer);
      assert.equal(JSON.parse(answer.text).client.key, credentials.client.key);
    });

    it('refuses a 256-byte nonce with 400 parameter_rejected', async () => {
      const answer = await send(call(unreserved(`M${tag}`, 256)));
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_nonce');
    });

    it('refuses a 256-byte client key with 400 parameter_rejected', async () => {
      const wire = editProtocol(
        call(unreserved(`O${tag}`, 32)),
        transmission,
        setValue('oauth_consumer_key', `${credentials.client.key}x`),
      );
      const answer = await send(wire);
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_consumer_key');
    });

    it('refuses a 256-byte token with 400 parameter_rejected', async () => {
      const wire = editProtocol(
        call(unreserved(`P${tag}`, 32)),
        transmission,
        setValue('oauth_token', `${credentials.token.token}x`),
      );
      const answer = await send(wire);
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_token');
    });
  });
}

describe('Spec Limits: parameter count and body size', () => {
  let token: TokenCredentials;
  before(async () => {
    token = await world.tokenCredentials('HMAC-SHA1', 'header');
  });
  const withForm = (count: number) => {
    const body = new URLSearchParams();
    for (let i = 0; i < count; i++) body.append('p', String(i));
    return world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      httpMethod: 'POST',
      path: PATHS.me,
      token,
      body,
    });
  };

  it('accepts a signed request with 900 form parameters', async () => {
    assertOk(await withForm(900));
  });

  it('refuses a signed request with more than 1000 parameters with 400 parameter_rejected', async () => {
    assertProblem(await withForm(5000), 400, 'parameter_rejected');
  });

  it('refuses a body over the 64 KiB limit with 413', async () => {
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      httpMethod: 'POST',
      path: PATHS.me,
      token,
      body: new URLSearchParams({ big: 'x'.repeat(70 * 1024) }),
    });
    assertProblem(answer, 413, 'parameter_rejected');
  });
});
