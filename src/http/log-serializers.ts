/**
 * Request logging without secrets: the query may carry oauth_signature, oauth_verifier or
 * oauth_token (query transmission, the authorize page), so it is never logged as sent.
 */
import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

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

/**
 * One access line per request, written after the answer: method, redacted URL, address,
 * status and time. Fastify's default writes two ("incoming request", then "request
 * completed"), which costs twice the log volume for the same facts.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
