// Operations: structured logs (pino, through Fastify) with a request id, and no
// secret in them anywhere. A full flow runs with the logger at trace level writing to memory:
// temporary credentials, a failed and a successful sign-in, consent on the pages, the token
// request, /api/me with the signature in the header, the query and the body, PLAINTEXT, and a
// request through the gateway. Then the whole log is searched for every secret the flow used.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  createSigningFetch,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
  requestTokenRenewal,
} from '../../src/client/index.ts';
import { percentEncode } from '../../src/protocol/index.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';
import { authorizePath, BASE, injectFetch, PASSWORD } from '../web/support.ts';
import type { WebWorld } from '../web/support.ts';
import { startWorld } from './world.ts';

const WRONG_PASSWORD = 'not-the-password-7f3a9c';

/** A fetch that remembers every oauth_signature it sends, wherever it is sent. */
function recordingFetch(inner: typeof fetch, signatures: Set<string>): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const body = init?.body;
    const places = [
      ...Object.values((init?.headers ?? {}) as Record<string, string>),
      String(input),
      typeof body === 'string'
        ? body
        : body instanceof Uint8Array
          ? Buffer.from(body).toString()
          : '',
    ];
    for (const place of places) {
      for (const match of place.matchAll(/oauth_signature=("?)([^"&,]+)\1/g)) {
        signatures.add(decodeURIComponent(match[2]!));
      }
    }
    return inner(input, init);
  }) as typeof fetch;
}

