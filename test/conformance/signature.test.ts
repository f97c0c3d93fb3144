// RFC 5849 §3.4: the signature covers the method, the base string URI (scheme, host, port,
// path), the query, a form body and every protocol parameter, keyed by both secrets
// (HMAC-SHA1) or the client's RSA key (RSA-SHA1). Changing any one of them after signing
// makes the request fail with signature_invalid. PLAINTEXT covers only the two secrets, so
// for it the same changes must still verify (§3.4.4).
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { Client } from '../../src/store/index.ts';
import { send } from './support/http.ts';
import { eachCombination, PATHS, RSA_PUBLIC_KEY, startWorld } from './support/world.ts';
import type { MethodName, SignedCall, World } from './support/world.ts';
import {
  assertOk,
  assertProblem,
  editProtocol,
  remove,
  setValue,
  valueOf,
} from './support/wire.ts';
import type { Wire } from './support/wire.ts';

let world: World;
/** A second client with the same RSA key and its own secret: only its key differs. */
let twin: Client;
before(async () => {
  world = await startWorld();
  twin = await world.server.provider.clients.register({
    name: 'Twin',
    publicKey: RSA_PUBLIC_KEY,
  });
});
after(() => world.close());

const otherPrivateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const otherMethod: Record<MethodName, string> = {
  'HMAC-SHA1': 'HMAC-SHA256',
  'RSA-SHA1': 'RSA-SHA256',
  PLAINTEXT: 'HMAC-SHA1',
};

