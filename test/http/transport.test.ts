// Transport: behind a trusted proxy the base string URI (RFC 5849
// §3.4.1.2) follows Forwarded / X-Forwarded-Proto / X-Forwarded-Host, and only when the
// operator declared the proxy trusted; with TLS the whole flow runs over https.
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { requirement } from '../support/requirements.ts';
import { send } from '../conformance/support/http.ts';
import { nonLoopbackAddress, selfSignedCertificate } from '../conformance/support/network.ts';
import { PATHS, startWorld, TRANSMISSIONS } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertOk, assertProblem } from '../conformance/support/wire.ts';
import type { Wire } from '../conformance/support/wire.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';

const PUBLIC = 'https://api.example.com';

/** A request signed for the public URL the proxy serves, sent with the proxy's headers. */
function viaProxy(world: World, headers: Record<string, string>, signedFor = PUBLIC): Wire {
  const wire = world.sign({
    signatureMethod: 'HMAC-SHA1',
    transmission: 'header',
    path: PATHS.me,
    signedUrl: signedFor + PATHS.me,
  });
  return { ...wire, headers: { ...wire.headers, ...headers } };
}

describe('Transport: a trusted proxy (trustProxy: true)', () => {
  let world: World;
  before(async () => {
    world = await startWorld({ app: { trustProxy: true } });
  });
  after(() => world.close());

  it('verifies a request signed for the https URL named by X-Forwarded-Proto and X-Forwarded-Host', async () => {
    const wire = viaProxy(world, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'api.example.com',
    });
    assertOk(await send(wire));
  });

  it('verifies a request signed for the URL named by Forwarded (RFC 7239)', async () => {
    const wire = viaProxy(world, { Forwarded: 'for=192.0.2.60;proto=https;host=api.example.com' });
    assertOk(await send(wire));
  });

  it('keeps a non-default port the proxy names in X-Forwarded-Host', async () => {
    const wire = viaProxy(
      world,
      { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com:8443' },
      'https://api.example.com:8443',
    );
    assertOk(await send(wire));
  });

  it('takes the first element of Forwarded: the proxy nearest the client', async () => {
    const wire = viaProxy(world, {
      Forwarded: 'proto=https;host=api.example.com, proto=http;host=internal.local',
    });
    assertOk(await send(wire));
  });

  it('refuses a request signed for the inner URL once the proxy names another', async () => {
    const wire = viaProxy(
      world,
      { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com' },
      world.url,
    );
    assertProblem(await send(wire), 401, 'signature_invalid');
  });
});

describe('Transport: no trusted proxy (the default)', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(() => world.close());

  it('ignores X-Forwarded-Proto and X-Forwarded-Host: a request signed for them fails with signature_invalid', async () => {
    const wire = viaProxy(world, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'api.example.com',
    });
    assertProblem(await send(wire), 401, 'signature_invalid');
  });

  it('ignores Forwarded: a request signed for it fails with signature_invalid', async () => {
    const wire = viaProxy(world, { Forwarded: 'proto=https;host=api.example.com' });
    assertProblem(await send(wire), 401, 'signature_invalid');
  });

  it('verifies the request signed for the URL it was really sent to, whatever the headers say', async () => {
    const wire = viaProxy(
      world,
      { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com' },
      world.url,
    );
    assertOk(await send(wire));
  });
});

/**
 * Behind a proxy on the same host every request arrives over loopback, so loopback proves
 * nothing there: with trustProxy only the scheme the proxy forwarded makes a channel secure
 * (RFC 5849 §2.1, §2.3 and §3.4.4 need TLS where secrets travel).
 */
