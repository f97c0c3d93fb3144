/**
 * Fast request signing for the load generator, built on src/protocol. The signature base
 * string (RFC 5849 §3.4.1) of a fixed request differs between two requests only in
 * `oauth_nonce` and `oauth_timestamp`, whose values need no percent-encoding; so the base
 * string and the wire text are computed once with markers, split, and each request only
 * concatenates and signs. `checkAgainstSdk` proves the result equals the client SDK's.
 */
import { createPrivateKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { signRequest } from '../../src/client/sign.ts';
import {
  buildAuthorizationHeader,
  percentEncode,
  signatureBaseString,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import type {
  Parameter,
  SignatureKeys,
  SignatureMethod,
  Transmission,
} from '../../src/protocol/index.ts';

export interface RequestSpec {
  readonly method: 'GET' | 'POST';
  /** The Host header value, `127.0.0.1:PORT`. */
  readonly host: string;
  readonly path: string;
  readonly query?: readonly Parameter[] | undefined;
  /** Form-encoded body pairs (POST only). */
  readonly form?: readonly Parameter[] | undefined;
  readonly transmission: Transmission;
  readonly signatureMethod: string;
  readonly client: {
    readonly key: string;
    readonly secret?: string | undefined;
    readonly privateKeyPem?: string | undefined;
  };
  readonly token?: { readonly token: string; readonly secret: string } | undefined;
  /** Further protocol parameters (`oauth_callback`, `oauth_verifier`). */
  readonly extra?: Readonly<Record<string, string>> | undefined;
}

const NONCE = '~~N~~';
const STAMP = '~~T~~';
const SIG = '~~S~~';
const methods = new SignatureMethodRegistry();

/** Unique nonces: a random per-process prefix and a counter, all unreserved characters. */
export function nonceSource(): () => string {
  const prefix = randomBytes(9).toString('base64url');
  let counter = 0;
  return () => prefix + (counter++).toString(36).padStart(8, '0');
}

export class RequestSigner {
  readonly #spec: RequestSpec;
  readonly #method: SignatureMethod;
  readonly #keys: SignatureKeys;
  readonly #base: readonly [string, string, string];
  readonly #wire: readonly string[]; // alternates text and markers, see #render
  readonly #bodyWire: readonly string[] | undefined;
  readonly #head: string;

  constructor(spec: RequestSpec) {
    this.#spec = spec;
    const method = methods.get(spec.signatureMethod);
    if (method === undefined) throw new TypeError(`Unknown method ${spec.signatureMethod}`);
    this.#method = method;
    const privateKey: KeyObject | undefined =
      spec.client.privateKeyPem === undefined
        ? undefined
        : createPrivateKey(spec.client.privateKeyPem);
    this.#keys = {
      clientSecret: spec.client.secret ?? '',
      tokenSecret: spec.token?.secret ?? '',
      privateKey,
    };
    const protocol = protocolParameters(spec, NONCE, STAMP);
    const base = signatureBaseString(
      { method: spec.method, scheme: 'http', host: spec.host, path: spec.path },
      [...(spec.query ?? []), ...(spec.form ?? []), ...protocol],
    );
    const [b0, rest] = splitOnce(base, NONCE);
    const [b1, b2] = splitOnce(rest, STAMP);
    // §3.4.1.3.2 sorts by name first; nonce and timestamp have unique names, so a marker
    // sorts exactly where any real value would.
    this.#base = [b0, b1, b2];

    const signed: Parameter[] = [...protocol, ['oauth_signature', SIG]];
    const query = encodePairs(spec.query ?? []);
    const form = encodePairs(spec.form ?? []);
    const join = (a: string, b: string) => (a === '' ? b : b === '' ? a : `${a}&${b}`);
    let target = spec.path;
    let body: string | undefined = spec.form === undefined ? undefined : form;
    let auth = '';
    if (spec.transmission === 'header')
      auth = `Authorization: ${buildAuthorizationHeader(signed)}\r\n`;
    if (spec.transmission === 'query') target += `?${join(query, encodePairs(signed))}`;
    else if (query !== '') target += `?${query}`;
    if (spec.transmission === 'body') body = join(form, encodePairs(signed));
    let head = `${spec.method} ${target} HTTP/1.1\r\nHost: ${spec.host}\r\n${auth}`;
    if (body !== undefined) head += 'Content-Type: application/x-www-form-urlencoded\r\n';
    this.#head = head;
    this.#wire = tokenize(head);
    this.#bodyWire = body === undefined ? undefined : tokenize(body);
  }

  /** The base string for one nonce and timestamp (for the check against the SDK). */
  baseString(nonce: string, timestamp: number): string {
    const [b0, b1, b2] = this.#base;
    return b0 + nonce + b1 + timestamp + b2;
  }

  /** One complete HTTP/1.1 request, signed, as wire text. */
  build(nonce: string, timestamp: number): string {
    const signature = percentEncode(
      this.#method.sign(this.baseString(nonce, timestamp), this.#keys),
    );
    const values = { [NONCE]: nonce, [STAMP]: String(timestamp), [SIG]: signature };
    const head = render(this.#wire, values);
    if (this.#bodyWire === undefined) return `${head}\r\n`;
    const body = render(this.#bodyWire, values);
    return `${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  }

  /** Throws unless this signer and the client SDK produce the same base string and signature. */
  checkAgainstSdk(): void {
    const spec = this.#spec;
    const nonce = 'checkNonce123';
    const timestamp = 1_700_000_000;
    const query = spec.query === undefined ? '' : `?${encodePairs(spec.query)}`;
    const sdk = signRequest({
      method: spec.method,
      url: `http://${spec.host}${spec.path}${query}`,
      body: spec.form === undefined ? undefined : encodePairs(spec.form),
      headers:
        spec.form === undefined
          ? undefined
          : { 'Content-Type': 'application/x-www-form-urlencoded' },
      client: {
        key: spec.client.key,
        secret: spec.client.secret,
        privateKey: this.#keys.privateKey,
      },
      token: spec.token,
      signatureMethod: spec.signatureMethod,
      transmission: spec.transmission,
      protocolParameters: spec.extra,
      nonce,
      timestamp,
    });
    const base = this.baseString(nonce, timestamp);
    const signature = percentEncode(this.#method.sign(base, this.#keys));
    const sent = `${sdk.url} ${Object.values(sdk.headers).join(' ')} ${String(sdk.body ?? '')}`;
    if (sdk.baseString !== base || !sent.includes(signature)) {
      throw new Error(
        `Fast signer disagrees with the client SDK for ${this.#head.split('\r\n')[0]}`,
      );
    }
  }
}

function protocolParameters(spec: RequestSpec, nonce: string, stamp: string): Parameter[] {
  const pairs: Parameter[] = [['oauth_consumer_key', spec.client.key]];
  if (spec.token !== undefined) pairs.push(['oauth_token', spec.token.token]);
  pairs.push(['oauth_signature_method', spec.signatureMethod]);
  pairs.push(['oauth_timestamp', stamp], ['oauth_nonce', nonce], ['oauth_version', '1.0']);
  for (const [name, value] of Object.entries(spec.extra ?? {})) pairs.push([name, value]);
  return pairs;
}

function encodePairs(pairs: readonly Parameter[]): string {
  return pairs.map(([n, v]) => `${percentEncode(n)}=${percentEncode(v)}`).join('&');
}

function splitOnce(text: string, marker: string): [string, string] {
  const at = text.indexOf(marker);
  if (at < 0 || text.indexOf(marker, at + 1) >= 0) throw new Error(`Marker ${marker} not unique`);
  return [text.slice(0, at), text.slice(at + marker.length)];
}

/** Splits text on the markers, keeping them: even indexes text, odd indexes markers. */
function tokenize(text: string): string[] {
  return text.split(/(~~[NTS]~~)/);
}

function render(tokens: readonly string[], values: Readonly<Record<string, string>>): string {
  let out = tokens[0]!;
  for (let i = 1; i < tokens.length; i += 2) out += values[tokens[i]!]! + tokens[i + 1]!;
  return out;
}
