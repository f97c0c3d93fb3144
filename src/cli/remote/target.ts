/**
 * Where an operator command works: on the configured database (the default), or on a server's
 * admin API, named by `--server` and `--admin-token`, LATCHKEY_SERVER and
 * LATCHKEY_ADMIN_API_TOKEN, or a saved `--profile`. The token's variable is not
 * LATCHKEY_ADMIN_TOKEN, which already names the login app's token (docs/configuration.md).
 */
import { Option, type Command } from 'commander';
import { CommandFailure, UsageError } from '../errors.ts';
import { AdminApi } from './admin-api.ts';
import { readAdminProfile } from './admin-profiles.ts';

/** Adds the remote flags to an operator command. */
export function withRemote<C extends Command>(command: C): C {
  command
    .option('--server <url>', "a server's base URL: work through its admin API (LATCHKEY_SERVER)")
    .option('--admin-token <token>', 'admin API token, with --server (LATCHKEY_ADMIN_API_TOKEN)')
    .option('--profile <name>', 'a server and admin token saved by `latchkey login`');
  return command;
}

/** The admin API this run of `command` works through, or undefined for the local database. */
export function remoteOf(command: Command): AdminApi | undefined {
  const options = command.opts<{ server?: string; adminToken?: string; profile?: string }>();
  const env = (name: string) => {
    const value = process.env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  if (options.profile !== undefined) {
    if (options.server !== undefined) throw new UsageError('--profile or --server, not both');
    const profile = readAdminProfile(options.profile);
    return new AdminApi(profile.server, options.adminToken ?? profile.adminToken);
  }
  const server = options.server ?? env('LATCHKEY_SERVER');
  if (server === undefined) return undefined;
  checkServer(server);
  const token = options.adminToken ?? env('LATCHKEY_ADMIN_API_TOKEN');
  if (token === undefined) {
    throw new UsageError('--server needs --admin-token (or LATCHKEY_ADMIN_API_TOKEN)');
  }
  return new AdminApi(server, token);
}

export function checkServer(server: string): void {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`--server: "${server}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`--server: "${server}" is not an http(s) URL`);
  }
}

/** For a command the admin API does not offer: one line saying so. */
export function localOnly(command: Command, what: string): void {
  if (remoteOf(command) !== undefined) {
    throw new CommandFailure(`${what} has no admin API counterpart: run it where the database is`);
  }
}

/**
 * A command that runs only where the database or the key file is (docs/admin.md, "The CLI
 * from anywhere"): it takes the remote flags, unlisted, only to refuse them in one line
 * rather than run on this machine's database when a server was meant.
 */
export function localOnlyCommand<C extends Command>(command: C): C {
  command
    .addOption(new Option('--server <url>').hideHelp())
    .addOption(new Option('--admin-token <token>').hideHelp())
    .addOption(new Option('--profile <name>').hideHelp())
    .hook('preAction', (_command, action) => {
      // `latchkey migrate`, or `latchkey clients usage` for a command of a group.
      const group = action.parent?.parent === null ? undefined : action.parent;
      const name =
        group === undefined || group === null ? action.name() : `${group.name()} ${action.name()}`;
      localOnly(action, `\`latchkey ${name}\``);
    });
  return command;
}
