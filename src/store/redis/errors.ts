/**
 * Turns ioredis errors into the store's error vocabulary (src/store/types.ts). A refused or
 * lost connection, a command timeout, a stream that is not writable (the offline queue is off)
 * and the server's "cannot serve now" replies become StoreUnavailableError: the caller answers
 * 503 and fails closed (no request passes without its nonce check).
 */
import { ReplyError } from 'ioredis';
import { StoreUnavailableError } from '../types.ts';

/** Server replies that mean "not now" rather than "wrong command". */
const transientReplies =
  /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|OOM|NOREPLICAS)\b/;

export function translateRedisError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  if (error instanceof ReplyError) {
    const message = error instanceof Error ? error.message : '';
    if (!transientReplies.test(message)) return error;
  }
  return new StoreUnavailableError('Redis is unavailable.', { cause: error });
}

/** Awaits a Redis call, failing with the store's errors. */
export async function redisCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw translateRedisError(error);
  }
}

/**
 * Rejects with StoreUnavailableError when `promise` has not settled within `ms`: connecting and
 * subscribing are not covered by ioredis's command timeout, and a stalled socket must fail,
 * never hang.
 */
export async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError(`Redis: ${what} took over ${ms} ms.`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
