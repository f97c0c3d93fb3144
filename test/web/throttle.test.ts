import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { PASSWORD, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

describe('Sign-in throttling (per account and address, and per address)', () => {
  let world: WebWorld;
  let clock = Date.now();
  beforeEach(async () => {
    clock = Date.now();
    world = await startWeb({
      now: () => clock,
      policy: { signIn: { perAccountAddress: 3, perAddress: 50, windowSeconds: 600 } },
    });
    await world.owner('alice');
  });
  afterEach(() => world.close());

  it('pauses an account from one address after too many attempts, even with the right password, and says so', async () => {
    const guesser = world.browser('192.0.2.1');
    for (let i = 0; i < 3; i++) {
      assert.equal((await guesser.signIn('alice', `guess ${i}`)).statusCode, 422);
    }
    const reply = await guesser.signIn('alice', PASSWORD);
    assert.equal(reply.statusCode, 429);
    assert.equal(reply.headers['retry-after'], '600');
    assert.match(
      text(reply.body),
      /Too many sign-in attempts for this account from your address\. .*wait 10 minutes/,
    );
  });

  it('leaves the account open from every other address', async () => {
    for (let i = 0; i < 4; i++) await world.browser('192.0.2.1').signIn('alice', 'wrong');
    assert.equal((await world.browser('192.0.2.1').signIn('alice')).statusCode, 429);
    assert.equal((await world.browser('192.0.2.2').signIn('alice')).statusCode, 303);
  });

  it('backs off: after the window a paused pair gets fewer attempts, for longer', async () => {
    const from = world.browser('192.0.2.9');
    for (let i = 0; i < 3; i++) assert.equal((await from.signIn('alice', 'wrong')).statusCode, 422);
    assert.equal((await from.signIn('alice', 'wrong')).statusCode, 429);
    clock += 601_000; // the first window has passed; 4 attempts within four windows so far
    assert.equal((await from.signIn('alice', 'wrong')).statusCode, 422);
    assert.equal((await from.signIn('alice', 'wrong')).statusCode, 422);
    const paused = await from.signIn('alice', PASSWORD);
    assert.equal(paused.statusCode, 429, 'the seventh attempt within four windows is refused');
    assert.equal(paused.headers['retry-after'], '2400');
  });

  it('counts the account whatever the case of the username', async () => {
    const from = world.browser('192.0.2.3');
    for (const name of ['Alice', 'ALICE', 'alice']) await from.signIn(name, 'wrong');
    assert.equal((await from.signIn('alice', PASSWORD)).statusCode, 429);
  });

  it('clears the count of the pair after a successful sign-in', async () => {
    const from = () => world.browser('203.0.113.1');
    await from().signIn('alice', 'wrong');
    await from().signIn('alice', 'wrong');
    assert.equal((await from().signIn('alice')).statusCode, 303);
    await from().signIn('alice', 'wrong');
    await from().signIn('alice', 'wrong');
    assert.equal((await from().signIn('alice')).statusCode, 303);
  });

  it('pauses an unknown account the same way, so the answer tells nothing', async () => {
    const from = world.browser('192.0.2.4');
    for (let i = 0; i < 3; i++) await from.signIn('mallory', 'wrong');
    assert.equal((await from.signIn('mallory', 'wrong')).statusCode, 429);
  });
});

describe('Sign-in throttling per address', () => {
  let world: WebWorld;
  beforeEach(async () => {
    world = await startWeb({ policy: { signIn: { perAddress: 5, windowSeconds: 600 } } });
    await world.owner('alice');
  });
  afterEach(() => world.close());

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
