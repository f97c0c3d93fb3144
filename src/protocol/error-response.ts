/**
 * How an OAuthError is written on the wire: a form-encoded body (OAuth Problem Reporting)
 * and, for 401, a `WWW-Authenticate: OAuth realm="…"` challenge (RFC 5849 §3.5.1).
 * Every server adapter (Fastify app, gateway, middleware) renders through these two.
 */
import type { OAuthError } from './errors.ts';
import { percentEncode } from './percent-encoding.ts';

/** `oauth_problem=…&oauth_problem_advice=…` plus the error's advice fields. */
export function problemFormBody(error: OAuthError): string {
  let body = `oauth_problem=${error.problem}&oauth_problem_advice=${percentEncode(error.message)}`;
  for (const [name, value] of Object.entries(error.advice)) {
    body += `&${percentEncode(name)}=${percentEncode(value)}`;
  }
  return body;
}

/** The challenge sent with every 401; the realm is the server's, never the client's. */
export function problemChallenge(error: OAuthError, realm: string): string {
  return `OAuth realm="${realm.replace(/["\\\r\n]/g, '')}", oauth_problem="${error.problem}"`;
}
