/**
 * Request logging without secrets: the query may carry oauth_signature, oauth_verifier or
 * oauth_token (query transmission, the authorize page), so it is never logged as sent.
 */
import type { FastifyRequest } from 'fastify';

const SENSITIVE = /^(oauth_(signature|verifier|token|token_secret|callback)|password|_csrf)$/;

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
 * A second line of defence for whatever a log call includes (pino `redact`): credentials in
 * headers, bodies, and any field named for a secret, a signature, a verifier or a password.
 */
export const logRedaction = {
  paths: [
    ...['authorization', '["proxy-authorization"]', 'cookie', '["set-cookie"]'].flatMap(
      (header) => [`headers.${header}`, `*.headers.${header}`],
    ),
    'body',
    '*.body',
    ...['password', 'secret', 'signature', 'verifier', 'clientSecret', 'tokenSecret']
      .concat(['oauth_signature', 'oauth_verifier', 'oauth_token_secret', 'sessionSecret'])
      .flatMap((name) => [name, `*.${name}`]),
  ],
  censor: '[redacted]',
};