describe('Transport: TLS behind a trusted proxy on loopback (only the forwarded scheme counts)', () => {
  let world: World;
  let upstream: EchoUpstream;
  before(async () => {
    upstream = await startEchoUpstream();
    world = await startWorld({ app: { trustProxy: true, gateway: { upstream: upstream.url } } });
  });
  after(async () => {
    await world.close();
    await upstream.close();
  });

  const flowCall = (path: string, proxyHeaders: Record<string, string>, scheme = 'http') => {
    const exchange = path === PATHS.accessToken;
    const wire = world.sign({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path,
      httpMethod: 'POST',
      signedUrl: `${scheme}://api.example.com${path}`,
      ...(exchange
        ? {
            token: { token: 'temporary', secret: 'secret' },
            protocolParameters: { oauth_verifier: 'v' },
          }
        : { protocolParameters: { oauth_callback: 'oob' } }),
    });
    return send({ ...wire, headers: { ...wire.headers, ...proxyHeaders } });
  };
  const plainHttp = { 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'api.example.com' };

  for (const path of [PATHS.requestToken, PATHS.accessToken]) {
    it(`refuses ${path} with 403 https_required when the proxy forwards X-Forwarded-Proto: http`, async () => {
      assertProblem(await flowCall(path, plainHttp), 403, 'https_required');
    });

    it(`refuses ${path} with 403 https_required when the proxy forwards Forwarded: proto=http`, async () => {
      const answer = await flowCall(path, { Forwarded: 'proto=http;host=api.example.com' });
      assertProblem(answer, 403, 'https_required');
    });

    it(`refuses ${path} with 403 https_required when a trusted proxy names no scheme`, async () => {
      const answer = await flowCall(path, { 'X-Forwarded-Host': 'api.example.com' });
      assertProblem(answer, 403, 'https_required');
    });
  }

  it('answers the temporary credential request when the proxy forwards https', async () => {
    const answer = await flowCall(
      PATHS.requestToken,
      { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com' },
      'https',
    );
    assertOk(answer);
  });

  const plaintext = async (path: string, headers: Record<string, string>) => {
    const token = await world.server.provider.tokens.issue({
      clientKey: world.sharedClient.key,
      ownerId: world.owner.id,
    });
    const wire = world.sign({
      signatureMethod: 'PLAINTEXT',
      transmission: 'header',
      path,
      token: { token: token.token, secret: token.secret },
    });
    return send({ ...wire, headers: { ...wire.headers, ...headers } });
  };

  it('refuses PLAINTEXT on /api/me with 400 signature_method_rejected when the proxy forwards http', async () => {
    assertProblem(await plaintext(PATHS.me, plainHttp), 400, 'signature_method_rejected');
    assertOk(await plaintext(PATHS.me, { 'X-Forwarded-Proto': 'https' }));
  });

  it('refuses PLAINTEXT through the gateway when the proxy forwards http, and forwards nothing', async () => {
    const before = upstream.received.length;
    assertProblem(await plaintext('/orders', plainHttp), 400, 'signature_method_rejected');
    assert.equal(upstream.received.length, before);
    assertOk(await plaintext('/orders', { 'X-Forwarded-Proto': 'https' }));
    assert.equal(upstream.received.length, before + 1);
  });
});

describe('Transport: loopback without a trusted proxy stays the secure channel', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(() => world.close());

  it('answers the flow endpoint on 127.0.0.1 whatever X-Forwarded-Proto says (the header is not trusted)', async () => {
    const wire = world.sign({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.requestToken,
      httpMethod: 'POST',
      protocolParameters: { oauth_callback: 'oob' },
    });
    assertOk(await send({ ...wire, headers: { ...wire.headers, 'X-Forwarded-Proto': 'http' } }));
  });
});

const { address, problem: noAddress } = nonLoopbackAddress();

