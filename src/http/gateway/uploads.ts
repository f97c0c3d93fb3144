/**
 * Slow uploads (docs/gateway.md, "Slow uploads"): a body under way is counted against its
 * address and given a deadline. Without both, a client sending a byte now and then holds its
 * request open for as long as it likes, and many such clients hold every connection the
 * gateway has (docs/security.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../protocol/index.ts';

export interface UploadLimits {
  /** A body must be in this long after the request began: 408 beyond. */
  readonly uploadTimeoutMs: number;
  /** Bodies one address may be sending at once: 429 beyond. */
  readonly maxUploadsPerAddress: number;
}

/**
 * Builds the watch: called on a request with a body still to arrive, it refuses one body too
 * many from its address (429) or returns the controller aborted when the body is too slow
 * (the request is then answered 408, or its connection closed once an answer has begun).
 */
export function uploadWatch(
  limits: UploadLimits,
): (request: FastifyRequest, reply: FastifyReply) => AbortController {
  const { uploadTimeoutMs, maxUploadsPerAddress: maxUploads } = limits;
  /** Bodies under way by address: an entry only while one is. */
  const uploadsByAddress = new Map<string, number>();

  return (request, reply) => {
    const address = request.ip;
    const under = uploadsByAddress.get(address) ?? 0;
    if (under >= maxUploads) {
      throw new OAuthError(
        'rate_limit_exceeded',
        `At most ${maxUploads} request bodies at a time from one address; send this one when another is done.`,
        { status: 429, retryAfterSeconds: 1 },
      );
    }
    uploadsByAddress.set(address, under + 1);
    const upload = new AbortController();
    let watching = true;
    const release = (): void => {
      if (!watching) return;
      watching = false;
      clearTimeout(timer);
      const left = (uploadsByAddress.get(address) ?? 1) - 1;
      if (left <= 0) uploadsByAddress.delete(address);
      else uploadsByAddress.set(address, left);
    };
    const timer = setTimeout(() => {
      release();
      if (request.raw.complete) return;
      const error = new OAuthError(
        'parameter_rejected',
        `The request body did not arrive within ${uploadTimeoutMs / 1000} s; send it at once.`,
        { status: 408 },
      );
      // The upstream request (if one was opened) ends, freeing its connection; the client is
      // answered 408 if nothing was answered yet, and its connection closed either way.
      upload.abort(error);
      if (reply.sent || reply.raw.headersSent) {
        reply.raw.destroy();
        return;
      }
      reply.send(error);
    }, uploadTimeoutMs).unref();
    // The body is in once the request ends; the request is over once its answer is.
    request.raw.once('end', release);
    reply.raw.once('close', release);
    return upload;
  };
}
