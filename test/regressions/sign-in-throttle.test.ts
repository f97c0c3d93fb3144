// Sign-in throttling driven over real sockets from two loopback addresses (127.0.0.1 and
// 127.0.0.2 are both this machine on Linux): the server sees each browser's own address.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
} from '../../src/client/index.ts';
import { webPlugin } from '../../src/web/index.ts';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';
import { csrfToken, PASSWORD } from '../web/support.ts';

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/** A browser on one source address: real HTTP, its own cookie jar. */
class SocketBrowser {
  readonly #cookies = new Map<string, string>();
  readonly #base: string;
  readonly #address: string;

  constructor(base: string, address: string) {
    this.#base = base;
    this.#address = address;
  }

  get(path: string): Promise<Answer> {
    return this.#send('GET', path);
  }

  async post(path: string, fields: Record<string, string>, page: Answer): Promise<Answer> {
    const form = new URLSearchParams({ ...fields, _csrf: csrfToken(page.body) });
    return this.#send('POST', path, form.toString());
  }

  async signIn(username: string, password: string): Promise<Answer> {
    const page = await this.get('/signin?next=%2F');
    return this.post('/signin', { username, password, next: '/' }, page);
  }

  #send(method: string, path: string, body?: string): Promise<Answer> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return new Promise((resolve, reject) => {
      const outgoing = request(
        new URL(path, this.#base),
        {
          method,
          localAddress: this.#address,
          headers: {
            ...(cookie === '' ? {} : { cookie }),
            ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
          },
        },
        (response) => {
          for (const line of response.headers['set-cookie'] ?? []) {
            const [pair = ''] = line.split(';');
            const name = pair.slice(0, pair.indexOf('='));
            const value = pair.slice(pair.indexOf('=') + 1);
            if (value === '' || /max-age=0/i.test(line)) this.#cookies.delete(name);
            else this.#cookies.set(name, value);
          }
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              location: response.headers.location,
              retryAfter: response.headers['retry-after'] as string | undefined,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}

describe('Sign-in throttling over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ app: { pages: webPlugin } });
  });
  after(() => server.close());

  // Five wrong passwords for an account from anywhere paused the account everywhere: the
  // owner's right password from their own address then got 429 for 15 minutes.
  it('keeps the owner signing in from their own address after wrong passwords from another', async () => {
    await server.provider.owners.create('mallory', PASSWORD);
    const guesser = new SocketBrowser(server.url, '127.0.0.2');
    for (let i = 0; i < 6; i++) {
      assert.notEqual((await guesser.signIn('mallory', `guess ${i}`)).status, 303);
    }
    const paused = await guesser.signIn('mallory', PASSWORD);
    assert.equal(paused.status, 429, 'the guessing address is paused, even with the password');
    assert.ok(Number(paused.retryAfter) > 0);

    const owner = new SocketBrowser(server.url, '127.0.0.1');
    const answer = await owner.signIn('mallory', PASSWORD);
    assert.equal(answer.status, 303, 'the owner signs in from their own address');
  });

  // An office behind one NAT: every sign-in after the 30th from one address got 429.
  it('signs in 100 people in a row from one address, each through the whole flow', async () => {
    const client = await server.provider.clients.register({
      name: 'Office Tool',
      callbacks: ['https://tool.example/callback'],
    });
    const credentials = { key: client.key, secret: client.secret };
    const people = 20;
    for (let i = 0; i < people; i++) await server.provider.owners.create(`staff${i}`, PASSWORD);
    let tokens = 0;
    for (let flow = 0; flow < 100; flow++) {
      const temporary = await processTemporaryCredentialsResponse(
        await requestTemporaryCredentials(`${server.url}/oauth/request_token`, {
          client: credentials,
          callback: 'https://tool.example/callback',
        }),
      );
      const browser = new SocketBrowser(server.url, '127.0.0.1');
      const signedIn = await browser.signIn(`staff${flow % people}`, PASSWORD);
      assert.equal(signedIn.status, 303, `sign-in ${flow + 1} of 100`);
      const authorize = `/oauth/authorize?oauth_token=${encodeURIComponent(temporary.token)}`;
      const consent = await browser.get(authorize);
      const allowed = await browser.post(
        '/oauth/authorize',
        { oauth_token: temporary.token, decision: 'allow', lifetime: '' },
        consent,
      );
      const verifier = new URL(String(allowed.location)).searchParams.get('oauth_verifier');
      assert.ok(verifier !== null, `flow ${flow + 1}: Allow gives a verifier`);
      await processTokenCredentialsResponse(
        await requestTokenCredentials(`${server.url}/oauth/access_token`, {
          client: credentials,
          temporary,
          verifier,
        }),
      );
      tokens++;
    }
    assert.equal(tokens, 100);
  });
});
