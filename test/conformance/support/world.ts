/**
 * One running server with what the conformance suites need: a client per signature method
 * (HMAC-SHA1 and PLAINTEXT share a secret, RSA-SHA1 has the fixture key pair), a resource
 * owner, a clock the tests can move, and helpers that sign with the client SDK and send over
 * real HTTP. The owner's approval goes through provider.authorization.approve, the same call
 * the consent page's Allow makes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ClientCredentials,
  SignOptions,
  TokenCredentials,
} from '../../../src/client/index.ts';
import { signRequest } from '../../../src/client/index.ts';
import type { Transmission } from '../../../src/protocol/index.ts';
import type { Client, Owner } from '../../../src/store/index.ts';
import { startServer } from '../../support/server.ts';
import type { TestServer, TestServerOptions } from '../../support/server.ts';
import { send } from './http.ts';
import type { RawResponse } from './http.ts';
import { localOwnerRecord } from '../../support/owners.ts';

export const METHODS = ['HMAC-SHA1', 'RSA-SHA1', 'PLAINTEXT'] as const;
export type MethodName = (typeof METHODS)[number];
export const TRANSMISSIONS: readonly Transmission[] = ['header', 'body', 'query'];

export const RSA_PRIVATE_KEY = readFileSync(
  new URL('../../fixtures/rsa-private.pem', import.meta.url),
  'utf8',
);
export const RSA_PUBLIC_KEY = readFileSync(
  new URL('../../fixtures/rsa-public.pem', import.meta.url),
  'utf8',
);

export const PATHS = {
  requestToken: '/oauth/request_token',
  accessToken: '/oauth/access_token',
  me: '/api/me',
} as const;

/**
 * A clock the provider reads; tests move it forward instead of waiting. It stands still
 * otherwise: a test that sends a timestamp one second past the window's edge must not see
 * the second tick over between reading the clock and the server checking (following the
 * wall clock, "ahead of the window" failed in a CI run that way).
 */
export class TestClock {
  offsetMs = 0;
  private readonly startedMs = Date.now();
  readonly now = (): number => this.startedMs + this.offsetMs;
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }
}

/** One signed request, before it is sent: what `signRequest` takes, minus the defaults. */
export interface SignedCall {
  readonly signatureMethod: MethodName;
  readonly transmission: Transmission;
  readonly path: string;
  readonly httpMethod?: string | undefined;
  readonly token?: TokenCredentials | undefined;
  readonly client?: ClientCredentials | undefined;
  readonly protocolParameters?: Readonly<Record<string, string>> | undefined;
  readonly body?: SignOptions['body'];
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly timestamp?: number | string | undefined;
  readonly nonce?: string | undefined;
  readonly includeVersion?: boolean | undefined;
  /** Sign for this URL instead of the server's (to change the scheme, host, port or path). */
  readonly signedUrl?: string | undefined;
  /** Send to this path (and query) instead of the signed one. */
  readonly sentPath?: string | undefined;
  /** Send with this HTTP method instead of the signed one. */
  readonly sentMethod?: string | undefined;
}

export interface World {
  /** The running server; replaced by restart(). */
  readonly server: TestServer;
  readonly clock: TestClock;
  readonly url: string;
  readonly sharedClient: Client;
  readonly rsaClient: Client;
  /** A third client, shared secret, no registered callbacks. */
  readonly otherClient: Client;
  readonly owner: Owner;
  /** Stops the server and starts it again on the same database file and clock. */
  restart(): Promise<void>;
  credentials(method: MethodName): ClientCredentials;
  /** Signs a request with the client SDK; returns what goes on the wire. */
  sign(call: SignedCall): {
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string | Uint8Array | undefined;
  };
  /** Signs and sends. */
  call(call: SignedCall): Promise<RawResponse>;
  /** §2.1: temporary credentials, or throws with the server's answer. */
  temporary(
    method: MethodName,
    transmission: Transmission,
    options?: { callback?: string; client?: ClientCredentials; body?: SignOptions['body'] },
  ): Promise<TokenCredentials>;
  /** §2.2: the owner allows; returns the verifier. */
  approve(
    temporary: TokenCredentials,
    options?: { scope?: string; lifetime?: number },
  ): Promise<string>;
  /** §2.3: exchange for token credentials (raw answer). */
  exchange(
    method: MethodName,
    transmission: Transmission,
    temporary: TokenCredentials,
    verifier: string,
    client?: ClientCredentials,
  ): Promise<RawResponse>;
  /** The whole flow: token credentials ready for resource requests. */
  tokenCredentials(method: MethodName, transmission: Transmission): Promise<TokenCredentials>;
  /** A resource request to /api/me (GET, or POST for body transmission). */
  me(
    method: MethodName,
    transmission: Transmission,
    token?: TokenCredentials,
  ): Promise<RawResponse>;
  close(): Promise<void>;
}

