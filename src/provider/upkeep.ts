/**
 * The provider's upkeep, off the request path: last-use times of tokens written in batches
 * (with each token's device hint, in the same write), the ends of rotation overlaps recorded,
 * and expired rows purged (nonces, temporary credentials, sessions, login challenges, console
 * sessions, previous client credentials, the audit trail and the webhook delivery log past
 * their retention), periodically and on close.
 */
import type { ProviderEvents } from './events.ts';
import type { Store } from '../store/types.ts';
import type { Policy } from './policy.ts';
import type { WebhookDesk } from './webhooks/webhooks.ts';
import type { UsageMeter } from './clients/usage.ts';
import { deviceHintOf } from './flow/device-hint.ts';
import type { PreviousUses } from './verify/previous-credential.ts';

export interface UpkeepOptions {
  readonly store: Store;
  readonly policy: Policy;
  readonly events: ProviderEvents;
  /** Its workers stop, and its pending events are queued, before the store closes. */
  readonly webhooks: WebhookDesk;
  /** Client usage counted here, written with the last-use times (clients/usage.ts). */
  readonly usage: UsageMeter;
  /** Records ended overlaps of rotations and forgets old previous credentials (clients/rotation.ts). */
  readonly endOverlaps: (at: number) => Promise<void>;
  /** Accepted previous credentials, written with the last-use times. */
  readonly previousUses: PreviousUses;
  /** The purge clock (purge-clock.ts): never ahead of the time it saw pass. */
  readonly purgeNow: () => number;
  /** How often last-use times are written and expired rows purged (ms). */
  readonly intervalMs: number;
  /** close() closes the store too. */
  readonly ownsStore: boolean;
}

export interface Upkeep {
  /**
   * The token was used at `at` (ms), by a client saying `userAgent`: written with the next
   * batch, the User-Agent as the token's device hint when it has none yet.
   */
  recordUse(token: string, at: number, userAgent?: string): void;
  flushLastUse(): Promise<void>;
  maintain(): Promise<void>;
  startMaintenance(): void;
  close(): Promise<void>;
}

export function createUpkeep(options: UpkeepOptions): Upkeep {
  const { store, policy, events, purgeNow } = options;
  const lastUse = new Map<string, number>();
  // The first User-Agent of each token in the batch; the store keeps the first one written.
  const devices = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let storeClosed = false;

  async function flushLastUse(): Promise<void> {
    if (lastUse.size === 0) return;
    const batch = new Map(lastUse);
    const batchDevices = new Map(devices);
    lastUse.clear();
    devices.clear();
    await store.tokenCredentials.touch(batch, batchDevices);
  }

  async function flushUses(): Promise<void> {
    await flushLastUse();
    await store.previousCredentials.touch(options.previousUses.take());
  }

  function recordUse(token: string, at: number, userAgent?: string): void {
    lastUse.set(token, at);
    if (devices.has(token)) return;
    const hint = deviceHintOf(userAgent);
    if (hint !== undefined) devices.set(token, hint);
  }

  async function maintain(): Promise<void> {
    // Forgetting cannot be undone: never at a time the wall clock was merely stepped to.
    const at = purgeNow();
    await flushUses();
    await options.usage.flush();
    await options.usage.purge(at);
    await store.nonces.purgeExpired(Math.floor(at / 1000));
    await store.temporaryCredentials.purgeExpired(at);
    await store.sessions.purgeExpired(at);
    await store.loginChallenges.purgeExpired(at);
    await store.consoleSessions.purgeExpired(at);
    await options.endOverlaps(at);
    await store.audit.purgeBefore(at - policy.auditRetentionDays * 86_400_000);
    // The delivery log is kept as long as the audit trail.
    await store.webhooks.purgeFinishedBefore(at - policy.auditRetentionDays * 86_400_000);
  }

  return {
    recordUse,
    flushLastUse,
    maintain,

    startMaintenance(): void {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        maintain().catch((error: unknown) => events.emit('error.maintenance', error));
      }, options.intervalMs);
      timer.unref();
    },

    async close(): Promise<void> {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      try {
        // Deliveries in flight are given back, and the events of a short command (the CLI)
        // are in the delivery queue, before the store closes.
        await options.webhooks.stopWorkers(0);
        await options.webhooks.settled();
        await flushUses();
        await options.usage.flush();
      } finally {
        // The store is closed even when the last writes fail.
        if (options.ownsStore && !storeClosed) {
          storeClosed = true;
          await store.close();
        }
      }
    },
  };
}
