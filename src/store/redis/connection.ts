/**
 * A Redis connection that never makes a request wait for long: commands
 * time out, nothing is queued while disconnected, and a command in flight when the connection
 * drops fails rather than being sent again (a nonce script that ran before the drop would,
 * re-sent, report the request's first use as a replay). The client keeps reconnecting in the
 * background, so service resumes by itself when Redis returns.
 *
 * @example const redis = await connectRedis('redis://127.0.0.1:6379');
 */
import { Redis, type RedisOptions } from 'ioredis';
import { StoreUnavailableError } from '../types.ts';

export const redisDefaults = {
  connectTimeout: 2000,
  commandTimeout: 2000,
  maxRetriesPerRequest: 0,
  // Fail at once while disconnected instead of queueing the request behind the outage.
  enableOfflineQueue: false,
  // Reconnect for ever, backing off to one attempt every 2 s.
  retryStrategy: (attempt: number) => Math.min(100 * 2 ** attempt, 2000),
  lazyConnect: true,
} as const satisfies RedisOptions;

/** Creates a client with the bounded defaults (they may be overridden) without connecting. */
export function createRedisClient(url: string, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { ...redisDefaults, ...options });
  // Connection errors surface on the commands (as StoreUnavailableError); without a listener
  // ioredis would print each reconnection failure to stderr.
  redis.on('error', () => undefined);
  return redis;
}

/**
 * Creates a client and waits until it is ready, so the first request finds it connected
 * (with the offline queue off, a command sent before that fails).
 */
export async function connectRedis(url: string, options: RedisOptions = {}): Promise<Redis> {
  const redis = createRedisClient(url, options);
  try {
    await redis.connect();
    return redis;
  } catch (error) {
    redis.disconnect();
    throw new StoreUnavailableError('Redis is unreachable.', { cause: error });
  }
}
