// What a server does with a signed request, built from the protocol core only: collect the
// parameters (header, form body, query), build the base string from the request line and
// Host, and verify oauth_signature with the named method (RFC 5849 §3.2).
import {
  collectParameters,
  signatureBaseString,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import type { CollectedParameters, SignatureKeys } from '../../src/protocol/index.ts';

export interface WireRequest {
  readonly method: string;
  /** The absolute URL the request is sent to. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | undefined;
}

export interface ServerView {
  readonly valid: boolean;
  readonly collected: CollectedParameters;
  readonly baseString: string;
}

const registry = new SignatureMethodRegistry();

function header(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = Object.keys(headers).find((h) => h.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/** Verifies as a server would; `keys` are what the server holds for the client and token. */
export function verifyAsServer(request: WireRequest, keys: SignatureKeys): ServerView {
  const url = new URL(request.url);
  const body =
    request.body instanceof Uint8Array ? Buffer.from(request.body).toString('utf8') : request.body;
  const collected = collectParameters({
    authorization: header(request.headers, 'authorization'),
    query: url.search.slice(1),
    body,
    contentType: header(request.headers, 'content-type'),
  });
  const baseString = signatureBaseString(
    {
      method: request.method,
      scheme: url.protocol.slice(0, -1),
      host: url.host,
      path: url.pathname,
    },
    collected.signed,
  );
  const method = registry.get(collected.protocol.get('oauth_signature_method') ?? '');
  const signature = collected.protocol.get('oauth_signature');
  const valid =
    method !== undefined && signature !== undefined && method.verify(baseString, signature, keys);
  return { valid, collected, baseString };
}
