/**
 * A Lua script run atomically on the server (Redis runs a script without interleaving any other
 * command), sent by its SHA-1 and loaded on first use or after a server restart (NOSCRIPT).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisCall } from './errors.ts';

export type Script = (
  redis: Redis,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

export function defineScript(lua: string): Script {
  const sha = createHash('sha1').update(lua).digest('hex');
  return (redis, keys, args) =>
    redisCall(async () => {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return await redis.eval(lua, keys.length, ...keys, ...args);
      }
    });
}

/** A script's integer reply, checked. */
export function integer(reply: unknown): number {
  if (typeof reply !== 'number') throw new TypeError('The Redis script did not return an integer.');
  return reply;
}
