/**
 * What every adapter (gateway, Fastify plugin, Express middleware, node:http helper) attaches
 * to a verified request, and how any adapter answers a failure exactly as Latchkey does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuthError } from '../../protocol/index.ts';
import type {
  IncomingRequest,
  Provider,
  ResourceOptions,
  VerifiedCaller,
} from '../../provider/index.ts';
import { isFormContentType } from '../../protocol/index.ts';
import { failureAnswer } from '../error-reply.ts';

/** Who is calling (the provider's verified caller): client, owner (subject, name), scope, token. */
export type OAuthCaller = VerifiedCaller;

/** Verifies a protected-resource request and describes the caller. Throws OAuthError. */
export async function identifyCaller(
  provider: Provider,
  incoming: IncomingRequest,
  resource: ResourceOptions,
): Promise<OAuthCaller> {
  return (await provider.verifyResourceRequest(incoming, resource)).caller;
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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      throw new OAuthError('parameter_rejected', 'The request body is too large.', { status: 413 });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes an error on a plain ServerResponse, as the Latchkey server would. */
export function writeOAuthFailure(response: ServerResponse, error: unknown, realm: string): void {
  const answer = failureAnswer(error, realm);
  response.writeHead(answer.status, answer.headers).end(answer.body);
}
