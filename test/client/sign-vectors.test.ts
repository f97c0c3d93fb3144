// With a fixed nonce and timestamp the SDK reproduces the signatures printed in RFC 5849 §1.2
// and in OAuth Core 1.0a Appendix A.5 (test/vectors/rfc5849.json).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { parseAuthorizationHeader } from '../../src/protocol/index.ts';
import { vectors, walkthroughRequest } from '../vectors/rfc5849.ts';
import type { SignedRequestVector } from '../vectors/rfc5849.ts';

const { client, temporary, token, verifier } = vectors.walkthrough.credentials;

function signatureOf(headers: Readonly<Record<string, string>>): string | undefined {
  const header = parseAuthorizationHeader(headers['Authorization'] ?? '');
  return new Map(header?.parameters).get('oauth_signature');
}

function describeReproduction(
  vector: SignedRequestVector,
  options: Omit<Parameters<typeof signRequest>[0], 'method' | 'url' | 'client'>,
) {
  describe(`the SDK reproduces: ${vector.title}`, () => {
    const given = new Map(vector.protocolParameters);
    const signed = signRequest({
      method: vector.method,
      url: vector.url,
      client,
      nonce: given.get('oauth_nonce'),
      timestamp: given.get('oauth_timestamp'),
      includeVersion: given.has('oauth_version'),
      realm: 'Photos',
      ...options,
    });

    it('signs the printed base string', () => {
      assert.equal(signed.baseString, vector.baseString);
    });

    it('sends the printed signature', () => {
      assert.equal(signatureOf(signed.headers), vector.signature);
    });
  });
}

describeReproduction(walkthroughRequest('temporary credential request'), {
  protocolParameters: { oauth_callback: 'http://printer.example.com/ready' },
});
describeReproduction(walkthroughRequest('token request'), {
  token: temporary,
  protocolParameters: { oauth_verifier: verifier },
});
describeReproduction(walkthroughRequest('protected resource request'), { token });
describeReproduction(vectors.appendixA, { token });
