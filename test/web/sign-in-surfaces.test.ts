// The per-address sign-in cap on every sign-in surface, over real sockets: password posts,
// login challenges started by a signed-out owner, and returns from the login app or the
// OpenID Connect provider all count against one budget per address. On SQLite one server
// counts; on PostgreSQL + Redis two instances share the count, so attempts split across them
// hit the cap. Past the cap nothing is looked up or stored, and the refusals leave one audit
// row per window. Each test speaks from its own loopback address (127.0.0.x are all this
// machine on Linux), so the counts of one test never reach another.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  processTemporaryCredentialsResponse,
  requestTemporaryCredentials,
} from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { IdentityOptions, Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { AuditEvent, Store } from '../../src/store/index.ts';
import { webPlugin } from '../../src/web/index.ts';
import { postgresRedisSkip, postgresRedisStore } from '../stores/support-services.ts';
import { csrfToken, PASSWORD } from './support.ts';

const CAP = 6;
const POLICY = { signIn: { perAddress: CAP, perAccountAddress: 100, windowSeconds: 600 } };
const SESSION_SECRET = 'one session secret for every instance of the test';
const ADMIN_TOKEN = 'an-admin-token-of-at-least-thirty-two-characters';
const DELEGATED: IdentityOptions = {
  source: 'delegated',
  loginUrl: 'https://login.example/login',
  adminToken: ADMIN_TOKEN,
};
// Never contacted: a callback is refused on its state before the provider would be asked.
const OIDC: IdentityOptions = {
  source: 'oidc',
  issuer: 'http://127.0.0.1:9/issuer',
  clientId: 'latchkey',
};

interface Instance {
  readonly app: FastifyInstance;
  readonly provider: Provider;
  readonly store: Store;
  readonly base: string;
}

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly retryAfter: string | undefined;
  readonly cookies: string[];
  readonly body: string;
}

