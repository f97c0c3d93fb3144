// RFC 5849 §3.4: for every built-in method a signature verifies for the request it was made
// for, and for no request that differs in one signed part (method, scheme, host, port, path,
// one parameter) or in the key material.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  builtInSignatureMethods,
  parseRsaPublicKey,
  signatureBaseString,
} from '../../src/protocol/index.ts';
import type { Parameter, SignatureKeys, SignatureMethod } from '../../src/protocol/index.ts';
import { rsaPrivateKeyPem, rsaPublicKeyPem } from '../vectors/rfc5849.ts';

interface Request {
  readonly method: string;
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly port: number | undefined;
  readonly path: string;
  readonly parameters: Parameter[];
  readonly clientSecret: string;
  readonly tokenSecret: string;
}

const rsaKeys = {
  privateKey: createPrivateKey(rsaPrivateKeyPem),
  publicKey: parseRsaPublicKey(rsaPublicKeyPem),
};
const otherPublicKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;

const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
const httpMethod = fc.stringMatching(/^[A-Z]{1,10}$/);
const host = fc.domain().map((h) => h.toLowerCase()); // §3.4.1.2 lowercases hosts
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const path = fc.stringMatching(/^\/[\w\-.~%/!$&'()*+,;=:@]{0,30}$/);
const pair = fc.tuple(text, text) as fc.Arbitrary<Parameter>;
const request = (minParameters: number): fc.Arbitrary<Request> =>
  fc.record({
    method: httpMethod,
    scheme: fc.constantFrom('http' as const, 'https' as const),
    host,
    port,
    path,
    parameters: fc.array(pair, { minLength: minParameters, maxLength: 8 }),
    clientSecret: text,
    tokenSecret: text,
  });

const defaultPort = (r: Request) => (r.scheme === 'http' ? 80 : 443);

function baseString(r: Request): string {
  const authority = r.port === undefined ? r.host : `${r.host}:${r.port}`;
  return signatureBaseString(
    { method: r.method, scheme: r.scheme, host: authority, path: r.path },
    r.parameters,
  );
}

function keysOf(r: Request): SignatureKeys {
  return { clientSecret: r.clientSecret, tokenSecret: r.tokenSecret, ...rsaKeys };
}

const differentFrom = <T>(arbitrary: fc.Arbitrary<T>, value: T) =>
  arbitrary.filter((other) => other !== value);

const replaceAt = (parameters: Parameter[], index: number, replacement: Parameter) =>
  parameters.map((p, i) => (i === index ? replacement : p));

/** One change to a signed part of the request, each a different request on the wire. */
const changes: Record<string, (r: Request) => fc.Arbitrary<Request>> = {
  'the HTTP method changes': (r) =>
    differentFrom(httpMethod, r.method).map((method) => ({ ...r, method })),
  'the scheme changes': (r) =>
    fc.constant({ ...r, scheme: r.scheme === 'http' ? 'https' : 'http' }),
  'the host changes': (r) => differentFrom(host, r.host).map((h) => ({ ...r, host: h })),
  'the port changes': (r) =>
    port
      .filter((p) => (p ?? defaultPort(r)) !== (r.port ?? defaultPort(r)))
      .map((p) => ({ ...r, port: p })),
  'the path changes': (r) => differentFrom(path, r.path).map((p) => ({ ...r, path: p })),
  'a parameter name changes': (r) =>
    fc.nat({ max: r.parameters.length - 1 }).chain((i) =>
      differentFrom(text, r.parameters[i]![0]).map((name) => ({
        ...r,
        parameters: replaceAt(r.parameters, i, [name, r.parameters[i]![1]]),
      })),
    ),
  'a parameter value changes': (r) =>
    fc.nat({ max: r.parameters.length - 1 }).chain((i) =>
      differentFrom(text, r.parameters[i]![1]).map((value) => ({
        ...r,
        parameters: replaceAt(r.parameters, i, [r.parameters[i]![0], value]),
      })),
    ),
  'a parameter is added': (r) => pair.map((p) => ({ ...r, parameters: [...r.parameters, p] })),
  'a parameter is removed': (r) =>
    fc.nat({ max: r.parameters.length - 1 }).map((i) => ({
      ...r,
      parameters: r.parameters.filter((_, j) => j !== i),
    })),
};

const secretChanges: Record<string, (r: Request) => fc.Arbitrary<Request>> = {
  'the client secret changes': (r) =>
    differentFrom(text, r.clientSecret).map((s) => ({ ...r, clientSecret: s })),
  'the token secret changes': (r) =>
    differentFrom(text, r.tokenSecret).map((s) => ({ ...r, tokenSecret: s })),
};

function refusesAfter(method: SignatureMethod, change: (r: Request) => fc.Arbitrary<Request>) {
  fc.assert(
    fc.property(
      request(1).chain((r) => fc.tuple(fc.constant(r), change(r))),
      ([original, changed]) => {
        const signature = method.sign(baseString(original), keysOf(original));
        return !method.verify(baseString(changed), signature, keysOf(changed));
      },
    ),
    { numRuns: method.keyKind === 'public-key' ? 40 : 100 },
  );
}

for (const method of builtInSignatureMethods) {
  describe(`RFC 5849 §3.4 ${method.name} sign and verify, for any request`, () => {
    it('verifies the signature it made', () => {
      fc.assert(
        fc.property(request(0), (r) =>
          method.verify(baseString(r), method.sign(baseString(r), keysOf(r)), keysOf(r)),
        ),
        { numRuns: method.keyKind === 'public-key' ? 40 : 100 },
      );
    });

    if (method.usesBaseString) {
      for (const [what, change] of Object.entries(changes)) {
        it(`refuses the signature once ${what}`, () => refusesAfter(method, change));
      }
    } else {
      it('signs the secrets only, the same for any request (§3.4.4)', () => {
        fc.assert(
          fc.property(request(0), request(0), (a, b) => {
            const keys = keysOf(a);
            return method.sign(baseString(a), keys) === method.sign(baseString(b), keys);
          }),
        );
      });
    }

    if (method.keyKind === 'shared-secret') {
      for (const [what, change] of Object.entries(secretChanges)) {
        it(`refuses the signature once ${what}`, () => refusesAfter(method, change));
      }
    } else {
      it("refuses the signature under another client's public key", () => {
        fc.assert(
          fc.property(request(0), (r) => {
            const signature = method.sign(baseString(r), keysOf(r));
            return !method.verify(baseString(r), signature, { publicKey: otherPublicKey });
          }),
          { numRuns: 40 },
        );
      });
    }
  });
}

describe('RFC 5849 §3.4 a signature belongs to its method', () => {
  it('does not verify under any other built-in method', () => {
    const methods = fc.constantFrom(...builtInSignatureMethods);
    fc.assert(
      fc.property(request(0), methods, methods, (r, signer, verifier) => {
        fc.pre(signer !== verifier);
        const signature = signer.sign(baseString(r), keysOf(r));
        assert.equal(verifier.verify(baseString(r), signature, keysOf(r)), false);
      }),
      { numRuns: 60 },
    );
  });
});