describe('logs: a full flow logged at trace level', () => {
  const lines: string[] = [];
  const secrets = new Map<string, string>();
  const signatures = new Set<string>();
  let world: WebWorld;
  let upstream: EchoUpstream;

  before(async () => {
    upstream = await startEchoUpstream();
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    world = await startWorld({
      app: {
        logger: { level: 'trace', stream },
        gateway: { upstream: upstream.url, rules: [{ path: '/photos/*', access: 'token' }] },
      },
    });
    const owner = await world.owner();
    // With the session extension, so a renewal sends its handle (here in the query).
    const client = await world.client({ sessionExtension: true });
    const browser = world.browser();
    assert.equal((await browser.signIn(owner.username!, WRONG_PASSWORD)).statusCode, 422);
    assert.equal((await browser.signIn(owner.username!)).statusCode, 303);
    const send = recordingFetch(injectFetch(world.app), signatures);
    const credentials = { key: client.key, secret: client.secret };
    const temporary = await processTemporaryCredentialsResponse(
      await requestTemporaryCredentials(`${BASE}/oauth/request_token`, {
        client: credentials,
        callback: 'https://printer.example/callback',
        fetch: send,
      }),
    );
    const page = await browser.get(authorizePath(temporary));
    const allowed = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow', lifetime: '' },
      page,
    );
    const verifier = new URL(String(allowed.headers.location)).searchParams.get('oauth_verifier');
    assert.ok(verifier !== null);
    const token = await processTokenCredentialsResponse(
      await requestTokenCredentials(`${BASE}/oauth/access_token`, {
        client: credentials,
        temporary,
        verifier,
        fetch: send,
      }),
    );
    for (const transmission of ['header', 'query', 'body'] as const) {
      const api = createSigningFetch({ client: credentials, token, transmission, fetch: send });
      const init =
        transmission === 'body'
          ? { method: 'POST', body: new URLSearchParams({ note: 'hello' }) }
          : {};
      assert.equal((await api('http://127.0.0.1/api/me?page=2', init)).status, 200);
    }
    const plaintext = createSigningFetch({
      client: credentials,
      token,
      signatureMethod: 'PLAINTEXT',
      fetch: send,
    });
    assert.equal((await plaintext('http://127.0.0.1/api/me')).status, 200);
    const viaGateway = createSigningFetch({
      client: credentials,
      token,
      transmission: 'query',
      fetch: send,
    });
    assert.equal((await viaGateway('http://127.0.0.1/photos/1?size=large')).status, 200);
    const handle = token.session?.handle;
    assert.ok(handle !== undefined);
    const renewed = await processTokenCredentialsResponse(
      await requestTokenRenewal(`${BASE}/oauth/access_token`, {
        client: credentials,
        token,
        sessionHandle: handle,
        transmission: 'query',
        fetch: send,
      }),
    );

    secrets.set('client secret', client.secret);
    secrets.set('temporary credential secret', temporary.secret);
    secrets.set('verifier', verifier);
    secrets.set('token secret', token.secret);
    secrets.set('session handle', handle);
    secrets.set('renewed token secret', renewed.secret);
    secrets.set('password', PASSWORD);
    secrets.set('wrong password', WRONG_PASSWORD);
    for (const [name, value] of browser.cookies) secrets.set(`cookie ${name}`, value);
    let index = 0;
    for (const signature of signatures) secrets.set(`signature ${++index}`, signature);
  });
  after(async () => {
    await world.close();
    await upstream.close();
  });

  it('writes one JSON object per line, each request’s lines with a request id', () => {
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const perRequest = entries.filter((entry) => entry['req'] !== undefined);
    assert.ok(perRequest.length > 10, `${perRequest.length} request lines`);
    assert.ok(perRequest.every((entry) => typeof entry['reqId'] === 'string'));
  });

  it('writes one access line per request, after the answer, with its status and time', () => {
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const access = entries.filter((entry) => entry['msg'] === 'request completed');
    assert.ok(access.length > 10, `${access.length} access lines`);
    const perRequest = new Map<unknown, number>();
    for (const entry of access)
      perRequest.set(entry['reqId'], (perRequest.get(entry['reqId']) ?? 0) + 1);
    assert.ok(
      [...perRequest.values()].every((count) => count === 1),
      'one line per request id',
    );
    for (const entry of access) {
      const req = entry['req'] as Record<string, unknown>;
      const res = entry['res'] as Record<string, unknown>;
      assert.equal(typeof req['method'], 'string');
      assert.equal(typeof req['url'], 'string');
      assert.equal(typeof res['statusCode'], 'number');
      assert.equal(typeof entry['responseTime'], 'number');
    }
    const chatter = ['incoming request', 'fetching from remote server', 'response received'];
    assert.deepEqual(
      entries.filter((entry) => chatter.includes(String(entry['msg']))),
      [],
      'no second line for the same request (Fastify, the gateway)',
    );
  });

  it('used the secrets under test (the flow ran)', () => {
    assert.ok(signatures.size >= 7, `${signatures.size} signatures`);
    assert.ok([...secrets.values()].every((value) => value.length >= 8));
  });

  it('contains no secret, signature, verifier or password, raw or percent-encoded', () => {
    const log = lines.join('\n');
    const found = [];
    for (const [name, value] of secrets) {
      for (const form of new Set([value, percentEncode(value), encodeURIComponent(value)])) {
        if (log.includes(form)) found.push(name);
      }
    }
    assert.deepEqual(found, []);
  });
});

describe('logs: redaction of whatever a log call includes', () => {
  it('censors credentials in headers and fields named for secrets', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const world = await startWorld({ app: { logger: { level: 'trace', stream } } });
    try {
      world.app.log.info(
        {
          request: {
            headers: { authorization: 'OAuth oauth_signature="sig-4f1c"', cookie: 'c-77e2' },
            body: 'password=b-6d0f',
          },
          owner: { password: 'pw-93ab' },
          client: { secret: 'cs-0d5e' },
          verifier: 'v-51c8',
        },
        'a careless log call',
      );
      const log = lines.join('');
      assert.match(log, /a careless log call/);
      assert.deepEqual(
        ['sig-4f1c', 'c-77e2', 'b-6d0f', 'pw-93ab', 'cs-0d5e', 'v-51c8'].filter((secret) =>
          log.includes(secret),
        ),
        [],
      );
    } finally {
      await world.close();
    }
  });
});
