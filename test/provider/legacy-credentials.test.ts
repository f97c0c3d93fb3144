// Credentials issued by another provider, kept as they are: client and token secrets of any
// Unicode text (1 to 1,024 UTF-8 bytes), keys and tokens of any printable text up to 255
// bytes, all usable for signed requests (RFC 5849 §3.4.2, §3.4.4 encode them into the key).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/provider/index.ts';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { MethodName, World } from '../conformance/support/world.ts';
import { assertOk } from '../conformance/support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

const CLIENT_SECRET = 'hmac secret+with/odd&chars~';
const TOKEN_SECRET = 'tök€n s/cr+t=';

async function refused(promise: Promise<unknown>, field: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof InputError, String(error));
    assert.equal(error.field, field);
    return true;
  });
}

describe('Credentials migrated from another provider', () => {
  it('signs requests with a secret of any characters and a key of printable text, in every place', async () => {
    const client = await world.server.provider.clients.register({
      name: 'Legacy',
      key: 'legacy key/ä+1',
      secret: CLIENT_SECRET,
    });
    const token = await world.server.provider.tokens.issue({
      clientKey: client.key,
      ownerId: world.owner.id,
      token: 'legacy token=€',
      secret: TOKEN_SECRET,
    });
    for (const method of ['HMAC-SHA1', 'PLAINTEXT'] as MethodName[]) {
      for (const transmission of ['header', 'body', 'query'] as const) {
        const answer = await world.call({
          signatureMethod: method,
          transmission,
          path: PATHS.me,
          client: { key: client.key, secret: CLIENT_SECRET },
          token: { token: token.token, secret: TOKEN_SECRET },
        });
        assertOk(answer);
        const me = JSON.parse(answer.text) as { client: { key: string } };
        assert.equal(me.client.key, 'legacy key/ä+1', `${method} ${transmission}`);
      }
    }
  });

  it('accepts secrets of 1 and of 1,024 UTF-8 bytes', async () => {
    await world.server.provider.clients.register({ name: 'One', key: 'one-byte', secret: 'x' });
    const longest = 'é'.repeat(512); // 1,024 bytes
    const client = await world.server.provider.clients.register({
      name: 'Long',
      key: 'long-secret',
      secret: longest,
    });
    assert.equal(client.secret, longest);
    const token = await world.server.provider.tokens.issue({
      clientKey: client.key,
      ownerId: world.owner.id,
      secret: '€'.repeat(341) + 'a', // 1,024 bytes
    });
    assertOk(
      await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.me,
        client: { key: client.key, secret: longest },
        token,
      }),
    );
  });

  it('refuses a secret past 1,024 bytes, empty, with a lone surrogate or with U+0000', async () => {
    const register = (secret: string) =>
      world.server.provider.clients.register({ name: 'Bad', key: `bad-${Math.random()}`, secret });
    await refused(register('é'.repeat(512) + 'x'), 'secret');
    await refused(register(''), 'secret');
    await refused(register('ab\uD800cd'), 'secret');
    await refused(register('ab\u0000cd'), 'secret');
    const issue = (secret: string) =>
      world.server.provider.tokens.issue({
        clientKey: world.sharedClient.key,
        ownerId: world.owner.id,
        secret,
      });
    await refused(issue('x'.repeat(1025)), 'secret');
  });

  it('accepts control characters other than U+0000 in a secret (any Unicode text)', async () => {
    const client = await world.server.provider.clients.register({
      name: 'Tabbed',
      key: 'tabbed',
      secret: 'a\tb\nc',
    });
    assertOk(
      await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.me,
        client: { key: client.key, secret: 'a\tb\nc' },
      }),
    );
  });

  it('refuses a key or token with a control character, or past 255 bytes', async () => {
    const register = (key: string) =>
      world.server.provider.clients.register({ name: 'Bad', key, secret: 's' });
    await refused(register('tab\there'), 'key');
    await refused(register('line\nbreak'), 'key');
    await refused(register('del\u007f'), 'key');
    await refused(register('c1\u0085'), 'key');
    await refused(register('é'.repeat(128)), 'key'); // 256 bytes
    await refused(register(''), 'key');
    await refused(
      world.server.provider.tokens.issue({
        clientKey: world.sharedClient.key,
        ownerId: world.owner.id,
        token: 'x'.repeat(256),
      }),
      'token',
    );
    const longest = await register('é'.repeat(127) + 'x'); // 255 bytes
    assert.equal(Buffer.byteLength(longest.key), 255);
  });
});
