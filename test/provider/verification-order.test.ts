// The hot path's order (src/provider/verify/verify-request.ts): cheap checks before lookups, the
// signature before the nonce is recorded, so a forged request never burns a client's nonce,
// and each refusal names the first thing that is wrong.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import { send } from '../conformance/support/http.ts';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertOk, assertProblem, editProtocol, setValue } from '../conformance/support/wire.ts';

let world: World;
let token: TokenCredentials;
before(async () => {
  world = await startWorld();
  token = await world.tokenCredentials('HMAC-SHA1', 'header');
});
after(() => world.close());

const sign = (options: { nonce?: string; timestamp?: number; key?: string } = {}) =>
  world.sign({
    signatureMethod: 'HMAC-SHA1',
    transmission: 'header',
    path: PATHS.me,
    token,
    nonce: options.nonce,
    timestamp: options.timestamp,
    ...(options.key === undefined ? {} : { client: { key: options.key, secret: 'x' } }),
  });

describe('Verification order: cheap checks first', () => {
  it('refuses a stale timestamp before looking up an unknown client (timestamp_refused)', async () => {
    const wire = sign({ key: 'no-such-client', timestamp: world.clock.seconds() - 3600 });
    assertProblem(await send(wire), 401, 'timestamp_refused');
  });

  it('refuses an unsupported signature method before the timestamp window (400)', async () => {
    const wire = sign({ timestamp: world.clock.seconds() - 3600 });
    const edited = editProtocol(wire, 'header', setValue('oauth_signature_method', 'MD5'));
    assertProblem(await send(edited), 400, 'signature_method_rejected');
  });

  it('names an unknown client rather than the signature (consumer_key_unknown)', async () => {
    assertProblem(await send(sign({ key: 'no-such-client' })), 401, 'consumer_key_unknown');
  });
});

describe('Verification order: the nonce is recorded only for a verified signature', () => {
  it('a forged request does not burn the nonce: the genuine request with that nonce still passes', async () => {
    const nonce = 'nonce-shared-by-forger-and-client';
    const timestamp = world.clock.seconds();
    const genuine = sign({ nonce, timestamp });
    const forged = editProtocol(genuine, 'header', setValue('oauth_signature', 'Zm9yZ2Vk'));
    assertProblem(await send(forged), 401, 'signature_invalid');
    assertOk(await send(genuine));
  });

  it('a replay racing the original is refused: of 8 identical requests sent at once exactly one passes', async () => {
    const wire = sign();
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(wire)));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 401, 401, 401, 401, 401, 401, 401]);
  });
});
