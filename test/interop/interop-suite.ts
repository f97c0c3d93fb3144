/**
 * One table-driven suite, run against any server that speaks Latchkey's HTTP contract: for
 * each library × signature method × transmission, the driver completes the three-step flow
 * (RFC 5849 §2) and its signed GET and POST to /api/me carry the awkward parameters through
 * exactly (§3.4.1.3.1: decoded, in order, repeated names kept). Each known limit of a
 * library is checked to still fail, so the matrix in README.md cannot silently go stale.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { requirement } from '../support/requirements.ts';
import { awkwardPairs, awkwardPairsOnly } from './awkward-parameters.ts';
import type { Driver, Limit } from './drivers.ts';
import { runDriver } from './run-driver.ts';
import type { DriverResult, DriverRun, MeResponse, Transmission } from './run-driver.ts';

export interface InteropServer {
  readonly url: string;
  readonly client: { readonly key: string; readonly secret: string };
  readonly owner: { readonly name: string };
  approve(temporaryToken: string): string | Promise<string>;
  /**
   * Credentials as another provider issued them (imported), with secrets of any characters:
   * a client and one of its tokens. Only servers whose target sets `legacyCredentials`.
   */
  readonly legacy?:
    | {
        readonly client: { readonly key: string; readonly secret: string };
        readonly token: { readonly token: string; readonly secret: string };
      }
    | undefined;
  /** What the server can tell about a failure (e.g. rejected base strings). */
  diagnostics(): string;
  close(): Promise<void>;
}

export interface InteropTarget {
  /** How the suite names the server, e.g. "the protocol core". */
  readonly name: string;
  start(options: { rsaPublicKey: string }): Promise<InteropServer>;
  /** The `scope` a driver sends, when it can, and what /api/me then reports. */
  readonly scope: { readonly request: string | undefined; readonly expected: unknown };
  /** What /api/me reports as scope when the driver sent none. */
  readonly defaultScope: unknown;
  /** Whether the server has migrated credentials with odd secrets (InteropServer.legacy). */
  readonly legacyCredentials?: boolean | undefined;
}

/** The secrets of the migrated credentials: every character class §3.6 must encode. */
export const LEGACY_SECRETS = {
  client: 'hmac secret+with/odd&chars~',
  token: 'tök€n s/cr+t=',
} as const;

const keyPair = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, // "BEGIN RSA PRIVATE KEY": every library reads it
});

function leftOut(limits: readonly Limit[], request: 'get' | 'post', transmission: Transmission) {
  return limits
    .filter((l) => l.request === request && (l.transmissions?.includes(transmission) ?? true))
    .flatMap((l) => l.tags);
}

function explain(result: DriverResult, server: InteropServer): string {
  return [
    `exit code ${String(result.exitCode)}`,
    result.error === undefined ? '' : `driver error: ${JSON.stringify(result.error)}`,
    result.stderr === '' ? '' : `stderr:\n${result.stderr}`,
    server.diagnostics(),
  ]
    .filter((s) => s !== '')
    .join('\n');
}

function body(response: MeResponse | null | undefined): Record<string, unknown> {
  assert.ok(response, 'the driver made no such request');
  return typeof response.body === 'object' && response.body !== null
    ? (response.body as Record<string, unknown>)
    : {};
}

