// Regressions found by driving a running server over real HTTP; each test failed before its fix.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertProblem } from '../conformance/support/wire.ts';

describe('Regressions over HTTP', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(() => world.close());

  // Every verifier was compared after upper-casing and removing dashes (meant only for the
  // short code typed on a constrained device), so a verifier with its case changed passed.
  it('refuses a full verifier with its letters in upper case', async () => {
    const temporary = await world.temporary('HMAC-SHA1', 'header');
    const verifier = await world.approve(temporary);
    assert.notEqual(verifier.toUpperCase(), verifier, 'the verifier has lower-case letters');
    const answer = await world.exchange('HMAC-SHA1', 'header', temporary, verifier.toUpperCase());
    assertProblem(answer, 401, 'verifier_invalid');
  });

  // A signed request with any number of parameters (up to the body limit) was accepted.
  it('refuses a signed request with 1001 parameters', async () => {
    const body = new URLSearchParams();
    for (let i = 0; i < 1001; i++) body.append('p', String(i));
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      httpMethod: 'POST',
      path: PATHS.me,
      body,
    });
    assertProblem(answer, 400, 'parameter_rejected');
  });
});
