/**
 * `latchkey admin-tokens`: the bearer tokens of the admin API (docs/admin.md). `add` prints a
 * token once (only its digest is stored); `list` shows names, roles and expiry; `revoke` ends
 * one at its next request.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { storeSettingNames } from '../config/config.ts';
import { withProvider } from '../context.ts';
import { fields, print, printJson, table, time } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { localOnlyCommand } from '../remote/target.ts';
import { durationSeconds } from '../duration.ts';

/** A lifetime: `30d`, `12h`, `90m`. */
const expires = (value: string) => durationSeconds(value);

export function registerAdminTokens(program: Command): void {
  const tokens = program
    .command('admin-tokens')
    .description('bearer tokens of the admin API, each with a role');
  const store = (command: Command) => localOnlyCommand(withSettings(command, storeSettingNames));

  store(tokens.command('add'))
    .description('make a token (printed once); roles: operator, auditor, support')
    .argument('<name>', 'who holds it, as the audit trail will name it')
    .addOption(
      new Option('--role <role>', 'what it may do')
        .choices(['operator', 'auditor', 'support'])
        .makeOptionMandatory(),
    )
    .option('--expires <duration>', 'stop working after 90m, 12h, 30d… (default: never)', expires)
    .option('--json', 'print JSON')
    .action(
      async (
        name: string,
        options: { role: string; expires?: number; json?: boolean },
        command: Command,
      ) => {
        const made = await withProvider(configOf(command), (p) =>
          p.admin.tokens.add(name, options.role, { expiresInSeconds: options.expires }),
        );
        const view = {
          name: made.admin.name,
          role: made.admin.role,
          token: made.token,
          expiresAt: made.admin.expiresAt === null ? null : time(made.admin.expiresAt),
        };
        if (options.json === true) return printJson(view);
        print(
          fields([
            ['name', view.name],
            ['role', view.role],
            ['token', view.token],
            ['expires', view.expiresAt ?? 'never (until revoked)'],
          ]),
        );
        print('The token is shown this once: store it now.');
      },
    );

  store(tokens.command('list'))
    .description('list admin tokens (never the tokens themselves)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const listed = await withProvider(configOf(command), (p) => p.admin.tokens.list());
      const rows = listed.map((t) => ({
        name: t.name,
        role: t.role,
        createdAt: time(t.createdAt),
        expiresAt: t.expiresAt === null ? null : time(t.expiresAt),
      }));
      if (options.json === true) return printJson(rows);
      if (rows.length === 0) return print('No admin tokens.');
      print(
        table(
          ['NAME', 'ROLE', 'CREATED', 'EXPIRES'],
          rows.map((r) => [r.name, r.role, r.createdAt, r.expiresAt ?? 'never']),
        ),
      );
    });

  store(tokens.command('revoke'))
    .description('revoke an admin token; its next request is refused')
    .argument('<name>', 'the token’s name (from `latchkey admin-tokens list`)')
    .action(async (name: string, _options: object, command: Command) => {
      await withProvider(configOf(command), (p) => p.admin.tokens.revoke(name));
      print(`Revoked admin token ${name}.`);
    });
}