export function httpMethodFor(transmission: Transmission): string {
  return transmission === 'body' ? 'POST' : 'GET';
}

/** The callbacks the shared-secret and RSA clients registered (§2.1 callback rules). */
export const REGISTERED_CALLBACKS = [
  'https://app.example/callback?from=latchkey#done',
  'myapp://authorized',
] as const;

export async function startWorld(options: TestServerOptions = {}): Promise<World> {
  const clock = new TestClock();
  const directory = mkdtempSync(join(tmpdir(), 'latchkey-world-'));
  const path = join(directory, 'latchkey.db');
  let server = await startServer({ now: clock.now, ...options, path });
  const provider = server.provider;
  const sharedClient = await provider.clients.register({
    name: 'Shared-secret app',
    callbacks: [...REGISTERED_CALLBACKS],
  });
  const rsaClient = await provider.clients.register({
    name: 'RSA app',
    publicKey: RSA_PUBLIC_KEY,
    callbacks: [...REGISTERED_CALLBACKS],
  });
  const otherClient = await provider.clients.register({ name: 'Another app' });
  // The store directly: the owner's password is not under test here, and scrypt is slow.
  const owner = await server.store.owners.create(
    localOwnerRecord({ id: 'owner-alice', username: 'alice', passwordHash: 'scrypt$unused' }),
  );

  const credentials = (method: MethodName): ClientCredentials =>
    method === 'RSA-SHA1'
      ? { key: rsaClient.key, privateKey: RSA_PRIVATE_KEY }
      : { key: sharedClient.key, secret: sharedClient.secret };

  const restart = async () => {
    await server.close();
    server = await startServer({ now: clock.now, ...options, path, port: server.port });
  };

  const sign: World['sign'] = (call) => {
    const httpMethod = call.httpMethod ?? httpMethodFor(call.transmission);
    const signed = signRequest({
      method: httpMethod,
      url: call.signedUrl ?? server.url + call.path,
      headers: call.headers,
      body: call.body,
      client: call.client ?? credentials(call.signatureMethod),
      token: call.token,
      signatureMethod: call.signatureMethod,
      transmission: call.transmission,
      protocolParameters: call.protocolParameters,
      timestamp: call.timestamp ?? clock.seconds(),
      nonce: call.nonce,
      includeVersion: call.includeVersion,
    });
    // Sent to the real server whatever URL was signed (only the origin differs).
    const sentUrl = new URL(signed.url);
    const target = server.url + (call.sentPath ?? sentUrl.pathname + sentUrl.search);
    return {
      method: call.sentMethod ?? signed.method,
      url: target,
      headers: signed.headers,
      body: signed.body,
    };
  };

  const call: World['call'] = (c) => send(sign(c));

  const temporary: World['temporary'] = async (method, transmission, opts = {}) => {
    const answer = await call({
      signatureMethod: method,
      transmission,
      path: PATHS.requestToken,
      httpMethod: 'POST',
      client: opts.client,
      body: opts.body,
      protocolParameters: { oauth_callback: opts.callback ?? 'oob' },
    });
    if (answer.status !== 200) {
      throw new Error(`request_token answered ${answer.status}: ${answer.text}`);
    }
    return { token: answer.fields['oauth_token']!, secret: answer.fields['oauth_token_secret']! };
  };

  const approve: World['approve'] = async (temp, opts = {}) =>
    (await server.provider.authorization.approve(temp.token, owner.id, opts)).verifier;

  const exchange: World['exchange'] = (method, transmission, temp, verifier, client) =>
    call({
      signatureMethod: method,
      transmission,
      path: PATHS.accessToken,
      httpMethod: 'POST',
      token: temp,
      client,
      protocolParameters: { oauth_verifier: verifier },
    });

  const tokenCredentials: World['tokenCredentials'] = async (method, transmission) => {
    const temp = await temporary(method, transmission);
    const verifier = await approve(temp);
    const answer = await exchange(method, transmission, temp, verifier);
    if (answer.status !== 200) {
      throw new Error(`access_token answered ${answer.status}: ${answer.text}`);
    }
    return { token: answer.fields['oauth_token']!, secret: answer.fields['oauth_token_secret']! };
  };

  const me: World['me'] = (method, transmission, token) =>
    call({ signatureMethod: method, transmission, path: PATHS.me, token });

  return {
    get server() {
      return server;
    },
    clock,
    get url() {
      return server.url;
    },
    sharedClient,
    rsaClient,
    otherClient,
    owner,
    restart,
    credentials,
    sign,
    call,
    temporary,
    approve,
    exchange,
    tokenCredentials,
    me,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Every (signature method, transmission) pair, for table-driven suites. */
export function eachCombination(): Array<{ method: MethodName; transmission: Transmission }> {
  return METHODS.flatMap((method) =>
    TRANSMISSIONS.map((transmission) => ({ method, transmission })),
  );
}
