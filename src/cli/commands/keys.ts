/**
 * `latchkey keys`: the keys sealing the secrets at rest (docs/security.md "Secrets at rest").
 * `status` counts the rows under each key; `rotate` adds a new current key to the key file,
 * re-seals every row under it (running servers follow the file, so none restarts) and says
 * which old keys no row needs any more; `status --backed-up` records that a backup holds the key
 * file's current key (`serve` warns until then); `reseal` re-seals under the current key (after a key
 * was first configured, or a rotation by the environment); `prune` removes unused old keys.
 */
import type { Command } from 'commander';
import { storeSettingNames } from '../config/config.ts';
import type { LatchkeyConfig } from '../config/config.ts';
import { markKeyFileBackedUp, pruneKeyFile, rotateKeyFile } from '../../store/key-file.ts';
import type { Store } from '../../store/index.ts';
import { missingKeyIds } from '../../store/sealing.ts';
import { openStore } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import { note, print, printJson, table } from '../output.ts';
import { chooseKeys, type KeyChoice } from '../secret-keys.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { localOnlyGroup, withRemote } from '../remote/target.ts';

interface KeyStatus {
  readonly source: KeyChoice['source'];
  readonly keyFile: string | null;
  readonly current: string | null;
  /** Rows per key id; '' is the rows in clear. */
  readonly rows: Record<string, number>;
  /** Configured keys that no row is sealed under (removable), the current one excepted. */
  readonly unused: string[];
  /** Keys rows are sealed under that are not configured: those rows cannot be read. */
  readonly missing: string[];
}

async function withStore<T>(
  config: LatchkeyConfig,
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openStore(config);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function statusOf(choice: KeyChoice, store: Store): Promise<KeyStatus> {
  const counts = await store.secrets.countByKey();
  const current = choice.keyring?.current()?.id ?? null;
  const ids = choice.keyring?.ids() ?? [];
  return {
    source: choice.source,
    keyFile: 'path' in choice ? choice.path : null,
    current,
    rows: Object.fromEntries(counts),
    unused: ids.filter((id) => id !== current && (counts.get(id) ?? 0) === 0),
    missing: missingKeyIds(counts, choice.keyring),
  };
}

function printStatus(status: KeyStatus): void {
  print(
    table(
      ['key', 'rows', ''],
      Object.entries(status.rows).map(([id, n]) => [
        id === '' ? '(in clear)' : id,
        String(n),
        id === status.current ? 'current' : status.missing.includes(id) ? 'NOT CONFIGURED' : '',
      ]),
    ),
  );
  if (status.missing.length > 0) {
    print(
      `No key configured opens the rows under ${status.missing.join(', ')}: give it ` +
        '(LATCHKEY_SECRET_KEY or the key file); latchkey serve refuses to start without it.',
    );
  }
  if (status.unused.length > 0) {
    print(`No row is sealed under ${status.unused.join(', ')}: removable (latchkey keys prune).`);
  }
}

function keyFileOf(choice: KeyChoice, action: string): string {
  if ('path' in choice) return choice.path;
  throw new CommandFailure(
    choice.source === 'setting'
      ? `keys ${action} works on a key file; with LATCHKEY_SECRET_KEY, put the new key first ` +
          'on every instance, keep the old one after it, then run latchkey keys reseal ' +
          '(docs/security.md)'
      : 'no key is configured: set secretKeyFile or LATCHKEY_SECRET_KEY',
  );
}

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('the keys sealing client and token secrets in the database');
  const store = (command: Command) => withRemote(withSettings(command, storeSettingNames));
  localOnlyGroup(keys);

  store(keys.command('status'))
    .description('which key each stored secret is sealed under')
    .option('--json', 'print JSON')
    .option(
      '--backed-up',
      "record that a backup holds the key file's current key (serve warns until then)",
    )
    .action(async (options: { json?: boolean; backedUp?: boolean }, command: Command) => {
      const config = configOf(command);
      const choice = chooseKeys(config);
      if (options.backedUp === true) {
        const path = keyFileOf(choice, 'status --backed-up');
        const id = markKeyFileBackedUp(path);
        note(`Key ${id} in ${path} recorded as backed up: serve no longer warns about it.`);
      }
      const status = await withStore(config, (s) => statusOf(choice, s));
      if (options.json === true) printJson(status);
      else printStatus(status);
    });

  store(keys.command('rotate'))
    .description('add a new current key to the key file and re-seal every secret under it')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = configOf(command);
      const choice = chooseKeys(config);
      const { previous, current } = rotateKeyFile(keyFileOf(choice, 'rotate'));
      note(`New current key ${current} (was ${previous}); re-sealing…`);
      const { resealed, status } = await withStore(config, async (s) => ({
        resealed: await s.secrets.reseal(),
        status: await statusOf(chooseKeys(config), s),
      }));
      if (options.json === true) {
        printJson({ ...status, previous, resealed });
        return;
      }
      print(`Re-sealed ${resealed} secrets under ${current}.`);
      printStatus(status);
      print(
        'Back up the key file (no backup holds the new key yet), then run ' +
          '`npx latchkey keys status --backed-up`.',
      );
    });

  store(keys.command('reseal'))
    .description('re-seal every secret in clear or under an old key with the current key')
    .action(async (_options: object, command: Command) => {
      const config = configOf(command);
      const choice = chooseKeys(config);
      if (choice.keyring === undefined) keyFileOf(choice, 'reseal');
      const { resealed, status } = await withStore(config, async (s) => ({
        resealed: await s.secrets.reseal(),
        status: await statusOf(choice, s),
      }));
      print(`Re-sealed ${resealed} secrets.`);
      printStatus(status);
    });

  store(keys.command('prune'))
    .description('remove from the key file the old keys no stored secret is sealed under')
    .action(async (_options: object, command: Command) => {
      const config = configOf(command);
      const choice = chooseKeys(config);
      const path = keyFileOf(choice, 'prune');
      const status = await withStore(config, (s) => statusOf(choice, s));
      const inUse = new Set(Object.keys(status.rows).filter((id) => id !== ''));
      const removed = pruneKeyFile(path, inUse);
      print(removed.length === 0 ? 'No key to remove.' : `Removed ${removed.join(', ')}.`);
    });
}
