// The developer portal's rotation forms attacked as the other pages' forms are: Rotate secret
// with an overlap (`POST /developer/apps/:key/secret`) and End the overlap now
// (`POST /developer/apps/:key/overlaps/end`): replayed forms, a flood from one address, an
// oversized and a slow body, and a fast-check hunt for a 500. The client SDK signs /api/me
// in-process to see which secrets still work.
import assert from 'node:assert/strict';
import { connect as connectSocket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createSigningFetch } from '../../src/client/index.ts';
import { BASE, injectFetch, startWeb } from './support.ts';
import type { Browser, WebWorld } from './support.ts';

describe('Developer portal: rotation forms under attack', () => {
  let world: WebWorld;
  let developerId: string;
  before(async () => {
    world = await startWeb();
    developerId = (await world.owner('dora')).id;
    await world.owner('mallory');
  });
  after(() => world.close());

  async function signedIn(username = 'dora'): Promise<Browser> {
    const browser = world.browser();
    await browser.signIn(username);
    return browser;
  }

  /** An app of dora's, rotated with a 24-hour overlap: its old and new secret. */
  async function rotatedApp(name: string) {
    const app = await world.client({ name, developerId });
    const rotated = await world.provider.clients.rotateSecret(app.key, { overlapSeconds: 86_400 });
    return { key: app.key, old: app.secret, fresh: rotated.secret };
  }

  const me = async (key: string, secret: string) =>
    (
      await createSigningFetch({ client: { key, secret }, fetch: injectFetch(world.app) })(
        `${BASE}/api/me`,
      )
    ).status;

  const paths = (key: string) => ({
    app: `/developer/apps/${key}`,
    rotate: `/developer/apps/${key}/secret`,
    end: `/developer/apps/${key}/overlaps/end`,
  });

  it('takes a replayed End the overlap now as done: the old secret stays refused, the new one works', async () => {
    const browser = await signedIn();
    const app = await rotatedApp('Replayed end');
    const page = await browser.get(paths(app.key).app);
    for (let i = 0; i < 2; i += 1) {
      assert.equal((await browser.post(paths(app.key).end, {}, page)).statusCode, 303);
    }
    assert.equal(await me(app.key, app.old), 401);
    assert.equal(await me(app.key, app.fresh), 200);
    const cut = await world.provider.audit.list({ clientKey: app.key });
    assert.equal(cut.filter((event) => event.event === 'client.overlap-cut').length, 1);
  });

  it('answers a flood of forms from one address with 303, 400, 403 or 404, never more, and keeps serving', async () => {
    const browser = await signedIn();
    const app = await rotatedApp('Flooded');
    const page = await browser.get(paths(app.key).app);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) => {
        const { rotate, end } = paths(index % 5 === 0 ? `guess-${index}` : app.key);
        if (index % 4 === 0) return browser.post(end, { _csrf: 'forged' }, page);
        if (index % 4 === 1) return browser.post(rotate, { overlap: '99' }, page);
        if (index % 4 === 2) return browser.post(end, {}, page);
        return browser.get(end);
      }),
    );
    const statuses = new Set(answers.map((answer) => answer.statusCode));
    for (const status of statuses) assert.ok([303, 400, 403, 404].includes(status), `${status}`);
    assert.equal(await me(app.key, app.fresh), 200);
    assert.equal((await browser.get(paths(app.key).app)).statusCode, 200);
  });

  it('refuses an oversized form with 413 on both, nothing changed', async () => {
    const browser = await signedIn();
    const app = await rotatedApp('Oversized');
    const page = await browser.get(paths(app.key).app);
    for (const path of [paths(app.key).rotate, paths(app.key).end]) {
      const big = await browser.post(path, { overlap: '3600', padding: 'x'.repeat(200_000) }, page);
      assert.equal(big.statusCode, 413, path);
    }
    assert.equal(await me(app.key, app.old), 200);
    assert.equal(await me(app.key, app.fresh), 200);
  });

  it('leaves another developer’s app as it was, whatever they post', async () => {
    const app = await rotatedApp('Not mallory’s');
    const mallory = await signedIn('mallory');
    const page = await mallory.get('/developer/apps/new');
    for (const [path, fields] of [
      [paths(app.key).end, {}],
      [paths(app.key).rotate, { overlap: '0' }],
    ] as const) {
      assert.equal((await mallory.post(path, fields, page)).statusCode, 404, path);
    }
    assert.equal(await me(app.key, app.old), 200);
    assert.equal(await me(app.key, app.fresh), 200);
  });

  it('never answers 500, whatever the form', async () => {
    const browser = await signedIn();
    const app = await rotatedApp('Fuzzed');
    const page = await browser.get(paths(app.key).app);
    const value = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constant(''));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(paths(app.key).rotate, paths(app.key).end),
        fc.dictionary(fc.constantFrom('overlap', '_csrf', 'x'), value),
        async (path, fields) => {
          const answer = await browser.post(path, fields, page);
          assert.ok(answer.statusCode < 500, `${answer.statusCode} ${answer.body.slice(0, 200)}`);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('Developer portal’s rotation forms over a real socket', () => {
  let world: WebWorld;
  let port: number;
  before(async () => {
    world = await startWeb();
    await world.app.listen({ host: '127.0.0.1', port: 0 });
    port = (world.app.server.address() as AddressInfo).port;
  });
  after(() => world.close());

  it('keeps answering while a form is sent slowly and abandoned', async () => {
    for (const path of ['/developer/apps/x/secret', '/developer/apps/x/overlaps/end']) {
      const socket = connectSocket(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\noverlap=',
      );
      assert.equal((await fetch(`http://127.0.0.1:${port}/`)).status, 200);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.destroy();
      await closed;
    }
    assert.equal((await fetch(`http://127.0.0.1:${port}/`)).status, 200);
  });
});
