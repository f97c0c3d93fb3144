// Spec "Errors" (RFC 5849 §3.2): every row of the error table, for each signature method and
// each way of sending the protocol parameters, answered with the recommended status and an
// oauth_problem body.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import { send } from './support/http.ts';
import { eachCombination, PATHS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { append, assertOk, assertProblem, editProtocol, remove, setValue } from './support/wire.ts';
import type { Wire } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §3.2 error table (${method}, parameters in the ${transmission})`, () => {
    let token: TokenCredentials;
    before(async () => {
      token = await world.tokenCredentials(method, transmission);
    });
    const resource = (): Wire =>
      world.sign({ signatureMethod: method, transmission, path: PATHS.me, token });
    const edited = (edit: Parameters<typeof editProtocol>[2]) =>
      send(editProtocol(resource(), transmission, edit));

    it('accepts the unaltered request (the baseline for the rows below)', async () => {
      assertOk(await send(resource()));
    });

    it('unsupported parameter: an unknown oauth_* parameter is refused with 400 parameter_rejected', async () => {
      const answer = await edited(append('oauth_colour', 'blue'));
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_colour');
    });

    it('unsupported signature method: 400 signature_method_rejected', async () => {
      const answer = await edited(setValue('oauth_signature_method', 'HMAC-MD5'));
      assertProblem(answer, 400, 'signature_method_rejected');
    });

    const required = ['oauth_consumer_key', 'oauth_signature_method', 'oauth_signature'];
    if (method !== 'PLAINTEXT') required.push('oauth_timestamp', 'oauth_nonce');
    for (const name of required) {
      it(`missing parameter: without ${name} the answer is 400 parameter_absent naming it in oauth_parameters_absent`, async () => {
        const answer = await edited(remove(name));
        assertProblem(answer, 400, 'parameter_absent');
        assert.equal(answer.fields['oauth_parameters_absent'], name);
      });
    }

    if (method === 'PLAINTEXT') {
      it('PLAINTEXT may omit oauth_timestamp and oauth_nonce (§3.4.4)', async () => {
        assertOk(await edited((pairs) => remove('oauth_nonce')(remove('oauth_timestamp')(pairs))));
      });
    }

    it('missing parameter: a temporary credential request without oauth_callback is 400 parameter_absent', async () => {
      const wire = world.sign({
        signatureMethod: method,
        transmission,
        path: PATHS.requestToken,
        httpMethod: 'POST',
      });
      const answer = await send(wire);
      assertProblem(answer, 400, 'parameter_absent');
      assert.equal(answer.fields['oauth_parameters_absent'], 'oauth_callback');
    });

    for (const name of ['oauth_verifier', 'oauth_token']) {
      it(`missing parameter: a token request without ${name} is 400 parameter_absent`, async () => {
        const temporary = await world.temporary(method, transmission);
        const verifier = await world.approve(temporary);
        const wire = world.sign({
          signatureMethod: method,
          transmission,
          path: PATHS.accessToken,
          httpMethod: 'POST',
          token: temporary,
          protocolParameters: { oauth_verifier: verifier },
        });
        const answer = await send(editProtocol(wire, transmission, remove(name)));
        assertProblem(answer, 400, 'parameter_absent');
        assert.equal(answer.fields['oauth_parameters_absent'], name);
      });
    }

    for (const name of ['oauth_consumer_key', 'oauth_signature', 'oauth_token']) {
      it(`duplicated protocol parameter: ${name} twice is 400 parameter_rejected`, async () => {
        const wire = resource();
        const answer = await send(
          editProtocol(wire, transmission, (pairs) => {
            const original = pairs.find(([n]) => n === name)!;
            return [...pairs, original];
          }),
        );
        assertProblem(answer, 400, 'parameter_rejected');
      });
    }

    it('invalid client credentials: an unknown client key is 401 consumer_key_unknown', async () => {
      const answer = await world.call({
        signatureMethod: method,
        transmission,
        path: PATHS.me,
        client: { ...world.credentials(method), key: 'no-such-client' },
        token,
      });
      assertProblem(answer, 401, 'consumer_key_unknown');
    });

    it('invalid token: an unknown token is 401 token_rejected', async () => {
      const answer = await world.me(method, transmission, { token: 'no-such-token', secret: 'x' });
      assertProblem(answer, 401, 'token_rejected');
    });

    it("invalid token: another client's token is 401 token_rejected", async () => {
      const other = await world.server.provider.tokens.issue({
        clientKey: world.otherClient.key,
        ownerId: world.owner.id,
      });
      const answer = await world.me(method, transmission, other);
      assertProblem(answer, 401, 'token_rejected');
    });

    it('expired token: a token past its lifetime is 401 token_expired', async () => {
      const client = world.credentials(method);
      const short = await world.server.provider.tokens.issue({
        clientKey: client.key,
        ownerId: world.owner.id,
        lifetime: 60,
      });
      assertOk(await world.me(method, transmission, short));
      world.clock.advance(61);
      assertProblem(await world.me(method, transmission, short), 401, 'token_expired');
    });

    it('used nonce: the same request sent twice is refused the second time with 401 nonce_used', async () => {
      const wire = resource();
      assertOk(await send(wire));
      assertProblem(await send(wire), 401, 'nonce_used');
    });
  });
}
