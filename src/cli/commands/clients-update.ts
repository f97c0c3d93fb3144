/**
 * `latchkey clients update|disable|enable`: a client after registration. `update` changes what
 * its developer registered (the developer portal does the same); `disable` and `enable` are
 * the operator's switch (every request with the key: 401 consumer_key_rejected while
 * disabled, tokens kept). With PostgreSQL and Redis every running instance drops its cached
 * copy at once (src/store/cached.ts).
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { isRememberConsent } from '../../provider/index.ts';
import type { ClientChanges, RememberConsent } from '../../store/index.ts';
import { storeSettingNames } from '../config/config.ts';
import { clientsSource } from './clients-source.ts';
import { withRemote } from '../remote/target.ts';
import { UsageError } from '../errors.ts';
import { print, printJson } from '../output.ts';
import { withSettings } from '../settings-options.ts';
import { publicView } from './client-view.ts';
import { OVERLAP_HELP, overlapOption } from './clients-rotation.ts';
import { publicKeyOption, readPublicKeyOption, rsaPublicKeyAlias } from './public-key-option.ts';
import type { PublicKeyOptions } from './public-key-option.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface UpdateOptions extends PublicKeyOptions {
  name?: string;
  description?: string;
  website?: string;
  callback?: string[];
  clearCallbacks?: boolean;
  signatureMethod?: string[];
  allSignatureMethods?: boolean;
  removePublicKey?: boolean;
  removeRsaPublicKey?: boolean;
  constrainedDevice?: boolean;
  sessionExtension?: boolean;
  rememberConsent?: RememberConsent;
  tokenResponseIdentity?: boolean;
  scopes?: string[];
  allScopes?: boolean;
  requestsPerMinute?: RateLimitOption;
  failuresPerMinute?: RateLimitOption;
  overlap?: number;
  json?: boolean;
}

/** `--remember-consent`: one of the modes the provider knows. */
export function rememberConsentOption(value: string): RememberConsent {
  if (!isRememberConsent(value)) {
    throw new UsageError(`--remember-consent is "never" or "same-scope": ${value.slice(0, 40)}`);
  }
  return value;
}

/**
 * `--scopes read,write`: the client's scope ceiling, names split on commas (or spaces); each
 * must be one of the server's scopes, which the provider checks where the scopes are known.
 */
export function scopesOption(value: string): string[] {
  const names = value.split(/[,\s]+/).filter((name) => name !== '');
  if (names.length === 0) {
    throw new UsageError('--scopes names at least one scope (--all-scopes removes the ceiling)');
  }
  return names;
}

/** A per-minute limit: a whole number, or `default` for the server's. */
type RateLimitOption = number | 'default';

function rateLimit(value: string): RateLimitOption {
  if (value === 'default') return value;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`a rate limit is a whole number of at least 1, or "default": ${value}`);
  }
  return Number(value);
}

function exclusive(a: unknown, b: unknown, names: string): void {
  if (a !== undefined && b !== undefined) throw new UsageError(`${names} do not go together`);
}

/** The changes the options ask for; throws UsageError when they contradict or ask nothing. */
export function changesOf(options: UpdateOptions): ClientChanges {
  exclusive(options.callback, options.clearCallbacks, '--callback and --clear-callbacks');
  exclusive(
    options.signatureMethod,
    options.allSignatureMethods,
    '--signature-method and --all-signature-methods',
  );
  exclusive(options.scopes, options.allScopes, '--scopes and --all-scopes');
  const removeKey = options.removePublicKey === true || options.removeRsaPublicKey === true;
  exclusive(
    options.publicKey ?? options.rsaPublicKey,
    removeKey ? true : undefined,
    '--public-key and --remove-public-key',
  );
  const changes: { -readonly [K in keyof ClientChanges]: ClientChanges[K] } = {};
  if (options.name !== undefined) changes.name = options.name.trim();
  if (options.description !== undefined) changes.description = options.description;
  if (options.website !== undefined)
    changes.website = options.website === '' ? null : options.website;
  if (options.callback !== undefined) changes.callbacks = options.callback;
  if (options.clearCallbacks === true) changes.callbacks = [];
  if (options.signatureMethod !== undefined) changes.signatureMethods = options.signatureMethod;
  if (options.allSignatureMethods === true) changes.signatureMethods = [];
  const publicKey = readPublicKeyOption(options);
  if (publicKey !== undefined) changes.publicKey = publicKey;
  if (removeKey) changes.publicKey = null;
  if (options.constrainedDevice !== undefined)
    changes.constrainedDevice = options.constrainedDevice;
  if (options.sessionExtension !== undefined) changes.sessionExtension = options.sessionExtension;
  if (options.rememberConsent !== undefined) changes.rememberConsent = options.rememberConsent;
  if (options.tokenResponseIdentity !== undefined)
    changes.tokenResponseIdentity = options.tokenResponseIdentity;
  if (options.scopes !== undefined) changes.scopes = options.scopes;
  if (options.allScopes === true) changes.scopes = [];
  if (options.requestsPerMinute !== undefined)
    changes.requestsPerMinute =
      options.requestsPerMinute === 'default' ? null : options.requestsPerMinute;
  if (options.failuresPerMinute !== undefined)
    changes.failuresPerMinute =
      options.failuresPerMinute === 'default' ? null : options.failuresPerMinute;
  if (Object.keys(changes).length === 0)
    throw new UsageError('nothing to change: give at least one option');
  return changes;
}

