/** The framework-free shapes the provider takes and returns. */
import type { CollectedParameters, SignatureMethod } from '../protocol/index.ts';
import type { Client, TemporaryCredential, TokenCredential } from '../store/types.ts';

/** An HTTP request as the provider needs it; each server adapter builds one. */
export interface IncomingRequest {
  readonly method: string;
  /** The scheme the client used: the connection's, or a trusted proxy's. */
  readonly scheme: string;
  /** The Host the client used (`host[:port]`). */
  readonly host: string;
  /** The path as sent, still percent-encoded, without the query. */
  readonly path: string;
  /** The raw query string without "?", or ''. */
  readonly query: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** The raw body text; only a form-encoded body is read for parameters (§3.4.1.3.1). */
  readonly body: string | undefined;
  /**
   * The bytes of a body that is not form-encoded, for `oauth_body_hash`. An adapter reads
   * them when the request carries a body hash or its route requires one; undefined means
   * no body (hashed as the empty string).
   */
  readonly rawBody?: Uint8Array | undefined;
  /**
   * Whether the request came over a secure channel, as the adapter's transport rule decides
   * (http/incoming-request.ts `isSecureChannel`): TLS as the client used it, loopback without
   * a proxy, or plain HTTP the operator allowed.
   */
  readonly secure: boolean;
  /** The client's address (a trusted proxy's X-Forwarded-For), for per-source rate limits. */
  readonly address?: string | undefined;
  /** The User-Agent header: a token's device hint, from its first verified request. */
  readonly userAgent?: string | undefined;
}

/**
 * Which endpoint a signed request is for; it decides which protocol parameters apply.
 * `renewal` is a token request with a session handle (session extension), signed with the
 * token credential it renews.
 */
export type RequestKind = 'temporary' | 'exchange' | 'renewal' | 'resource';

/** The protocol parameters of one request, typed (`oauth_*` names stay at the boundary). */
export interface ProtocolParameters {
  readonly consumerKey: string;
  readonly token: string | undefined;
  readonly signatureMethod: SignatureMethod;
  readonly signature: string;
  readonly timestamp: number | undefined;
  readonly nonce: string | undefined;
  readonly callback: string | undefined;
  readonly verifier: string | undefined;
  /** `oauth_body_hash` (Request Body Hash extension), when sent. */
  readonly bodyHash: string | undefined;
  /** `oauth_session_handle` of a renewal (session extension). */
  readonly sessionHandle?: string | undefined;
}

/** A request whose signature, timestamp and nonce were checked. */
export interface VerifiedRequest {
  readonly client: Client;
  readonly protocol: ProtocolParameters;
  readonly parameters: CollectedParameters;
  /** Set for resource requests that carry a token, and for renewals. */
  readonly tokenCredential: TokenCredential | undefined;
  /** Set for token requests (§2.3). */
  readonly temporaryCredential: TemporaryCredential | undefined;
}
