// Several instances: two `latchkey serve` processes on different ports share one
// PostgreSQL schema and one Redis prefix (this run's own, removed afterwards). A flow begun on
// one completes on the other; a nonce used on one is refused on the other; a token revoked on
// one (or with the CLI) is refused on the other, told through the invalidation channel (the
// caches outlive the test, so nothing else can refuse it); both secrets of a rotation with
// overlap work on both until the overlap is ended; kill -9 of one loses nothing the other
// needs.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import {
  createSigningFetch,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
  signRequest,
} from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { postgresUrl, redisUrl, servicesSkip, useDeployment } from '../ops/support.ts';
import { Browser, deploymentOf, PUBLIC } from './support.ts';
import type { Deployment, Instance } from './support.ts';

const skip = await servicesSkip();
const PASSWORD = 'a long enough password';
/** Each instance's cache entries live an hour: only the invalidation channel refuses sooner. */
const CACHE_TTL_SECONDS = '3600';
/** How long a refusal may take before the test fails as hung (it measures nothing). */
const HANG_MS = 10_000;

/** The §2 flow's first half on `begin`: temporary credentials, sign-in and Allow. */
async function authorizeOn(
  begin: Instance,
  consent: Instance,
  client: ClientCredentials,
  username: string,
) {
  const temporary = await processTemporaryCredentialsResponse(
    await requestTemporaryCredentials(`${PUBLIC}/oauth/request_token`, {
      client,
      callback: 'https://printer.example/callback',
      fetch: begin.fetch,
    }),
  );
  const browser = new Browser();
  assert.equal((await browser.signIn(consent, username, PASSWORD)).status, 303);
  const page = await (
    await browser.get(begin, `/oauth/authorize?oauth_token=${temporary.token}`)
  ).text();
  const allowed = await browser.post(
    consent,
    '/oauth/authorize',
    { oauth_token: temporary.token, decision: 'allow', lifetime: '' },
    page,
  );
  const verifier = new URL(String(allowed.headers.get('location'))).searchParams.get(
    'oauth_verifier',
  );
  assert.ok(verifier !== null, `Allow answered ${allowed.status}`);
  return { temporary, verifier, browser };
}

async function exchangeOn(
  instance: Instance,
  client: ClientCredentials,
  temporary: TokenCredentials,
  verifier: string,
) {
  return processTokenCredentialsResponse(
    await requestTokenCredentials(`${PUBLIC}/oauth/access_token`, {
      client,
      temporary,
      verifier,
      fetch: instance.fetch,
    }),
  );
}

async function me(instance: Instance, client: ClientCredentials, token: TokenCredentials) {
  const response = await createSigningFetch({ client, token, fetch: instance.fetch })(
    `${PUBLIC}/api/me`,
  );
  const text = await response.text();
  return { status: response.status, text, problem: new URLSearchParams(text).get('oauth_problem') };
}

/** Asks `instance` until it refuses `token` as revoked; returns the ms since `start`. */
async function refusedAfter(start: number, ask: () => ReturnType<typeof me>): Promise<number> {
  for (;;) {
    const answer = await ask();
    if (answer.status === 401 && answer.problem === 'token_revoked')
      return performance.now() - start;
    assert.equal(answer.status, 200, answer.text);
    if (performance.now() - start > HANG_MS) {
      throw new Error(`Still accepted after ${HANG_MS} ms: the invalidation never arrived.`);
    }
  }
}

function report(t: TestContext, what: string, ms: number): void {
  t.diagnostic(`${what}: refused by the other instances after ${ms.toFixed(1)} ms`);
  console.log(`# ${what}: refused by the other instances after ${ms.toFixed(1)} ms`);
}

