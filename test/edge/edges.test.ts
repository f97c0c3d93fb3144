// Real nginx and real Caddy in front of a recording upstream, configured with docs/edge.md's
// blocks as written (ports filled in), asking Latchkey's forward-auth about each request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { SignOptions } from '../../src/client/index.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';
import { requirement } from '../support/requirements.ts';
import { ask, startLatchkey } from './support.ts';
import type { EdgeLatchkey } from './support.ts';
import { binaryProblem, CADDY, NGINX, startCaddy, startNginx } from './edge-processes.ts';
import type { RunningEdge } from './edge-processes.ts';

const IDENTITY = ['x-oauth-client', 'x-oauth-owner', 'x-oauth-owner-name', 'x-oauth-scope'];

const edges = [
  // What the API receives for a header Latchkey answered empty (docs/edge.md): nginx's
  // proxy_set_header sends none, Caddy's copy_headers sends it empty.
  { name: 'nginx', binary: NGINX, version: '-v', start: startNginx, empty: undefined },
  { name: 'Caddy', binary: CADDY, version: 'version', start: startCaddy, empty: '' },
] as const;

for (const edge of edges) {
  const skip = requirement(edge.name, binaryProblem(edge.binary, edge.version));

  describe(`${edge.name} with the config of docs/edge.md, asking Latchkey`, { skip }, () => {
    let latchkey: EdgeLatchkey;
    let upstream: EchoUpstream;
    let running: RunningEdge;

    before(async () => {
      latchkey = await startLatchkey();
      upstream = await startEchoUpstream();
      running = await edge.start(latchkey.port, Number(new URL(upstream.url).port));
    });
    after(async () => {
      await running?.stop();
      await upstream?.close();
      await latchkey?.close();
    });

    function sign(options: Partial<SignOptions> & { path: string; withToken?: boolean }) {
      const { path, withToken, ...rest } = options;
      return signRequest({
        method: 'GET',
        client: latchkey.client,
        token:
          withToken === false
            ? undefined
            : { token: latchkey.token.token, secret: latchkey.token.secret },
        ...rest,
        url: `http://127.0.0.1:${running.port}${path}`,
      });
    }

    /** Sends a signed request through the edge, byte for byte, with extra (forged) headers. */
    function through(signed: ReturnType<typeof sign>, extra: Record<string, string> = {}) {
      const url = new URL(signed.url);
      return ask({
        port: running.port,
        method: signed.method,
        path: signed.url.slice(url.origin.length),
        headers: { ...signed.headers, ...extra },
        ...(signed.body === undefined ? {} : { body: Buffer.from(signed.body as string) }),
      });
    }

    /** The identity headers the upstream received last, by name. */
    function identityReceived(): Record<string, string | undefined> {
      const last = upstream.received.at(-1)!;
      const seen: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(last.headers)) {
        if (/^x[-_]oauth[-_]/i.test(name)) seen[name] = String(value);
      }
      return seen;
    }

    const forged = {
      'X-OAuth-Owner': 'admin',
      'X-OAuth-Scope': 'write admin',
      'X-OAuth-Client': 'someone-else',
    };

    it('a header-signed request reaches the API with the identity headers, forged ones replaced', async () => {
      const before = upstream.received.length;
      const answer = await through(sign({ path: '/photos?size=large' }), forged);
      assert.equal(answer.status, 200, answer.body);
      assert.equal(upstream.received.length, before + 1);
      assert.equal(upstream.received.at(-1)!.url, '/photos?size=large');
      assert.deepEqual(identityReceived(), {
        'x-oauth-client': latchkey.client.key,
        'x-oauth-owner': 'user-42',
        'x-oauth-owner-name': encodeURIComponent('Zoë Ådams'),
        'x-oauth-scope': 'read',
      });
    });

    it('a query-signed request reaches the API with the identity headers', async () => {
      const answer = await through(sign({ path: '/photos/7?tag=blue', transmission: 'query' }));
      assert.equal(answer.status, 200, answer.body);
      assert.match(upstream.received.at(-1)!.url, /^\/photos\/7\?tag=blue&oauth_consumer_key=/);
      assert.equal(identityReceived()['x-oauth-owner'], 'user-42');
    });

    it('a two-legged request on a client path: the client only, no forged owner or scope', async () => {
      const answer = await through(sign({ path: '/status', withToken: false }), {
        ...forged,
        X_OAuth_Owner: 'admin',
      });
      assert.equal(answer.status, 200, answer.body);
      const expected: Record<string, string> = { 'x-oauth-client': latchkey.client.key };
      if (edge.empty !== undefined) {
        for (const name of IDENTITY.slice(1)) expected[name] = edge.empty;
      }
      assert.deepEqual(identityReceived(), expected);
    });

    it('a public path passes unsigned, without identity, whatever the client claims', async () => {
      const answer = await ask({ port: running.port, path: '/public/logo.png', headers: forged });
      assert.equal(answer.status, 200, answer.body);
      const expected: Record<string, string> = {};
      if (edge.empty !== undefined) for (const name of IDENTITY) expected[name] = edge.empty;
      assert.deepEqual(identityReceived(), expected);
    });

    it("a replay gets the edge's 401 with Latchkey's problem, and never reaches the API", async () => {
      const signed = sign({ path: '/photos' });
      assert.equal((await through(signed)).status, 200);
      const before = upstream.received.length;
      const replay = await through(signed);
      assert.equal(replay.status, 401);
      assert.match(replay.body, /oauth_problem=nonce_used/);
      // Once: nginx copies it from the sub-request, and must not add it twice.
      assert.equal(
        replay.headers['www-authenticate'],
        'OAuth realm="Latchkey", oauth_problem="nonce_used"',
      );
      assert.equal(upstream.received.length, before);
    });

    it("a bad signature or forged identity alone: 401 with Latchkey's problem, the API untouched", async () => {
      const before = upstream.received.length;
      const signed = sign({ path: '/photos?size=large' });
      const tampered = await through({ ...signed, url: signed.url.replace('large', 'small') });
      assert.equal(tampered.status, 401);
      assert.match(tampered.body, /oauth_problem=signature_invalid/);
      assert.match(String(tampered.headers['www-authenticate']), /^OAuth realm="/);
      assert.match(String(tampered.headers['content-type']), /application\/x-www-form-urlencoded/);

      const unsigned = await ask({ port: running.port, path: '/photos', headers: forged });
      assert.equal(unsigned.status, 401);
      assert.match(unsigned.body, /oauth_problem=parameter_absent/);
      assert.equal(upstream.received.length, before);
    });

    it('a missing scope is 403, and a form body the edge cannot pass is a clear 400', async () => {
      const forbidden = await through(sign({ path: '/admin/users' }));
      assert.equal(forbidden.status, 403);
      assert.match(forbidden.body, /oauth_problem=permission_denied/);

      const form = await through(
        sign({ path: '/photos', method: 'POST', body: new URLSearchParams({ caption: 'x' }) }),
      );
      assert.equal(form.status, 400, form.body);
      assert.match(form.body, /oauth_problem=parameter_absent/);
      assert.match(decodeURIComponent(form.body.replaceAll('+', ' ')), /Authorization header/);
    });
  });
}
