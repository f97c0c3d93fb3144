/**
 * Verification for a plain `node:http` server.
 * @example
 * const verify = createNodeVerifier({ provider });
 * http.createServer(async (req, res) => {
 *   const verified = await verify(req, res); // answers the failure itself
 *   if (verified === undefined) return;
 *   res.end(`hello ${verified.caller.owner?.name}`);
 * });
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { incomingFromNode } from '../incoming-request.ts';
import type { IncomingRequest, LtiLaunch } from '../../provider/index.ts';
import { ltiFailureAnswer } from '../lti/lti-reply.ts';
import { identifyCaller, readSignedBody, writeOAuthFailure } from './caller.ts';
import type { OAuthCaller } from './caller.ts';
import { DEFAULT_BODY_LIMIT, resourceOf, transportOf } from './options.ts';
import type { MiddlewareOptions } from './options.ts';

export interface VerifiedNodeRequest {
  readonly caller: OAuthCaller;
  /** The form body text that was read for verification (the stream is consumed), if any. */
  readonly body: string | undefined;
  /**
   * The bytes of any other body, when it was read to check `oauth_body_hash` (the stream is
   * consumed): the exact bytes the hash covers.
   */
  readonly rawBody: Buffer | undefined;
  /** The verified Basic LTI launch (option `lti: true`), else undefined. */
  readonly lti: LtiLaunch | undefined;
}

export type NodeVerifier = (
  request: IncomingMessage,
  response: ServerResponse,
) => Promise<VerifiedNodeRequest | undefined>;

export function createNodeVerifier(options: MiddlewareOptions): NodeVerifier {
  const transport = transportOf(options);
  const resource = resourceOf(options);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  return async function verifyNodeRequest(request, response) {
    let incoming: IncomingRequest | undefined;
    try {
      const body = await readSignedBody(request, limit, resource.requireBodyHash ?? false);
      incoming = incomingFromNode(request, body.form, transport, undefined, body.raw);
      if (options.lti === true) {
        const verified = await options.provider.verifyLtiLaunch(incoming);
        return {
          caller: verified.caller,
          body: body.form,
          rawBody: body.raw,
          lti: verified.launch,
        };
      }
      const caller = await identifyCaller(options.provider, incoming, resource, (name, value) =>
        response.setHeader(name, value),
      );
      return { caller, body: body.form, rawBody: body.raw, lti: undefined };
    } catch (error) {
      const realm = options.provider.policy.realm;
      if (options.lti === true && incoming !== undefined) {
        const answer = ltiFailureAnswer(error, realm);
        response.writeHead(answer.status, answer.headers).end(answer.body);
      } else {
        writeOAuthFailure(response, error, realm);
      }
      return undefined;
    }
  };
}