describe('several instances sharing PostgreSQL and Redis', { skip }, () => {
  const names = useDeployment();
  let deployment: Deployment;
  let first: Instance;
  let second: Instance;
  let provider: Provider;
  let client: ClientCredentials;
  let clientKey: string;
  let username: string;

  before(async () => {
    deployment = deploymentOf({ postgresUrl, redisUrl, ...names });
    deployment.env['LATCHKEY_CACHE_TTL'] = CACHE_TTL_SECONDS;
    const migrated = await deployment.cli(['migrate']);
    assert.equal(migrated.code, 0, migrated.stderr);
    names.track({ close: async () => deployment.stopAll() });
    [first, second] = await Promise.all([deployment.start(), deployment.start()]);
    // The operator's own process (as the CLI would be), on the same store.
    provider = createProvider({ store: await names.open() });
    const registered = await provider.clients.register({
      name: 'Photo Printer',
      callbacks: ['https://printer.example/callback'],
    });
    client = { key: registered.key, secret: registered.secret };
    clientKey = registered.key;
    username = `owner-${registered.key}`;
    await provider.owners.create(username, PASSWORD);
  });

  it('completes on one instance a flow begun on the other', async () => {
    const { temporary, verifier } = await authorizeOn(first, second, client, username);
    const token = await exchangeOn(second, client, temporary, verifier);
    const answer = await me(first, client, token);
    assert.equal(answer.status, 200, answer.text);
    assert.equal((JSON.parse(answer.text) as { owner: { name: string } }).owner.name, username);
  });

  it('refuses on one instance a nonce already used on the other', async () => {
    const { temporary, verifier } = await authorizeOn(first, first, client, username);
    const token = await exchangeOn(first, client, temporary, verifier);
    const signed = signRequest({ method: 'GET', url: `${PUBLIC}/api/me`, client, token });
    const once = await first.fetch(signed.url, { headers: signed.headers });
    const again = await second.fetch(signed.url, { headers: signed.headers });
    assert.deepEqual(
      [once.status, again.status, new URLSearchParams(await again.text()).get('oauth_problem')],
      [200, 401, 'nonce_used'],
    );
  });

  it('refuses a token revoked on the other instance’s pages, told through the channel', async (t) => {
    const { temporary, verifier, browser } = await authorizeOn(first, first, client, username);
    const token = await exchangeOn(first, client, temporary, verifier);
    assert.equal((await me(second, client, token)).status, 200); // cached on the second
    const page = await (await browser.get(first, '/account/apps')).text();
    const start = performance.now();
    const revoked = await browser.post(
      first,
      '/account/apps/revoke',
      { client_key: clientKey },
      page,
    );
    assert.equal(revoked.status, 303);
    const ms = await refusedAfter(start, () => me(second, client, token));
    report(t, 'revoked on the Connected apps page', ms);
  });

  it('refuses on every instance a token revoked with the CLI, told through the channel', async (t) => {
    const { temporary, verifier } = await authorizeOn(second, second, client, username);
    const token = await exchangeOn(second, client, temporary, verifier);
    for (const instance of [first, second])
      assert.equal((await me(instance, client, token)).status, 200);
    const revoked = await deployment.cli(['tokens', 'revoke', token.token]);
    assert.equal(revoked.code, 0, revoked.stderr);
    // Timed from the command's exit: it revoked and announced before exiting.
    const start = performance.now();
    const ms = Math.max(
      await refusedAfter(start, () => me(first, client, token)),
      await refusedAfter(start, () => me(second, client, token)),
    );
    report(t, 'revoked with `latchkey tokens revoke`', ms);
  });

  it('refuses on every instance a token its client invalidated on one of them', async (t) => {
    const { temporary, verifier } = await authorizeOn(first, first, client, username);
    const token = await exchangeOn(first, client, temporary, verifier);
    for (const instance of [first, second])
      assert.equal((await me(instance, client, token)).status, 200); // cached on both
    const signed = signRequest({
      method: 'POST',
      url: `${PUBLIC}/oauth/invalidate_token`,
      client,
      token,
    });
    const start = performance.now();
    const ended = await second.fetch(signed.url, { method: 'POST', headers: signed.headers });
    assert.equal(ended.status, 200, await ended.text());
    // The mechanism, not a stopwatch: each instance is asked until it refuses the token.
    const ms = Math.max(
      await refusedAfter(start, () => me(first, client, token)),
      await refusedAfter(start, () => me(second, client, token)),
    );
    report(t, 'invalidated by its client (POST /oauth/invalidate_token)', ms);
    const resigned = signRequest({
      method: 'POST',
      url: `${PUBLIC}/oauth/invalidate_token`,
      client,
      token,
    });
    const again = await first.fetch(resigned.url, { method: 'POST', headers: resigned.headers });
    const problem = new URLSearchParams(await again.text()).get('oauth_problem');
    assert.deepEqual([again.status, problem], [401, 'token_revoked']);
  });

  it('accepts both secrets of a rotation with overlap on every instance, and only the new one once it is ended', async () => {
    const registered = await provider.clients.register({ name: 'Rolling fleet' });
    const old = { key: registered.key, secret: registered.secret };
    const status = async (instance: Instance, signer: ClientCredentials) =>
      (await createSigningFetch({ client: signer, fetch: instance.fetch })(`${PUBLIC}/api/me`))
        .status;
    for (const instance of [first, second]) assert.equal(await status(instance, old), 200);
    const rotated = await deployment.cli([
      'clients',
      'rotate',
      old.key,
      '--overlap',
      '1h',
      '--json',
    ]);
    assert.equal(rotated.code, 0, rotated.stderr);
    const fresh = {
      key: old.key,
      secret: (JSON.parse(rotated.stdout) as { secret: string }).secret,
    };
    for (const instance of [first, second]) {
      // The new secret once the channel has dropped the cached client; the old one all along.
      const start = performance.now();
      while ((await status(instance, fresh)) !== 200) {
        if (performance.now() - start > HANG_MS) throw new Error('The new secret never worked.');
      }
      assert.equal(await status(instance, old), 200);
    }
    const ended = await deployment.cli(['clients', 'end-overlap', old.key]);
    assert.equal(ended.code, 0, ended.stderr);
    for (const instance of [first, second]) {
      assert.equal(await status(instance, old), 401);
      assert.equal(await status(instance, fresh), 200);
    }
  });

  it('lets exactly one of two renewals (session extension) sent to two instances at once win', async () => {
    const registered = await provider.clients.register({
      name: 'Session App',
      callbacks: ['https://printer.example/callback'],
      sessionExtension: true,
    });
    const sessionClient = { key: registered.key, secret: registered.secret };
    const { temporary, verifier } = await authorizeOn(first, first, sessionClient, username);
    const exchanged = await requestTokenCredentials(`${PUBLIC}/oauth/access_token`, {
      client: sessionClient,
      temporary,
      verifier,
      fetch: first.fetch,
    });
    const fields = new URLSearchParams(await exchanged.text());
    const token = { token: fields.get('oauth_token')!, secret: fields.get('oauth_token_secret')! };
    const handle = fields.get('oauth_session_handle');
    assert.ok(handle !== null);
    for (const instance of [first, second])
      assert.equal((await me(instance, sessionClient, token)).status, 200); // cached on both
    const renew = (instance: Instance) => {
      const signed = signRequest({
        method: 'POST',
        url: `${PUBLIC}/oauth/access_token`,
        client: sessionClient,
        token,
        protocolParameters: { oauth_session_handle: handle },
      });
      return instance.fetch(signed.url, { method: 'POST', headers: signed.headers });
    };
    const answers = await Promise.all([renew(first), renew(second)]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 401]);
    const winner = new URLSearchParams(
      await answers.find((answer) => answer.status === 200)!.text(),
    );
    assert.equal(winner.get('oauth_session_handle'), handle);
    const renewed = {
      token: winner.get('oauth_token')!,
      secret: winner.get('oauth_token_secret')!,
    };
    // The old token is gone on both instances (the renewal announced it); the new one works.
    for (const instance of [first, second]) {
      assert.equal((await me(instance, sessionClient, renewed)).status, 200);
      // Asked until refused: the announcement reaches the other instance's cache by Redis.
      for (;;) {
        const old = await me(instance, sessionClient, token);
        if (old.status === 401) {
          assert.equal(old.problem, 'token_rejected');
          break;
        }
        assert.equal(old.status, 200, old.text);
      }
    }
  });

  describe('kill -9 of one instance', () => {
    let pending: { temporary: TokenCredentials; verifier: string };
    let issued: TokenCredentials;
    let usedNonce: ReturnType<typeof signRequest>;
    before(async () => {
      const victim = await deployment.start();
      const done = await authorizeOn(victim, victim, client, username);
      issued = await exchangeOn(victim, client, done.temporary, done.verifier);
      const half = await authorizeOn(victim, victim, client, username);
      pending = { temporary: half.temporary, verifier: half.verifier };
      usedNonce = signRequest({ method: 'GET', url: `${PUBLIC}/api/me`, client, token: issued });
      assert.equal((await victim.fetch(usedNonce.url, { headers: usedNonce.headers })).status, 200);
      await victim.kill9();
    });

    it('leaves the other instance able to finish a flow the killed one authorized', async () => {
      const token = await exchangeOn(second, client, pending.temporary, pending.verifier);
      assert.equal((await me(second, client, token)).status, 200);
    });

    it('leaves the tokens the killed one issued working on the other', async () => {
      assert.equal((await me(second, client, issued)).status, 200);
    });

    it('leaves a nonce the killed one accepted refused on the other', async () => {
      const again = await second.fetch(usedNonce.url, { headers: usedNonce.headers });
      assert.equal(new URLSearchParams(await again.text()).get('oauth_problem'), 'nonce_used');
    });
  });
});
