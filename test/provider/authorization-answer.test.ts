// §2.2: the owner's answer is written for the request as it was described, and the store
// re-checks, atomically as it writes, that the request is still unanswered and unexpired: a
// request answered, consumed or expired between its description and Allow is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  processTokenCredentialsResponse,
  requestTokenCredentials,
} from '../../src/client/index.ts';
import type { Owner } from '../../src/provider/index.ts';
import { BASE, injectFetch, startWeb } from '../web/support.ts';
import type { WebWorld } from '../web/support.ts';

describe('Approving a described authorization request (§2.2)', () => {
  let world: WebWorld;
  let alice: Owner;
  let mallory: Owner;
  let offsetMs = 0;
  before(async () => {
    world = await startWeb({ now: () => Date.now() + offsetMs });
    alice = await world.owner('alice');
    mallory = await world.owner('mallory');
  });
  after(() => world.close());

  it('approves what was described, once', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client, 'oob');
    const asked = await world.provider.authorization.describe(temporary.token);
    const approval = await world.provider.authorization.approve(asked, alice.id);
    assert.equal(approval.redirect, undefined);
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.state, 'authorized');
    assert.equal(stored?.ownerId, alice.id);
  });

  it('refuses a request answered since it was described, and keeps the first answer', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const asked = await world.provider.authorization.describe(temporary.token);
    await world.provider.authorization.approve(temporary.token, alice.id);
    await assert.rejects(world.provider.authorization.approve(asked, mallory.id), {
      problem: 'token_used',
    });
    assert.equal((await world.store.temporaryCredentials.find(temporary.token))?.ownerId, alice.id);
  });

  it('refuses a request consumed (exchanged for token credentials) since it was described', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const asked = await world.provider.authorization.describe(temporary.token);
    const { verifier } = await world.provider.authorization.approve(temporary.token, alice.id);
    const issued = await processTokenCredentialsResponse(
      await requestTokenCredentials(`${BASE}/oauth/access_token`, {
        client: { key: client.key, secret: client.secret },
        temporary,
        verifier,
        fetch: injectFetch(world.app),
      }),
    );
    assert.equal((await world.store.temporaryCredentials.find(temporary.token))?.state, 'consumed');
    await assert.rejects(world.provider.authorization.approve(asked, mallory.id), {
      problem: 'token_used',
    });
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.state, 'consumed');
    assert.equal(stored?.ownerId, alice.id);
    assert.equal((await world.store.tokenCredentials.find(issued.token))?.ownerId, alice.id);
  });

  it('refuses a request that expired since it was described', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const asked = await world.provider.authorization.describe(temporary.token);
    offsetMs = 11 * 60 * 1000;
    try {
      await assert.rejects(world.provider.authorization.approve(asked, alice.id), {
        problem: 'token_used',
      });
    } finally {
      offsetMs = 0;
    }
    assert.equal((await world.store.temporaryCredentials.find(temporary.token))?.state, 'issued');
  });
});
