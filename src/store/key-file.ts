/**
 * The keys that seal secrets at rest (src/store/sealing.ts): from `LATCHKEY_SECRET_KEY` (one or
 * more base64 keys, comma separated, the first sealing) or from a key file, JSON
 * `{"current": "<id>", "keys": ["<base64url key>", …], "backedUp": "<id>"}`, written 0600. A running server
 * re-reads the file when it changes (checked at most once a second, and whenever a value
 * names a key it does not have), so `latchkey keys rotate` needs no restart.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isPostgresUrl } from './locations.ts';
import { sealingKey, type Keyring, type SealingKey } from './sealing.ts';

export interface KeySet {
  readonly current: SealingKey;
  readonly keys: readonly SealingKey[];
  /**
   * A key file only: the id of the key that was current when the operator said the file was
   * backed up (`latchkey keys status --backed-up`); until it names the current key, `serve`
   * warns that the file needs backing up (a rotation makes a key no backup holds).
   */
  readonly backedUp?: string | undefined;
}

/** One key in base64 or base64url (32 bytes). */
export function parseKey(text: string): SealingKey {
  const trimmed = text.trim();
  const bytes = Buffer.from(trimmed, /[+/=]/.test(trimmed) ? 'base64' : 'base64url');
  if (bytes.length !== 32) {
    throw new TypeError('A secret key is 32 random bytes in base64 (openssl rand -base64 32).');
  }
  return sealingKey(bytes);
}

/** `LATCHKEY_SECRET_KEY`: keys separated by commas, the first one sealing. */
export function keySetOf(value: string): KeySet {
  const keys = value
    .split(',')
    .filter((part) => part.trim() !== '')
    .map(parseKey);
  const current = keys[0];
  if (current === undefined) throw new TypeError('The secret key setting holds no key.');
  return { current, keys };
}

export function readKeyFile(path: string): KeySet {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const file = parsed as { current?: unknown; keys?: unknown; backedUp?: unknown };
  if (
    typeof file.current !== 'string' ||
    !Array.isArray(file.keys) ||
    !file.keys.every((key) => typeof key === 'string')
  ) {
    throw new TypeError(`${path} is not a Latchkey key file.`);
  }
  const keys = (file.keys as string[]).map(parseKey);
  const current = keys.find((key) => key.id === file.current);
  if (current === undefined) throw new TypeError(`${path}: the current key is not in the file.`);
  return { current, keys, backedUp: typeof file.backedUp === 'string' ? file.backedUp : undefined };
}

/** Writes the file 0600 through a temporary file and a rename, so a reader never sees half. */
function writeKeyFile(path: string, set: KeySet): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  const text = JSON.stringify({
    current: set.current.id,
    keys: set.keys.map((key) => key.key.toString('base64url')),
    ...(set.backedUp === undefined ? {} : { backedUp: set.backedUp }),
  });
  writeFileSync(temporary, `${text}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/**
 * The embedded default's key file: `latchkey.key` beside an SQLite database file; none for
 * PostgreSQL or an in-memory database.
 */
export function keyFileBeside(database: string): string | undefined {
  if (isPostgresUrl(database) || database === ':memory:') return undefined;
  return join(dirname(database), 'latchkey.key');
}

/**
 * The keys of the key file beside `database` when there is one: what `latchkey serve` sealed
 * an SQLite file's secrets with, for another program opening the same file.
 */
export function keyringBeside(database: string): Keyring | undefined {
  const beside = keyFileBeside(database);
  return beside !== undefined && existsSync(beside) ? fileKeyring(beside) : undefined;
}

export function newKey(): SealingKey {
  return sealingKey(randomBytes(32));
}

/** Creates a key file with one new key unless it exists; true when it created one. */
export function ensureKeyFile(path: string): boolean {
  if (existsSync(path)) return false;
  const key = newKey();
  writeKeyFile(path, { current: key, keys: [key] });
  return true;
}

/** Adds a new key and makes it current; the others stay, for reading. */
export function rotateKeyFile(path: string): { previous: string; current: string } {
  const set = readKeyFile(path);
  const key = newKey();
  writeKeyFile(path, { current: key, keys: [key, ...set.keys] });
  return { previous: set.current.id, current: key.id };
}

/** Whether the operator has said a backup holds the file's current key. */
export function keyFileBackedUp(path: string): boolean {
  const set = readKeyFile(path);
  return set.backedUp === set.current.id;
}

/** Records that a backup holds the file's current key; returns that key's id. */
export function markKeyFileBackedUp(path: string): string {
  const set = readKeyFile(path);
  writeKeyFile(path, { ...set, backedUp: set.current.id });
  return set.current.id;
}

/** Removes every key but the current one and those in `keep`; returns the removed ids. */
export function pruneKeyFile(path: string, keep: ReadonlySet<string>): string[] {
  const set = readKeyFile(path);
  const kept = set.keys.filter((key) => key.id === set.current.id || keep.has(key.id));
  writeKeyFile(path, { current: set.current, keys: kept, backedUp: set.backedUp });
  return set.keys.filter((key) => !kept.includes(key)).map((key) => key.id);
}

export function fixedKeyring(set: KeySet): Keyring & { readonly ids: () => string[] } {
  const byId = new Map(set.keys.map((key) => [key.id, key]));
  return {
    current: () => set.current,
    find: (id) => byId.get(id),
    ids: () => [...byId.keys()],
  };
}

/** A keyring over a key file that follows its changes (see the module comment). */
export function fileKeyring(
  path: string,
  options: { readonly checkEveryMs?: number; readonly now?: () => number } = {},
): Keyring & { readonly ids: () => string[] } {
  const checkEveryMs = options.checkEveryMs ?? 1000;
  const now = options.now ?? Date.now;
  let loaded = fixedKeyring(readKeyFile(path));
  let modified = statSync(path).mtimeMs;
  let checkedAt = now();
  const reload = (force: boolean): void => {
    const at = now();
    if (!force && at - checkedAt < checkEveryMs) return;
    checkedAt = at;
    const mtime = statSync(path).mtimeMs;
    if (mtime === modified && !force) return;
    loaded = fixedKeyring(readKeyFile(path));
    modified = mtime;
  };
  return {
    current() {
      reload(false);
      return loaded.current();
    },
    find(id) {
      const key = loaded.find(id);
      if (key !== undefined) return key;
      reload(true);
      return loaded.find(id);
    },
    ids: () => loaded.ids(),
  };
}
