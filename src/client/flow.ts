/**
 * The three-step flow from the client's side (RFC 5849 §2), as request/process pairs:
 * each `…Request()` builds and sends, each `process…Response()` validates the answer.
 */
import { parseFormUrlEncoded, percentEncode } from '../protocol/index.ts';
import { createSigningFetch } from './fetch.ts';
import type { ClientCredentials, TokenCredentials } from './sign.ts';
import type { Transmission } from '../protocol/index.ts';

/** The server answered with an error: its status and `oauth_problem`, when it gave one. */
export class OAuthResponseError extends Error {
  override readonly name = 'OAuthResponseError';
  readonly status: number;
  readonly problem: string | undefined;
  readonly fields: Readonly<Record<string, string>>;

  constructor(status: number, fields: Record<string, string>, text: string) {
    const problem = fields['oauth_problem'];
    const advice = fields['oauth_problem_advice'];
    super(
      problem === undefined
        ? `The server answered ${status}: ${text.slice(0, 200)}`
        : `The server answered ${status} ${problem}${advice ? `: ${advice}` : ''}`,
    );
    this.status = status;
    this.problem = problem;
    this.fields = fields;
  }
}

export interface FlowOptions {
  readonly client: ClientCredentials;
  readonly signatureMethod?: string | undefined;
  readonly transmission?: Transmission | undefined;
  readonly fetch?: typeof fetch | undefined;
}

export interface TemporaryCredentialsResponse extends TokenCredentials {
  readonly callbackConfirmed: boolean;
}

/** §2.1: POST to the temporary credential endpoint with `oauth_callback` (default `oob`). */
export function requestTemporaryCredentials(
  endpoint: string | URL,
  options: FlowOptions & { readonly callback?: string; readonly scope?: string },
): Promise<Response> {
  const body =
    options.scope === undefined ? undefined : new URLSearchParams({ scope: options.scope });
  return createSigningFetch(options)(endpoint, {
    method: 'POST',
    body,
    protocolParameters: { oauth_callback: options.callback ?? 'oob' },
  });
}

/** §2.1: the answer must be 200 with `oauth_token`, `oauth_token_secret` and `oauth_callback_confirmed=true`. */
export async function processTemporaryCredentialsResponse(
  response: Response,
): Promise<TemporaryCredentialsResponse> {
  const fields = await readFields(response);
  if (fields['oauth_callback_confirmed'] !== 'true') {
    throw new OAuthResponseError(response.status, fields, 'oauth_callback_confirmed is not true');
  }
  return { ...credentialsFrom(response, fields), callbackConfirmed: true };
}

/** §2.2: where to send the resource owner, with `oauth_token` added to any existing query. */
export function authorizationUrl(endpoint: string | URL, temporary: TokenCredentials): string {
  const url = new URL(endpoint);
  // Appended as text: searchParams would re-serialize (and so change) the existing query.
  const pair = `oauth_token=${percentEncode(temporary.token)}`;
  url.search = url.search.length > 1 ? `${url.search.slice(1)}&${pair}` : pair;
  return url.toString();
}

/** §2.3: exchange the authorized temporary credentials and the verifier for token credentials. */
export function requestTokenCredentials(
  endpoint: string | URL,
  options: FlowOptions & { readonly temporary: TokenCredentials; readonly verifier: string },
): Promise<Response> {
  return createSigningFetch({ ...options, token: options.temporary })(endpoint, {
    method: 'POST',
    protocolParameters: { oauth_verifier: options.verifier },
  });
}

/** The session extension's part of a token answer, when the server gives one. */
export interface TokenSession {
  /** `oauth_session_handle`: send it with requestTokenRenewal. */
  readonly handle: string;
  /** `oauth_expires_in`: seconds the token credentials live. */
  readonly expiresIn: number | undefined;
  /** `oauth_authorization_expires_in`: seconds until the owner's authorization ends. */
  readonly authorizationExpiresIn: number | undefined;
}

export interface TokenCredentialsResponse extends TokenCredentials {
  /** Present when the server uses the session extension for this client. */
  readonly session?: TokenSession | undefined;
}

/**
 * §2.3: the answer must be 200 with `oauth_token` and `oauth_token_secret`; a session (the
 * OAuth Session extension) is read when `oauth_session_handle` is there.
 */
export async function processTokenCredentialsResponse(
  response: Response,
): Promise<TokenCredentialsResponse> {
  const fields = await readFields(response);
  const credentials = credentialsFrom(response, fields);
  const handle = fields['oauth_session_handle'];
  if (handle === undefined) return credentials;
  const seconds = (name: string) => {
    const value = fields[name];
    return value !== undefined && /^[0-9]+$/.test(value) ? Number(value) : undefined;
  };
  return {
    ...credentials,
    session: {
      handle,
      expiresIn: seconds('oauth_expires_in'),
      authorizationExpiresIn: seconds('oauth_authorization_expires_in'),
    },
  };
}

/**
 * Session extension: renew token credentials (expired or not) at the token endpoint, signed
 * with them, with their session handle. Process the answer with
 * processTokenCredentialsResponse; the old credentials stop working at once.
 */
export function requestTokenRenewal(
  endpoint: string | URL,
  options: FlowOptions & { readonly token: TokenCredentials; readonly sessionHandle: string },
): Promise<Response> {
  return createSigningFetch(options)(endpoint, {
    method: 'POST',
    protocolParameters: { oauth_session_handle: options.sessionHandle },
  });
}

/** Invalidation by the client: end the token credentials the request is signed with. */
export async function invalidateToken(
  endpoint: string | URL,
  options: FlowOptions & { readonly token: TokenCredentials },
): Promise<void> {
  await readFields(await createSigningFetch(options)(endpoint, { method: 'POST' }));
}

async function readFields(response: Response): Promise<Record<string, string>> {
  const text = await response.text();
  let fields: Record<string, string> = {};
  try {
    fields = Object.fromEntries(parseFormUrlEncoded(text));
  } catch {
    // Not a form body; the error below reports the status and text.
  }
  if (response.status !== 200) throw new OAuthResponseError(response.status, fields, text);
  return fields;
}

function credentialsFrom(response: Response, fields: Record<string, string>): TokenCredentials {
  const token = fields['oauth_token'];
  const secret = fields['oauth_token_secret'];
  if (token === undefined || secret === undefined) {
    throw new OAuthResponseError(
      response.status,
      fields,
      'oauth_token or oauth_token_secret missing',
    );
  }
  return { token, secret };
}
