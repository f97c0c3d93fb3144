/** Domain types shared by the protocol core, the provider and the client SDK. */

/** One decoded name/value pair. Order and repetition are kept (RFC 5849 §3.4.1.3.1). */
export type Parameter = readonly [name: string, value: string];

/** Where the protocol parameters were sent (§3.5); a request uses exactly one. */
export type Transmission = 'header' | 'body' | 'query';

/** The HTTP request as the base string sees it (§3.4.1). */
export interface RequestTarget {
  /** The HTTP method, any case; uppercased for the base string. */
  readonly method: string;
  /** `http` or `https`. */
  readonly scheme: string;
  /** The Host header value: host, optionally `:port`. */
  readonly host: string;
  /** The path as sent on the wire (still percent-encoded), without query or fragment. */
  readonly path: string;
}
