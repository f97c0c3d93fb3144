// Client credentials after registration: a rotated secret, a removed client, and the
// signature methods a client registered for, all enforced on the next request.
import { after, before, describe, it } from 'node:test';
import {
  PATHS,
  RSA_PRIVATE_KEY,
  RSA_PUBLIC_KEY,
  startWorld,
} from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertOk, assertProblem } from '../conformance/support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

describe('Client credentials', () => {
  const twoLegged = (
    client: { key: string; secret?: string; privateKey?: string },
    method = 'HMAC-SHA1',
  ) =>
    world.call({
      signatureMethod: method as 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      client,
    });

  it('refuses the old secret on the next request after a rotation', async () => {
    const client = await world.server.provider.clients.register({ name: 'Rotating' });
    assertOk(await twoLegged({ key: client.key, secret: client.secret }));
    await world.server.provider.clients.rotateSecret(client.key);
    assertProblem(
      await twoLegged({ key: client.key, secret: client.secret }),
      401,
      'signature_invalid',
    );
  });

  it('accepts the new secret after a rotation', async () => {
    const client = await world.server.provider.clients.register({ name: 'Rotated' });
    const rotated = await world.server.provider.clients.rotateSecret(client.key);
    assertOk(await twoLegged({ key: rotated.key, secret: rotated.secret }));
  });

  it('refuses the old secret with a token after a rotation, and accepts the new one', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Rotating with a token' });
    const token = await provider.tokens.issue({ clientKey: client.key, ownerId: world.owner.id });
    const me = (secret: string) =>
      world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.me,
        client: { key: client.key, secret },
        token,
      });
    assertOk(await me(client.secret));
    const rotated = await provider.clients.rotateSecret(client.key);
    assertProblem(await me(client.secret), 401, 'signature_invalid');
    assertOk(await me(rotated.secret));
  });

  it("refuses a removed client's token credentials", async () => {
    const client = await world.server.provider.clients.register({ name: 'Removed' });
    const token = await world.server.provider.tokens.issue({
      clientKey: client.key,
      ownerId: world.owner.id,
    });
    await world.server.provider.clients.remove(client.key);
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      client: { key: client.key, secret: client.secret },
      token,
    });
    assertProblem(answer, 401, 'consumer_key_unknown');
  });

  it('refuses HMAC-SHA1 from a client registered for RSA-SHA1 only with 400 signature_method_rejected', async () => {
    const client = await world.server.provider.clients.register({
      name: 'RSA only',
      signatureMethods: ['RSA-SHA1'],
      publicKey: RSA_PUBLIC_KEY,
    });
    assertOk(await twoLegged({ key: client.key, privateKey: RSA_PRIVATE_KEY }, 'RSA-SHA1'));
    assertProblem(
      await twoLegged({ key: client.key, secret: client.secret }),
      400,
      'signature_method_rejected',
    );
  });

  it('refuses RSA-SHA1 from a client without an RSA public key with 400 signature_method_rejected', async () => {
    const answer = await twoLegged(
      { key: world.otherClient.key, privateKey: RSA_PRIVATE_KEY },
      'RSA-SHA1',
    );
    assertProblem(answer, 400, 'signature_method_rejected');
  });
});
