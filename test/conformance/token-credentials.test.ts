// RFC 5849 §2.3 token request: the verifier must match (single use, a limited number of
// guesses), and the temporary credential must be the requesting client's own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eachCombination, startWorld } from './support/world.ts';
import type { MethodName, World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §2.3 token request (${method}, parameters in the ${transmission})`, () => {
    it('refuses a wrong verifier with 401 verifier_invalid', async () => {
      const temporary = await world.temporary(method, transmission);
      await world.approve(temporary);
      const answer = await world.exchange(method, transmission, temporary, 'wrong-verifier');
      assertProblem(answer, 401, 'verifier_invalid');
    });

    it('refuses the verifier with the case of its letters swapped: a verifier is compared exactly', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      const swapped = [...verifier]
        .map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))
        .join('');
      const answer = await world.exchange(method, transmission, temporary, swapped);
      assertProblem(answer, 401, 'verifier_invalid');
    });

    it('refuses token credentials in place of the temporary credential', async () => {
      const token = await world.tokenCredentials(method, transmission);
      const answer = await world.exchange(method, transmission, token, 'any-verifier');
      assertProblem(answer, 401, 'token_rejected');
    });

    it('exchanges a temporary credential once only, even under concurrent token requests', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => world.exchange(method, transmission, temporary, verifier)),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [200, 401, 401, 401, 401, 401, 401, 401]);
    });

    it('still accepts the right verifier after 4 wrong ones', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      for (let i = 0; i < 4; i++) {
        const answer = await world.exchange(method, transmission, temporary, `wrong-${i}`);
        assertProblem(answer, 401, 'verifier_invalid');
      }
      assertOk(await world.exchange(method, transmission, temporary, verifier));
    });

    it('discards the temporary credential after 5 wrong verifiers: the right one then fails', async () => {
      const temporary = await world.temporary(method, transmission);
      const verifier = await world.approve(temporary);
      for (let i = 0; i < 5; i++) {
        const answer = await world.exchange(method, transmission, temporary, `wrong-${i}`);
        assertProblem(answer, 401, 'verifier_invalid');
      }
      const answer = await world.exchange(method, transmission, temporary, verifier);
      assertProblem(answer, 401, 'verifier_invalid');
      assert.match(answer.fields['oauth_problem_advice'] ?? '', /^Too many verifier tries/);
    });

    it("refuses a token request made with another client's temporary credential", async () => {
      // The temporary credential belongs to the other client; this client signs the request.
      const other: MethodName = 'HMAC-SHA1';
      const temporary = await world.temporary(other, 'header', {
        client: { key: world.otherClient.key, secret: world.otherClient.secret },
      });
      const verifier = await world.approve(temporary);
      const answer = await world.exchange(method, transmission, temporary, verifier);
      assertProblem(answer, 401, 'token_rejected');
    });

    it('refuses the verifier of another authorization request', async () => {
      const first = await world.temporary(method, transmission);
      const second = await world.temporary(method, transmission);
      await world.approve(first);
      const secondVerifier = await world.approve(second);
      const answer = await world.exchange(method, transmission, first, secondVerifier);
      assertProblem(answer, 401, 'verifier_invalid');
    });
  });
}

describe('RFC 5849 §2.2 a verifier for manual entry on a constrained device', () => {
  /** Runs the flow for a constrained-device client with oob, the code typed as given. */
  async function typedExchange(typing: (code: string) => string) {
    const device = await world.server.provider.clients.register({
      name: 'TV app',
      constrainedDevice: true,
    });
    const client = { key: device.key, secret: device.secret };
    const temporary = await world.temporary('HMAC-SHA1', 'header', { client });
    const approval = await world.server.provider.authorization.approve(
      temporary.token,
      world.owner.id,
    );
    assert.match(approval.displayVerifier, /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    return world.exchange(
      'HMAC-SHA1',
      'header',
      temporary,
      typing(approval.displayVerifier),
      client,
    );
  }

  it('accepts the short code typed in lower case', async () => {
    assertOk(await typedExchange((code) => code.toLowerCase()));
  });

  it('accepts the short code typed without its dash', async () => {
    assertOk(await typedExchange((code) => code.replace('-', '')));
  });
});
