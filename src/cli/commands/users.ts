/**
 * `latchkey users`: resource owners. Local accounts are added here and sign in with a
 * password; owners from an OpenID Connect provider or a login app appear on their first
 * sign-in (docs/identity.md) and are listed and removed the same way.
 */
import type { Command } from 'commander';
import { usersSource } from './users-source.ts';
import { withRemote } from '../remote/target.ts';
import { print, printJson, table, time } from '../output.ts';
import { passwordFrom } from '../read-input.ts';
import { withSettings } from '../settings-options.ts';
import { storeSettingNames } from '../config/config.ts';

interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

function passwordOptions(command: Command): Command {
  return command
    .option(
      '--password <password>',
      'the password (visible to other users: prefer --password-stdin)',
    )
    .option('--password-stdin', 'read the password from stdin (hidden prompt at a terminal)');
}

export function registerUsers(program: Command): void {
  const users = program.command('users').description('manage resource owners');
  const store = (command: Command) => withRemote(withSettings(command, storeSettingNames));

  passwordOptions(store(users.command('add')))
    .description('create an account')
    .requiredOption('--username <username>', 'letters, digits and . _ @ -, up to 64')
    .addHelpText(
      'after',
      '\nExample:\n  printf %s "$PASSWORD" | latchkey users add --username alice --password-stdin',
    )
    .action(async (options: PasswordOptions & { username: string }, command: Command) => {
      const password = await passwordFrom(options);
      const owner = await usersSource(command).create(options.username, password);
      print(`Created user ${owner.name}.`);
    });

  store(users.command('list'))
    .description('list the resource owners, whatever their identity source')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const owners = await usersSource(command).list();
      const view = owners.map((o) => ({
        id: o.id,
        source: o.source,
        subject: o.subject,
        issuer: o.issuer,
        name: o.name,
        username: o.username,
        createdAt: time(o.createdAt),
      }));
      if (options.json === true) return printJson(view);
      if (view.length === 0) {
        return print(
          'No users. Create one with `latchkey users add`, or sign in through your identity provider.',
        );
      }
      print(
        table(
          ['NAME', 'SOURCE', 'SUBJECT', 'USERNAME', 'ID', 'CREATED'],
          view.map((o) => [o.name, o.source, o.subject, o.username ?? '-', o.id, o.createdAt]),
        ),
      );
    });

  store(users.command('remove'))
    .description('remove a user (username, id or external subject) and every token it granted')
    .argument('<user>', 'a local username, an owner id, or the subject of an external owner')
    .action(async (reference: string, _options: object, command: Command) => {
      const owner = await usersSource(command).remove(reference);
      print(`Removed user ${owner.name} (${owner.source} ${owner.subject}).`);
    });

  passwordOptions(store(users.command('passwd')))
    .description("set an account's password (signs it out everywhere)")
    .argument('<username>')
    .action(async (username: string, options: PasswordOptions, command: Command) => {
      const password = await passwordFrom(options);
      await usersSource(command).setPassword(username, password);
      print(`Changed the password of ${username}.`);
    });
}
