// The RFC's own examples (test/vectors/rfc5849.json), run through the protocol core the way a
// server reads a request: collect, build the base string, sign and verify.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  baseStringUri,
  collectParameters,
  HMAC_SHA1,
  normalizeParameters,
  parseRsaPublicKey,
  percentDecode,
  percentEncode,
  signatureBaseString,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import type { Parameter } from '../../src/protocol/index.ts';
import { createPrivateKey } from 'node:crypto';
import {
  rsaPrivateKeyPem,
  rsaPublicKeyPem,
  vectors,
  type SignedRequestVector,
} from '../vectors/rfc5849.ts';

const sorted = (pairs: readonly Parameter[]) =>
  [...pairs].sort((a, b) => (a[0] + '\0' + a[1] < b[0] + '\0' + b[1] ? -1 : 1));

describe(vectors.percentEncoding.title, () => {
  for (const { text, encoded } of vectors.percentEncoding.cases) {
    it(`encodes ${JSON.stringify(text)} as ${encoded}`, () => {
      assert.equal(percentEncode(text), encoded);
    });
    it(`decodes ${encoded} back to ${JSON.stringify(text)}`, () => {
      assert.equal(percentDecode(encoded), text);
    });
  }
});

describe(vectors.baseStringUri.title, () => {
  for (const c of vectors.baseStringUri.cases) {
    it(`represents ${c.uri} as ${c.baseStringUri}`, () => {
      assert.equal(baseStringUri(c.scheme, c.host, c.path), c.baseStringUri);
    });
  }
});

describe(vectors.baseStringExample.title, () => {
  const v = vectors.baseStringExample;
  const collect = () =>
    collectParameters({
      authorization: v.request.authorization,
      query: v.request.query,
      body: v.request.body,
      contentType: v.request.contentType,
    });

  it('collects the §3.4.1.3.1 pairs from the query, the header and the form body', () => {
    assert.deepEqual(sorted(collect().signed), sorted(v.parameters));
  });

  it('keeps the realm out of the signed pairs (§3.4.1.3.1)', () => {
    const collected = collect();
    assert.equal(collected.realm, v.realm);
    assert.ok(!collected.signed.some(([name]) => name === 'realm'));
  });

  it('builds the base string URI of §3.4.1.2', () => {
    assert.equal(baseStringUri(v.request.scheme, v.request.host, v.request.path), v.baseStringUri);
  });

  it('normalizes the parameters as §3.4.1.3.2 prints them', () => {
    assert.equal(normalizeParameters(v.parameters), v.normalizedParameters);
  });

  it('builds the base string of §3.4.1.1', () => {
    const { method, scheme, host, path } = v.request;
    assert.equal(
      signatureBaseString({ method, scheme, host, path }, collect().signed),
      v.baseString,
    );
  });
});

describe(vectors.normalization.title, () => {
  for (const c of vectors.normalization.cases) {
    it(`normalizes ${JSON.stringify(c.parameters)} to ${c.normalized}`, () => {
      assert.equal(normalizeParameters(c.parameters), c.normalized);
    });
  }
});

/** What a server does with the RFC's request: collect from header and query, build the base string. */
function serverBaseString(request: SignedRequestVector): string {
  const url = new URL(request.url);
  const collected = collectParameters({
    authorization: request.authorization,
    query: url.search.slice(1),
  });
  return signatureBaseString(
    {
      method: request.method,
      scheme: url.protocol.slice(0, -1),
      host: url.host,
      path: url.pathname,
    },
    collected.signed,
  );
}

function describeSignedRequest(request: SignedRequestVector): void {
  describe(request.title, () => {
    const keys = { clientSecret: request.clientSecret, tokenSecret: request.tokenSecret };

    it('has the base string a server computes from the header and the query', () => {
      assert.equal(serverBaseString(request), request.baseString);
    });

    it('has the printed HMAC-SHA1 signature', () => {
      assert.equal(HMAC_SHA1.sign(request.baseString, keys), request.signature);
    });

    it('verifies with the printed signature', () => {
      assert.equal(HMAC_SHA1.verify(request.baseString, request.signature, keys), true);
    });
  });
}

describe(vectors.walkthrough.title, () => {
  for (const request of vectors.walkthrough.requests) describeSignedRequest(request);
});

describeSignedRequest(vectors.appendixA);

describe(vectors.signatureMethods.title, () => {
  const v = vectors.signatureMethods;
  const registry = new SignatureMethodRegistry();
  const keys = {
    clientSecret: v.clientSecret,
    tokenSecret: v.tokenSecret,
    privateKey: createPrivateKey(rsaPrivateKeyPem),
    publicKey: parseRsaPublicKey(rsaPublicKeyPem),
  };

  for (const [name, expected] of Object.entries(v.signatures)) {
    it(`${name} signs the base string as the independent implementation did`, () => {
      assert.equal(registry.get(name)?.sign(v.baseString, keys), expected);
    });
    it(`${name} verifies the independently made signature`, () => {
      assert.equal(registry.get(name)?.verify(v.baseString, expected, keys), true);
    });
  }

  for (const c of v.plaintext) {
    const label = `client secret ${JSON.stringify(c.clientSecret)}, token secret ${JSON.stringify(c.tokenSecret)}`;
    it(`PLAINTEXT signs with ${label} as ${c.signature} (§3.4.4)`, () => {
      assert.equal(registry.get('PLAINTEXT')?.sign('', c), c.signature);
    });
    it(`PLAINTEXT verifies ${c.signature} for ${label}`, () => {
      assert.equal(registry.get('PLAINTEXT')?.verify('', c.signature, c), true);
    });
  }
});
