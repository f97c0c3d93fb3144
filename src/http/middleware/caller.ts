/**
 * What every adapter (gateway, Fastify plugin, Express middleware, node:http helper) attaches
 * to a verified request, and how any adapter answers a failure exactly as Latchkey does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  IncomingRequest,
  Provider,
  ResourceOptions,
  VerifiedCaller,
} from '../../provider/index.ts';
import { isFormContentType } from '../../protocol/index.ts';
import { failureAnswer } from '../error-reply.ts';
import { needsBodyBytes, readBodyBytes } from '../incoming-request.ts';
import { setRateLimitHeaders } from '../rate-limit-headers.ts';

/** Who is calling (the provider's verified caller): client, owner (subject, name), scope, token. */
export type OAuthCaller = VerifiedCaller;

/**
 * Verifies a protected-resource request and describes the caller; the client's RateLimit-*
 * fields go to `setHeader` (the answer's). Throws OAuthError.
 */
export async function identifyCaller(
  provider: Provider,
  incoming: IncomingRequest,
  resource: ResourceOptions,
  setHeader: (name: string, value: string) => unknown,
): Promise<OAuthCaller> {
  const verified = await provider.verifyResourceRequest(incoming, resource);
  setRateLimitHeaders(verified.rateLimit, setHeader);
  return verified.caller;
}

/**
 * Reads a form-encoded body as text (the signature covers its parameters, §3.4.1.3.1);
 * any other body is left unread for the application. Over `limit` bytes: 413.
 */
export async function readFormBody(
  request: IncomingMessage,
  limit: number,
): Promise<string | undefined> {
  if (!isFormContentType(request.headers['content-type'])) return undefined;
  return (await readBodyBytes(request, limit)).toString('utf8');
}

/**
 * Reads the body an adapter must give verification: a form body as text (its parameters are
 * signed), any other body as bytes only when `oauth_body_hash` must be checked against it;
 * otherwise the stream is left unread for the application.
 */
export async function readSignedBody(
  request: IncomingMessage,
  limit: number,
  requireBodyHash: boolean,
  originalUrl?: string,
): Promise<{ form: string | undefined; raw: Buffer | undefined }> {
  if (isFormContentType(request.headers['content-type'])) {
    return { form: (await readBodyBytes(request, limit)).toString('utf8'), raw: undefined };
  }
  if (!needsBodyBytes(request, requireBodyHash, originalUrl)) {
    return { form: undefined, raw: undefined };
  }
  return { form: undefined, raw: await readBodyBytes(request, limit) };
}

/** Writes an error on a plain ServerResponse, as the Latchkey server would. */
export function writeOAuthFailure(response: ServerResponse, error: unknown, realm: string): void {
  const answer = failureAnswer(error, realm);
  response.writeHead(answer.status, answer.headers).end(answer.body);
}