interface Change {
  readonly part: string;
  readonly wire: () => Wire | Promise<Wire>;
  /** Whether PLAINTEXT, which signs no part of the request, still verifies after it. */
  readonly plaintextStillValid: boolean;
}

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §3.4 the signature covers each signed part (${method}, parameters in the ${transmission})`, () => {
    let token: TokenCredentials;
    let secondToken: TokenCredentials;
    before(async () => {
      token = await world.tokenCredentials(method, transmission);
      secondToken = await world.tokenCredentials(method, transmission);
    });
    const sign = (call: Partial<SignedCall>): Wire =>
      world.sign({ signatureMethod: method, transmission, path: PATHS.me, token, ...call });
    const port = () => world.server.port;
    const edit = (wire: Wire, change: Parameters<typeof editProtocol>[2]) =>
      editProtocol(wire, transmission, change);
    const flipped = (value: string) => (value[0] === 'A' ? 'B' : 'A') + value.slice(1);

    const changes: Change[] = [
      {
        part: 'the HTTP method',
        wire: () => ({ ...sign({}), method: transmission === 'body' ? 'PUT' : 'DELETE' }),
        plaintextStillValid: true,
      },
      {
        part: 'the scheme',
        wire: () => sign({ signedUrl: `https://127.0.0.1:${port()}${PATHS.me}` }),
        plaintextStillValid: true,
      },
      {
        part: 'the host',
        wire: () => sign({ signedUrl: `http://localhost:${port()}${PATHS.me}` }),
        plaintextStillValid: true,
      },
      {
        part: 'the port',
        wire: () => sign({ signedUrl: `http://127.0.0.1:${port() + 1}${PATHS.me}` }),
        plaintextStillValid: true,
      },
      {
        part: 'the path',
        wire: () => {
          const wire = sign({ path: '/api/you' });
          return { ...wire, url: wire.url.replace('/api/you', PATHS.me) };
        },
        plaintextStillValid: true,
      },
      {
        part: 'a query parameter',
        wire: () => {
          const wire = sign({ path: `${PATHS.me}?colour=blue` });
          return { ...wire, url: wire.url.replace('colour=blue', 'colour=red') };
        },
        plaintextStillValid: true,
      },
      {
        part: 'a form parameter',
        wire: () => {
          const wire = sign({ httpMethod: 'POST', body: new URLSearchParams({ colour: 'blue' }) });
          return { ...wire, body: String(wire.body).replace('colour=blue', 'colour=red') };
        },
        plaintextStillValid: true,
      },
      {
        part: 'oauth_consumer_key',
        // Two-legged, so the token's owner does not decide the answer; the twin has the same
        // RSA key, so only the key itself differs for RSA-SHA1.
        wire: () => edit(sign({ token: undefined }), setValue('oauth_consumer_key', twin.key)),
        plaintextStillValid: false,
      },
      {
        part: 'oauth_token',
        wire: () => edit(sign({}), setValue('oauth_token', secondToken.token)),
        plaintextStillValid: false,
      },
      {
        part: 'oauth_signature_method',
        wire: () => edit(sign({}), setValue('oauth_signature_method', otherMethod[method])),
        plaintextStillValid: false,
      },
      {
        part: 'oauth_timestamp',
        wire: () => {
          const wire = sign({});
          const timestamp = Number(valueOf(wire, transmission, 'oauth_timestamp'));
          return edit(wire, setValue('oauth_timestamp', String(timestamp - 1)));
        },
        plaintextStillValid: true,
      },
      {
        part: 'oauth_nonce',
        wire: () => edit(sign({}), setValue('oauth_nonce', 'another-nonce-entirely')),
        plaintextStillValid: true,
      },
      {
        part: 'oauth_version',
        wire: () => edit(sign({}), remove('oauth_version')),
        plaintextStillValid: true,
      },
      {
        part: 'oauth_signature',
        wire: () => {
          const wire = sign({});
          const signature = valueOf(wire, transmission, 'oauth_signature');
          return edit(wire, setValue('oauth_signature', flipped(signature)));
        },
        plaintextStillValid: false,
      },
      {
        part: 'oauth_callback (temporary credential request)',
        wire: () =>
          edit(
            sign({
              path: PATHS.requestToken,
              httpMethod: 'POST',
              token: undefined,
              protocolParameters: { oauth_callback: 'oob' },
            }),
            setValue('oauth_callback', 'myapp://authorized'),
          ),
        plaintextStillValid: true,
      },
    ];
    if (method === 'RSA-SHA1') {
      changes.push({
        part: 'the private key (another RSA key signs)',
        wire: () => sign({ client: { key: world.rsaClient.key, privateKey: otherPrivateKey } }),
        plaintextStillValid: false,
      });
    } else {
      changes.push(
        {
          part: 'the client secret',
          wire: () => sign({ client: { key: world.sharedClient.key, secret: 'not-the-secret' } }),
          plaintextStillValid: false,
        },
        {
          part: 'the token secret',
          wire: () => sign({ token: { token: token.token, secret: 'not-the-secret' } }),
          plaintextStillValid: false,
        },
      );
    }

    it('verifies the unaltered request (the baseline for the changes below)', async () => {
      assertOk(await send(sign({})));
    });

    for (const change of changes) {
      if (method === 'PLAINTEXT' && change.plaintextStillValid) {
        it(`PLAINTEXT does not cover ${change.part}: the request still verifies`, async () => {
          assertOk(await send(await change.wire()));
        });
      } else {
        it(`refuses the request with signature_invalid after changing ${change.part}`, async () => {
          assertProblem(await send(await change.wire()), 401, 'signature_invalid');
        });
      }
    }

    it(
      method === 'PLAINTEXT'
        ? 'PLAINTEXT does not cover oauth_verifier: a changed verifier fails as verifier_invalid'
        : 'refuses a token request with signature_invalid after changing oauth_verifier',
      async () => {
        const temporary = await world.temporary(method, transmission);
        const verifier = await world.approve(temporary);
        const wire = world.sign({
          signatureMethod: method,
          transmission,
          path: PATHS.accessToken,
          httpMethod: 'POST',
          token: temporary,
          protocolParameters: { oauth_verifier: verifier },
        });
        const answer = await send(edit(wire, setValue('oauth_verifier', flipped(verifier))));
        assertProblem(
          answer,
          401,
          method === 'PLAINTEXT' ? 'verifier_invalid' : 'signature_invalid',
        );
      },
    );

    if (method === 'RSA-SHA1') {
      it('RSA-SHA1 uses no shared secret: a wrong token secret still verifies (§3.4.3)', async () => {
        assertOk(await send(sign({ token: { token: token.token, secret: 'ignored' } })));
      });
    }
  });
}
