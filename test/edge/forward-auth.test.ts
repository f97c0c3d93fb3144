// The forward-auth endpoint over real HTTP, in each edge's header shape (nginx, Caddy and
// Traefik, Envoy), and attacked: untrusted peers, odd targets, a flood.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { SignOptions } from '../../src/client/index.ts';
import { ask, startLatchkey } from './support.ts';
import type { EdgeLatchkey } from './support.ts';

const ORIGIN = 'https://api.example.test';

describe('forward-auth: the original request rebuilt from the edge, verified as the gateway would', () => {
  let latchkey: EdgeLatchkey;

  before(async () => {
    latchkey = await startLatchkey();
  });
  after(async () => {
    await latchkey.close();
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
      url: ORIGIN + path,
    });
  }

  /** The original target of a signed URL: path and query as sent. */
  const targetOf = (url: string) => url.slice(ORIGIN.length);

  /** nginx: X-Original-URI / X-Original-Method, the host and scheme forwarded. */
  function nginx(signed: ReturnType<typeof sign>, extra: Record<string, string> = {}) {
    return ask({
      port: latchkey.port,
      path: '/auth/verify',
      headers: {
        'x-original-uri': targetOf(signed.url),
        'x-original-method': signed.method,
        'x-forwarded-host': 'api.example.test',
        'x-forwarded-proto': 'https',
        ...signed.headers,
        ...extra,
      },
    });
  }

  it("answers the edge with the client's RateLimit-* fields, for the edge to pass on", async () => {
    const answer = await nginx(sign({ path: '/photos?rate=1' }));
    assert.equal(answer.status, 200, answer.body);
    assert.match(String(answer.headers['ratelimit-limit']), /^\d+$/);
    const remaining = Number(answer.headers['ratelimit-remaining']);
    assert.ok(remaining >= 0 && remaining < Number(answer.headers['ratelimit-limit']));
    assert.ok(Number(answer.headers['ratelimit-reset']) >= 1);
  });

  it('nginx: a header-signed request is 200 with the identity headers, and its replay is 401', async () => {
    const signed = sign({ path: '/photos?size=large' });
    const first = await nginx(signed);
    assert.equal(first.status, 200, first.body);
    assert.equal(first.headers['x-oauth-client'], latchkey.client.key);
    assert.equal(first.headers['x-oauth-owner'], 'user-42');
    assert.equal(first.headers['x-oauth-owner-name'], encodeURIComponent('Zoë Ådams'));
    assert.equal(first.headers['x-oauth-scope'], 'read');
    assert.equal(first.headers['cache-control'], 'no-store');

    const replay = await nginx(signed);
    assert.equal(replay.status, 401);
    assert.match(replay.body, /oauth_problem=nonce_used/);
    assert.match(String(replay.headers['www-authenticate']), /^OAuth realm=/);
    assert.equal(replay.headers['x-oauth-problem'], replay.body);
    assert.equal(replay.headers['x-oauth-status'], '401');
  });

  it('Traefik and Caddy: X-Forwarded-Method/Proto/Host/Uri with a query-signed request', async () => {
    const signed = sign({ path: '/photos/7?tag=a%20b', method: 'DELETE', transmission: 'query' });
    const answer = await ask({
      port: latchkey.port,
      path: '/auth/verify',
      headers: {
        'x-forwarded-method': 'DELETE',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example.test',
        'x-forwarded-uri': targetOf(signed.url),
        'x-forwarded-for': '203.0.113.9',
      },
    });
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.headers['x-oauth-owner'], 'user-42');
  });

  it('a signature made for another host or scheme is refused: the edge names what the client used', async () => {
    const signed = sign({ path: '/photos' });
    const answer = await nginx(signed, { 'x-forwarded-proto': 'http' });
    assert.equal(answer.status, 401);
    assert.match(answer.body, /oauth_problem=signature_invalid/);
  });

  it('Envoy: the original path after the prefix, the method and headers as sent, a form body passed on', async () => {
    const signed = sign({
      path: '/photos?album=1',
      method: 'POST',
      transmission: 'body',
      body: new URLSearchParams({ caption: 'sun & sea' }),
    });
    const answer = await ask({
      port: latchkey.port,
      method: 'POST',
      path: `/auth/verify${targetOf(signed.url)}`,
      headers: { ...signed.headers, host: 'api.example.test', 'x-forwarded-proto': 'https' },
      body: Buffer.from(signed.body as string),
    });
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.headers['x-oauth-scope'], 'read');
  });

  it('a form body the edge did not pass is a clear problem; for nginx a 401 carrying the true status', async () => {
    const signed = sign({
      path: '/photos',
      method: 'POST',
      body: new URLSearchParams({ caption: 'x' }),
    });
    const headers = {
      'x-forwarded-method': 'POST',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.test',
      'x-forwarded-uri': '/photos',
      ...signed.headers,
    };
    const caddy = await ask({ port: latchkey.port, path: '/auth/verify', headers });
    assert.equal(caddy.status, 400);
    assert.match(caddy.body, /oauth_problem=parameter_absent/);
    assert.match(caddy.body, /with_request_body/);

    const viaNginx = await nginx(signed);
    assert.equal(viaNginx.status, 401, 'nginx passes on only 401 and 403');
    assert.equal(viaNginx.headers['x-oauth-status'], '400');
    assert.match(String(viaNginx.headers['x-oauth-problem']), /oauth_problem=parameter_absent/);
  });

  it('the rules decide as in the gateway: public, client, token, scope', async () => {
    const open = await ask({
      port: latchkey.port,
      path: '/auth/verify',
      headers: { 'x-original-uri': '/public/logo.png', 'x-original-method': 'GET' },
    });
    assert.equal(open.status, 200);
    assert.equal(open.headers['x-oauth-client'], '', 'no caller on a public path');
    assert.equal(open.headers['x-oauth-owner'], '');

    const twoLegged = await nginx(sign({ path: '/status', withToken: false }));
    assert.equal(twoLegged.status, 200, twoLegged.body);
    assert.equal(twoLegged.headers['x-oauth-client'], latchkey.client.key);
    assert.equal(twoLegged.headers['x-oauth-owner'], '');

    const needsToken = await nginx(sign({ path: '/photos', withToken: false }));
    assert.equal(needsToken.status, 401);

    const needsScope = await nginx(sign({ path: '/admin/users' }));
    assert.equal(needsScope.status, 403);
    assert.match(needsScope.body, /oauth_problem=permission_denied/);

    // `..` resolved before the rules: /public/../admin is /admin, not public.
    const dotted = await nginx(sign({ path: '/public/../admin/users' }));
    assert.equal(dotted.status, 403, dotted.body);
    // And an unsigned one gets no pass through the public rule either.
    const unsigned = await ask({
      port: latchkey.port,
      path: '/auth/verify',
      headers: { 'x-original-uri': '/public/../admin/users' },
    });
    assert.equal(unsigned.status, 401);
  });

  it('a path that requires a body hash is refused when the edge did not pass the body', async () => {
    const json = '{"name":"photo.jpg"}';
    const unhashed = sign({
      path: '/uploads/1',
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: json,
    });
    // nginx never passes the body: a tampered one would go through unseen.
    const viaNginx = await nginx(unhashed);
    assert.equal(viaNginx.status, 401, viaNginx.body);
    assert.equal(viaNginx.headers['x-oauth-status'], '400');
    assert.match(String(viaNginx.headers['x-oauth-problem']), /oauth_problem=parameter_absent/);
    assert.match(
      decodeURIComponent(viaNginx.body.replaceAll('+', ' ')),
      /requires oauth_body_hash/,
    );

    // Envoy passes it: hashed, it verifies; a tampered one does not.
    const hashed = sign({
      path: '/uploads/1',
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: json,
      bodyHash: true,
    });
    const envoy = (body: string) =>
      ask({
        port: latchkey.port,
        method: 'PUT',
        path: '/auth/verify/uploads/1',
        headers: { ...hashed.headers, host: 'api.example.test', 'x-forwarded-proto': 'https' },
        body,
      });
    const tampered = await envoy(json.replace('photo', 'other'));
    assert.equal(tampered.status, 401);
    assert.match(tampered.body, /oauth_problem=body_hash_invalid/);
    const kept = await envoy(json);
    assert.equal(kept.status, 200, kept.body);
  });

  it('odd targets are refused with a problem, never a 500', async () => {
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['fragment', { 'x-original-uri': '/photos#top' }, /fragment/],
      ['no slash', { 'x-original-uri': 'photos' }, /starting with/],
      ['encoded slash', { 'x-original-uri': '/public%2F..%2Fadmin' }, /encoded/],
      ['oversized', { 'x-original-uri': `/${'a'.repeat(9000)}` }, /longer than/],
      ['bad method', { 'x-original-uri': '/photos', 'x-original-method': 'GE T' }, /method/],
      ['nothing said', {}, /did not say/],
    ];
    for (const [name, headers, message] of cases) {
      const answer = await ask({ port: latchkey.port, path: '/auth/verify', headers });
      assert.ok([400, 401].includes(answer.status), `${name}: ${answer.status}`);
      assert.match(answer.body, /oauth_problem=parameter_/, name);
      assert.match(decodeURIComponent(answer.body.replaceAll('+', ' ')), message, name);
      assert.ok(Number(answer.headers['x-oauth-status']) < 500, name);
    }
  });

  it('a flood from one address is answered, each refused, and the edge still verifies after it', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        ask({
          port: latchkey.port,
          path: '/auth/verify',
          headers: {
            'x-original-uri': `/photos/${index}`,
            authorization: `OAuth oauth_consumer_key="${latchkey.client.key}", oauth_signature_method="HMAC-SHA1", oauth_timestamp="${Math.floor(Date.now() / 1000)}", oauth_nonce="n${index}", oauth_signature="forged"`,
          },
        }),
      ),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([401]));
    const after = await nginx(sign({ path: '/photos' }));
    assert.equal(after.status, 200);
  });
});

