// Rotation with overlap, over HTTP on the embedded store: the previous secret (or public key)
// is accepted until the overlap ends, then refused with advice naming the rotation; the
// audit trail records the rotation and, through upkeep, the end of the overlap. Time moves
// with the world's clock, never by waiting.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
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

const HOUR = 3_600_000;

/** The advice of a refusal (an oauth_problem form). */
const advice = (text: string) => new URLSearchParams(text).get('oauth_problem_advice') ?? '';

describe('Rotation with overlap', () => {
  const call = (
    client: { key: string; secret?: string; privateKey?: string },
    method = 'HMAC-SHA1',
  ) =>
    world.call({
      signatureMethod: method as 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      client,
    });

  it('accepts both secrets during the overlap, then only the new one, with advice for the old', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Rolling out' });
    const rotated = await provider.clients.rotateSecret(client.key, { overlapSeconds: 86_400 });
    assertOk(await call({ key: client.key, secret: client.secret }));
    assertOk(await call({ key: client.key, secret: rotated.secret }));
    await provider.maintain();
    const [overlap] = await provider.clients.overlaps(client.key);
    assert.equal(overlap?.kind, 'secret');
    assert.equal(overlap?.until, overlap!.replacedAt + 24 * HOUR);
    // The developer can see that the previous secret still signs requests.
    assert.equal(overlap?.lastUsedAt, world.clock.now());

    world.clock.offsetMs += 24 * HOUR;
    const refused = await call({ key: client.key, secret: client.secret });
    assertProblem(refused, 401, 'signature_invalid');
    assert.match(advice(refused.text), /previous secret, replaced at .* and refused since/);
    assertOk(await call({ key: client.key, secret: rotated.secret }));
    assert.deepEqual(await provider.clients.overlaps(client.key), []);
  });

  it('reads the previous secret only for a request the current one does not verify', async () => {
    const provider = world.server.provider;
    const previous = world.server.store.previousCredentials;
    const find = previous.find.bind(previous);
    let reads = 0;
    Object.assign(previous, {
      find: (key: string) => {
        reads += 1;
        return find(key);
      },
    });
    try {
      const client = await provider.clients.register({ name: 'Hot path' });
      const rotated = await provider.clients.rotateSecret(client.key, { overlapSeconds: 3600 });
      for (let i = 0; i < 5; i += 1) {
        assertOk(await call({ key: client.key, secret: rotated.secret }));
      }
      assert.equal(reads, 0);
      assertOk(await call({ key: client.key, secret: client.secret }));
      assert.equal(reads, 1);
    } finally {
      Object.assign(previous, { find });
    }
  });

  it('keeps no overlap by default: the old secret is refused at once, and told why', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'At once' });
    await provider.clients.rotateSecret(client.key);
    const refused = await call({ key: client.key, secret: client.secret });
    assertProblem(refused, 401, 'signature_invalid');
    assert.match(advice(refused.text), /previous secret/);
  });

  it('gives no advice to a signature made with neither secret', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Forged' });
    await provider.clients.rotateSecret(client.key, { overlapSeconds: 3600 });
    const refused = await call({ key: client.key, secret: 'a guess' });
    assertProblem(refused, 401, 'signature_invalid');
    assert.doesNotMatch(advice(refused.text), /previous/);
  });

  it('accepts the previous secret with a token during the overlap', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'With a token' });
    const token = await provider.tokens.issue({ clientKey: client.key, ownerId: world.owner.id });
    const rotated = await provider.clients.rotateSecret(client.key, { overlapSeconds: 3600 });
    for (const secret of [client.secret, rotated.secret]) {
      assertOk(
        await world.call({
          signatureMethod: 'HMAC-SHA256' as 'HMAC-SHA1',
          transmission: 'header',
          path: PATHS.me,
          client: { key: client.key, secret },
          token,
        }),
      );
    }
  });

  it('keeps a replaced public key valid during the overlap, then refuses it', async () => {
    const provider = world.server.provider;
    const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const client = await provider.clients.register({
      name: 'Key roll',
      signatureMethods: ['RSA-SHA1'],
      publicKey: RSA_PUBLIC_KEY,
    });
    await provider.clients.update(
      client.key,
      { publicKey: next.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
      { overlapSeconds: 3600 },
    );
    const nextPrivate = next.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    assertOk(await call({ key: client.key, privateKey: RSA_PRIVATE_KEY }, 'RSA-SHA1'));
    assertOk(await call({ key: client.key, privateKey: nextPrivate }, 'RSA-SHA1'));
    world.clock.offsetMs += HOUR;
    const refused = await call({ key: client.key, privateKey: RSA_PRIVATE_KEY }, 'RSA-SHA1');
    assertProblem(refused, 401, 'signature_invalid');
    assert.match(advice(refused.text), /previous public key/);
    assertOk(await call({ key: client.key, privateKey: nextPrivate }, 'RSA-SHA1'));
  });

  it('keeps no overlap for a key removed rather than replaced', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({
      name: 'Key dropped',
      signatureMethods: ['RSA-SHA1', 'HMAC-SHA1'],
      publicKey: RSA_PUBLIC_KEY,
    });
    await provider.clients.update(
      client.key,
      { publicKey: null, signatureMethods: ['HMAC-SHA1'] },
      { overlapSeconds: 3600 },
    );
    assert.deepEqual(await provider.clients.overlaps(client.key), []);
  });

  it('ends an overlap early on request', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Leaked' });
    await provider.clients.rotateSecret(client.key, { overlapSeconds: 86_400 });
    assert.equal(await provider.clients.endOverlaps(client.key), 1);
    assertProblem(await call({ key: client.key, secret: client.secret }), 401, 'signature_invalid');
  });

  it('refuses an overlap beyond 30 days, or not a whole number of seconds', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Too long' });
    for (const overlapSeconds of [30 * 86_400 + 1, -1, 1.5, Number.NaN]) {
      await assert.rejects(provider.clients.rotateSecret(client.key, { overlapSeconds }), {
        name: 'InputError',
      });
    }
    assertOk(await call({ key: client.key, secret: client.secret }));
  });

  it('audits the rotation with the end of its overlap, and the end once upkeep sees it pass', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Audited' });
    await provider.clients.rotateSecret(client.key, { overlapSeconds: 7200 });
    const rotatedAt = world.clock.now();
    const trail = async () =>
      (await provider.audit.list({ clientKey: client.key })).map((event) => [
        event.event,
        JSON.parse(event.detail) as unknown,
      ]);
    await provider.maintain();
    assert.deepEqual(
      (await trail()).map(([type]) => type).filter((t) => t !== 'client.created'),
      ['client.secret-rotated'],
    );
    world.clock.offsetMs += 2 * HOUR;
    await provider.maintain();
    await provider.maintain();
    const events = (await trail()).filter(([type]) => type !== 'client.created');
    const endsAt = new Date(rotatedAt + 2 * HOUR).toISOString();
    assert.deepEqual(events, [
      ['client.overlap-ended', { credential: 'secret', endedAt: endsAt }],
      ['client.secret-rotated', { overlapEndsAt: endsAt }],
    ]);
  });
});
