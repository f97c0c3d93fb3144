// Errors: whatever a client sends, the answer is never a 5xx, and a bad signature is never
// accepted. fast-check sends arbitrary Authorization headers, query strings and form bodies
// (and signed requests with one byte changed) to the running server as raw bytes, from a
// fixed seed (FUZZ_SEED replays another); bench/faults/fuzz.ts sends a million of them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { TokenCredentials } from '../../src/client/index.ts';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import {
  bodies,
  contentTypes,
  FUZZ_SEED,
  lineSafe,
  rawRequest,
  text,
  withSignatureChanged,
} from './support/fuzz-cases.ts';
import { sendBytes } from './support/raw-socket.ts';

let world: World;
let token: TokenCredentials;
before(async () => {
  // The failure throttle (429 before verification, test/rate-limits) would stop the fuzzing
  // after 600 bad requests a minute: this run is about what verification does with them.
  world = await startWorld({ policy: { failuresPerMinute: 1_000_000_000 } });
  token = await world.tokenCredentials('HMAC-SHA1', 'header');
});
after(() => world.close());

const RUNS = 300;

function request(
  method: string,
  target: Buffer,
  headers: ReadonlyArray<readonly [string, Buffer]>,
  body?: Buffer,
): Buffer {
  return rawRequest(`127.0.0.1:${world.server.port}`, method, target, headers, body);
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
      { numRuns: RUNS, seed: FUZZ_SEED },
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
      { numRuns: RUNS, seed: FUZZ_SEED },
    );
  });

  it('arbitrary form bodies and content types on the flow endpoints', async () => {
    const contentType = contentTypes;
    const path = fc.constantFrom(PATHS.me, PATHS.requestToken, PATHS.accessToken);
    const body = bodies;
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
      { numRuns: RUNS, seed: FUZZ_SEED },
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
      { numRuns: RUNS, seed: FUZZ_SEED },
    );
  });

  it('refuses every signed request whose signature was changed (401, never accepted)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), async (at, pick) => {
        const wire = world.sign({
          signatureMethod: 'HMAC-SHA1',
          transmission: 'header',
          path: `${PATHS.me}?a=1`,
          token,
        });
        const changed = withSignatureChanged(wire.headers['Authorization']!, at, pick);
        const answer = await sendBytes(
          world.server.port,
          request('GET', Buffer.from(`${PATHS.me}?a=1`), [['Authorization', lineSafe(changed)]]),
        );
        assert.equal(answer.status, 401, `${answer.status} for ${changed}`);
      }),
      { numRuns: RUNS, seed: FUZZ_SEED },
    );
  });

  it('still answers a well-formed signed request after the fuzzing', async () => {
    const answer = await world.me('HMAC-SHA1', 'header', token);
    assert.equal(answer.status, 200);
  });
});
