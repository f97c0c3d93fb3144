/**
 * A throwaway OAuth 1.0a server built only on src/protocol: parameter collection (§3.4.1.3.1),
 * the base string (§3.4.1) and the signature methods (§3.4). It speaks the same HTTP contract
 * as Latchkey's /oauth/* and /api/me, so a driver that passes here shows that the library and
 * our protocol core agree on every byte that is signed. No clock, nonce or policy checks:
 * those belong to the real server's suite.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  collectParameters,
  OAuthError,
  parseRsaPublicKey,
  problemFormBody,
  signatureBaseString,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import type { CollectedParameters, SignatureKeys } from '../../src/protocol/index.ts';

export interface ReferenceServerOptions {
  /** PEM public key of the client, for the RSA methods. */
  readonly rsaPublicKey?: string | undefined;
}

export interface ReferenceServer {
  readonly url: string;
  readonly client: { readonly key: string; readonly secret: string; readonly name: string };
  readonly owner: { readonly id: string; readonly subject: string; readonly name: string };
  /** The owner approves the temporary credentials; returns the verifier (§2.2). */
  approve(temporaryToken: string): string;
  /** Base strings of requests whose signature did not verify, for failure messages. */
  readonly rejectedBaseStrings: string[];
  close(): Promise<void>;
}

interface Credentials {
  readonly secret: string;
  scope: string | null;
  verifier?: string;
}

const methods = new SignatureMethodRegistry();
const random = () => randomBytes(12).toString('base64url');

export async function startReferenceServer(
  options: ReferenceServerOptions = {},
): Promise<ReferenceServer> {
  const client = { key: `ref-${random()}`, secret: `s&e c+r%t~${random()}`, name: 'Interop' };
  const owner = { id: 'owner-1', subject: 'owner-1', name: 'alice' };
  const publicKey =
    options.rsaPublicKey === undefined ? undefined : parseRsaPublicKey(options.rsaPublicKey);
  const temporary = new Map<string, Credentials>();
  const tokens = new Map<string, Credentials>();
  const rejectedBaseStrings: string[] = [];

  /** Verifies the signature of a request with the given token secret; throws OAuthError. */
  function verify(req: IncomingMessage, collected: CollectedParameters, tokenSecret: string) {
    const p = collected.protocol;
    for (const name of ['oauth_consumer_key', 'oauth_signature_method', 'oauth_signature']) {
      if (!p.has(name)) {
        throw new OAuthError('parameter_absent', `Missing ${name}.`, {
          advice: { oauth_parameters_absent: name },
        });
      }
    }
    const version = p.get('oauth_version');
    if (version !== undefined && version !== '1.0') {
      throw new OAuthError('version_rejected', 'oauth_version must be 1.0.');
    }
    if (p.get('oauth_consumer_key') !== client.key) {
      throw new OAuthError('consumer_key_unknown', 'Unknown client.');
    }
    const method = methods.get(p.get('oauth_signature_method')!);
    if (method === undefined) {
      throw new OAuthError('signature_method_rejected', 'Unknown signature method.');
    }
    const keys: SignatureKeys = { clientSecret: client.secret, tokenSecret, publicKey };
    const base = signatureBaseString(
      { method: req.method ?? 'GET', scheme: 'http', host: req.headers.host ?? '', path: req.url! },
      collected.signed,
    );
    if (!method.verify(method.usesBaseString ? base : '', p.get('oauth_signature')!, keys)) {
      rejectedBaseStrings.push(base);
      throw new OAuthError('signature_invalid', 'The signature does not match the request.');
    }
  }

  function lookup(table: Map<string, Credentials>, token: string | undefined): Credentials {
    const found = token === undefined ? undefined : table.get(token);
    if (found === undefined) throw new OAuthError('token_rejected', 'Unknown token.');
    return found;
  }

  function handle(req: IncomingMessage, body: string, res: ServerResponse) {
    const url = req.url ?? '/';
    const question = url.indexOf('?');
    const path = question < 0 ? url : url.slice(0, question);
    const collected = collectParameters({
      authorization: req.headers.authorization,
      query: question < 0 ? undefined : url.slice(question + 1),
      body,
      contentType: req.headers['content-type'],
    });
    const p = collected.protocol;
    if (path === '/oauth/request_token' && req.method === 'POST') {
      if (!p.has('oauth_callback')) {
        throw new OAuthError('parameter_absent', 'Missing oauth_callback.', {
          advice: { oauth_parameters_absent: 'oauth_callback' },
        });
      }
      verify(req, collected, '');
      const token = random();
      const secret = random();
      const scope = collected.signed.find(([name]) => name === 'scope')?.[1] ?? null;
      temporary.set(token, { secret, scope });
      return form(res, {
        oauth_token: token,
        oauth_token_secret: secret,
        oauth_callback_confirmed: 'true',
      });
    }
    if (path === '/oauth/access_token' && req.method === 'POST') {
      const credentials = lookup(temporary, p.get('oauth_token'));
      verify(req, collected, credentials.secret);
      if (credentials.verifier === undefined || p.get('oauth_verifier') !== credentials.verifier) {
        throw new OAuthError('verifier_invalid', 'Wrong verifier.');
      }
      temporary.delete(p.get('oauth_token')!);
      const token = random();
      const secret = random();
      tokens.set(token, { secret, scope: credentials.scope });
      return form(res, { oauth_token: token, oauth_token_secret: secret });
    }
    if (path === '/api/me') {
      const credentials = lookup(tokens, p.get('oauth_token'));
      verify(req, collected, credentials.secret);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({
          client: { key: client.key, name: client.name },
          owner,
          scope: credentials.scope,
          method: req.method,
          query: collected.query,
          form: collected.form,
        }),
      );
      return undefined;
    }
    res.writeHead(404).end();
    return undefined;
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        handle(req, Buffer.concat(chunks).toString('utf8'), res);
      } catch (error) {
        const oauth =
          error instanceof OAuthError
            ? error
            : new OAuthError('parameter_rejected', 'Bad request.', { cause: error });
        res.writeHead(oauth.status, { 'content-type': 'application/x-www-form-urlencoded' });
        res.end(problemFormBody(oauth));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    client,
    owner,
    rejectedBaseStrings,
    approve(temporaryToken) {
      const credentials = lookup(temporary, temporaryToken);
      credentials.verifier = random();
      return credentials.verifier;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function form(res: ServerResponse, fields: Record<string, string>): undefined {
  res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' });
  res.end(new URLSearchParams(fields).toString());
  return undefined;
}
