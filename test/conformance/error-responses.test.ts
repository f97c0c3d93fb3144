// Spec "Errors", response format (OAuth Problem Reporting, RFC 5849 §3.5.1): a form body with
// oauth_problem and oauth_problem_advice, `WWW-Authenticate: OAuth realm="…"` on every 401,
// never a secret or signature in the answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { send } from './support/http.ts';
import { PATHS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import { assertProblem, valueOf } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

describe('Spec Errors: how an error is answered', () => {
  it('sends WWW-Authenticate with the OAuth scheme and the server realm on a 401', async () => {
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      client: { key: 'nobody', secret: 'x' },
    });
    assertProblem(answer, 401, 'consumer_key_unknown');
    assert.equal(
      answer.headers['www-authenticate'],
      'OAuth realm="Latchkey", oauth_problem="consumer_key_unknown"',
    );
  });

  it('challenges a protected resource request without any OAuth with 401 parameter_absent listing every missing parameter', async () => {
    const answer = await send({ method: 'GET', url: world.url + PATHS.me });
    assertProblem(answer, 401, 'parameter_absent');
    assert.deepEqual(answer.fields['oauth_parameters_absent']?.split('&'), [
      'oauth_consumer_key',
      'oauth_signature_method',
      'oauth_signature',
      'oauth_timestamp',
      'oauth_nonce',
    ]);
  });

  it('answers an unsigned temporary credential request with 400 parameter_absent', async () => {
    const answer = await send({ method: 'POST', url: world.url + PATHS.requestToken });
    assertProblem(answer, 400, 'parameter_absent');
  });

  it('keeps error answers out of caches (Cache-Control: no-store)', async () => {
    const answer = await send({ method: 'POST', url: world.url + PATHS.requestToken });
    assert.equal(answer.status, 400);
    assert.match(answer.headers['cache-control'] ?? '', /no-store/);
  });

  it('never echoes the signature or a secret in a signature_invalid answer', async () => {
    const wrongSecret = 'wrong-secret-value-1234';
    const wire = world.sign({
      signatureMethod: 'PLAINTEXT',
      transmission: 'header',
      path: PATHS.me,
      client: { key: world.sharedClient.key, secret: wrongSecret },
    });
    const answer = await send(wire);
    assertProblem(answer, 401, 'signature_invalid');
    const signature = valueOf(wire, 'header', 'oauth_signature');
    for (const secret of [wrongSecret, world.sharedClient.secret, signature]) {
      assert.ok(!answer.text.includes(secret));
      assert.ok(!JSON.stringify(answer.headers).includes(secret));
    }
  });

  it('sends only oauth_problem, oauth_problem_advice and Problem Reporting fields in an error body', async () => {
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      timestamp: 1,
    });
    assertProblem(answer, 401, 'timestamp_refused');
    assert.deepEqual(
      answer.pairs.map(([name]) => name),
      ['oauth_problem', 'oauth_problem_advice', 'oauth_acceptable_timestamps'],
    );
  });
});
