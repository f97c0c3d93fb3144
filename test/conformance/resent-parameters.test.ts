// What real clients re-send after the step a parameter belongs to: `oauth_verifier` (§2.3) on
// every later request, `oauth_callback` (§2.1) on the token request and after. Both are
// accepted wherever they appear, covered by the signature like every parameter, and otherwise
// ignored; an unknown oauth_* name is still refused (docs/decisions.md, "Transmission").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import { send } from './support/http.ts';
import { eachCombination, PATHS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { append, assertOk, assertProblem, editProtocol, setValue } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

for (const { method, transmission } of eachCombination()) {
  describe(`Protocol parameters re-sent outside their step (${method}, parameters in the ${transmission})`, () => {
    let token: TokenCredentials;
    before(async () => {
      token = await world.tokenCredentials(method, transmission);
    });
    const resource = (protocolParameters: Record<string, string>) =>
      world.sign({
        signatureMethod: method,
        transmission,
        path: PATHS.me,
        token,
        protocolParameters,
      });

    it('accepts oauth_verifier and oauth_callback on a protected resource request, and does not echo them', async () => {
      const answer = await send(
        resource({ oauth_verifier: 'old-verifier', oauth_callback: 'oob' }),
      );
      assertOk(answer);
      const me = JSON.parse(answer.text) as { query: unknown[]; form: unknown[] };
      assert.deepEqual([...me.query, ...me.form], []);
    });

    it('accepts an empty oauth_verifier on a protected resource request', async () => {
      assertOk(await send(resource({ oauth_verifier: '' })));
    });

    // PLAINTEXT signs no base string, so it covers no parameter (§3.4.4).
    if (method !== 'PLAINTEXT') {
      it('covers a re-sent oauth_verifier by the signature: changed after signing, 401 signature_invalid', async () => {
        const wire = resource({ oauth_verifier: 'old-verifier' });
        const answer = await send(
          editProtocol(wire, transmission, setValue('oauth_verifier', 'other')),
        );
        assertProblem(answer, 401, 'signature_invalid');
      });

      it('covers an added oauth_callback by the signature: added after signing, 401 signature_invalid', async () => {
        const answer = await send(
          editProtocol(resource({}), transmission, append('oauth_callback', 'oob')),
        );
        assertProblem(answer, 401, 'signature_invalid');
      });
    }

    it('still refuses an unknown oauth_* parameter with 400 parameter_rejected', async () => {
      const answer = await send(resource({ oauth_colour: 'blue' }));
      assertProblem(answer, 400, 'parameter_rejected');
      assert.equal(answer.fields['oauth_parameters_rejected'], 'oauth_colour');
    });

    it('accepts oauth_verifier on the temporary credential request and issues credentials', async () => {
      const answer = await world.call({
        signatureMethod: method,
        transmission,
        path: PATHS.requestToken,
        httpMethod: 'POST',
        protocolParameters: { oauth_callback: 'oob', oauth_verifier: 'stale' },
      });
      assertOk(answer);
      assert.ok(answer.fields['oauth_token']);
    });

    it('accepts oauth_callback on the token request, and the exchange still needs the right verifier', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      const exchange = (oauthVerifier: string) =>
        world.call({
          signatureMethod: method,
          transmission,
          path: PATHS.accessToken,
          httpMethod: 'POST',
          token: temporary,
          protocolParameters: {
            oauth_verifier: oauthVerifier,
            oauth_callback: 'https://elsewhere.example/cb',
          },
        });
      assertProblem(await exchange('wrong'), 401, 'verifier_invalid');
      const answer = await exchange(verifier);
      assertOk(answer);
      assert.ok(answer.fields['oauth_token']);
    });
  });
}
