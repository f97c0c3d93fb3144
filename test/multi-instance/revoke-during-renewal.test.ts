// The owner's revocation against a client renewing its token (the session extension), on
// two instances sharing PostgreSQL and Redis: the client renews back to back on one, the
// owner revokes the grant on the other. Once the revocation has answered, no token of that
// grant is accepted on either instance and the next renewal fails. Renewal and revocation
// are serialised on the grant in the store; without that, a revocation that ran while a
// renewal was replacing the token missed the replacement, and the session lived on.
//
// To land the revocation inside a renewal, the renewing instance's store tells the test when
// a renewal reaches it (the call itself goes to the real store unchanged); the revocation then
// starts at once or a few event-loop turns later, a different offset each trial. A race lost
// in one trial of twenty fails the test.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  createSigningFetch,
  processTokenCredentialsResponse,
  requestTokenRenewal,
} from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import type { Store } from '../../src/store/index.ts';
import { postgresRedisSkip, postgresRedisStore } from '../stores/support-services.ts';

const skip = await postgresRedisSkip();
const TRIALS = 60;
/** Renewals answered after the revocation, at most, before the test calls it a live session. */
const MAX_LATE_RENEWALS = 3;

interface Instance {
  readonly app: FastifyInstance;
  readonly provider: Provider;
  readonly store: Store;
  readonly base: string;
}

async function startInstance(store: Store, provided: Store = store): Promise<Instance> {
  const provider = createProvider({ store: provided });
  const app = await buildApp({ provider, maintenance: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, provider, store, base: `http://127.0.0.1:${port}` };
}

/** `store`, telling `onRenew` each time a renewal reaches it (before passing it on). */
function tellingRenewals(store: Store, onRenew: () => void): Store {
  return {
    ...store,
    tokenCredentials: {
      ...store.tokenCredentials,
      renew(...args) {
        onRenew();
        return store.tokenCredentials.renew(...args);
      },
    },
  };
}

describe('revocation while the client renews (PostgreSQL + Redis, two instances)', { skip }, () => {
  let renewing: Instance;
  let revoking: Instance;
  let client: ClientCredentials;
  let ownerId: string;
  let onRenew: () => void = () => undefined;
  // Registered before the store's own `after` (which drops the schema), so it runs first.
  after(async () => {
    for (const instance of [renewing, revoking]) {
      await instance.app.close();
      await instance.store.close();
    }
  });
  const open = postgresRedisStore();

  before(async () => {
    const store = await open();
    renewing = await startInstance(
      store,
      tellingRenewals(store, () => onRenew()),
    );
    revoking = await startInstance(await open());
    const registered = await revoking.provider.clients.register({
      name: 'Session App',
      sessionExtension: true,
    });
    client = { key: registered.key, secret: registered.secret };
    ownerId = (await revoking.provider.owners.create('session-owner', 'correct horse battery')).id;
  });

  /** A token of a fresh session, stored as the token endpoint stores one. */
  async function startSession(): Promise<{ token: TokenCredentials; handle: string }> {
    const handle = randomBytes(32).toString('base64url');
    const now = Date.now();
    const created = await renewing.store.tokenCredentials.create({
      token: randomBytes(16).toString('base64url'),
      secret: randomBytes(32).toString('base64url'),
      clientKey: client.key,
      ownerId,
      scope: '',
      issuedAt: now,
      expiresAt: now + 3_600_000,
      sessionHandleHash: createHash('sha256').update(handle).digest('hex'),
      sessionExpiresAt: now + 86_400_000,
    });
    return { token: { token: created.token, secret: created.secret }, handle };
  }

  const renew = (instance: Instance, token: TokenCredentials, handle: string) =>
    requestTokenRenewal(`${instance.base}/oauth/access_token`, {
      client,
      token,
      sessionHandle: handle,
    });

  const me = async (instance: Instance, token: TokenCredentials) => {
    const response = await createSigningFetch({ client, token })(`${instance.base}/api/me`);
    await response.arrayBuffer();
    return response.status;
  };

  it(`leaves no live token of the grant, in ${TRIALS} trials`, async () => {
    const lost: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const session = await startSession();
      let current = session.token;
      let renewals = 0;
      let revoked = false;
      let lateRenewals = 0;
      // The revocation starts when the trial's chosen renewal reaches the store.
      const chosen = 1 + (trial % 3);
      let reachedStore = 0;
      const reached = new Promise<void>((resolve) => {
        onRenew = () => {
          reachedStore += 1;
          if (reachedStore === chosen) resolve();
        };
      });
      // The client: renews back to back until a renewal is refused.
      const loop = (async () => {
        for (;;) {
          const response = await renew(renewing, current, session.handle);
          if (response.status !== 200) {
            await response.arrayBuffer();
            return;
          }
          current = await processTokenCredentialsResponse(response);
          renewals += 1;
          if (revoked) lateRenewals += 1;
          if (lateRenewals > MAX_LATE_RENEWALS) return;
        }
      })();
      // A loop that ended (refused, or threw) ends the wait too; awaiting it below reports why.
      await Promise.race([reached, loop]);
      for (let turn = 0; turn < trial % 5; turn++) await nextTurn();
      // The owner, on the other instance.
      await revoking.provider.tokens.revokeGrant(ownerId, client.key);
      revoked = true;
      await loop;
      const statuses = [await me(renewing, current), await me(revoking, current)];
      const again = await renew(revoking, current, session.handle);
      await again.arrayBuffer();
      if (lateRenewals > MAX_LATE_RENEWALS || statuses.includes(200) || again.status === 200) {
        lost.push(
          `trial ${trial}: ${lateRenewals} renewals after the revocation (${renewals} in all), /api/me ${statuses.join(' and ')}, renewal ${again.status}`,
        );
      }
    }
    assert.deepEqual(lost, [], `The session outlived the revocation:\n${lost.join('\n')}`);
  });
});
