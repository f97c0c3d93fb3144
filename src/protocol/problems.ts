/**
 * The `oauth_problem` catalog: every code Latchkey sends, its HTTP status and what a client
 * developer does about it. Codes come from the OAuth Problem Reporting extension; statuses
 * follow RFC 5849 §3.2 (400 for a malformed request, 401 for bad credentials).
 * `docs/errors.md` is generated from this table (`npm run docs:errors`).
 */
export const problems = {
  parameter_absent: {
    status: 400,
    when: 'A required parameter is missing (401 with a WWW-Authenticate challenge when a protected resource is requested with no OAuth parameters at all).',
    fix: 'Send every parameter named in oauth_parameters_absent.',
  },
  parameter_rejected: {
    status: 400,
    when: 'A parameter is malformed, repeated, sent in two places, or not allowed here.',
    fix: 'Send each protocol parameter once, in one place, correctly percent-encoded.',
  },
  signature_method_rejected: {
    status: 400,
    when: 'The signature method is unknown or not allowed for this client.',
    fix: 'Use one of the methods the server advertises and the client registered.',
  },
  version_rejected: {
    status: 400,
    when: 'oauth_version is present and is not 1.0.',
    fix: 'Send oauth_version=1.0 or leave it out.',
  },
  timestamp_refused: {
    status: 401,
    when: 'oauth_timestamp is outside the accepted window (or not in seconds).',
    fix: 'Send the current time in seconds since the epoch; oauth_acceptable_timestamps gives the range.',
  },
  nonce_used: {
    status: 401,
    when: 'This nonce was already used with this timestamp, client and token.',
    fix: 'Generate a fresh random nonce for every request. If you did not send this request twice, a proxy retried it after a server failed mid-request: sign it again, with a fresh nonce and timestamp.',
  },
  signature_invalid: {
    status: 401,
    when: 'The signature does not match the request.',
    fix: "Check the base string (method, URI, parameters) and the secrets used to sign. When the message says the request was signed with the client's previous secret or key, it was rotated and its overlap is over: sign with the current one (the developer portal or the operator has it).",
  },
  body_hash_invalid: {
    status: 401,
    when: 'The body does not match oauth_body_hash (the Request Body Hash extension).',
    fix: 'Hash the exact bytes sent (SHA-1 with the SHA-1 methods, SHA-256 or SHA-512 with theirs), base64, before signing.',
  },
  consumer_key_unknown: {
    status: 401,
    when: 'The client key is not known to this server.',
    fix: 'Use the client key shown when the app was registered.',
  },
  consumer_key_rejected: {
    status: 401,
    when: 'The client is known but may not use this server now.',
    fix: 'Ask the operator why the client was disabled.',
  },
  token_rejected: {
    status: 401,
    when: 'The token is unknown, or is not valid for this request or this client.',
    fix: 'Use the token issued to this client for this step of the flow.',
  },
  token_used: {
    status: 401,
    when: 'The temporary credentials were already exchanged for token credentials.',
    fix: 'Start the flow again with a new temporary credential request.',
  },
  token_expired: {
    status: 401,
    when: 'The temporary or token credentials have expired.',
    fix: 'Start the flow again to get new credentials.',
  },
  token_revoked: {
    status: 401,
    when: 'The resource owner (or the client itself, or an operator) revoked this token.',
    fix: 'Ask the owner to authorize the app again.',
  },
  session_handle_rejected: {
    status: 401,
    when: 'A renewal (session extension) sent an oauth_session_handle that is not the one issued with this token, or the client does not use sessions.',
    fix: 'Sign the renewal with the latest token credential and send the session handle received with it.',
  },
  session_expired: {
    status: 401,
    when: 'A renewal (session extension) came after the session ended (oauth_authorization_expires_in).',
    fix: 'Start the flow again: the owner must authorize the app anew.',
  },
  verifier_invalid: {
    status: 401,
    when: 'oauth_verifier does not match the one given to the owner.',
    fix: 'Send the verifier exactly as received; after 5 wrong tries start the flow again.',
  },
  permission_denied: {
    status: 403,
    when: "The token does not carry the scope this resource requires (within its client's scope ceiling), or the client asked for a scope beyond its ceiling.",
    fix: 'Ask the owner to authorize the app with the required scope; ask the operator if the scope is outside what the client may have.',
  },
  permission_unknown: {
    status: 401,
    when: 'The resource owner has not yet answered the authorization request.',
    fix: 'Wait until the owner allows access and you receive the verifier.',
  },
  https_required: {
    status: 403,
    when: 'The flow endpoints and PLAINTEXT need TLS, and this request came over plain HTTP.',
    fix: 'Use the https:// address the server advertises.',
  },
  rate_limit_exceeded: {
    status: 429,
    when: 'The client made more requests, or more failed requests from one address, than its rate limit allows in a minute.',
    fix: 'Wait the seconds Retry-After gives, then slow down; ask the operator if the limit is too low for the client.',
  },
  user_refused: {
    status: 401,
    when: 'The resource owner denied the authorization request.',
    fix: 'Nothing to retry; the owner said no.',
  },
  temporarily_unavailable: {
    status: 503,
    when: 'The server cannot read or record what this request needs now (its database or Redis is unreachable, or its disk is full); nothing was changed and nothing was accepted.',
    fix: 'Send the request again, signed afresh (a new nonce), after the seconds in Retry-After.',
  },
} as const satisfies Record<string, { status: number; when: string; fix: string }>;

/** Every `oauth_problem` code; `switch (err.problem)` narrows on it. */
export type OAuthProblem = keyof typeof problems;
