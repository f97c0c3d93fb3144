/**
 * Interop driver for the npm `oauth` package (node-oauth): runs the RFC 5849 three-step flow
 * against a Latchkey-shaped server, then calls /api/me with the awkward parameters.
 *
 * Usage: node node-oauth.ts BASE_URL; environment as in test/interop/README.md.
 * node-oauth signs with HMAC-SHA1, HMAC-SHA256, RSA-SHA1 (the PEM private key is passed where
 * the secret goes) and PLAINTEXT, and sends the protocol parameters in the Authorization
 * header only. It signs a query it parses with querystring.parse, turning a repeated name
 * into "name[0]", "name[1]" (OAuth.prototype._prepareParameters), so a repeated name in
 * a GET query fails the signature; a repeated name in a POST form is fine (an array value).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { emit, meResult, readLine, readSettings, runMain } from './node-driver-io.ts';
import type { Pair } from './node-driver-io.ts';

type Callback = (
  error: { statusCode: number; data?: string } | null,
  data?: string,
  response?: unknown,
) => void;
type TokenCallback = (
  error: { statusCode: number; data?: string } | null,
  token: string,
  secret: string,
) => void;
interface NodeOAuth {
  getOAuthRequestToken(extraParams: Record<string, string>, callback: TokenCallback): void;
  getOAuthAccessToken(
    token: string,
    secret: string,
    verifier: string,
    callback: TokenCallback,
  ): void;
  get(url: string, token: string, secret: string, callback: Callback): void;
  post(
    url: string,
    token: string,
    secret: string,
    body: Record<string, string | string[]>,
    contentType: string,
    callback: Callback,
  ): void;
}
type OAuthConstructor = new (
  requestUrl: string,
  accessUrl: string,
  consumerKey: string,
  consumerSecret: string,
  version: string,
  callback: string,
  signatureMethod: string,
) => NodeOAuth;

const { OAuth } = createRequire(import.meta.url)('oauth') as { OAuth: OAuthConstructor };

function tokenPair(
  start: (callback: TokenCallback) => void,
  what: string,
): Promise<{ token: string; secret: string }> {
  return new Promise((resolve, reject) =>
    start((error, token, secret) =>
      error
        ? reject(new Error(`${what} failed: ${error.statusCode} ${error.data ?? ''}`))
        : resolve({ token, secret }),
    ),
  );
}

/** The reply of get/post; node-oauth reports a 4xx as an error object with the body. */
function call(start: (callback: Callback) => void) {
  return new Promise<{ status: number; body: unknown }>((resolve) =>
    start((error, data) =>
      resolve(error ? meResult(error.statusCode, error.data ?? '') : meResult(200, data ?? '')),
    ),
  );
}

/** The form as node-oauth takes it: an object, a repeated name as an array (kept in order). */
function formObject(pairs: Pair[]): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = {};
  for (const [name, value] of pairs) {
    const present = form[name];
    form[name] =
      present === undefined
        ? value
        : Array.isArray(present)
          ? [...present, value]
          : [present, value];
  }
  return form;
}

runMain(async () => {
  const s = readSettings();
  if (s.transmission !== 'header')
    throw new Error('node-oauth sends the Authorization header only');
  const secret = s.method === 'RSA-SHA1' ? readFileSync(s.privateKeyFile, 'utf8') : s.secret;
  const oa = new OAuth(
    `${s.base}/oauth/request_token`,
    `${s.base}/oauth/access_token`,
    s.key,
    secret,
    '1.0',
    'oob',
    s.method,
  );
  let token = s.token;
  if (token === undefined) {
    // Extra parameters of the temporary credential request are signed and sent as the form body.
    const temporary = await tokenPair(
      (cb) => oa.getOAuthRequestToken(s.scope === '' ? {} : { scope: s.scope }, cb),
      'temporary credential request',
    );
    emit({ step: 'temporary', token: temporary.token });

    const verifier = await readLine();
    token = await tokenPair(
      (cb) => oa.getOAuthAccessToken(temporary.token, temporary.secret, verifier, cb),
      'token request',
    );
  }
  emit({ step: 'token', token: token.token });

  // The query the usual Node way; node-oauth re-parses it from the URL to sign it.
  const query = new URLSearchParams(s.query).toString();
  const me = `${s.base}/api/me`;
  const get = await call((cb) =>
    oa.get(query === '' ? me : `${me}?${query}`, token.token, token.secret, cb),
  );
  const post = await call((cb) =>
    oa.post(
      me,
      token.token,
      token.secret,
      formObject(s.form),
      'application/x-www-form-urlencoded',
      cb,
    ),
  );
  emit({ step: 'me', get, post });
});
