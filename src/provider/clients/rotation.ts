/**
 * Rotation with overlap (docs/decisions.md "Rotation with overlap"): a client's secret or
 * public key replaced while the previous one stays valid for a grace period, so its developer
 * can roll the new one out without an outage. Only a request whose signature fails with the
 * current credential reads the previous one (verify/previous-credential.ts): the hot path pays
 * nothing. After the overlap the previous credential is refused, but kept a while to tell a
 * client still signing with it that it was rotated away, then forgotten by upkeep.
 */
import type { Client, CredentialKind, PreviousCredential, Store } from '../../store/types.ts';
import { InputError } from '../input-error.ts';
import type { ProviderEvents } from '../events.ts';

/** The longest overlap an operator or developer may ask for: 30 days. */
export const MAX_OVERLAP_SECONDS = 30 * 86_400;
/** How long after its overlap a previous credential is still recognised (for the advice). */
export const RECOGNISED_AFTER_OVERLAP_MS = 30 * 86_400_000;

export interface RotationOptions {
  /** How long the previous credential stays valid, in seconds; 0 (the default): not at all. */
  readonly overlapSeconds?: number | undefined;
}

/** The overlap asked for, in seconds, or an InputError naming `overlap`. */
export function checkOverlap(options: RotationOptions | undefined): number {
  const seconds = options?.overlapSeconds ?? 0;
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_OVERLAP_SECONDS) {
    throw new InputError(
      'overlap',
      `The overlap is a whole number of seconds from 0 to ${MAX_OVERLAP_SECONDS} (30 days).`,
    );
  }
  return seconds;
}

/** The credential of `kind` a client holds now, or undefined when it has none. */
function currentValue(client: Client, kind: CredentialKind): string | undefined {
  const value = kind === 'secret' ? client.secret : client.publicKey;
  return value === null || value === '' ? undefined : value;
}

export function createRotation(store: Store, now: () => number, events: ProviderEvents) {
  return {
    /**
     * Keeps the client's current credential of `kind` as its previous one, valid for
     * `overlapSeconds` more (0: refused at once, still recognised), before the caller stores
     * the new one. Returns the end of the overlap, or null when there was nothing to keep.
     */
    async keepPrevious(
      client: Client,
      kind: CredentialKind,
      overlapSeconds: number,
    ): Promise<number | null> {
      const value = currentValue(client, kind);
      if (value === undefined) return null;
      const at = now();
      const until = at + overlapSeconds * 1000;
      await store.previousCredentials.keep({
        clientKey: client.key,
        kind,
        value,
        replacedAt: at,
        until,
        endedAt: null,
        lastUsedAt: null,
      });
      return until;
    },

    /** The client's previous credentials still in their overlap (the value left out). */
    async overlaps(key: string): Promise<Omit<PreviousCredential, 'value'>[]> {
      const at = now();
      return (await store.previousCredentials.find(key))
        .filter((previous) => previous.until > at)
        .map(({ value: _value, ...rest }) => rest);
    },

    /** Ends the client's overlaps now (a leaked previous secret); how many were live. */
    async endOverlapsNow(key: string): Promise<number> {
      const ended = await store.previousCredentials.endNow(key, now());
      if (ended > 0) events.emit('client.overlap-cut', { clientKey: key, count: ended });
      return ended;
    },

    /**
     * Upkeep: records each overlap that ended (once across instances, audited) and forgets the
     * previous credentials no longer recognised.
     */
    async endOverlaps(at: number): Promise<void> {
      for (const ended of await store.previousCredentials.endOverlaps(at)) {
        events.emit('client.overlap-ended', {
          clientKey: ended.clientKey,
          credential: ended.kind,
          endedAt: new Date(ended.until).toISOString(),
        });
      }
      await store.previousCredentials.forget(at - RECOGNISED_AFTER_OVERLAP_MS);
    },
  };
}

export type Rotation = ReturnType<typeof createRotation>;