export function registerClientUpdates(clients: Command): void {
  const store = (command: Command) => withRemote(withSettings(command, storeSettingNames));

  store(clients.command('update'))
    .description(
      "change a client's name, website, description, callbacks, methods, public key or scopes",
    )
    .argument('<key>', 'client key')
    .option('--name <name>', 'name shown to owners on the consent page')
    .option('--description <text>', 'what the application does')
    .option('--website <url>', "the application's web site ('' removes it)")
    .option('--callback <url>', 'the callback URIs, replacing the list (repeatable)', collect)
    .option('--clear-callbacks', 'register no callback (any http(s) callback, or oob)')
    .option(
      '--signature-method <method>',
      'the allowed methods, replacing the list (repeatable)',
      collect,
    )
    .option('--all-signature-methods', 'allow every method the server accepts')
    .addOption(publicKeyOption('a new PEM public key or X.509 certificate file'))
    .addOption(rsaPublicKeyAlias())
    .option('--remove-public-key', 'remove the public key')
    .addOption(
      new Option('--remove-rsa-public-key', 'former name of --remove-public-key').hideHelp(),
    )
    .option('--constrained-device', 'show the oob verifier as a short code easy to type')
    .option('--no-constrained-device', 'show the full oob verifier')
    .option(
      '--session-extension',
      'issue short-lived tokens renewed with a session handle (OAuth Session extension)',
    )
    .option(
      '--no-session-extension',
      'issue tokens without sessions (the sessions of tokens already issued end)',
    )
    .option(
      '--remember-consent <mode>',
      'never (ask the owner every time) or same-scope (ask once per scope)',
      rememberConsentOption,
    )
    .option(
      '--token-response-identity',
      'name the owner in the token response (user_id, screen_name)',
    )
    .option('--no-token-response-identity', 'answer the token request as RFC 5849 does')
    .option(
      '--scopes <names>',
      "the client's scope ceiling: the server's scopes it may ask for and use, comma-separated (its tokens are narrowed to it at once)",
      scopesOption,
    )
    .option('--all-scopes', 'remove the scope ceiling (any scope the server knows)')
    .option(
      '--requests-per-minute <n>',
      'protected-resource requests the client may make per minute (or "default")',
      rateLimit,
    )
    .option(
      '--failures-per-minute <n>',
      'failed verifications per minute from one address before it is refused (or "default")',
      rateLimit,
    )
    .option(
      '--overlap <duration>',
      `with --public-key: ${OVERLAP_HELP.replace('the previous one', 'the previous key')}`,
      overlapOption,
    )
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  latchkey clients update KEY --requests-per-minute 600\n  latchkey clients update KEY --scopes read\n  latchkey clients update KEY --callback https://printer.example/cb --callback https://printer.example/cb2\n  latchkey clients update KEY --public-key new-certificate.pem --overlap 7d',
    )
    .action(async (key: string, options: UpdateOptions, command: Command) => {
      const changes = changesOf(options);
      if (options.overlap !== undefined && changes.publicKey === undefined) {
        throw new UsageError('--overlap goes with --public-key (or `clients rotate-secret`)');
      }
      const client = await clientsSource(command).update(key, changes, {
        overlapSeconds: options.overlap,
      });
      if (options.json === true) return printJson(publicView(client));
      print(`Updated client ${client.key} ("${client.name}"): ${Object.keys(changes).join(', ')}.`);
    });

  registerClientSwitches(clients);
}

/** `disable` and `enable`: the operator's switch. */
function registerClientSwitches(clients: Command): void {
  const store = (command: Command) => withRemote(withSettings(command, storeSettingNames));

  store(clients.command('disable'))
    .description('refuse every request of a client (401 consumer_key_rejected) until it is enabled')
    .argument('<key>', 'client key')
    .action(async (key: string, _options: object, command: Command) => {
      const client = await clientsSource(command).setDisabled(key, true);
      print(
        `Client ${client.key} ("${client.name}") is disabled: its requests and tokens are refused until \`latchkey clients enable\`.`,
      );
    });

  store(clients.command('enable'))
    .description('accept the requests of a disabled client again (its tokens work again)')
    .argument('<key>', 'client key')
    .action(async (key: string, _options: object, command: Command) => {
      const client = await clientsSource(command).setDisabled(key, false);
      print(`Client ${client.key} ("${client.name}") is enabled.`);
    });
}
