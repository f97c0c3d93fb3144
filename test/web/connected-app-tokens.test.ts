// Connected apps, one token at a time (RFC 5849 §2.3 "the owner should be able to revoke
// issued token credentials"): each token of an app listed with the device it was first used
// from, and Revoke for one token behind a confirmation, leaving the app's other tokens
// working. Then the form attacked: a forged CSRF token, another owner's token id, a replay,
// a flood from one address, an oversized and a slow body, and a fast-check hunt for a 500.
import assert from 'node:assert/strict';
import { connect as connectSocket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BASE, connect, csrfToken, startWeb, text } from './support.ts';
import type { Browser, WebWorld } from './support.ts';

const PHONE = 'Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0';
const LAPTOP = 'curl/8.5.0';
const REVOKE = '/account/apps/tokens/revoke';

/** The token ids Connected apps links to, in page order. */
function tokenIds(html: string): string[] {
  return [...html.matchAll(/href="\/account\/apps\/tokens\/revoke\?token_id=([^"]+)"/g)].map(
    (match) => decodeURIComponent(match[1]!),
  );
}

/** The actions of the page's forms that post. */
function formActions(html: string): string[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!);
}

/** An owner who connected one app from two devices, each token used once from its device. */
async function twoDevices(world: WebWorld, browser: Browser, name: string) {
  const client = await world.client({ name });
  const phone = await connect(world, browser, client);
  const laptop = await connect(world, browser, client);
  const use = (device: typeof phone, agent: string) =>
    device.api(`${BASE}/api/me`, { headers: { 'user-agent': agent } });
  assert.equal((await use(phone, PHONE)).status, 200);
  assert.equal((await use(laptop, LAPTOP)).status, 200);
  return { client, phone, laptop, use };
}

