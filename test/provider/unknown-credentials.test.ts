// Client keys and token identifiers are not secrets (every request carries them in clear),
// so an unknown one is named as such, 401 consumer_key_unknown or token_rejected, before any
// signature is computed: no work is spent verifying a signature that no key could make, and
// no dummy secret pretends to hide what the answer says (docs/decisions.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { HMAC_SHA1, SignatureMethodRegistry } from '../../src/protocol/index.ts';
import type { SignatureMethod } from '../../src/protocol/index.ts';
import { send } from '../conformance/support/http.ts';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertOk, assertProblem } from '../conformance/support/wire.ts';

/** HMAC-SHA1 under another name, counting the signatures the server checks. */
let verified = 0;
const counted: SignatureMethod = {
  ...HMAC_SHA1,
  name: 'X-COUNTED-HMAC-SHA1',
  verify(baseString, signature, keys) {
    verified += 1;
    return HMAC_SHA1.verify(baseString, signature, keys);
  },
};
const methods = new SignatureMethodRegistry().with(counted);

describe('Unknown client key or token: named before any signature is checked', () => {
  let world: World;
  before(async () => {
    world = await startWorld({ policy: { signatureMethods: methods } });
  });
  after(() => world.close());

  const call = (key: string, secret: string, token?: { token: string; secret: string }) =>
    send(
      signRequest({
        method: 'GET',
        url: world.url + PATHS.me,
        client: { key, secret },
        token,
        signatureMethod: counted.name,
        methods,
      }),
    );

  it('checks the signature of a known client and token (the method is counted)', async () => {
    const before = verified;
    const { sharedClient: client } = world;
    const token = await world.server.provider.tokens.issue({
      clientKey: client.key,
      ownerId: world.owner.id,
    });
    assertOk(await call(client.key, client.secret, token));
    assert.equal(verified, before + 1);
  });

  it('answers 401 consumer_key_unknown for an unknown key without checking a signature', async () => {
    const before = verified;
    assertProblem(await call('no-such-client', 'whatever'), 401, 'consumer_key_unknown');
    assert.equal(verified, before);
  });

  it("answers 401 token_rejected for an unknown token, or another client's, without checking a signature", async () => {
    const before = verified;
    const { sharedClient: client, otherClient } = world;
    assertProblem(
      await call(client.key, client.secret, { token: 'no-such-token', secret: 's' }),
      401,
      'token_rejected',
    );
    const othersToken = await world.server.provider.tokens.issue({
      clientKey: otherClient.key,
      ownerId: world.owner.id,
    });
    assertProblem(await call(client.key, client.secret, othersToken), 401, 'token_rejected');
    assert.equal(verified, before);
  });
});
