// A small OAuth server on node:http at 127.0.0.1 (port 0), built only from the protocol core,
// for the SDK to talk to over a real socket. It knows the RFC 5849 §1.2 credentials and the
// test RSA key, verifies every signature from the request line and the Host header, and runs
// the three flow steps at /initiate, /token; any other path is a protected resource.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  collectParameters,
  OAuthError,
  parseRsaPublicKey,
  problemChallenge,
  problemFormBody,
  signatureBaseString,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import type { CollectedParameters } from '../../src/protocol/index.ts';
import { rsaPublicKeyPem, vectors } from '../vectors/rfc5849.ts';

const { client, temporary, token, verifier } = vectors.walkthrough.credentials;
const tokenSecrets = new Map([
  [temporary.token, temporary.secret],
  [token.token, token.secret],
]);
const publicKey = parseRsaPublicKey(rsaPublicKeyPem);
const methods = new SignatureMethodRegistry();

/** What the server saw of one request. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly collected: CollectedParameters | undefined;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

function verify(req: IncomingMessage, body: string): CollectedParameters {
  const target = new URL(req.url ?? '/', 'http://placeholder');
  const collected = collectParameters({
    authorization: req.headers.authorization,
    query: target.search.slice(1),
    body,
    contentType: req.headers['content-type'],
  });
  const p = collected.protocol;
  const method = methods.get(p.get('oauth_signature_method') ?? '');
  const tokenSecret = p.has('oauth_token') ? tokenSecrets.get(p.get('oauth_token')!) : '';
  if (method === undefined) throw new OAuthError('signature_method_rejected', 'Unknown method.');
  if (p.get('oauth_consumer_key') !== client.key) {
    throw new OAuthError('consumer_key_unknown', 'Unknown client.');
  }
  if (tokenSecret === undefined) throw new OAuthError('token_rejected', 'Unknown token.');
  const baseString = signatureBaseString(
    {
      method: req.method ?? 'GET',
      scheme: 'http',
      host: req.headers.host ?? '',
      path: target.pathname,
    },
    collected.signed,
  );
  const keys = { clientSecret: client.secret, tokenSecret, publicKey };
  if (!method.verify(baseString, p.get('oauth_signature') ?? '', keys)) {
    throw new OAuthError('signature_invalid', 'The signature does not match.');
  }
  return collected;
}

function answer(path: string, collected: CollectedParameters, res: ServerResponse): void {
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const p = collected.protocol;
  if (path === '/initiate' && p.has('oauth_callback')) {
    res.writeHead(200, form).end(vectors.walkthrough.temporaryCredentialsResponse);
  } else if (path === '/token' && p.get('oauth_token') === temporary.token) {
    if (p.get('oauth_verifier') !== verifier) {
      throw new OAuthError('verifier_invalid', 'The verifier does not match.');
    }
    res.writeHead(200, form).end(vectors.walkthrough.tokenCredentialsResponse);
  } else {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ transmission: collected.transmission, signed: collected.signed }));
  }
}

export async function startLocalServer(): Promise<LocalServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://placeholder').pathname;
      let collected: CollectedParameters | undefined;
      try {
        if (path === '/redirect') {
          res.writeHead(302, { Location: '/elsewhere' }).end();
          return;
        }
        collected = verify(req, body);
        answer(path, collected, res);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        res.writeHead(error.status, {
          'Content-Type': 'application/x-www-form-urlencoded',
          'WWW-Authenticate': problemChallenge(error, 'Local'),
        });
        res.end(problemFormBody(error));
      } finally {
        seen.push({ method: req.method ?? '', path, headers: req.headers, body, collected });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