/** One request from `address`, over a real socket. */
function send(
  base: string,
  address: string,
  method: 'GET' | 'POST',
  path: string,
  options: { readonly body?: string; readonly cookie?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      new URL(path, base),
      {
        method,
        localAddress: address,
        headers: {
          ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
          ...(options.body === undefined
            ? {}
            : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            location: response.headers.location,
            retryAfter: response.headers['retry-after'] as string | undefined,
            cookies: (response.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]!),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** A password post from `address` to `instance`, with that instance's form and cookies. */
async function signIn(instance: Instance, address: string, username: string, password: string) {
  const page = await send(instance.base, address, 'GET', '/signin?next=%2F');
  const body = new URLSearchParams({
    username,
    password,
    next: '/',
    _csrf: csrfToken(page.body),
  }).toString();
  return send(instance.base, address, 'POST', '/signin', {
    body,
    cookie: page.cookies.join('; '),
  });
}

async function startInstance(store: Store, identity: IdentityOptions): Promise<Instance> {
  const provider = createProvider({ store, policy: POLICY });
  const app = await buildApp({
    provider,
    maintenance: false,
    pages: (scope, context) =>
      webPlugin(scope, { ...context, identity, sessionSecret: SESSION_SECRET }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    provider,
    store,
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
  };
}

/**
 * Resolves once the instances' audit trails have stored `count` events from `address` (each
 * stored event is announced as `audit`), with the events announced by then.
 */
function audited(
  instances: readonly Instance[],
  address: string,
  count: number,
): { readonly done: Promise<void>; readonly events: Omit<AuditEvent, 'id'>[] } {
  const events: Omit<AuditEvent, 'id'>[] = [];
  const providers = [...new Set(instances.map((instance) => instance.provider))];
  const done = new Promise<void>((resolve) => {
    const listener = (entry: Omit<AuditEvent, 'id'>) => {
      if (entry.address !== address) return;
      events.push(entry);
      if (events.length < count) return;
      for (const provider of providers) provider.events.off('audit', listener);
      resolve();
    };
    for (const provider of providers) provider.events.on('audit', listener);
  });
  return { done, events };
}

async function storedFrom(store: Store, address: string): Promise<string[]> {
  const events = await store.audit.list({ limit: 10_000 });
  return events
    .filter((event) => event.address === address)
    .map((event) => event.event)
    .sort();
}

/** Two instances on one shared store, or one server twice on an embedded store. */
function describeInstances(
  name: string,
  identity: IdentityOptions,
  openStore: () => Promise<Store>,
  shared: boolean,
  tests: (pair: () => readonly [Instance, Instance]) => void,
): void {
  describe(name, () => {
    let first: Instance;
    let second: Instance;
    before(async () => {
      first = await startInstance(await openStore(), identity);
      second = shared ? await startInstance(await openStore(), identity) : first;
    });
    after(async () => {
      for (const instance of new Set([first, second])) {
        await instance.app.close();
        await instance.store.close();
      }
    });
    tests(() => [first, second]);
  });
}

function describeSignInCap(label: string, openStore: () => Promise<Store>, shared: boolean) {
  describe(`The per-address sign-in cap (${label})`, () => {
    describeInstances('local accounts', { source: 'local' }, openStore, shared, (pair) => {
      it('refuses the password post past the cap, whichever instance counted the others', async () => {
        const [one, two] = pair();
        await one.provider.owners.create('carol', PASSWORD);
        const address = '127.0.0.11';
        for (let i = 0; i < CAP; i++) {
          const answer = await signIn(i % 2 === 0 ? one : two, address, 'carol', `guess ${i}`);
          assert.equal(answer.status, 422, `wrong password ${i + 1}`);
        }
        const paused = await signIn(two, address, 'carol', PASSWORD);
        assert.equal(paused.status, 429, 'the post past the cap is refused, even the right one');
        assert.ok(Number(paused.retryAfter) > 0);
        assert.match(paused.body, /too many sign-in attempts from your network/i);
        assert.equal((await signIn(one, address, 'carol', PASSWORD)).status, 429);
        assert.equal((await signIn(two, '127.0.0.12', 'carol', PASSWORD)).status, 303);
      });
    });

    describeInstances('delegated sign-in', DELEGATED, openStore, shared, (pair) => {
      it('answers junk returns from the login app with 429 past the cap, auditing the first refusal only', async () => {
        const [one, two] = pair();
        const address = '127.0.0.21';
        const trail = audited([one, two], address, CAP + 1);
        const statuses: number[] = [];
        let retryAfter: string | undefined;
        for (let i = 0; i < 3 * CAP; i++) {
          const answer = await send(
            (i % 2 === 0 ? one : two).base,
            address,
            'GET',
            `/signin/delegated/callback?login_verifier=junk-${i}`,
          );
          statuses.push(answer.status);
          retryAfter ??= answer.retryAfter;
        }
        assert.deepEqual(statuses, [
          ...Array<number>(CAP).fill(400),
          ...Array<number>(2 * CAP).fill(429),
        ]);
        assert.ok(Number(retryAfter) > 0 && Number(retryAfter) <= 600);
        await trail.done;
        // The refusals under the cap, each audited, and one row for all those past it.
        assert.deepEqual(await storedFrom(one.store, address), [
          ...Array<string>(CAP).fill('owner.sign-in-refused'),
          'owner.sign-in-throttled',
        ]);
        const throttled = trail.events.find((event) => event.event === 'owner.sign-in-throttled');
        assert.deepEqual(JSON.parse(throttled?.detail ?? '{}'), {
          limit: CAP,
          retryAfterSeconds: 600,
        });
      });

      it('starts no login challenge for a signed-out owner past the cap', async () => {
        const [one, two] = pair();
        const client = await one.provider.clients.register({ name: 'Printer' });
        const temporary = await processTemporaryCredentialsResponse(
          await requestTemporaryCredentials(`${one.base}/oauth/request_token`, {
            client: { key: client.key, secret: client.secret },
            callback: 'oob',
          }),
        );
        const path = `/oauth/authorize?oauth_token=${encodeURIComponent(temporary.token)}`;
        const address = '127.0.0.22';
        const before = await one.store.loginChallenges.purgeExpired(Number.MAX_SAFE_INTEGER);
        assert.equal(before, 0, 'no challenge from an earlier test');
        const statuses: number[] = [];
        for (let i = 0; i < 2 * CAP; i++) {
          const answer = await send((i % 2 === 0 ? two : one).base, address, 'GET', path);
          statuses.push(answer.status);
          if (answer.status === 303) assert.match(String(answer.location), /login_challenge=/);
        }
        assert.deepEqual(statuses, [
          ...Array<number>(CAP).fill(303),
          ...Array<number>(CAP).fill(429),
        ]);
        // Every challenge stored (each one is forgotten here, counted as it goes).
        const stored = await one.store.loginChallenges.purgeExpired(Number.MAX_SAFE_INTEGER);
        assert.equal(stored, CAP, 'one login challenge per visit under the cap, none past it');
        // Another address is not held back.
        assert.equal((await send(two.base, '127.0.0.23', 'GET', path)).status, 303);
      });

      it('counts every surface against one budget: challenges started and returns, on both instances', async () => {
        const [one, two] = pair();
        const address = '127.0.0.24';
        for (let i = 0; i < CAP / 2; i++) {
          const started = await send(one.base, address, 'GET', '/signin?next=%2F');
          assert.equal(started.status, 303);
          const back = await send(two.base, address, 'GET', '/signin/delegated/callback');
          assert.equal(back.status, 400);
        }
        assert.equal((await send(two.base, address, 'GET', '/signin?next=%2F')).status, 429);
        const junk = await send(one.base, address, 'GET', '/signin/delegated/callback?x=1');
        assert.equal(junk.status, 429);
        // Not a sign-in surface: the landing page still answers.
        assert.equal((await send(one.base, address, 'GET', '/')).status, 200);
      });
    });

    describeInstances('OpenID Connect', OIDC, openStore, shared, (pair) => {
      it('answers junk callbacks with 429 past the cap, auditing the first refusal only', async () => {
        const [one, two] = pair();
        const address = '127.0.0.31';
        const trail = audited([one, two], address, CAP + 1);
        const statuses: number[] = [];
        for (let i = 0; i < 2 * CAP; i++) {
          const answer = await send(
            (i % 2 === 0 ? two : one).base,
            address,
            'GET',
            `/signin/oidc/callback?code=junk&state=junk-${i}`,
          );
          statuses.push(answer.status);
        }
        assert.deepEqual(statuses, [
          ...Array<number>(CAP).fill(400),
          ...Array<number>(CAP).fill(429),
        ]);
        await trail.done;
        assert.deepEqual(await storedFrom(two.store, address), [
          ...Array<string>(CAP).fill('owner.sign-in-refused'),
          'owner.sign-in-throttled',
        ]);
      });
    });
  });
}

const directory = mkdtempSync(join(tmpdir(), 'latchkey-sign-in-cap-'));
after(() => rmSync(directory, { recursive: true, force: true }));
let databases = 0;
describeSignInCap(
  'SQLite, one server',
  async () => createSqliteStore({ path: join(directory, `latchkey-${++databases}.db`) }),
  false,
);

const skip = await postgresRedisSkip();
describe('On PostgreSQL + Redis', { skip }, () => {
  describeSignInCap('two instances, counted in Redis', postgresRedisStore(), true);
});
