/**
 * Request logging without secrets: the query may carry oauth_signature, oauth_verifier,
 * oauth_session_handle or oauth_token (query transmission, the authorize page), so it is never
 * logged as sent.
 */
import type { FastifyRequest } from 'fastify';

const SENSITIVE =
  /^(oauth_(signature|verifier|token|token_secret|callback|session_handle)|password|_csrf)$/;

export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const kept = url
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=')[0] ?? '';
      return SENSITIVE.test(decodeSafe(name)) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, question)}?${kept.join('&')}`;
}

function decodeSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      remoteAddress: request.ip,
    };
  },
};

/**
 * A second line of defence for whatever a log call includes: credentials in headers and
 * bodies, and any field named for a secret, a signature, a verifier or a password, at any
 * depth down to MAX_DEPTH. pino's own `redact` does this with wildcard paths (`*.secret`),
 * but each wildcard path costs about 1.5 µs on every line, 23 µs in all for these names:
 * more than verifying the request the line is about (docs/decisions.md, "Log redaction").
 * Here a line whose fields hold nothing to censor, as the access line's, costs a key check.
 */
const SECRET_FIELDS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'body',
  'password',
  'secret',
  'signature',
  'verifier',
  'clientSecret',
  'tokenSecret',
  'sessionSecret',
  'oauth_signature',
  'oauth_verifier',
  'oauth_token_secret',
  'oauth_session_handle',
  'sessionHandle',
]);
const CENSOR = '[redacted]';
/** Fields that pino's serializers shape (logSerializers, Fastify's res, pino's err). */
const SERIALIZED_FIELDS = new Set(['req', 'res', 'err']);
const MAX_DEPTH = 6;

/** pino `formatters.log`: the object itself when nothing is censored, otherwise a copy. */
export function censorSecretFields(object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    if (SERIALIZED_FIELDS.has(key)) continue;
    const value = object[key];
    const censored = censorField(key, value, 1);
    if (censored !== value) {
      copy ??= { ...object };
      copy[key] = censored;
    }
  }
  return copy ?? object;
}

function censorField(key: string, value: unknown, depth: number): unknown {
  if (SECRET_FIELDS.has(key) && value !== undefined && value !== null) return CENSOR;
  return censorNested(value, depth);
}

/** The caller's objects are never changed: what holds a secret is copied, with it censored. */
function censorNested(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  // Buffers, Dates, URLs and the like are written as their toJSON() gives them.
  if (ArrayBuffer.isView(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return value;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, index) => {
      const censored = censorNested(item, depth + 1);
      if (censored !== item) (copy ??= [...(value as unknown[])])[index] = censored;
    });
    return copy ?? value;
  }
  const fields = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    const censored = censorField(key, field, depth + 1);
    if (censored !== field) (copy ??= { ...fields })[key] = censored;
  }
  return copy ?? value;
}