export function describeInterop(driver: Driver, target: InteropTarget): void {
  const located = driver.locate();
  const skip = requirement(driver.name, 'problem' in located ? located.problem : undefined);
  describe(`RFC 5849 interop: ${driver.name} against ${target.name}`, { skip }, () => {
    let server: InteropServer;
    let directory: string;
    let privateKeyFile: string;
    before(async () => {
      directory = mkdtempSync(join(tmpdir(), 'latchkey-interop-'));
      privateKeyFile = join(directory, 'client-private.pem');
      writeFileSync(privateKeyFile, keyPair.privateKey, { mode: 0o600 });
      server = await target.start({ rsaPublicKey: keyPair.publicKey });
    });
    after(async () => {
      await server?.close();
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    const run = (
      signatureMethod: string,
      transmission: Transmission,
      query: ReturnType<typeof awkwardPairs>,
      form: ReturnType<typeof awkwardPairs>,
      credentials: Pick<DriverRun, 'client' | 'token'> = { client: server.client },
    ) => {
      if ('problem' in located) throw new Error(located.problem);
      return runDriver({
        ...located,
        baseUrl: server.url,
        ...credentials,
        signatureMethod,
        transmission,
        privateKeyFile,
        query,
        form,
        scope: driver.sendsScope ? target.scope.request : undefined,
        approve: (token) => server.approve(token),
      });
    };

    for (const method of driver.signatureMethods) {
      for (const transmission of driver.transmissions) {
        describe(`${method}, protocol parameters in the ${transmission}`, () => {
          const query = awkwardPairs(leftOut(driver.limits, 'get', transmission));
          const form = awkwardPairs(leftOut(driver.limits, 'post', transmission));
          let result: DriverResult;
          before(async () => {
            result = await run(method, transmission, query, form);
          });

          it('obtains temporary and token credentials through the three-step flow (§2)', () => {
            assert.ok(result.temporary && result.token, explain(result, server));
            assert.notEqual(result.token.token, result.temporary.token);
          });

          it('is identified on /api/me as the registered client acting for the owner', () => {
            assert.ok(result.me, explain(result, server));
            const me = body(result.me.post);
            assert.equal(result.me.post?.status, 200, explain(result, server));
            assert.deepEqual((me.client as { key?: unknown }).key, server.client.key);
            assert.deepEqual((me.owner as { name?: unknown }).name, server.owner.name);
            const expected = driver.sendsScope ? target.scope.expected : target.defaultScope;
            assert.deepEqual(me.scope, expected);
          });

          if (transmission !== 'body') {
            it('signs a GET whose query carries the awkward values, decoded in order (§3.4.1.3.1)', () => {
              assert.ok(result.me, explain(result, server));
              const me = body(result.me.get);
              assert.equal(result.me.get?.status, 200, explain(result, server));
              assert.equal(me.method, 'GET');
              assert.deepEqual(me.query, query);
              assert.deepEqual(me.form, []);
            });
          }

          it('signs a POST whose form body carries the awkward values, decoded in order (§3.4.1.3.1)', () => {
            assert.ok(result.me, explain(result, server));
            const me = body(result.me.post);
            assert.equal(result.me.post?.status, 200, explain(result, server));
            assert.equal(me.method, 'POST');
            assert.deepEqual(me.query, []);
            assert.deepEqual(me.form, form);
          });
        });
      }
    }

    if (target.legacyCredentials === true) {
      const shared = driver.signatureMethods.filter((method) => !method.startsWith('RSA-'));
      for (const method of shared) {
        for (const transmission of driver.transmissions) {
          describe(`migrated credentials, secrets of any characters: ${method}, protocol parameters in the ${transmission}`, () => {
            const query = awkwardPairs(leftOut(driver.limits, 'get', transmission));
            const form = awkwardPairs(leftOut(driver.limits, 'post', transmission));
            let result: DriverResult;
            before(async () => {
              result = await run(method, transmission, query, form, server.legacy);
            });

            it(`signs with the imported client secret and token secret (${LEGACY_SECRETS.client} / ${LEGACY_SECRETS.token})`, () => {
              assert.ok(result.me, explain(result, server));
              assert.equal(result.me.post?.status, 200, explain(result, server));
              const me = body(result.me.post);
              assert.deepEqual((me.client as { key?: unknown }).key, server.legacy?.client.key);
              assert.deepEqual(me.form, form);
              if (transmission !== 'body') {
                assert.equal(result.me.get?.status, 200, explain(result, server));
                assert.deepEqual(body(result.me.get).query, query);
              }
            });

            if (method === shared[0]) {
              it('runs the three-step flow with the imported client secret (§2)', async () => {
                const flow = await run(method, transmission, [], [], {
                  client: server.legacy!.client,
                });
                assert.ok(flow.token, explain(flow, server));
                assert.equal(flow.me?.post?.status, 200, explain(flow, server));
              });
            }
          });
        }
      }
    }

    for (const limit of driver.limits) {
      const transmission = limit.transmissions?.[0] ?? driver.transmissions[0]!;
      const method = driver.signatureMethods[0]!;
      it(`still has the limit it is documented with: ${limit.reason}`, async () => {
        const pairs = awkwardPairsOnly(limit.tags);
        const result = await run(
          method,
          transmission,
          limit.request === 'get' ? pairs : [],
          limit.request === 'post' ? pairs : [],
        );
        const response = limit.request === 'get' ? result.me?.get : result.me?.post;
        assert.ok(response, explain(result, server));
        if (limit.symptom === 'unsendable') {
          assert.equal(response.status, 0, explain(result, server));
        } else if (limit.symptom === 'signature_invalid') {
          assert.equal(response.status, 401, explain(result, server));
          assert.match(String(response.body), /oauth_problem=signature_invalid/);
        } else {
          assert.equal(response.status, 200, explain(result, server));
          assert.notDeepEqual(body(response)[limit.request === 'get' ? 'query' : 'form'], pairs);
        }
      });
    }
  });
}
