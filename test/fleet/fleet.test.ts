// The fleet of docs/deployment.md under signed load: three `latchkey serve --trust-proxy`
// processes on PostgreSQL + Redis behind Debian's nginx running the docs' own nginx block over
// TLS. A replay through the balancer is refused; a revocation reaches every instance within a
// second; a rolling restart (SIGTERM, wait for the exit, start again, next) fails no request;
// a kill -9 (last: the instance stays down) fails no more than were in flight, each told
// nonce_used.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSigningFetch, signRequest } from '../../src/client/index.ts';
import type { SigningFetch } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { connectRedis, openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { postgresUrl, redisUrl, servicesSkip, until } from '../ops/support.ts';
import { deleteKeys, dropSchema, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';
import {
  directFetch,
  docsNginxBlock,
  fleetNginxBlock,
  fleetProblem,
  freePort,
  PUBLIC_URL,
  startInstance,
  startNginx,
  throwawayTls,
} from './support.ts';
import type { Instance, Nginx } from './support.ts';

const skip = (await servicesSkip()) || requirement('nginx and openssl', await fleetProblem());

/** Requests in flight at any moment: the load's workers, each waiting for its answer. */
const CONCURRENCY = 8;
const METRICS_TOKEN = randomBytes(24).toString('base64url');
const INSTANCES = 3;

interface Failure {
  readonly status: number;
  readonly body: string;
}

/** Signed requests sent by CONCURRENCY workers, each sending its next when answered. */
function startLoad(send: (worker: number) => Promise<Response>) {
  let stopped = false;
  let completed = 0;
  const failures: Failure[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const worker = async (index: number) => {
    while (!stopped) {
      try {
        const response = await send(index);
        const body = await response.text();
        if (response.status !== 200) failures.push({ status: response.status, body });
      } catch (error) {
        failures.push({ status: 0, body: String((error as Error).cause ?? error) });
      }
      completed += 1;
      for (const waiter of waiters.filter((w) => completed >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, (_, index) => worker(index));
  return {
    /** Resolves once `more` requests beyond those answered so far are answered. */
    more(more: number): Promise<void> {
      const count = completed + more;
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async stop(): Promise<{ completed: number; failures: Failure[] }> {
      stopped = true;
      await Promise.all(workers);
      return { completed, failures };
    },
  };
}

describe('a fleet behind nginx', { skip }, () => {
  const schema = runName('schema');
  const prefix = runName('prefix');
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-fleet-'));
  const env = {
    LATCHKEY_DATABASE: postgresUrl,
    LATCHKEY_POSTGRES_SCHEMA: schema,
    LATCHKEY_REDIS: redisUrl,
    LATCHKEY_REDIS_PREFIX: prefix,
    LATCHKEY_SESSION_SECRET: randomBytes(32).toString('base64url'),
    LATCHKEY_PUBLIC_URL: PUBLIC_URL,
    LATCHKEY_LOG_LEVEL: 'silent',
    LATCHKEY_METRICS_TOKEN: METRICS_TOKEN,
  };
  const ports: number[] = [];
  const instances: Instance[] = [];
  let nginx: (Nginx & { errorLog(): string }) | undefined;
  let store: Store;
  let provider: Provider;
  let client: { key: string; secret: string };
  let token: { token: string; secret: string };
  /** Signed requests through nginx: with the token, and the client's alone. */
  let api: SigningFetch;
  let bare: SigningFetch;

  /** Half the workers read /api/me (GET), half ask for temporary credentials (POST). */
  const send = (worker: number) =>
    worker % 2 === 0
      ? api(`${PUBLIC_URL}/api/me`)
      : bare(`${PUBLIC_URL}/oauth/request_token`, {
          method: 'POST',
          protocolParameters: { oauth_callback: 'oob' },
        });

  /** The instance on ports[index], started and answering /readyz 200. */
  async function start(index: number): Promise<void> {
    instances[index] = await startInstance(env, ports[index]!);
    await until(10_000, async () => {
      const ready = await fetch(`http://127.0.0.1:${ports[index]}/readyz`).catch(() => undefined);
      return ready?.status === 200 ? true : undefined;
    });
  }

  /** Requests the instance on `port` has answered on the load's endpoints (its /metrics). */
  async function served(port: number): Promise<number> {
    const answer = await fetch(`http://127.0.0.1:${port}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const text = await answer.text();
    let total = 0;
    for (const match of text.matchAll(
      /^latchkey_http_requests_total\{[^}]*endpoint="\/(?:api\/me|oauth\/request_token)"[^}]*\} (\d+)/gm,
    ))
      total += Number(match[1]);
    return total;
  }

  /**
   * Resolves once nginx sends the instance on ports[index] traffic again. An instance that
   * refused connections while it restarted is marked failed for fail_timeout (max_fails):
   * stopping the next one before nginx uses this one again would leave too few live
   * (docs/deployment.md, "Restarts that drop nothing", step by step).
   */
  async function inRotation(index: number): Promise<void> {
    await until(30_000, async () => ((await served(ports[index]!)) > 0 ? true : undefined));
  }

  before(async () => {
    store = await openStore(postgresUrl, { redis: redisUrl, schema, redisPrefix: prefix });
    provider = createProvider({ store });
    const registered = await provider.clients.register({ name: 'Fleet load' });
    client = { key: registered.key, secret: registered.secret };
    const owner = await provider.owners.create('fleet-owner', 'a long password');
    const issued = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    token = { token: issued.token, secret: issued.secret };
    for (let index = 0; index < INSTANCES; index++) ports.push(await freePort());
    await Promise.all(ports.map((_, index) => start(index)));
    const tls = await throwawayTls(dir);
    const block = fleetNginxBlock(docsNginxBlock(), ports, await freePort(), tls);
    nginx = await startNginx(dir, block, Number(/listen 127\.0\.0\.1:(\d+)/.exec(block)![1]), tls);
    api = createSigningFetch({ client, token, fetch: nginx.fetch });
    bare = createSigningFetch({ client, fetch: nginx.fetch });
  });

  after(async () => {
    await nginx?.stop();
    for (const instance of instances) instance?.child.kill('SIGKILL');
    await Promise.all(instances.map((instance) => instance?.exited));
    await store?.close();
    await dropSchema(schema).catch(() => undefined);
    const redis = await connectRedis(redisUrl);
    await deleteKeys(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the nginx block of docs/deployment.md, with only addresses and files replaced', () => {
    const docs = docsNginxBlock();
    const ours = fleetNginxBlock(docs, [1, 2, 3], 4, {
      ca: '',
      certFile: '/etc/nginx/tls/fullchain.pem',
      keyFile: '/etc/nginx/tls/key.pem',
    });
    const kept = (block: string) =>
      block
        .split('\n')
        .filter((line) => !/^\s*(server \S+:\d+|listen )/.test(line))
        .join('\n');
    assert.equal(kept(ours), kept(docs));
    assert.match(docs, /proxy_next_upstream error timeout non_idempotent;/);
  });

  it('answers signed requests through nginx over TLS', async () => {
    const me = await api(`${PUBLIC_URL}/api/me`);
    assert.equal(me.status, 200, await me.clone().text());
    assert.equal(((await me.json()) as { client: { key: string } }).client.key, client.key);
    const temporary = await send(1);
    assert.equal(temporary.status, 200, await temporary.text());
  });

  it('refuses a replay through the balancer', async () => {
    const signed = signRequest({ method: 'GET', url: `${PUBLIC_URL}/api/me`, client, token });
    const first = await nginx!.fetch(signed.url, { headers: signed.headers });
    const again = await nginx!.fetch(signed.url, { headers: signed.headers });
    assert.equal(first.status, 200, await first.text());
    assert.equal(again.status, 401);
    assert.match(await again.text(), /nonce_used/);
  });

  it('refuses a revoked token on every instance within a second', async () => {
    const owner = await provider.owners.create('revoking-owner', 'a long password');
    const issued = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    const on = (port: number) =>
      createSigningFetch({
        client,
        token: { token: issued.token, secret: issued.secret },
        fetch: directFetch(port),
      })(`${PUBLIC_URL}/api/me`);
    // Each instance has read (and cached) the token before it is revoked.
    for (const port of ports) assert.equal((await on(port)).status, 200);
    assert.equal(await provider.tokens.revoke(issued.token), true);
    const answers = await Promise.all(
      ports.map((port) =>
        until(1000, async () => {
          const answer = await on(port);
          return answer.status === 200
            ? undefined
            : { status: answer.status, body: await answer.text() };
        }),
      ),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 401);
      assert.match(answer.body, /token_revoked/);
    }
  });
  it('drops no request through a rolling restart', async () => {
    const load = startLoad(send);
    await load.more(50);
    for (let index = 0; index < INSTANCES; index++) {
      const instance = instances[index]!;
      instance.child.kill('SIGTERM');
      const [code, signal] = await instance.exited;
      assert.deepEqual([code, signal], [0, null], instance.output());
      await start(index);
      await inRotation(index);
    }
    const { completed, failures } = await load.stop();
    assert.deepEqual(failures, []);
    assert.ok(completed > 100, `${completed} requests`);
  });

  it('fails no more requests than were in flight when an instance is killed, each nonce_used', async () => {
    const load = startLoad(send);
    await load.more(50);
    for (let index = 0; index < INSTANCES; index++) await inRotation(index);
    const victim = instances[0]!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    await load.more(100);
    const { failures } = await load.stop();
    assert.ok(failures.length <= CONCURRENCY, JSON.stringify(failures));
    for (const failure of failures) {
      assert.equal(failure.status, 401, failure.body);
      assert.match(failure.body, /nonce_used/);
    }
  });
});
