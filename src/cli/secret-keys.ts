/**
 * Which keys seal the secrets at rest (docs/security.md "Secrets at rest"), from the
 * configuration: `secretKey` (LATCHKEY_SECRET_KEY), else `secretKeyFile`, else, for an SQLite
 * database, `latchkey.key` beside it (created on first use, docs/decisions.md); with
 * PostgreSQL and neither, none: secrets in clear, and `serve` says so.
 */
import { existsSync } from 'node:fs';
import type { LatchkeyConfig } from './config/config.ts';
import { spellings } from './config/config.ts';
import {
  ensureKeyFile,
  fileKeyring,
  keyFileBackedUp,
  fixedKeyring,
  keyFileBeside,
  keySetOf,
} from '../store/key-file.ts';
import type { Keyring } from '../store/sealing.ts';
import type { SealingKeySource } from '../provider/index.ts';

export type KeyChoice =
  | {
      readonly source: 'setting';
      readonly keyring: Keyring & { readonly ids: () => string[] };
    }
  | {
      readonly source: 'file' | 'beside-database';
      readonly path: string;
      /** A new key file was made by this call. */
      readonly created: boolean;
      /** The operator has said a backup holds its current key (keys status --backed-up). */
      readonly backedUp: boolean;
      readonly keyring: Keyring & { readonly ids: () => string[] };
    }
  | { readonly source: 'none'; readonly keyring: undefined };

/** The keys as the provider reports them (the admin API's `/admin/keys`). */
export function sealingKeysOf(choice: KeyChoice): SealingKeySource {
  return {
    source: choice.source,
    keyFile: 'path' in choice ? choice.path : null,
    keyring: choice.keyring,
  };
}

/** The key file path the configuration names, or the default beside an SQLite file. */
export function keyFileOf(config: LatchkeyConfig): string | undefined {
  return config.secretKeyFile ?? keyFileBeside(config.database);
}

/**
 * The configured keys. A missing key file is created, unless `create` is false (a command that
 * writes nothing, `import --dry-run`): then there is no key.
 */
export function chooseKeys(
  config: LatchkeyConfig,
  options: { readonly create?: boolean } = {},
): KeyChoice {
  if (config.secretKey !== undefined) {
    return { source: 'setting', keyring: fixedKeyring(keySetOf(config.secretKey)) };
  }
  const path = keyFileOf(config);
  if (path === undefined) return { source: 'none', keyring: undefined };
  if (options.create === false && !existsSync(path)) return { source: 'none', keyring: undefined };
  const created = ensureKeyFile(path);
  return {
    source: config.secretKeyFile === undefined ? 'beside-database' : 'file',
    path,
    created,
    backedUp: keyFileBackedUp(path),
    keyring: fileKeyring(path),
  };
}

/** The start-up line saying where the key comes from; `warn` when an operator must act. */
export function describeKeys(choice: KeyChoice): { level: 'info' | 'warn'; message: string } {
  switch (choice.source) {
    case 'setting':
      return { level: 'info', message: 'secrets at rest sealed under LATCHKEY_SECRET_KEY' };
    case 'file':
      return { level: 'info', message: `secrets at rest sealed under the key file ${choice.path}` };
    case 'beside-database':
      // Until the operator says a backup holds the key (not merely until the file exists: any
      // command, even one that then fails, may have made it), serve says so at every start.
      return choice.backedUp
        ? {
            level: 'info',
            message: `secrets at rest sealed under the key file beside the database, ${choice.path}`,
          }
        : {
            level: 'warn',
            message:
              `secrets at rest sealed under ${choice.created ? 'a new' : 'the'} key file beside ` +
              `the database, ${choice.path}, which no backup is known to hold: back it up apart ` +
              'from the database (without it no secret can be read), then run `npx latchkey keys ' +
              'status --backed-up`; or set secretKeyFile or LATCHKEY_SECRET_KEY to keep the key ' +
              'elsewhere',
          };
    default:
      return {
        level: 'warn',
        message:
          'no secret key configured (LATCHKEY_SECRET_KEY or secretKeyFile): client and token ' +
          'secrets are stored IN CLEAR in the database',
      };
  }
}

/**
 * Why `serve` refuses a database whose secrets are sealed under keys it was not given, and
 * what gives them back: the key in the setting, or the key file that holds it.
 */
export function missingKeyAdvice(
  choice: KeyChoice,
  keyIds: readonly string[],
  database: string,
): string {
  const keyName = spellings('secretKey').env;
  const file = spellings('secretKeyFile');
  const fileNames = `secretKeyFile (${file.flag}, ${file.env})`;
  const ids = `${keyIds.length === 1 ? 'key' : 'keys'} ${keyIds.join(', ')}`;
  let what: string;
  switch (choice.source) {
    case 'setting':
      what =
        `${keyName} does not hold it: give every key that still seals rows, the current one ` +
        'first and the older ones after it, separated by commas';
      break;
    case 'file':
    case 'beside-database': {
      const where =
        choice.source === 'file'
          ? `the key file ${choice.path}`
          : `the key file beside the database, ${choice.path}`;
      what = choice.created
        ? `${where} was missing (a new one was made, which holds no key these rows need): ` +
          `put back the key file they were sealed with (from your backup), or set ${keyName} or ` +
          `${fileNames} to it`
        : `${where} does not hold it: put back the key file they were sealed with (from your ` +
          `backup), or set ${keyName} or ${fileNames} to it`;
      break;
    }
    default:
      what = `no key is configured: set ${keyName} or ${fileNames} to the key that sealed them`;
  }
  return (
    `database ${database} holds secrets sealed under ${ids}, which is not configured; ` +
    `${what}. Not starting: every request reading those secrets would fail. ` +
    '(latchkey keys status counts the rows under each key; docs/security.md "Secrets at rest".)'
  );
}