describe('forward-auth: only the trusted edges may describe a request', () => {
  let latchkey: EdgeLatchkey;

  before(async () => {
    latchkey = await startLatchkey({ trustedEdges: ['127.0.0.2'] });
  });
  after(async () => {
    await latchkey.close();
  });

  it('forged X-Original-* from an untrusted address: 403, and the request is not spent', async () => {
    const signed = signRequest({
      method: 'GET',
      url: `${ORIGIN}/photos`,
      client: latchkey.client,
      token: { token: latchkey.token.token, secret: latchkey.token.secret },
    });
    const headers = {
      'x-original-uri': '/photos',
      'x-original-method': 'GET',
      'x-forwarded-host': 'api.example.test',
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '127.0.0.2',
      ...signed.headers,
    };
    const stranger = await ask({ port: latchkey.port, path: '/auth/verify', headers });
    assert.equal(stranger.status, 403);
    assert.match(stranger.body, /oauth_problem=permission_denied/);
    assert.match(decodeURIComponent(stranger.body), /trusted edge/);
    assert.equal(stranger.headers['x-oauth-client'], undefined);

    // The nonce was not consumed: the trusted edge still gets the verdict.
    const edge = await ask({
      port: latchkey.port,
      path: '/auth/verify',
      headers,
      localAddress: '127.0.0.2',
    });
    assert.equal(edge.status, 200, edge.body);
    assert.equal(edge.headers['x-oauth-owner'], 'user-42');
  });

  it('a flood from an untrusted address is refused without verifying anything', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        ask({ port: latchkey.port, path: '/auth/verify', headers: { 'x-original-uri': '/' } }),
      ),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([403]));
  });
});