describe(
  'Transport: X-Forwarded-Proto on plain HTTP off loopback',
  { skip: requirement('a non-loopback interface', noAddress) },
  () => {
    const requestToken = (world: World) => {
      const wire = world.sign({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.requestToken,
        httpMethod: 'POST',
        signedUrl: PUBLIC + PATHS.requestToken,
        protocolParameters: { oauth_callback: 'oob' },
      });
      return send({
        ...wire,
        headers: {
          ...wire.headers,
          'X-Forwarded-Proto': 'https',
          'X-Forwarded-Host': 'api.example.com',
        },
      });
    };

    it('counts as https only from a trusted proxy: the flow endpoint answers', async () => {
      const world = await startWorld({ host: address, app: { trustProxy: true } });
      try {
        assertOk(await requestToken(world));
      } finally {
        await world.close();
      }
    });

    it('is not trusted without trustProxy: the flow endpoint still needs HTTPS', async () => {
      const world = await startWorld({ host: address });
      try {
        assertProblem(await requestToken(world), 403, 'https_required');
      } finally {
        await world.close();
      }
    });
  },
);

const { certificate, problem: noCertificate } = selfSignedCertificate();

describe('Transport: TLS', { skip: requirement('openssl', noCertificate) }, () => {
  let world: World;
  before(async () => {
    world = await startWorld({ app: { tls: certificate! } });
  });
  after(() => world.close());

  it('serves https', () => {
    assert.match(world.url, /^https:\/\//);
  });

  for (const transmission of TRANSMISSIONS) {
    it(`runs the whole flow and /api/me over https with HMAC-SHA1 (parameters in the ${transmission})`, async () => {
      const token = await world.tokenCredentials('HMAC-SHA1', transmission);
      assertOk(await world.me('HMAC-SHA1', transmission, token));
    });
  }

  it('refuses a request signed for http:// when it arrived over https', async () => {
    const wire = world.sign({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      signedUrl: world.url.replace('https:', 'http:') + PATHS.me,
    });
    assertProblem(await send(wire), 401, 'signature_invalid');
  });

  it('advertises https endpoint URIs', async () => {
    const answer = await send({ method: 'GET', url: `${world.url}/.well-known/oauth1-provider` });
    const advertisement = JSON.parse(answer.text) as Record<string, string>;
    assert.equal(advertisement['request_token_endpoint'], `${world.url}/oauth/request_token`);
  });
});

describe('Transport: advertisement behind a trusted proxy', () => {
  let world: World;
  before(async () => {
    world = await startWorld({ app: { trustProxy: true, publicUrl: PUBLIC } });
  });
  after(() => world.close());

  it('advertises the configured public URL, the one the proxy names for signatures', async () => {
    const answer = await send({
      method: 'GET',
      url: `${world.url}/.well-known/oauth1-provider`,
      headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'elsewhere.example' },
    });
    const uri = (JSON.parse(answer.text) as Record<string, string>)['request_token_endpoint'];
    assert.equal(uri, `${PUBLIC}/oauth/request_token`);
    assertOk(await send(viaProxy(world, { Forwarded: 'proto=https;host=api.example.com' })));
  });
});

describe('Transport: default ports named by a trusted proxy', () => {
  let world: World;
  before(async () => {
    world = await startWorld({ app: { trustProxy: true } });
  });
  after(() => world.close());

  it('drops the default port 443 from the base string URI (§3.4.1.2)', async () => {
    const wire = viaProxy(world, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'api.example.com:443',
    });
    assertOk(await send(wire));
  });
});

const hasIpv6Loopback = Object.values(networkInterfaces()).some((entries) =>
  (entries ?? []).some((entry) => entry.family === 'IPv6' && entry.address === '::1'),
);

describe(
  'Transport: IPv6 loopback',
  { skip: requirement('the IPv6 loopback ::1', hasIpv6Loopback ? undefined : 'no ::1') },
  () => {
    let world: World;
    before(async () => {
      world = await startWorld({ host: '::1' });
    });
    after(() => world.close());

    it('runs the flow on [::1] (a bracketed host in the base string URI) with PLAINTEXT allowed', async () => {
      assert.match(world.url, /^http:\/\/\[::1\]:\d+$/);
      const token = await world.tokenCredentials('HMAC-SHA1', 'header');
      assertOk(await world.me('PLAINTEXT', 'header', token));
    });
  },
);
