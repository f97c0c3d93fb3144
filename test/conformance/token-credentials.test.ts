// RFC 5849 §2.3 token request: the verifier must match (single use, a limited number of
// guesses), and the temporary credential must be the requesting client's own.
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
      assertProblem(answer, 401, 'token_rejected');
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
