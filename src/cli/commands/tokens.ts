/**
 * `latchkey tokens`: token credentials outside the flow. `issue` is the operator's "create my
 * access token" button (the operator vouches for the owner); `revoke` takes effect on the
 * next request (RFC 5849 §2.3: the owner should be able to revoke).
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { TokenCredential } from '../../store/index.ts';
import { describeDevice } from '../../provider/index.ts';
import { tokensSource } from './tokens-source.ts';
import { withRemote } from '../remote/target.ts';
import { UsageError } from '../errors.ts';
import { fields, print, printJson, table, time } from '../output.ts';
import { withSettings } from '../settings-options.ts';
import { storeSettingNames } from '../config/config.ts';

function lifetime(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError('must be a whole number of seconds, at least 1');
  }
  return Number(value);
}

function status(token: TokenCredential, now: number): string {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return 'active';
}

interface IssueOptions {
  client: string;
  user: string;
  scope?: string;
  lifetime?: number;
  token?: string;
  secret?: string;
  json?: boolean;
}

/**
 * `latchkey tokens list`: token credentials, never their secrets, each with the device it was
 * first used from (its device hint, and that hint's short form in the table).
 */
function registerList(tokens: Command): void {
  withRemote(withSettings(tokens.command('list'), storeSettingNames))
    .description('list token credentials (never their secrets)')
    .option('--user <user>', 'only this resource owner: username, id or external subject')
    .option('--client <key>', 'only this client')
    .option('--json', 'print JSON')
    .action(
      async (options: { user?: string; client?: string; json?: boolean }, command: Command) => {
        const now = Date.now();
        const { tokens: found, names } = await tokensSource(command).list(options);
        const rows = found.map((t) => ({
          token: t.token,
          client: t.clientKey,
          user: names.get(t.ownerId) ?? t.ownerId,
          scope: t.scope,
          status: status(t, now),
          issuedAt: time(t.issuedAt),
          expiresAt: t.expiresAt === null ? null : time(t.expiresAt),
          lastUsedAt: t.lastUsedAt === null ? null : time(t.lastUsedAt),
          deviceHint: t.deviceHint,
          device: t.deviceHint === null ? null : describeDevice(t.deviceHint),
          revokedAt: t.revokedAt === null ? null : time(t.revokedAt),
        }));
        if (options.json === true) return printJson(rows);
        if (rows.length === 0) return print('No tokens.');
        print(
          table(
            [
              ...['TOKEN', 'CLIENT', 'USER', 'SCOPE', 'STATUS'],
              ...['ISSUED', 'EXPIRES', 'LAST USED', 'DEVICE'],
            ],
            rows.map((r) => [
              r.token,
              r.client,
              r.user,
              r.scope || '-',
              r.status,
              r.issuedAt,
              r.expiresAt ?? 'never',
              r.lastUsedAt ?? '-',
              r.device ?? '-',
            ]),
          ),
        );
      },
    );
}

export function registerTokens(program: Command): void {
  const tokens = program.command('tokens').description('issue, list and revoke token credentials');
  const store = (command: Command) => withSettings(command, storeSettingNames);

  withRemote(store(tokens.command('issue')))
    .description('issue token credentials for a user and a client without the flow (printed once)')
    .requiredOption('--client <key>', 'client key')
    .requiredOption('--user <user>', 'the resource owner: username, id or external subject')
    .option('--scope <scope>', 'space-separated scope names (default: the default scope)')
    .option(
      '--lifetime <seconds>',
      'lifetime (default: the tokenLifetimeSeconds setting, else until revoked)',
      lifetime,
    )
    .option('--token <token>', 'use this token (to migrate from another provider)')
    .option('--secret <secret>', 'use this token secret (with --token)')
    .option('--json', 'print JSON')
    .action(async (options: IssueOptions, command: Command) => {
      if (options.secret !== undefined && options.token === undefined) {
        throw new UsageError('--secret goes with --token (to migrate existing credentials)');
      }
      const issued = await tokensSource(command).issue({
        client: options.client,
        user: options.user,
        scope: options.scope,
        lifetime: options.lifetime,
        token: options.token,
        secret: options.secret,
      });
      const view = {
        token: issued.token,
        secret: issued.secret,
        client: issued.clientKey,
        user: options.user,
        scope: issued.scope,
        expiresAt: issued.expiresAt === null ? null : time(issued.expiresAt),
      };
      if (options.json === true) return printJson(view);
      print(`Issued token credentials for ${options.user} and client ${issued.clientKey}.`);
      print(
        fields([
          ['token', view.token],
          ['secret', view.secret],
          ['scope', view.scope || '-'],
          ['expires', view.expiresAt ?? 'never (until revoked)'],
        ]),
      );
      print('The secret is shown this once: store it now.');
    });

  registerList(tokens);

  withRemote(store(tokens.command('revoke')))
    .description('revoke token credentials; the next request with them is refused')
    .argument('<token>', 'the token (from `latchkey tokens list`)')
    .action(async (token: string, _options: object, command: Command) => {
      const revoked = await tokensSource(command).revoke(token);
      print(revoked ? `Revoked token ${token}.` : `Token ${token} was already revoked.`);
    });
}
