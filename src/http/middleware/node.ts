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
    try {
      const body = await readSignedBody(request, limit, resource.requireBodyHash ?? false);
      const caller = await identifyCaller(
        options.provider,
        incomingFromNode(request, body.form, transport, undefined, body.raw),
        resource,
      );
      return { caller, body: body.form, rawBody: body.raw };
    } catch (error) {
      writeOAuthFailure(response, error, options.provider.policy.realm);
      return undefined;
    }
  };
}
