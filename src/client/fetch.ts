/** A `fetch` that signs every request it sends (RFC 5849 §3.1). */
import { signRequest } from './sign.ts';
import type { ClientCredentials, RequestBody, SignOptions, TokenCredentials } from './sign.ts';

export interface SigningFetchOptions {
  readonly client: ClientCredentials;
  readonly token?: TokenCredentials | undefined;
  readonly signatureMethod?: string | undefined;
  readonly transmission?: SignOptions['transmission'];
  readonly realm?: string | undefined;
  /** The fetch to send with; the global one by default. */
  readonly fetch?: typeof fetch | undefined;
}

export interface SigningFetchInit {
  readonly method?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: RequestBody | undefined;
  /** Extra protocol parameters for this request (`oauth_callback`, `oauth_verifier`). */
  readonly protocolParameters?: Readonly<Record<string, string>> | undefined;
  readonly signal?: AbortSignal | undefined;
}

export type SigningFetch = (url: string | URL, init?: SigningFetchInit) => Promise<Response>;

/**
 * Returns a fetch that signs each request with the given credentials.
 * @example
 * const api = createSigningFetch({ client: { key, secret }, token: { token, secret: tokenSecret } });
 * const me = await (await api('http://127.0.0.1:8080/api/me')).json();
 */
export function createSigningFetch(options: SigningFetchOptions): SigningFetch {
  const send = options.fetch ?? fetch;
  return (url, init = {}) => {
    const signed = signRequest({
      method: init.method ?? 'GET',
      url,
      headers: init.headers,
      body: init.body,
      client: options.client,
      token: options.token,
      signatureMethod: options.signatureMethod,
      transmission: options.transmission,
      protocolParameters: init.protocolParameters,
      realm: options.realm,
    });
    return send(signed.url, {
      method: signed.method,
      headers: signed.headers,
      ...(signed.body === undefined ? {} : { body: signed.body }),
      ...(init.signal === undefined ? {} : { signal: init.signal }),
      redirect: 'manual',
    });
  };
}
