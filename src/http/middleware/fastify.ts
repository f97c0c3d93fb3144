/**
 * Fastify plugin: every route in the scope it is registered in is protected, and
 * `request.oauth` holds the caller. A route opts out with `config: { oauth: false }` or sets
 * its own rule with `config: { oauth: { scope: 'write', tokenRequired: false } }`. A route with
 * `config: { lti: true }` (or every route, with the plugin option `lti: true`) takes Basic LTI
 * 1.1 launches: `request.lti` holds the launch and `request.oauth` the LMS (docs/lti.md).
 * Form bodies are kept as text for the signature and parsed for the handler.
 * @example
 * await app.register(latchkeyFastify, { provider });
 * app.get('/photos', async (request) => ({ owner: request.oauth?.owner?.subject }));
 */
import { Readable } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { LtiLaunch, ResourceOptions } from '../../provider/index.ts';
import { failureAnswer, sendFailure } from '../error-reply.ts';
import { isFormContentType } from '../../protocol/index.ts';
import { incomingFromNode, needsBodyBytes, readBodyBytes } from '../incoming-request.ts';
import { ltiFailureAnswer } from '../lti/lti-reply.ts';
import { identifyCaller } from './caller.ts';
import type { OAuthCaller } from './caller.ts';
import { DEFAULT_BODY_LIMIT, resourceOf, transportOf } from './options.ts';
import type { MiddlewareOptions } from './options.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by latchkeyFastify on a verified request. */
    oauth: OAuthCaller | null;
    /** Set by latchkeyFastify on a verified Basic LTI launch (routes with `lti: true`). */
    lti: LtiLaunch | null;
  }
  interface FastifyContextConfig {
    /** false: this route is public; an object: its own scope / two-legged rule. */
    oauth?: false | ResourceOptions;
    /** true: this route takes Basic LTI 1.1 launches (docs/lti.md); false: it does not. */
    lti?: boolean;
  }
}

const rawBodies = new WeakMap<object, string>();
/** Bytes of other bodies, read for oauth_body_hash before the application's parser runs. */
const hashedBodies = new WeakMap<object, Buffer>();
const bodyFailures = new WeakMap<object, unknown>();

export interface FastifyMiddlewareOptions extends MiddlewareOptions {
  /** Register the form-body parser (default true); turn off only if you keep raw bodies yourself. */
  readonly parseForm?: boolean | undefined;
}

const plugin: FastifyPluginAsync<FastifyMiddlewareOptions> = async (app, options) => {
  const transport = transportOf(options);
  const defaults = resourceOf(options);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  app.decorateRequest('oauth', null);
  app.decorateRequest('lti', null);
  if (options.parseForm ?? true) {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: limit },
      (request, body, done) => {
        rawBodies.set(request, body as string);
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );
  }
  app.addHook('preParsing', async function keepHashedBody(request, _reply, payload) {
    // A body `oauth_body_hash` covers is read here, its bytes kept, and handed on unchanged
    // to whichever parser the route uses.
    const rule = request.routeOptions.config.oauth;
    if (rule === false || isFormContentType(request.headers['content-type'])) return payload;
    const required = { ...defaults, ...rule }.requireBodyHash ?? false;
    if (!needsBodyBytes(request.raw, required)) return payload;
    let bytes: Buffer;
    try {
      bytes = await readBodyBytes(payload, limit);
    } catch (error) {
      // Answered by verifyOAuth below, as every refusal is.
      bodyFailures.set(request, error);
      bytes = Buffer.alloc(0);
    }
    hashedBodies.set(request, bytes);
    return Readable.from([bytes], { objectMode: false });
  });
  app.addHook('preHandler', async function verifyOAuth(request: FastifyRequest, reply) {
    const rule = request.routeOptions.config.oauth;
    if (rule === false) return;
    if (request.routeOptions.config.lti ?? options.lti ?? false) {
      const incoming = incomingFromNode(request.raw, rawBodies.get(request), transport);
      try {
        const verified = await options.provider.verifyLtiLaunch(incoming);
        request.oauth = verified.caller;
        request.lti = verified.launch;
        return;
      } catch (error) {
        const answer = ltiFailureAnswer(error, options.provider.policy.realm);
        if (answer.status === 500) throw error;
        return sendFailure(reply, answer);
      }
    }
    try {
      if (bodyFailures.has(request)) throw bodyFailures.get(request);
      const incoming = incomingFromNode(
        request.raw,
        rawBodies.get(request),
        transport,
        undefined,
        hashedBodies.get(request),
      );
      request.oauth = await identifyCaller(
        options.provider,
        incoming,
        { ...defaults, ...rule },
        (name, value) => reply.header(name, value),
      );
    } catch (error) {
      const answer = failureAnswer(error, options.provider.policy.realm);
      // Refusals and store outages are answered as Latchkey answers them; anything else is
      // the application's own error handler's to report.
      if (answer.status === 500) throw error;
      return sendFailure(reply, answer);
    }
  });
};

export const latchkeyFastify = fp(plugin, { fastify: '5.x', name: 'latchkey' });
