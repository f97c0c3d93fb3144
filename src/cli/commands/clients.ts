/**
 * `latchkey clients`: register client applications (RFC 5849 §1.1: client credentials are
 * "established with the server before any request") and look after them. The secret is
 * printed by `add` and `rotate-secret` only (clients-rotation.ts).
 */
import type { Command } from 'commander';
import type { RememberConsent } from '../../store/index.ts';
import { clientsSource } from './clients-source.ts';
import { withRemote } from '../remote/target.ts';
import { UsageError } from '../errors.ts';
import { print, printJson, table, time } from '../output.ts';
import { describeClient, printCredentials, publicView } from './client-view.ts';
import { registerClientRotation } from './clients-rotation.ts';
import { registerClientUpdates, rememberConsentOption, scopesOption } from './clients-update.ts';
import { registerClientUsage } from './clients-usage.ts';
import { withSettings } from '../settings-options.ts';
import { publicKeyOption, readPublicKeyOption, rsaPublicKeyAlias } from './public-key-option.ts';
import type { PublicKeyOptions } from './public-key-option.ts';
import { storeSettingNames } from '../config/config.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface AddOptions extends PublicKeyOptions {
  name: string;
  description?: string;
  website?: string;
  callback?: string[];
  signatureMethod?: string[];
  constrainedDevice?: boolean;
  sessionExtension?: boolean;
  rememberConsent?: RememberConsent;
  tokenResponseIdentity?: boolean;
  scopes?: string[];
  key?: string;
  secret?: string;
  json?: boolean;
}

/** `latchkey clients add`: register a client, its secret printed once. */
function registerAdd(clients: Command): void {
  withRemote(withSettings(clients.command('add'), storeSettingNames))
    .description('register a client and print its key and secret (the secret is shown once)')
    .requiredOption('--name <name>', 'name shown to owners on the consent page')
    .option('--description <text>', 'what the application does, shown on the consent page')
    .option('--website <url>', "the application's web site")
    .option('--callback <url>', 'a callback URI the client may use (repeatable)', collect)
    .option('--signature-method <method>', 'allow only this method (repeatable)', collect)
    .option('--constrained-device', 'show the oob verifier as a short code easy to type')
    .option(
      '--session-extension',
      'issue short-lived tokens renewed with a session handle (OAuth Session extension)',
    )
    .option(
      '--remember-consent <mode>',
      'never (ask the owner every time, the default) or same-scope (ask once per scope)',
      rememberConsentOption,
    )
    .option(
      '--token-response-identity',
      'name the owner in the token response (user_id, screen_name)',
    )
    .option(
      '--scopes <names>',
      "the client's scope ceiling: the server's scopes it may ask for and use, comma-separated (default: any)",
      scopesOption,
    )
    .option('--key <key>', 'use this client key (to migrate from another provider)')
    .option('--secret <secret>', 'use this secret (with --key)')
    .addOption(
      publicKeyOption(
        'PEM public key or X.509 certificate file, for the public-key methods (RSA-*)',
      ),
    )
    .addOption(rsaPublicKeyAlias())
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExample:\n  latchkey clients add --name "Photo printer" --callback https://printer.example/cb',
    )
    .action(async (options: AddOptions, command: Command) => {
      if (options.secret !== undefined && options.key === undefined) {
        throw new UsageError('--secret goes with --key (to migrate existing credentials)');
      }
      const publicKey = readPublicKeyOption(options);
      const client = await clientsSource(command).register({
        name: options.name,
        description: options.description,
        website: options.website,
        callbacks: options.callback,
        signatureMethods: options.signatureMethod,
        publicKey,
        constrainedDevice: options.constrainedDevice ?? false,
        sessionExtension: options.sessionExtension ?? false,
        rememberConsent: options.rememberConsent,
        tokenResponseIdentity: options.tokenResponseIdentity ?? false,
        scopes: options.scopes,
        key: options.key,
        secret: options.secret,
      });
      printCredentials(client, options.json === true, `Registered client "${client.name}".`);
    });
}

export function registerClients(program: Command): void {
  const clients = program.command('clients').description('register and manage client applications');
  const store = (command: Command) => withRemote(withSettings(command, storeSettingNames));

  registerAdd(clients);

  store(clients.command('list'))
    .description('list the registered clients')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await clientsSource(command).list();
      if (options.json === true) return printJson(list.map(publicView));
      if (list.length === 0) return print('No clients. Register one with `latchkey clients add`.');
      print(
        table(
          ['KEY', 'NAME', 'VERIFIED', 'STATUS', 'CALLBACKS', 'SCOPES', 'CREATED'],
          list.map((c) => [
            c.key,
            c.name,
            c.verified ? 'yes' : 'no',
            c.disabled ? 'disabled' : 'enabled',
            String(c.callbacks.length),
            c.scopes.join(',') || 'any',
            time(c.createdAt),
          ]),
        ),
      );
    });

  store(clients.command('show'))
    .description('show one client (never its secret)')
    .argument('<key>', 'client key')
    .option('--json', 'print JSON')
    .action(async (key: string, options: { json?: boolean }, command: Command) => {
      const source = clientsSource(command);
      const client = await source.get(key);
      if (options.json === true) printJson(publicView(client));
      else print(describeClient(client, await source.overlaps(key)));
    });

  store(clients.command('remove'))
    .description('remove a client; its tokens stop working')
    .argument('<key>', 'client key')
    .action(async (key: string, _options: object, command: Command) => {
      await clientsSource(command).remove(key);
      print(`Removed client ${key}.`);
    });

  store(clients.command('verify'))
    .description('mark a client verified (the consent page says so), or not with --unverify')
    .argument('<key>', 'client key')
    .option('--unverify', 'remove the mark')
    .action(async (key: string, options: { unverify?: boolean }, command: Command) => {
      const verified = options.unverify !== true;
      const client = await clientsSource(command).update(key, { verified });
      print(
        `Client ${client.key} ("${client.name}") is ${verified ? 'now' : 'no longer'} verified.`,
      );
    });

  registerClientRotation(clients);
  registerClientUpdates(clients);
  registerClientUsage(clients);
}
