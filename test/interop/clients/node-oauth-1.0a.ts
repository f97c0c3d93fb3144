/**
 * Interop driver for the npm `oauth-1.0a` package: it only signs, so this driver does the
 * HTTP with fetch and places the protocol parameters itself (RFC 5849 §3.5): the header
 * (oauth.toHeader), the form body or the query. Runs the three-step flow against a
 * Latchkey-shaped server, then calls /api/me with the awkward parameters.
 *
 * Usage: node node-oauth-1.0a.ts BASE_URL; environment as in test/interop/README.md.
 * Signature methods are whatever hash_function computes: here HMAC-SHA1/256/512, RSA-SHA1
 * and PLAINTEXT (the library's default function returns the key).
 * The library parses a query it finds in request.url (OAuth.prototype.deParam) without
 * decoding the names, then encodes them again: a name that needs percent-encoding is
 * signed double-encoded and fails. It also decodes values with decodeURIComponent, which
 * leaves a "+" as a plus, so the query here is written with the library's own
 * percentEncode (a space as %20), never URLSearchParams.
 */
import { createHmac, createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import OAuth from 'oauth-1.0a';
import { emit, meResult, readLine, readSettings, runMain } from './node-driver-io.ts';
import type { Pair } from './node-driver-io.ts';

runMain(async () => {
  const s = readSettings();
  const privateKey =
    s.method === 'RSA-SHA1' ? createPrivateKey(readFileSync(s.privateKeyFile, 'utf8')) : undefined;
  const hmac = (digest: string) => (base: string, key: string) =>
    createHmac(digest, key).update(base).digest('base64');
  const hashFunctions: Record<string, OAuth.HashFunction> = {
    'HMAC-SHA1': hmac('sha1'),
    'HMAC-SHA256': hmac('sha256'),
    'HMAC-SHA512': hmac('sha512'),
    'RSA-SHA1': (base) => sign('sha1', Buffer.from(base), privateKey!).toString('base64'),
    PLAINTEXT: (_base, key) => key,
  };
  const oauth = new OAuth({
    consumer: { key: s.key, secret: s.secret },
    signature_method: s.method,
    hash_function: hashFunctions[s.method]!,
  });
  const encode = (pairs: Iterable<readonly [string, string]>) =>
    [...pairs].map(([n, v]) => `${oauth.percentEncode(n)}=${oauth.percentEncode(v)}`).join('&');

  /** Signs and sends; `data` holds protocol extras and form fields (a repeated name as an array). */
  async function send(
    method: 'GET' | 'POST',
    path: string,
    options: { query?: Pair[]; form?: Pair[]; oauth?: Record<string, string>; token?: OAuth.Token },
  ) {
    const query = encode(options.query ?? []);
    let url = `${s.base}${path}${query === '' ? '' : `?${query}`}`;
    const data: OAuth.Param = { ...options.oauth };
    for (const [name, value] of options.form ?? []) {
      const present = data[name];
      data[name] =
        present === undefined
          ? value
          : Array.isArray(present)
            ? [...present, value]
            : [present, value];
    }
    const signed = oauth.authorize({ url, method, data }, options.token);
    // authorize() merges the request's data into what it returns; keep only the oauth_* ones.
    const protocol = Object.entries(signed).filter(([name]) => name.startsWith('oauth_')) as [
      string,
      string,
    ][];
    const headers: Record<string, string> = {};
    let body = encode(options.form ?? []);
    if (s.transmission === 'header') {
      headers.Authorization = oauth.toHeader(signed).Authorization;
    } else if (s.transmission === 'body') {
      body = [body, encode(protocol)].filter((part) => part !== '').join('&');
    } else {
      url += `${query === '' ? '?' : '&'}${encode(protocol)}`;
    }
    if (method === 'POST') headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method, headers, body: method === 'POST' ? body : null });
    return { status: response.status, text: await response.text() };
  }

  function fields(reply: { status: number; text: string }, what: string) {
    if (reply.status !== 200) throw new Error(`${what} failed: ${reply.status} ${reply.text}`);
    return new URLSearchParams(reply.text);
  }

  let credentials: OAuth.Token;
  if (s.token === undefined) {
    const temporary = fields(
      await send('POST', '/oauth/request_token', {
        oauth: { oauth_callback: 'oob' },
        form: s.scope === '' ? [] : [['scope', s.scope]],
      }),
      'temporary credential request',
    );
    emit({ step: 'temporary', token: temporary.get('oauth_token') });

    const verifier = await readLine();
    const token = fields(
      await send('POST', '/oauth/access_token', {
        oauth: { oauth_verifier: verifier },
        token: { key: temporary.get('oauth_token')!, secret: temporary.get('oauth_token_secret')! },
      }),
      'token request',
    );
    credentials = { key: token.get('oauth_token')!, secret: token.get('oauth_token_secret')! };
  } else {
    credentials = { key: s.token.token, secret: s.token.secret };
  }
  emit({ step: 'token', token: credentials.key });

  let get = null;
  if (s.transmission !== 'body') {
    // §3.5.2: body transmission needs a form body; a GET has none.
    const reply = await send('GET', '/api/me', { query: s.query, token: credentials });
    get = meResult(reply.status, reply.text);
  }
  const reply = await send('POST', '/api/me', { form: s.form, token: credentials });
  emit({ step: 'me', get, post: meResult(reply.status, reply.text) });
});
