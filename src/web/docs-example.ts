/**
 * The documentation page's worked example: the whole §2 flow with fixed example credentials,
 * each request really signed with HMAC-SHA1 by the protocol core, so a developer can check
 * their own base string and signature against ours step by step.
 */
import {
  HMAC_SHA1,
  buildAuthorizationHeader,
  sharedSecretKey,
  signatureBaseString,
} from '../protocol/index.ts';
import type { Parameter } from '../protocol/index.ts';

export interface ExampleStep {
  readonly request: string;
  readonly baseString: string;
  readonly signingKey: string;
  readonly response: string;
}

export const exampleCredentials = {
  clientKey: 'example-client-key',
  clientSecret: 'example-client-secret',
  temporaryToken: 'example-temporary-token',
  temporarySecret: 'example-temporary-secret',
  verifier: 'example-verifier',
  token: 'example-token',
  tokenSecret: 'example-token-secret',
  callback: 'https://app.example/callback',
} as const;

interface Signing {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly extra: readonly Parameter[];
  readonly token?: readonly [token: string, secret: string];
  readonly nonce: string;
}

function signedCurl(signing: Signing, response: string): ExampleStep {
  const c = exampleCredentials;
  const protocol: Parameter[] = [
    ['oauth_consumer_key', c.clientKey],
    ...(signing.token === undefined ? [] : ([['oauth_token', signing.token[0]]] as Parameter[])),
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', '1700000000'],
    ['oauth_nonce', signing.nonce],
    ['oauth_version', '1.0'],
    ...signing.extra,
  ];
  const target = {
    method: signing.method,
    scheme: signing.url.protocol.replace(':', ''),
    host: signing.url.host,
    path: signing.url.pathname,
  };
  const baseString = signatureBaseString(target, protocol);
  const keys = { clientSecret: c.clientSecret, tokenSecret: signing.token?.[1] ?? '' };
  const signature = HMAC_SHA1.sign(baseString, keys);
  const header = buildAuthorizationHeader([...protocol, ['oauth_signature', signature]]);
  const request = [
    `curl -i${signing.method === 'POST' ? ' -X POST' : ''} '${signing.url.href}' \\`,
    `  -H 'Authorization: ${header}'`,
  ].join('\n');
  return { request, baseString, signingKey: sharedSecretKey(keys), response };
}

export function workedExample(base: string, paths: { requestToken: string; accessToken: string }) {
  const c = exampleCredentials;
  return {
    temporary: signedCurl(
      {
        method: 'POST',
        url: new URL(paths.requestToken, base),
        extra: [['oauth_callback', c.callback]],
        nonce: 'n0nce-one',
      },
      `HTTP/1.1 200 OK\nContent-Type: application/x-www-form-urlencoded\n\noauth_token=${c.temporaryToken}&oauth_token_secret=${c.temporarySecret}&oauth_callback_confirmed=true`,
    ),
    token: signedCurl(
      {
        method: 'POST',
        url: new URL(paths.accessToken, base),
        extra: [['oauth_verifier', c.verifier]],
        token: [c.temporaryToken, c.temporarySecret],
        nonce: 'n0nce-two',
      },
      `HTTP/1.1 200 OK\nContent-Type: application/x-www-form-urlencoded\n\noauth_token=${c.token}&oauth_token_secret=${c.tokenSecret}`,
    ),
    resource: signedCurl(
      {
        method: 'GET',
        url: new URL('/api/me', base),
        extra: [],
        token: [c.token, c.tokenSecret],
        nonce: 'n0nce-three',
      },
      'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{"client":{"key":"example-client-key","name":"…"},"owner":{"id":"…","subject":"…","name":"…","source":"local"},"scope":"read write","method":"GET","query":[],"form":[]}',
    ),
  };
}
