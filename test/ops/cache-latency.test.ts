// A revocation or secret rotation on one instance is obeyed by every instance, through the
// invalidation channel. Two instances (provider + app, each with its own cached store) on one
// PostgreSQL schema and Redis prefix; the second has the credentials cached when the first
// changes them, and is asked again and again until it refuses. Its cache entries live an hour,
// so only the channel can make it refuse before the test's hang bound; the time it took is
// printed (a figure, not an assertion).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { createSigningFetch } from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import { injectFetch } from '../web/support.ts';
import type { Instance } from './support.ts';
import { servicesSkip, useDeployment } from './support.ts';

/** Longer than any test here runs: an entry never expires by itself during one. */
const CACHE_TTL_MS = 3_600_000;
/** How long a refusal may take before the test fails as hung (it measures nothing). */
const HANG_MS = 10_000;

const skip = await servicesSkip();

/** One signed GET /api/me to `instance`; returns the status and oauth_problem. */
async function callApi(instance: Instance, client: ClientCredentials, token: TokenCredentials) {
  const api = createSigningFetch({ client, token, fetch: injectFetch(instance.app) });
  const response = await api('http://127.0.0.1/api/me');
  const body = await response.text();
  return { status: response.status, problem: new URLSearchParams(body).get('oauth_problem') };
}

/** Asks until `refused` holds; returns the milliseconds since `start`. */
async function timeUntilRefused(start: number, ask: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await ask()) return performance.now() - start;
    if (performance.now() - start > HANG_MS) {
      throw new Error(`Still accepted after ${HANG_MS} ms: the invalidation never arrived.`);
    }
  }
}

function report(t: TestContext, what: string, ms: number): void {
  const line = `${what} obeyed by the other instance after ${ms.toFixed(1)} ms`;
  t.diagnostic(line);
  console.log(`# ${line}`);
}

describe('caches: a change on one instance is obeyed by every instance', { skip }, () => {
  const deployment = useDeployment();

  async function twoInstancesWithAToken() {
    const instance = async (): Promise<Instance> => {
      const store = await deployment.open({ cache: { ttlMs: CACHE_TTL_MS } });
      const provider = createProvider({ store });
      const app = deployment.track(await buildApp({ maintenance: false, provider }));
      return { store, provider, app };
    };
    const first = await instance();
    const second = await instance();
    const registered = await first.provider.clients.register({ name: 'Latency probe' });
    const owner = await first.provider.owners.create(`owner-${registered.key}`, 'a long password');
    const issued = await first.provider.tokens.issue({
      clientKey: registered.key,
      ownerId: owner.id,
    });
    const client = { key: registered.key, secret: registered.secret };
    const token = { token: issued.token, secret: issued.secret };
    // Both instances now hold the client and the token in their caches.
    for (const instance of [first, second]) {
      assert.equal((await callApi(instance, client, token)).status, 200);
    }
    return { first, second, client, token, owner };
  }

  it('refuses a token revoked on another instance through the invalidation channel', async (t) => {
    const { first, second, client, token } = await twoInstancesWithAToken();
    const start = performance.now();
    assert.equal(await first.provider.tokens.revoke(token.token), true);
    const ms = await timeUntilRefused(start, async () => {
      const answer = await callApi(second, client, token);
      return answer.status === 401 && answer.problem === 'token_revoked';
    });
    report(t, 'revocation', ms);
  });

  it('refuses the old secret of a client rotated on another instance through the invalidation channel', async (t) => {
    const { first, second, client, token } = await twoInstancesWithAToken();
    const start = performance.now();
    await first.provider.clients.rotateSecret(client.key);
    const ms = await timeUntilRefused(start, async () => {
      const answer = await callApi(second, client, token);
      return answer.status === 401 && answer.problem === 'signature_invalid';
    });
    report(t, 'secret rotation', ms);
  });

  it('refuses a grant revoked on another instance through the invalidation channel', async (t) => {
    const { first, second, client, token, owner } = await twoInstancesWithAToken();
    const start = performance.now();
    await first.provider.tokens.revokeGrant(owner.id, client.key);
    const ms = await timeUntilRefused(start, async () => {
      const answer = await callApi(second, client, token);
      return answer.status === 401 && answer.problem === 'token_revoked';
    });
    report(t, 'grant revocation', ms);
  });
});
