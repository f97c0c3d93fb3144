/**
 * The console's error page: every refusal is a page with its status and a readable reason,
 * never a stack trace. A wrong admin token at sign-in shows the sign-in form again (sign-in.ts);
 * everything else ends here: bad input 400, a role that may not 403 (or a forged CSRF token),
 * not found 404, a body too large 413, too many wrong tokens 429 with Retry-After.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AdminRefusal, InputError, NotFoundError } from '../../provider/index.ts';
import type { ConsoleContext } from './context.ts';

function statusOf(error: unknown): { readonly status: number; readonly message: string } {
  if (error instanceof AdminRefusal) return { status: error.status, message: error.message };
  if (error instanceof InputError) return { status: 400, message: error.message };
  if (error instanceof NotFoundError) return { status: 404, message: error.message };
  const status = (error as Partial<FastifyError>).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 403) {
      return {
        status,
        message:
          'This form has expired or was not sent from the console. Go back, reload the page and try again.',
      };
    }
    if (status === 413) return { status, message: 'This request is too large.' };
    if (status === 429)
      return { status, message: 'Too many requests from this address; wait a minute.' };
    return { status, message: 'This request is not one the console understands.' };
  }
  return { status: 500, message: 'Something went wrong on our side. Try again in a moment.' };
}

export function consoleErrorHandler(web: ConsoleContext) {
  return async function consoleErrorPage(
    error: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const { status, message } = statusOf(error);
    if (status === 500) request.log.error({ err: error }, 'console error');
    if (error instanceof AdminRefusal && error.retryAfterSeconds !== undefined) {
      void reply.header('retry-after', String(error.retryAfterSeconds));
    }
    // A half-read body: the connection is not reused.
    if (status === 413) void reply.header('connection', 'close');
    return web.render(request, reply, 'error', { title: 'Refused', status, message }, status);
  };
}
