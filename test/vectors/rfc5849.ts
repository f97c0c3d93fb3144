// Typed access to test/vectors/rfc5849.json (made by generate.py beside it, independently of
// Latchkey) and to the RSA key pair in test/fixtures/ that its RSA signatures were made with.
import { readFileSync } from 'node:fs';
import type { Parameter } from '../../src/protocol/index.ts';

export interface Titled {
  readonly title: string;
  readonly source: string;
}

/** One signed request of a walkthrough, with what RFC 5849 (or OAuth Core 1.0a) prints for it. */
export interface SignedRequestVector {
  readonly title: string;
  readonly method: string;
  readonly url: string;
  readonly clientSecret: string;
  readonly tokenSecret: string;
  /** The protocol parameters in header order, oauth_signature excluded. */
  readonly protocolParameters: Parameter[];
  /** The Authorization header without oauth_signature, realm first. */
  readonly authorization: string;
  readonly baseString: string;
  readonly signature: string;
}

export interface Rfc5849Vectors {
  readonly percentEncoding: Titled & {
    readonly cases: { readonly text: string; readonly encoded: string }[];
  };
  readonly baseStringUri: Titled & {
    readonly cases: {
      readonly uri: string;
      readonly scheme: string;
      readonly host: string;
      readonly path: string;
      readonly baseStringUri: string;
    }[];
  };
  readonly baseStringExample: Titled & {
    readonly request: {
      readonly method: string;
      readonly url: string;
      readonly scheme: string;
      readonly host: string;
      readonly path: string;
      readonly query: string;
      readonly contentType: string;
      readonly body: string;
      readonly authorization: string;
    };
    readonly realm: string;
    /** §3.4.1.3.1's table: query, then header, then body, oauth_signature excluded. */
    readonly parameters: Parameter[];
    readonly baseStringUri: string;
    readonly normalizedParameters: string;
    readonly baseString: string;
  };
  readonly normalization: Titled & {
    readonly cases: { readonly parameters: Parameter[]; readonly normalized: string }[];
  };
  readonly walkthrough: Titled & {
    readonly credentials: {
      readonly client: { readonly key: string; readonly secret: string };
      readonly temporary: { readonly token: string; readonly secret: string };
      readonly verifier: string;
      readonly token: { readonly token: string; readonly secret: string };
    };
    readonly temporaryCredentialsResponse: string;
    readonly authorizationEndpoint: string;
    readonly authorizationUrl: string;
    readonly callbackUrl: string;
    readonly tokenCredentialsResponse: string;
    readonly requests: SignedRequestVector[];
  };
  readonly appendixA: SignedRequestVector & Titled;
  readonly signatureMethods: Titled & {
    readonly baseString: string;
    readonly clientSecret: string;
    readonly tokenSecret: string;
    readonly signatures: Readonly<Record<string, string>>;
    readonly plaintext: {
      readonly clientSecret: string;
      readonly tokenSecret: string;
      readonly signature: string;
    }[];
  };
}

const read = (relative: string) => readFileSync(new URL(relative, import.meta.url), 'utf8');

export const vectors = JSON.parse(read('./rfc5849.json')) as Rfc5849Vectors;

/** PKCS#8 PEM of the RSA-2048 test key (test/fixtures/rsa-private.pem). */
export const rsaPrivateKeyPem = read('../fixtures/rsa-private.pem');

/** SPKI PEM of its public half (test/fixtures/rsa-public.pem). */
export const rsaPublicKeyPem = read('../fixtures/rsa-public.pem');

/** Finds the request vector with the given title, or fails the test that asked. */
export function walkthroughRequest(titleEnd: string): SignedRequestVector {
  const found = vectors.walkthrough.requests.find((r) => r.title.endsWith(titleEnd));
  if (found === undefined) throw new Error(`No walkthrough request titled "…${titleEnd}".`);
  return found;
}
