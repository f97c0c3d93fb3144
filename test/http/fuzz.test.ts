// Errors: whatever a client sends, the answer is never a 5xx. fast-check sends
// arbitrary Authorization headers, query strings and form bodies (and signed requests with
// one byte changed) to the running server as raw bytes, and every answer must be < 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { TokenCredentials } from '../../src/client/index.ts';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { sendBytes } from './support/raw-socket.ts';

let world: World;
let token: TokenCredentials;
before(async () => {
  world = await startWorld();
  token = await world.tokenCredentials('HMAC-SHA1', 'header');
});
after(() => world.close());

const RUNS = 300;

/** Pieces that steer generated text into the parsers' interesting corners. */
const piece = fc.oneof(
  fc.constantFrom(
    'oauth_consumer_key',
    'oauth_token',
    'oauth_signature_method',
    'oauth_signature',
    'oauth_timestamp',
    'oauth_nonce',
    'oauth_version',
    'oauth_callback',
    'oauth_verifier',
    'realm',
    'HMAC-SHA1',
    'PLAINTEXT',
    'RSA-SHA1',
    '1.0',
    '=',
    '"',
    ',',
    '&',
    ' ',
    '\t',
    '%',
    '%2',
    '%zz',
    '%00',
    '%FF',
    '%C3%A9',
    '+',
    '\\',
    'é',
    '\u0000',
    '9999999999999',
  ),
  fc.string({ maxLength: 8 }),
);
const text = fc.array(piece, { maxLength: 24 }).map((parts) => parts.join(''));

/** One byte sequence on a header line or in a request target: no line breaks. */
function lineSafe(value: string): Buffer {
  return Buffer.from(value.replace(/[\r\n]/g, ''), 'utf8');
}

function request(
  method: string,
  target: Buffer,
  headers: ReadonlyArray<readonly [string, Buffer]>,
  body?: Buffer,
): Buffer {
  const lines: Buffer[] = [Buffer.from(`${method} `), target, Buffer.from(' HTTP/1.1\r\n')];
  const all: Array<readonly [string, Buffer]> = [
    ['Host', Buffer.from(`127.0.0.1:${world.server.port}`)],
    ['Connection', Buffer.from('close')],
    ...headers,
  ];
  if (body !== undefined) all.push(['Content-Length', Buffer.from(String(body.length))]);
  for (const [name, value] of all) lines.push(Buffer.from(`${name}: `), value, Buffer.from('\r\n'));
  lines.push(Buffer.from('\r\n'));
  if (body !== undefined) lines.push(body);
  return Buffer.concat(lines);
}

async function statusOf(bytes: Buffer): Promise<number> {
  return (await sendBytes(world.server.port, bytes)).status;
}

describe('Fuzz: no input makes the server answer 5xx', () => {
  it('arbitrary Authorization headers on /api/me', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.constantFrom('OAuth ', 'oauth ', ''), async (value, scheme) => {
        const bytes = request('GET', Buffer.from(PATHS.me), [
          ['Authorization', lineSafe(scheme + value)],
        ]);
        const status = await statusOf(bytes);
        assert.ok(status < 500, `status ${status} for ${JSON.stringify(scheme + value)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('arbitrary query strings on /api/me and the flow endpoints', async () => {
    const path = fc.constantFrom(PATHS.me, PATHS.requestToken, PATHS.accessToken);
    await fc.assert(
      fc.asyncProperty(path, text, async (where, query) => {
        const target = lineSafe(`${where}?${query}`.replace(/[ \t]/g, '%20'));
        const status = await statusOf(request('GET', target, []));
        assert.ok(status < 500, `status ${status} for ${JSON.stringify(query)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('arbitrary form bodies and content types on the flow endpoints', async () => {
    const contentType = fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=UTF-8',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      ';;',
    );
    const path = fc.constantFrom(PATHS.me, PATHS.requestToken, PATHS.accessToken);
    const body = fc.oneof(
      text.map((value) => Buffer.from(value, 'utf8')),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    );
    await fc.assert(
      fc.asyncProperty(path, contentType, body, async (where, type, content) => {
        const bytes = request(
          'POST',
          Buffer.from(where),
          [['Content-Type', Buffer.from(type)]],
          content,
        );
        const status = await statusOf(bytes);
        assert.ok(status < 500, `status ${status} for ${JSON.stringify(content.toString())}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('signed requests with one character of the Authorization header changed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), async (at, char) => {
        const wire = world.sign({
          signatureMethod: 'HMAC-SHA1',
          transmission: 'header',
          path: `${PATHS.me}?a=1`,
          token,
        });
        const header = wire.headers['Authorization']!;
        const index = at % header.length;
        const changed = header.slice(0, index) + char + header.slice(index + 1);
        const bytes = request('GET', Buffer.from(`${PATHS.me}?a=1`), [
          ['Authorization', lineSafe(changed)],
        ]);
        const status = await statusOf(bytes);
        assert.ok(status < 500, `status ${status} for ${JSON.stringify(changed)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('still answers a well-formed signed request after the fuzzing', async () => {
    const answer = await world.me('HMAC-SHA1', 'header', token);
    assert.equal(answer.status, 200);
  });
});
