// RFC 5849 §3.4.4: PLAINTEXT sends the secrets themselves and needs TLS; §2.1 and §2.3: the
// flow endpoints return secrets as plain text and need a secure channel. Latchkey decides by
// the connection: TLS, or a connection that arrived on a loopback address (its local
// address is 127.0.0.0/8 or ::1), or an operator's explicit --insecure-http. These tests
// listen on a real non-loopback interface of this machine so the server sees such a
// connection; they skip (fail under CI) where the machine has none.
import { after, before, describe, it } from 'node:test';
import { requirement } from '../support/requirements.ts';
import { nonLoopbackAddress, selfSignedCertificate } from './support/network.ts';
import { PATHS, startWorld, TRANSMISSIONS } from './support/world.ts';
import type { World } from './support/world.ts';
import { assertOk, assertProblem } from './support/wire.ts';

const { address, problem: noAddress } = nonLoopbackAddress();
const { certificate, problem: noCertificate } = selfSignedCertificate();
const skipPlain = requirement('a non-loopback interface', noAddress);
const skipTls = requirement('a non-loopback interface and openssl', noAddress ?? noCertificate);

describe('RFC 5849 §3.4.4 and §2.1: plain HTTP off loopback', { skip: skipPlain }, () => {
  let world: World;
  before(async () => {
    world = await startWorld({ host: address });
  });
  after(() => world.close());

  for (const transmission of TRANSMISSIONS) {
    it(`refuses PLAINTEXT on a protected resource with 400 signature_method_rejected (parameters in the ${transmission})`, async () => {
      const token = await world.server.provider.tokens.issue({
        clientKey: world.sharedClient.key,
        ownerId: world.owner.id,
      });
      assertProblem(
        await world.me('PLAINTEXT', transmission, token),
        400,
        'signature_method_rejected',
      );
    });

    it(`accepts HMAC-SHA1 on a protected resource (parameters in the ${transmission})`, async () => {
      const token = await world.server.provider.tokens.issue({
        clientKey: world.sharedClient.key,
        ownerId: world.owner.id,
      });
      assertOk(await world.me('HMAC-SHA1', transmission, token));
    });

    it(`refuses the temporary credential request with 403 https_required (parameters in the ${transmission})`, async () => {
      const answer = await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission,
        path: PATHS.requestToken,
        httpMethod: 'POST',
        protocolParameters: { oauth_callback: 'oob' },
      });
      assertProblem(answer, 403, 'https_required');
    });

    it(`refuses the token request with 403 https_required (parameters in the ${transmission})`, async () => {
      const answer = await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission,
        path: PATHS.accessToken,
        httpMethod: 'POST',
        token: { token: 'temporary', secret: 'secret' },
        protocolParameters: { oauth_verifier: 'verifier' },
      });
      assertProblem(answer, 403, 'https_required');
    });
  }
});

describe('RFC 5849 §3.4.4: plain HTTP off loopback with insecureHttp', { skip: skipPlain }, () => {
  let world: World;
  before(async () => {
    world = await startWorld({ host: address, app: { insecureHttp: true } });
  });
  after(() => world.close());

  for (const transmission of TRANSMISSIONS) {
    it(`runs the whole flow with PLAINTEXT when the operator allowed insecure HTTP (parameters in the ${transmission})`, async () => {
      const token = await world.tokenCredentials('PLAINTEXT', transmission);
      assertOk(await world.me('PLAINTEXT', transmission, token));
    });
  }
});

describe('RFC 5849 §3.4.4: TLS off loopback', { skip: skipTls }, () => {
  let world: World;
  before(async () => {
    world = await startWorld({ host: address, app: { tls: certificate! } });
  });
  after(() => world.close());

  for (const transmission of TRANSMISSIONS) {
    it(`runs the whole flow with PLAINTEXT over TLS (parameters in the ${transmission})`, async () => {
      const token = await world.tokenCredentials('PLAINTEXT', transmission);
      assertOk(await world.me('PLAINTEXT', transmission, token));
    });
  }
});

describe('RFC 5849 §3.4.4: plain HTTP on loopback', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(() => world.close());

  it('accepts PLAINTEXT and the flow endpoints on 127.0.0.1 (a loopback connection is the secure channel)', async () => {
    const token = await world.tokenCredentials('PLAINTEXT', 'header');
    assertOk(await world.me('PLAINTEXT', 'header', token));
  });
});