describe('Connected apps: one token at a time (RFC 5849 §2.3)', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
    await world.owner('bob');
  });
  after(() => world.close());

  async function signedIn(username = 'alice') {
    const browser = world.browser();
    await browser.signIn(username);
    return browser;
  }

  it('lists each token of an app with the device it was first used from, when issued and last used', async () => {
    const browser = await signedIn();
    await twoDevices(world, browser, 'Two Devices');
    const page = await browser.get('/account/apps');
    const words = text(page.body);
    assert.match(words, /Two Devices .*Tokens, by the device each was first used from/);
    assert.match(
      words,
      /Device Firefox on Android Issued \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC Last used \d{1,2} \w{3} \d{4}/,
    );
    assert.match(words, /Device curl\/8\.5 Issued /);
    assert.ok(page.body.includes(`title="${PHONE}"`), 'the whole hint on hover');
    assert.equal(tokenIds(page.body).length, 2);
    assert.ok(!formActions(page.body).includes(REVOKE), 'a link to a confirmation, no form');
  });

  it('a later request from another device does not change the device a token was first used from', async () => {
    const browser = await signedIn();
    const { laptop, use } = await twoDevices(world, browser, 'First Device Kept');
    assert.equal((await use(laptop, 'Wget/1.21.4')).status, 200);
    const words = text((await browser.get('/account/apps')).body);
    assert.match(words, /First Device Kept .*Device curl\/8\.5/);
    assert.doesNotMatch(words, /Wget/);
  });

  it('Revoke this token asks first, then ends that token alone: 401 token_revoked for it, the other keeps working', async () => {
    const browser = await signedIn();
    const { phone, laptop, use } = await twoDevices(world, browser, 'Revoke One');
    const list = await browser.get('/account/apps');
    const section = list.body.slice(list.body.indexOf('Revoke One'));
    const [phoneId] = tokenIds(section);
    const confirm = await browser.get(`${REVOKE}?token_id=${encodeURIComponent(phoneId!)}`);
    assert.equal(confirm.statusCode, 200);
    assert.match(
      text(confirm.body),
      /Revoke Revoke One on Firefox on Android\? .*other tokens keep working/,
    );
    assert.ok(formActions(confirm.body).includes(REVOKE));
    assert.equal((await use(phone, PHONE)).status, 200, 'nothing revoked before the form');

    const reply = await browser.post(REVOKE, { token_id: phoneId! }, confirm);
    assert.equal(reply.statusCode, 303);
    const after = text((await browser.get(String(reply.headers.location))).body);
    assert.match(after, /One token of Revoke One was revoked now/);
    const refused = await use(phone, PHONE);
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /oauth_problem=token_revoked/);
    assert.equal((await use(laptop, LAPTOP)).status, 200);
    const stillListed = (await browser.get('/account/apps')).body;
    assert.deepEqual(tokenIds(stillListed.slice(stillListed.indexOf('Revoke One'))).slice(0, 1), [
      tokenIds(section)[1],
    ]);
  });

  it('answers an unknown token id with 404 on the confirmation and on the form', async () => {
    const browser = await signedIn();
    const page = await browser.get('/account/apps');
    assert.equal((await browser.get(`${REVOKE}?token_id=nope`)).statusCode, 404);
    assert.equal((await browser.get(REVOKE)).statusCode, 404);
    assert.equal((await browser.post(REVOKE, { token_id: 'nope' }, page)).statusCode, 404);
  });

  it('refuses another owner’s token id exactly as an unknown one, and leaves that token working', async () => {
    const bob = await signedIn('bob');
    const { laptop, use } = await twoDevices(world, bob, 'Bob Only');
    const bobsPage = (await bob.get('/account/apps')).body;
    const bobsIds = tokenIds(bobsPage.slice(bobsPage.indexOf('Bob Only')));
    const alice = await signedIn('alice');
    const page = await alice.get('/account/apps');
    const unknown = await alice.get(`${REVOKE}?token_id=${'A'.repeat(22)}`);
    for (const id of bobsIds) {
      const confirm = await alice.get(`${REVOKE}?token_id=${encodeURIComponent(id)}`);
      assert.equal(confirm.statusCode, 404);
      assert.equal(text(confirm.body), text(unknown.body), 'nothing tells it from an unknown id');
      assert.doesNotMatch(confirm.body, /Bob Only|curl/);
      const posted = await alice.post(REVOKE, { token_id: id }, page);
      assert.equal(posted.statusCode, 404);
      assert.doesNotMatch(posted.body, /Bob Only|curl/);
    }
    assert.equal((await use(laptop, LAPTOP)).status, 200);
  });

  it('refuses the form without a valid CSRF token, or with another session’s, and the token stays', async () => {
    const browser = await signedIn();
    const { phone, use } = await twoDevices(world, browser, 'Forged Form');
    const page = await browser.get('/account/apps');
    const [id] = tokenIds(page.body.slice(page.body.indexOf('Forged Form')));
    const forged = await browser.post(REVOKE, { token_id: id!, _csrf: 'forged' });
    assert.equal(forged.statusCode, 403);
    const missing = await browser.post(REVOKE, { token_id: id! });
    assert.equal(missing.statusCode, 403);
    // A token lifted from another session (bob's page) is no good in alice's.
    const other = await (await signedIn('bob')).get('/account/apps');
    const replayed = await browser.post(REVOKE, { token_id: id!, _csrf: csrfToken(other.body) });
    assert.equal(replayed.statusCode, 403);
    assert.equal((await use(phone, PHONE)).status, 200);
  });

  it('takes a replayed form as done: the token stays revoked, the other keeps working', async () => {
    const browser = await signedIn();
    const { laptop, use } = await twoDevices(world, browser, 'Replayed');
    const page = await browser.get('/account/apps');
    const [id] = tokenIds(page.body.slice(page.body.indexOf('Replayed')));
    assert.equal((await browser.post(REVOKE, { token_id: id! }, page)).statusCode, 303);
    assert.equal((await browser.post(REVOKE, { token_id: id! }, page)).statusCode, 303);
    assert.equal((await use(laptop, LAPTOP)).status, 200);
  });

  it('answers a flood of forms from one address with 303, 403 or 404, never more, and keeps serving', async () => {
    const browser = await signedIn();
    const { laptop, use } = await twoDevices(world, browser, 'Flooded');
    const page = await browser.get('/account/apps');
    const ids = tokenIds(page.body.slice(page.body.indexOf('Flooded')));
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        browser.post(
          REVOKE,
          index % 3 === 0
            ? { token_id: `guess-${index}` }
            : index % 3 === 1
              ? { token_id: `guess-${index}`, _csrf: 'forged' }
              : { token_id: ids[0]! },
          page,
        ),
      ),
    );
    assert.deepEqual(
      [...new Set(answers.map((answer) => answer.statusCode))].sort(),
      [303, 403, 404],
    );
    assert.equal((await use(laptop, LAPTOP)).status, 200);
    assert.equal((await browser.get('/account/apps')).statusCode, 200);
  });

  it('refuses an oversized form with 413, nothing changed', async () => {
    const browser = await signedIn();
    const { phone, use } = await twoDevices(world, browser, 'Oversized');
    const page = await browser.get('/account/apps');
    const [id] = tokenIds(page.body.slice(page.body.indexOf('Oversized')));
    const big = await browser.post(REVOKE, { token_id: id!, padding: 'x'.repeat(200_000) }, page);
    assert.equal(big.statusCode, 413);
    assert.equal((await use(phone, PHONE)).status, 200);
  });

  it('never answers 500, whatever the token id or the form', async () => {
    const browser = await signedIn();
    const page = await browser.get('/account/apps');
    const value = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constant(''));
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('token_id', '_csrf', 'client_key', 'x'), value),
        fc.boolean(),
        async (fields, get) => {
          const answer = get
            ? await browser.get(`${REVOKE}?${new URLSearchParams(fields)}`)
            : await browser.post(REVOKE, fields, page);
          assert.ok(answer.statusCode < 500, `${answer.statusCode} ${answer.body.slice(0, 200)}`);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('Connected apps’ token form over a real socket', () => {
  let world: WebWorld;
  let port: number;
  before(async () => {
    world = await startWeb();
    await world.app.listen({ host: '127.0.0.1', port: 0 });
    port = (world.app.server.address() as AddressInfo).port;
  });
  after(() => world.close());

  it('keeps answering while a form is sent slowly and abandoned', async () => {
    const socket = connectSocket(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST ${REVOKE} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntoken_id=',
    );
    const home = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(home.status, 200);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.destroy();
    await closed;
    assert.equal((await fetch(`http://127.0.0.1:${port}/`)).status, 200);
  });
});
