// CONNECT is not a method Latchkey serves: Node hands it to a `connect` listener, and
// without one the socket was closed with no answer at all. A client deserves a status.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';
import { sendBytes } from './support/raw-socket.ts';

const connect = (target: string) =>
  `CONNECT ${target} HTTP/1.1\r\nHost: ${target.startsWith('/') ? 'x' : target}\r\n\r\n`;

function portOf(world: World): number {
  return Number(new URL(world.url).port);
}

for (const mode of ['server', 'gateway'] as const) {
  describe(`CONNECT gets an answer (${mode})`, () => {
    let world: World;
    let upstream: EchoUpstream | undefined;
    before(async () => {
      if (mode === 'gateway') upstream = await startEchoUpstream();
      world = await startWorld(
        upstream === undefined ? {} : { app: { gateway: { upstream: upstream.url } } },
      );
    });
    after(async () => {
      await world.close();
      await upstream?.close();
    });

    for (const target of ['/oauth/access_token', 'example.com:443', '127.0.0.1:22', '*']) {
      it(`answers CONNECT ${target} with 405 and Connection: close`, async () => {
        const answer = await sendBytes(portOf(world), connect(target));
        assert.equal(answer.status, 405);
        assert.match(answer.head, /\r\nconnection: close/i);
        assert.match(answer.head, /\r\nallow: /i);
        assert.match(answer.body, /CONNECT/);
        assert.equal(upstream?.received.length ?? 0, 0, 'nothing reaches the upstream');
      });
    }

    it('still answers other requests afterwards', async () => {
      await sendBytes(portOf(world), connect('example.com:443'));
      const response = await fetch(`${world.url}/healthz`);
      assert.equal(response.status, 200);
    });
  });
}
