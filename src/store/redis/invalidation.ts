/**
 * The invalidation channel: an instance that revokes a token, rotates a
 * client's secret or removes a record publishes an event, and every instance's cache drops
 * the entry. Redis pub/sub delivers at most once and only to connected subscribers, so a
 * subscriber is told through `onGap` whenever its connection was lost and restored: it must
 * then drop everything, since events sent meanwhile are gone. Subscribing holds a connection
 * of its own (a subscribed connection can run no other command).
 *
 * @example
 * const channel = createInvalidationChannel('redis://127.0.0.1:6379', { channel: 'latchkey:invalidate' });
 * await channel.subscribe((event) => cache.drop(event));
 * await channel.publish({ kind: 'token', token });
 */
import type { Redis, RedisOptions } from 'ioredis';
import { createRedisClient } from './connection.ts';
import { bounded, redisCall } from './errors.ts';

export type InvalidationEvent =
  | { readonly kind: 'client'; readonly clientKey: string }
  | { readonly kind: 'owner'; readonly ownerId: string }
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'grant'; readonly ownerId: string; readonly clientKey: string };

export interface InvalidationChannel {
  /** Resolves with how many instances received it; fails with StoreUnavailableError. */
  publish(event: InvalidationEvent): Promise<number>;
  /**
   * Delivers every event published from now on; resolves once the subscription is active.
   * `onLost` runs when the subscription's connection drops (events may be missed from then
   * on), `onGap` once it is subscribed again after a reconnection.
   */
  subscribe(
    handler: (event: InvalidationEvent) => void,
    options?: { readonly onGap?: () => void; readonly onLost?: () => void },
  ): Promise<void>;
  close(): Promise<void>;
}

export interface InvalidationChannelOptions {
  readonly channel: string;
  readonly redisOptions?: RedisOptions;
}

/** Only well-formed events reach a handler; anything else on the channel is ignored. */
export function parseInvalidationEvent(message: string): InvalidationEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Record<string, unknown>;
  const strings = (...names: string[]) => names.every((name) => typeof event[name] === 'string');
  switch (event.kind) {
    case 'client':
      return strings('clientKey') ? (event as InvalidationEvent) : undefined;
    case 'owner':
      return strings('ownerId') ? (event as InvalidationEvent) : undefined;
    case 'token':
      return strings('token') ? (event as InvalidationEvent) : undefined;
    case 'grant':
      return strings('ownerId', 'clientKey') ? (event as InvalidationEvent) : undefined;
    default:
      return undefined;
  }
}

export function createInvalidationChannel(
  redisUrl: string,
  options: InvalidationChannelOptions,
): InvalidationChannel {
  const publisher = createRedisClient(redisUrl, options.redisOptions);
  let connecting: Promise<unknown> | undefined;
  let subscriber: Redis | undefined;

  /** Connects on first use; afterwards ioredis reconnects by itself and calls fail fast meanwhile. */
  function publisherReady(): Promise<unknown> {
    if (publisher.status === 'wait') {
      connecting = redisCall(() => bounded(publisher.connect(), 5000, 'connecting')).finally(() => {
        connecting = undefined;
      });
    }
    return connecting ?? Promise.resolve();
  }

  return {
    async publish(event) {
      await publisherReady();
      return redisCall(() => publisher.publish(options.channel, JSON.stringify(event)));
    },
    async subscribe(handler, subscribeOptions = {}) {
      if (subscriber !== undefined) throw new Error('This channel already has a subscriber.');
      // We subscribe again ourselves after a reconnection, so that onGap runs only once the
      // subscription is back: a cache refilled after it cannot miss a later event.
      const connection = createRedisClient(redisUrl, {
        ...options.redisOptions,
        autoResubscribe: false,
      });
      connection.on('message', (channel: string, message: string) => {
        if (channel !== options.channel) return;
        const event = parseInvalidationEvent(message);
        if (event !== undefined) handler(event);
      });
      let connected = false;
      connection.on('close', () => {
        if (connected) subscribeOptions.onLost?.();
      });
      connection.on('ready', () => {
        if (!connected) return;
        connection.subscribe(options.channel).then(
          () => subscribeOptions.onGap?.(),
          // Lost again before it took: the next 'ready' tries again.
          () => undefined,
        );
      });
      try {
        await redisCall(() => bounded(connection.connect(), 5000, 'connecting'));
        await redisCall(() => bounded(connection.subscribe(options.channel), 5000, 'subscribing'));
        connected = true;
      } catch (error) {
        connection.disconnect();
        throw error;
      }
      subscriber = connection;
    },
    async close() {
      publisher.disconnect();
      subscriber?.disconnect();
    },
  };
}
