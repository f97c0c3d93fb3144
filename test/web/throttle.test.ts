import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { PASSWORD, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

describe('Sign-in throttling (rate limited per account and per address)', () => {
  let world: WebWorld;
  beforeEach(async () => {
    world = await startWeb({
      web: { signIn: { perAccount: 3, perAddress: 5, windowSeconds: 600 } },
    });
    await world.owner('alice');
  });
  afterEach(() => world.close());

  it('pauses an account after too many attempts, even with the right password, and says so', async () => {
    for (let i = 0; i < 3; i++) {
      const guess = await world.browser(`192.0.2.${i + 1}`).signIn('alice', `guess ${i}`);
      assert.equal(guess.statusCode, 422);
    }
    const reply = await world.browser('192.0.2.50').signIn('alice', PASSWORD);
    assert.equal(reply.statusCode, 429);
    assert.equal(reply.headers['retry-after'], '600');
    assert.match(
      text(reply.body),
      /Too many sign-in attempts for this account\. .*wait 10 minutes/,
    );
  });

  it('counts the account whatever the case of the username', async () => {
    for (const name of ['Alice', 'ALICE', 'alice']) await world.browser().signIn(name, 'wrong');
    const reply = await world.browser('192.0.2.60').signIn('alice', PASSWORD);
    assert.equal(reply.statusCode, 429);
  });

  it('clears the account count after a successful sign-in', async () => {
    const from = (n: number) => world.browser(`203.0.113.${n}`);
    await from(1).signIn('alice', 'wrong');
    await from(2).signIn('alice', 'wrong');
    assert.equal((await from(3).signIn('alice')).statusCode, 303);
    await from(4).signIn('alice', 'wrong');
    await from(5).signIn('alice', 'wrong');
    assert.equal((await from(6).signIn('alice')).statusCode, 303);
  });

  it('pauses an unknown account the same way, so the answer tells nothing', async () => {
    for (let i = 0; i < 3; i++) await world.browser().signIn('mallory', 'wrong');
    const reply = await world.browser().signIn('mallory', 'wrong');
    assert.equal(reply.statusCode, 429);
  });

  it('limits sign-in posts per address with a clear 429 page, and other addresses still sign in', async () => {
    const attacker = world.browser('198.51.100.7');
    const page = await attacker.get('/signin');
    let last;
    for (let i = 0; i < 6; i++) {
      last = await attacker.post(
        '/signin',
        { username: `user${i}`, password: 'x', next: '/' },
        page,
      );
    }
    assert.equal(last!.statusCode, 429);
    assert.match(text(last!.body), /too many sign-in attempts from your network/i);
    assert.equal((await world.browser('198.51.100.8').signIn('alice')).statusCode, 303);
  });
});
