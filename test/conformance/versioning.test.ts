// Spec "Versioning": the protocol version is 1.0; oauth_version is optional and, when present,
// must be 1.0. Anything else is refused with 400 version_rejected.
import { after, before, describe, it } from 'node:test';
import { eachCombination, PATHS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

for (const { method, transmission } of eachCombination()) {
  describe(`Spec Versioning, oauth_version (${method}, parameters in the ${transmission})`, () => {
    const requestToken = (version: string | undefined) =>
      world.call({
        signatureMethod: method,
        transmission,
        path: PATHS.requestToken,
        httpMethod: 'POST',
        includeVersion: false,
        protocolParameters: {
          oauth_callback: 'oob',
          ...(version === undefined ? {} : { oauth_version: version }),
        },
      });

    it('refuses a signed oauth_version=2.0 with 400 version_rejected', async () => {
      assertProblem(await requestToken('2.0'), 400, 'version_rejected');
    });

    it('refuses oauth_version=1.0a with 400 version_rejected', async () => {
      assertProblem(await requestToken('1.0a'), 400, 'version_rejected');
    });

    it('accepts oauth_version=1.0', async () => {
      assertOk(await requestToken('1.0'));
    });

    it('accepts a request without oauth_version', async () => {
      assertOk(await requestToken(undefined));
    });
  });
}
