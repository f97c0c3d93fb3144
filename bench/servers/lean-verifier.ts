/**
 * The reference: a lean, hand-written OAuth 1.0a verifier on node:http, as a team would
 * write it in an afternoon. HMAC-SHA1 and RSA-SHA1, parameters in the Authorization header
 * or the query only, secrets and keys in memory, nonces in an in-memory set. It does the
 * checks that matter (window, lookup, constant-time compare, replay) and nothing else.
 * Credentials come in BENCH_CREDENTIALS (JSON).
 */
import { createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { announceReady, portArgument } from './ready.ts';

interface Credentials {
  clients: { key: string; secret: string; rsaPublicKey?: string }[];
  tokens: { token: string; secret: string; clientKey: string }[];
}

const WINDOW = 300;
const credentials = JSON.parse(process.env['BENCH_CREDENTIALS'] ?? '{}') as Credentials;
const clients = new Map<string, { secret: string; publicKey: KeyObject | undefined }>();
for (const c of credentials.clients) {
  const publicKey = c.rsaPublicKey === undefined ? undefined : createPublicKey(c.rsaPublicKey);
  clients.set(c.key, { secret: c.secret, publicKey });
}
const tokens = new Map(credentials.tokens.map((t) => [t.token, t]));

// Two generations of nonces, rotated every window: bounded memory, O(1) checks.
let nonces = new Set<string>();
let previousNonces = new Set<string>();
setInterval(() => {
  previousNonces = nonces;
  nonces = new Set();
}, WINDOW * 1000).unref();

const encode = (s: string) =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
const decode = (s: string) => decodeURIComponent(s.replaceAll('+', ' '));

function fail(response: ServerResponse, status: number, problem: string) {
  response.writeHead(status, { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'OAuth' });
  response.end(`oauth_problem=${problem}`);
}

const server = createServer((request, response) => {
  const url = request.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const params: [string, string][] = [];
  if (q >= 0) {
    for (const part of url.slice(q + 1).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      params.push(
        eq < 0 ? [decode(part), ''] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))],
      );
    }
  }
  const auth = request.headers.authorization;
  if (auth !== undefined && auth.startsWith('OAuth ')) {
    for (const part of auth.slice(6).split(',')) {
      const eq = part.indexOf('=');
      const name = part.slice(0, eq).trim();
      if (name === 'realm') continue;
      params.push([
        decode(name),
        decode(
          part
            .slice(eq + 1)
            .trim()
            .replace(/^"|"$/g, ''),
        ),
      ]);
    }
  }
  const oauth = new Map<string, string>();
  for (const [name, value] of params) if (name.startsWith('oauth_')) oauth.set(name, value);
  const signature = oauth.get('oauth_signature');
  const method = oauth.get('oauth_signature_method');
  const clientKey = oauth.get('oauth_consumer_key') ?? '';
  const tokenKey = oauth.get('oauth_token') ?? '';
  const nonce = oauth.get('oauth_nonce');
  const timestamp = Number(oauth.get('oauth_timestamp'));
  if (signature === undefined || nonce === undefined || !Number.isInteger(timestamp)) {
    return fail(response, 400, 'parameter_absent');
  }
  if (Math.abs(Date.now() / 1000 - timestamp) > WINDOW)
    return fail(response, 401, 'timestamp_refused');
  const client = clients.get(clientKey);
  const token = tokens.get(tokenKey);
  if (client === undefined || (tokenKey !== '' && token?.clientKey !== clientKey)) {
    return fail(response, 401, 'consumer_key_unknown');
  }
  const normalized = params
    .filter(([name]) => name !== 'oauth_signature')
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .sort()
    .join('&');
  const base = `${request.method}&${encode(`http://${request.headers.host}${path}`)}&${encode(normalized)}`;
  let valid = false;
  if (method === 'HMAC-SHA1') {
    const key = `${encode(client.secret)}&${encode(token?.secret ?? '')}`;
    const expected = Buffer.from(createHmac('sha1', key).update(base).digest('base64'));
    const actual = Buffer.from(signature);
    valid = actual.length === expected.length && timingSafeEqual(actual, expected);
  } else if (method === 'RSA-SHA1' && client.publicKey !== undefined) {
    valid = verify('sha1', Buffer.from(base), client.publicKey, Buffer.from(signature, 'base64'));
  }
  if (!valid) return fail(response, 401, 'signature_invalid');
  const nonceKey = `${clientKey}\n${tokenKey}\n${timestamp}\n${nonce}`;
  if (nonces.has(nonceKey) || previousNonces.has(nonceKey))
    return fail(response, 401, 'nonce_used');
  nonces.add(nonceKey);
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify({ client: clientKey, owner: token === undefined ? null : tokenKey }));
});
server.keepAliveTimeout = 60_000;
server.listen(portArgument(), '127.0.0.1', () => announceReady(server.address()));
