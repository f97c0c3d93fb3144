/**
 * Client side of RFC 5849 §3.1: add the protocol parameters to a request, compute
 * `oauth_signature` and place both in the header (default), the form body or the query.
 * Nothing else in the request changes.
 */
import { createPrivateKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import {
  buildAuthorizationHeader,
  computeBodyHash,
  isFormContentType,
  parseFormUrlEncoded,
  percentEncode,
  signatureBaseString,
  SignatureMethodRegistry,
} from '../protocol/index.ts';
import type { Parameter, Transmission } from '../protocol/index.ts';

/** The client's own credentials: a key and a shared secret, or an RSA private key. */
export interface ClientCredentials {
  readonly key: string;
  readonly secret?: string | undefined;
  /** PEM text or a parsed key, for the RSA methods. */
  readonly privateKey?: KeyObject | string | undefined;
}

/** Temporary or token credentials: an identifier and its shared secret. */
export interface TokenCredentials {
  readonly token: string;
  readonly secret: string;
}

export type RequestBody = string | URLSearchParams | Uint8Array;

export interface SignOptions {
  readonly method: string;
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: RequestBody | undefined;
  readonly client: ClientCredentials;
  readonly token?: TokenCredentials | undefined;
  /** Defaults to HMAC-SHA1. */
  readonly signatureMethod?: string | undefined;
  /** Defaults to the Authorization header, the spec's first preference (§3.5). */
  readonly transmission?: Transmission | undefined;
  /** Further protocol parameters such as `oauth_callback` or `oauth_verifier`. */
  readonly protocolParameters?: Readonly<Record<string, string>> | undefined;
  readonly realm?: string | undefined;
  /** Fixed values for tests and vectors; fresh ones otherwise. */
  readonly nonce?: string | undefined;
  readonly timestamp?: number | string | undefined;
  /** Send `oauth_version=1.0` (optional in the spec; on by default). */
  readonly includeVersion?: boolean | undefined;
  /**
   * Add `oauth_body_hash` (Request Body Hash extension) for a body that is not form-encoded,
   * so the signature covers it too: SHA-1 with the SHA-1 methods, SHA-256 and SHA-512 with
   * theirs. Not with a form body (its parameters are signed) or PLAINTEXT.
   */
  readonly bodyHash?: boolean | undefined;
  /** The methods to sign with, for a custom method; the built-in ones by default. */
  readonly methods?: SignatureMethodRegistry | undefined;
}

/** A request ready to send: the URL, headers and body to put on the wire. */
export interface SignedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
  /** The base string that was signed, for diagnosing a mismatch. */
  readonly baseString: string;
}

const defaultMethods = new SignatureMethodRegistry();
const FORM = 'application/x-www-form-urlencoded';

/** A fresh nonce: 128 random bits, unreserved characters only. */
export function createNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** Encodes pairs as a form body or query with RFC 5849 encoding (space as %20). */
export function encodeForm(pairs: Iterable<Parameter>): string {
  const parts: string[] = [];
  for (const [name, value] of pairs) parts.push(`${percentEncode(name)}=${percentEncode(value)}`);
  return parts.join('&');
}

export function signRequest(options: SignOptions): SignedRequest {
  const methodName = options.signatureMethod ?? 'HMAC-SHA1';
  const signatureMethod = (options.methods ?? defaultMethods).get(methodName);
  if (signatureMethod === undefined)
    throw new TypeError(`Unknown signature method "${methodName}".`);
  const transmission = options.transmission ?? 'header';
  const url = new URL(options.url);
  const headers: Record<string, string> = { ...options.headers };
  const contentTypeName = Object.keys(headers).find((h) => h.toLowerCase() === 'content-type');

  let body: string | Uint8Array | undefined;
  if (options.body instanceof URLSearchParams) {
    body = encodeForm(options.body);
    if (contentTypeName === undefined) headers['Content-Type'] = FORM;
  } else if (
    options.body instanceof Uint8Array &&
    contentTypeName !== undefined &&
    isFormContentType(headers[contentTypeName])
  ) {
    // A form body is signed (§3.4.1.3.1) and extended (§3.5.2) as text, whatever carries it.
    body = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(options.body);
  } else {
    body = options.body;
  }
  const contentType =
    contentTypeName === undefined ? headers['Content-Type'] : headers[contentTypeName];
  if (
    transmission === 'body' &&
    !isFormContentType(contentType ?? (body === undefined ? FORM : undefined))
  ) {
    throw new TypeError('Protocol parameters can go in the body only for a form-encoded body.');
  }
  if (transmission === 'body' && contentType === undefined) headers['Content-Type'] = FORM;
  const bodyIsForm =
    typeof body === 'string' &&
    isFormContentType(contentType ?? (transmission === 'body' ? FORM : undefined));

  const protocol: Parameter[] = [['oauth_consumer_key', options.client.key]];
  if (options.token !== undefined) protocol.push(['oauth_token', options.token.token]);
  protocol.push(['oauth_signature_method', methodName]);
  protocol.push(['oauth_timestamp', String(options.timestamp ?? Math.floor(Date.now() / 1000))]);
  protocol.push(['oauth_nonce', options.nonce ?? createNonce()]);
  if (options.includeVersion ?? true) protocol.push(['oauth_version', '1.0']);
  for (const [name, value] of Object.entries(options.protocolParameters ?? {})) {
    protocol.push([name, value]);
  }
  if (options.bodyHash === true) {
    const digest = signatureMethod.bodyHashDigest;
    if (bodyIsForm || transmission === 'body' || isFormContentType(contentType))
      throw new TypeError('A form-encoded body takes no oauth_body_hash.');
    if (digest === undefined) throw new TypeError(`${methodName} cannot carry oauth_body_hash.`);
    protocol.push(['oauth_body_hash', computeBodyHash(digest, body ?? '')]);
  }

  const query = url.search.length > 1 ? parseFormUrlEncoded(url.search.slice(1)) : [];
  const form = bodyIsForm ? parseFormUrlEncoded(body as string) : [];
  const baseString = signatureBaseString(
    {
      method: options.method,
      scheme: url.protocol.slice(0, -1),
      host: url.host,
      path: url.pathname,
    },
    [...query, ...form, ...protocol],
  );
  const privateKey = options.client.privateKey;
  const signature = signatureMethod.sign(baseString, {
    clientSecret: options.client.secret ?? '',
    tokenSecret: options.token?.secret ?? '',
    privateKey: typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey,
  });
  protocol.push(['oauth_signature', signature]);

  url.hash = '';
  if (transmission === 'header') {
    headers['Authorization'] = buildAuthorizationHeader(protocol, options.realm);
  } else if (transmission === 'body') {
    // §3.5.2: protocol parameters follow the request-specific ones.
    const existing = typeof body === 'string' && body !== '' ? `${body}&` : '';
    body = existing + encodeForm(protocol);
  } else {
    const existing = url.search.length > 1 ? `${url.search.slice(1)}&` : '';
    url.search = existing + encodeForm(protocol);
  }
  return { method: options.method.toUpperCase(), url: url.toString(), headers, body, baseString };
}
