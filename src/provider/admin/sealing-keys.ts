/**
 * The keys sealing the secrets at rest as the server holds them (docs/security.md "Secrets at
 * rest"): where they come from, which key seals now, the rows under each, the configured keys
 * no row needs and the keys rows need that are not configured. One report, so `latchkey keys
 * status` prints the same on the database host and through the admin API; and a rotation of
 * the key file by the server that holds it.
 */
import type { EventEmitter } from 'node:events';
import { rotateKeyFile } from '../../store/key-file.ts';
import { missingKeyIds, type Keyring } from '../../store/sealing.ts';
import type { Store } from '../../store/types.ts';
import { InputError } from '../input-error.ts';

/** Where the server's keys come from (the CLI's key choice, src/cli/secret-keys.ts). */
export interface SealingKeySource {
  readonly source: 'setting' | 'file' | 'beside-database' | 'none';
  /** The key file, when the keys are in one. */
  readonly keyFile: string | null;
  readonly keyring: (Keyring & { readonly ids: () => string[] }) | undefined;
}

export interface KeyReport {
  readonly source: SealingKeySource['source'];
  readonly keyFile: string | null;
  readonly current: string | null;
  /** Rows per key id; '' is the rows in clear. */
  readonly rows: Record<string, number>;
  /** Configured keys that no row is sealed under (removable), the current one excepted. */
  readonly unused: string[];
  /** Keys rows are sealed under that are not configured: those rows cannot be read. */
  readonly missing: string[];
}

/** A server given no key source: secrets in clear, as far as it knows. */
export const NO_KEYS: SealingKeySource = { source: 'none', keyFile: null, keyring: undefined };

export function keyReport(keys: SealingKeySource, counts: ReadonlyMap<string, number>): KeyReport {
  const current = keys.keyring?.current()?.id ?? null;
  const ids = keys.keyring?.ids() ?? [];
  return {
    source: keys.source,
    keyFile: keys.keyFile,
    current,
    rows: Object.fromEntries(counts),
    unused: ids.filter((id) => id !== current && (counts.get(id) ?? 0) === 0),
    missing: missingKeyIds(counts, keys.keyring),
  };
}

/**
 * Adds a new current key to the key file. The keyring is asked for the new key at once, so
 * it reads the file now rather than at its next look (key-file.ts fileKeyring).
 */
function rotateKeys(keyFile: string, keys: SealingKeySource) {
  const rotated = rotateKeyFile(keyFile);
  keys.keyring?.find(rotated.current);
  return rotated;
}

/** The admin desk's `keys`: the report, re-sealing, and rotating the key file. */
export function createKeyDesk(store: Store, events: EventEmitter, keys: SealingKeySource) {
  return {
    /** Rows per key id; '' counts the secrets stored in clear. */
    async status(): Promise<Record<string, number>> {
      return Object.fromEntries(await store.secrets.countByKey());
    },
    /** Where the keys come from, the current one, rows per key, unused and missing keys. */
    async report(): Promise<KeyReport> {
      return keyReport(keys, await store.secrets.countByKey());
    },
    /** Re-seals under the current key every secret in clear or under an old key. */
    async reseal(): Promise<number> {
      const resealed = await store.secrets.reseal();
      events.emit('secrets.resealed', { count: resealed });
      return resealed;
    },
    /**
     * Adds a new current key to the server's key file and re-seals every secret under it
     * (`latchkey keys rotate`); InputError when the keys are not in a key file.
     */
    async rotate() {
      if (keys.keyFile === null) {
        throw new InputError(
          'keys',
          keys.source === 'setting'
            ? 'The keys are set by LATCHKEY_SECRET_KEY, not a key file: put the new key first on every instance, keep the old one after it, then re-seal.'
            : 'No key file is configured: set secretKeyFile or LATCHKEY_SECRET_KEY.',
        );
      }
      const { previous, current } = rotateKeys(keys.keyFile, keys);
      events.emit('secrets.key-rotated', { previous, current });
      const resealed = await store.secrets.reseal();
      return { previous, resealed, report: keyReport(keys, await store.secrets.countByKey()) };
    },
  };
}