describe('forward-auth: a Basic LTI launch path, with the body Envoy passes on', () => {
  let latchkey: EdgeLatchkey;

  before(async () => {
    latchkey = await startLatchkey({ rules: [{ path: '/lti/*', methods: ['POST'], lti: true }] });
  });
  after(async () => {
    await latchkey.close();
  });

  const launch = () =>
    signRequest({
      method: 'POST',
      url: `${ORIGIN}/lti/launch`,
      client: latchkey.client,
      transmission: 'body',
      body: new URLSearchParams([
        ['lti_message_type', 'basic-lti-launch-request'],
        ['lti_version', 'LTI-1p0'],
        ['resource_link_id', 'rl-42'],
        ['user_id', 'u-1001'],
        ['roles', 'Instructor'],
        ['context_title', 'Café 101'],
      ]),
    });

  it('a verified launch answers the launch headers; without its body, a clear problem', async () => {
    const signed = launch();
    const envoy = await ask({
      port: latchkey.port,
      method: 'POST',
      path: '/auth/verify/lti/launch',
      headers: { ...signed.headers, host: 'api.example.test', 'x-forwarded-proto': 'https' },
      body: Buffer.from(signed.body as string),
    });
    assert.equal(envoy.status, 200, envoy.body);
    assert.equal(envoy.headers['x-lti-user-id'], 'u-1001');
    assert.equal(envoy.headers['x-lti-context-title'], 'Caf%C3%A9%20101');
    assert.equal(envoy.headers['x-oauth-client'], latchkey.client.key);

    const nginx = await ask({
      port: latchkey.port,
      method: 'POST',
      path: '/auth/verify',
      headers: {
        'x-original-uri': '/lti/launch',
        'x-original-method': 'POST',
        'x-forwarded-host': 'api.example.test',
        'x-forwarded-proto': 'https',
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
    assert.equal(nginx.status, 401);
    assert.equal(nginx.headers['x-oauth-status'], '400');
    assert.match(nginx.body, /oauth_problem=parameter_absent/);
  });
});
