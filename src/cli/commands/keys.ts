/**
 * `latchkey keys`: the keys sealing the secrets at rest (docs/security.md "Secrets at rest").
 * `status` counts the rows under each key; `rotate` adds a new current key to the key file,
 * re-seals every row under it (running servers follow the file, so none restarts) and says
 * which old keys no row needs any more; `status --backed-up` records that a backup holds the key
 * file's current key (`serve` warns until then); `reseal` re-seals under the current key (after a key
 * was first configured, or a rotation by the environment); `prune` removes unused old keys.
 * `status`, `rotate` and `reseal` also work through a server's admin API (`--server`), on the
 * keys that server holds; `prune` and `status --backed-up` edit the key file, so they run
 * where it is.
 */
import type { Command } from 'commander';
import { storeSettingNames } from '../config/config.ts';
import type { LatchkeyConfig } from '../config/config.ts';
import { markKeyFileBackedUp, pruneKeyFile, rotateKeyFile } from '../../store/key-file.ts';
import type { Store } from '../../store/index.ts';
import { keyReport, type KeyReport } from '../../provider/index.ts';
import { openStore } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import { note, print, printJson, table } from '../output.ts';
import { chooseKeys, sealingKeysOf, type KeyChoice } from '../secret-keys.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { localOnly, remoteOf, withRemote } from '../remote/target.ts';

type KeyStatus = KeyReport;

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

/** The same report the admin API gives (`/admin/keys`), so both print alike. */
async function statusOf(choice: KeyChoice, store: Store): Promise<KeyStatus> {
  return keyReport(sealingKeysOf(choice), await store.secrets.countByKey());
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

/** The keys as the server reports them (`/admin/keys`), in the order the local status has. */
type KeysAnswer = KeyStatus & { readonly resealed?: number; readonly previous?: string };

const statusFrom = (answer: KeysAnswer): KeyStatus => ({
  source: answer.source,
  keyFile: answer.keyFile,
  current: answer.current,
  rows: answer.rows,
  unused: answer.unused,
  missing: answer.missing,
});

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('the keys sealing client and token secrets in the database');
  const store = (command: Command) => withRemote(withSettings(command, storeSettingNames));
  registerStatus(keys, store);
  registerRotate(keys, store);
  registerReseal(keys, store);

  store(keys.command('prune'))
    .description('remove from the key file the old keys no stored secret is sealed under')
    .action(async (_options: object, command: Command) => {
      // It edits the key file, which is on the database host (docs/admin.md).
      localOnly(command, '`latchkey keys prune`');
      const config = configOf(command);
      const choice = chooseKeys(config);
      const path = keyFileOf(choice, 'prune');
      const status = await withStore(config, (s) => statusOf(choice, s));
      const inUse = new Set(Object.keys(status.rows).filter((id) => id !== ''));
      const removed = pruneKeyFile(path, inUse);
      print(removed.length === 0 ? 'No key to remove.' : `Removed ${removed.join(', ')}.`);
    });
}

type WithStore = (command: Command) => Command;

function registerStatus(keys: Command, store: WithStore): void {
  store(keys.command('status'))
    .description('which key each stored secret is sealed under')
    .option('--json', 'print JSON')
    .option(
      '--backed-up',
      "record that a backup holds the key file's current key (serve warns until then)",
    )
    .action(async (options: { json?: boolean; backedUp?: boolean }, command: Command) => {
      const api = remoteOf(command);
      let status: KeyStatus;
      if (api !== undefined) {
        // It writes to the key file, on the database host (docs/admin.md).
        if (options.backedUp === true) localOnly(command, '`latchkey keys status --backed-up`');
        status = statusFrom(await api.call<KeysAnswer>('GET', '/admin/keys'));
      } else {
        const config = configOf(command);
        const choice = chooseKeys(config);
        if (options.backedUp === true) {
          const path = keyFileOf(choice, 'status --backed-up');
          const id = markKeyFileBackedUp(path);
          note(`Key ${id} in ${path} recorded as backed up: serve no longer warns about it.`);
        }
        status = await withStore(config, (s) => statusOf(choice, s));
      }
      if (options.json === true) printJson(status);
      else printStatus(status);
    });
}

function registerRotate(keys: Command, store: WithStore): void {
  store(keys.command('rotate'))
    .description('add a new current key to the key file and re-seal every secret under it')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const api = remoteOf(command);
      let rotated: { previous: string; resealed: number; status: KeyStatus };
      if (api !== undefined) {
        // The server rotates the key file it holds, then re-seals.
        const answer = await api.call<KeysAnswer>('POST', '/admin/keys/rotate');
        const status = statusFrom(answer);
        note(`New current key ${status.current ?? ''} (was ${answer.previous ?? ''}); re-sealed.`);
        rotated = { previous: answer.previous ?? '', resealed: answer.resealed ?? 0, status };
      } else {
        const config = configOf(command);
        const choice = chooseKeys(config);
        const { previous, current } = rotateKeyFile(keyFileOf(choice, 'rotate'));
        note(`New current key ${current} (was ${previous}); re-sealing…`);
        const { resealed, status } = await withStore(config, async (s) => ({
          resealed: await s.secrets.reseal(),
          status: await statusOf(chooseKeys(config), s),
        }));
        rotated = { previous, resealed, status };
      }
      const { previous, resealed, status } = rotated;
      if (options.json === true) {
        printJson({ ...status, previous, resealed });
        return;
      }
      print(`Re-sealed ${resealed} secrets under ${status.current ?? ''}.`);
      printStatus(status);
      print(
        'Back up the key file (no backup holds the new key yet), then run ' +
          '`npx latchkey keys status --backed-up`.',
      );
    });
}

function registerReseal(keys: Command, store: WithStore): void {
  store(keys.command('reseal'))
    .description('re-seal every secret in clear or under an old key with the current key')
    .action(async (_options: object, command: Command) => {
      const api = remoteOf(command);
      let resealed: number;
      let status: KeyStatus;
      if (api !== undefined) {
        const answer = await api.call<KeysAnswer>('POST', '/admin/keys/reseal');
        resealed = answer.resealed ?? 0;
        status = statusFrom(answer);
      } else {
        const config = configOf(command);
        const choice = chooseKeys(config);
        if (choice.keyring === undefined) keyFileOf(choice, 'reseal');
        ({ resealed, status } = await withStore(config, async (s) => ({
          resealed: await s.secrets.reseal(),
          status: await statusOf(choice, s),
        })));
      }
      print(`Re-sealed ${resealed} secrets.`);
      printStatus(status);
    });
}
