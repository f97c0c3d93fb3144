/** Pages for signed-in owners only: anyone else is sent to sign in and then brought back. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from './sessions.ts';

/** The signed-in owner, or undefined after answering with a redirect to the sign-in page. */
export function signedInOrRedirect(
  request: FastifyRequest,
  reply: FastifyReply,
): SignedIn | undefined {
  if (request.signedIn !== null) return request.signedIn;
  const next = request.method === 'GET' ? request.url : '/';
  void reply.redirect(`/signin?next=${encodeURIComponent(next)}`, 303);
  return undefined;
}
