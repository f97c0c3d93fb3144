/**
 * Express middleware: verifies the request and sets `req.oauth` to the caller, or answers
 * the failure exactly as Latchkey does. Structural types only, so Express is not a
 * dependency of Latchkey.
 * @example
 * app.use('/api', latchkeyExpress({ provider }));
 * app.get('/api/photos', (req, res) => res.json({ for: req.oauth.owner?.subject }));
 *
 * Mount it before `express.urlencoded()`, or give that parser
 * `verify: (req, _res, buf) => { req.rawBody = buf }`: form parameters are signed, so the
 * middleware needs the body as sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { incomingFromNode } from '../incoming-request.ts';
import { identifyCaller, readFormBody, writeOAuthFailure } from './caller.ts';
import type { OAuthCaller } from './caller.ts';
import { DEFAULT_BODY_LIMIT, resourceOf, transportOf } from './options.ts';
import type { MiddlewareOptions } from './options.ts';

export interface ExpressLikeRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
  rawBody?: Buffer | string;
  oauth?: OAuthCaller;
  _body?: boolean;
}

export type ExpressLikeMiddleware = (
  request: ExpressLikeRequest,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;

export function latchkeyExpress(options: MiddlewareOptions): ExpressLikeMiddleware {
  const transport = transportOf(options);
  const resource = resourceOf(options);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;

  async function rawFormBody(request: ExpressLikeRequest): Promise<string | undefined> {
    if (request.rawBody !== undefined) return request.rawBody.toString();
    if (request.readableEnded || request._body === true) return undefined; // consumed by a parser before us
    const body = await readFormBody(request, limit);
    if (body !== undefined) {
      // Leave the parsed form where Express apps expect it, and tell body-parser it is done.
      request.body = Object.fromEntries(new URLSearchParams(body));
      request.rawBody = body;
      request._body = true;
    }
    return body;
  }

  return function latchkeyMiddleware(request, response, next) {
    (async () => {
      const body = await rawFormBody(request);
      const incoming = incomingFromNode(request, body, transport, request.originalUrl);
      request.oauth = await identifyCaller(options.provider, incoming, resource);
    })().then(
      () => next(),
      (error: unknown) => writeOAuthFailure(response, error, options.provider.policy.realm),
    );
  };
}
