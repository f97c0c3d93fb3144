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
import { isFormContentType } from '../../protocol/index.ts';
import { incomingFromNode, needsBodyBytes } from '../incoming-request.ts';
import type { IncomingRequest, LtiLaunch } from '../../provider/index.ts';
import { ltiFailureAnswer } from '../lti/lti-reply.ts';
import { identifyCaller, readSignedBody, writeOAuthFailure } from './caller.ts';
import type { OAuthCaller } from './caller.ts';
import { DEFAULT_BODY_LIMIT, resourceOf, transportOf } from './options.ts';
import type { MiddlewareOptions } from './options.ts';

export interface ExpressLikeRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
  rawBody?: Buffer | string;
  oauth?: OAuthCaller;
  /** Set on a verified Basic LTI launch (option `lti: true`). */
  lti?: LtiLaunch;
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
  const requireBodyHash = resource.requireBodyHash ?? false;

  /** The body verification needs: form text, or the bytes `oauth_body_hash` covers. */
  async function signedBody(
    request: ExpressLikeRequest,
  ): Promise<{ form: string | undefined; raw: Buffer | undefined }> {
    const form = isFormContentType(request.headers['content-type']);
    if (request.rawBody !== undefined) {
      // Kept by a body parser that ran before us (its `verify` option).
      return form
        ? { form: request.rawBody.toString(), raw: undefined }
        : { form: undefined, raw: Buffer.from(request.rawBody) };
    }
    if (request.readableEnded || request._body === true) {
      // Consumed by a parser before us: a form or a hashed body can no longer be checked.
      if (!form && needsBodyBytes(request, requireBodyHash, request.originalUrl)) {
        throw new Error(
          'latchkeyExpress must see the body to check oauth_body_hash: mount it before the body parser, or give the parser verify: (req, _res, buf) => { req.rawBody = buf }.',
        );
      }
      return { form: undefined, raw: undefined };
    }
    const body = await readSignedBody(request, limit, requireBodyHash, request.originalUrl);
    if (body.form !== undefined) {
      // Leave the parsed form where Express apps expect it, and tell body-parser it is done.
      request.body = Object.fromEntries(new URLSearchParams(body.form));
      request.rawBody = body.form;
      request._body = true;
    } else if (body.raw !== undefined) {
      // Read for the body hash: the bytes stay in rawBody, a JSON body is parsed as
      // express.json() would, any other body is left as bytes (as express.raw() would).
      request.rawBody = body.raw;
      request.body = /[/+]json\s*(;|$)/i.test(request.headers['content-type'] ?? '')
        ? parseJson(body.raw)
        : body.raw;
      request._body = true;
    }
    return body;
  }

  return function latchkeyMiddleware(request, response, next) {
    let incoming: IncomingRequest | undefined;
    (async () => {
      const body = await signedBody(request);
      incoming = incomingFromNode(request, body.form, transport, request.originalUrl, body.raw);
      if (options.lti === true) {
        const verified = await options.provider.verifyLtiLaunch(incoming);
        request.oauth = verified.caller;
        request.lti = verified.launch;
        return;
      }
      request.oauth = await identifyCaller(options.provider, incoming, resource, (name, value) =>
        response.setHeader(name, value),
      );
    })().then(
      () => next(),
      (error: unknown) => {
        const realm = options.provider.policy.realm;
        if (options.lti !== true || incoming === undefined) {
          return writeOAuthFailure(response, error, realm);
        }
        const answer = ltiFailureAnswer(error, realm);
        response.writeHead(answer.status, answer.headers).end(answer.body);
      },
    );
  };
}

/** A JSON body as express.json() leaves it; undefined when it is not valid JSON. */
function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
