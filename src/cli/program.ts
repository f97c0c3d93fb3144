/** The `latchkey` program: global behaviour, then one file per command under commands/. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerAdminTokens } from './commands/admin-tokens.ts';
import { registerAudit } from './commands/audit.ts';
import { registerAuthorize } from './commands/authorize.ts';
import { registerClients } from './commands/clients.ts';
import { registerExport } from './commands/export.ts';
import { registerImport } from './commands/import.ts';
import { registerKeys } from './commands/keys.ts';
import { registerLogin } from './commands/login.ts';
import { registerMigrate } from './commands/migrate.ts';
import { registerRequest } from './commands/request.ts';
import { registerServe } from './commands/serve.ts';
import { registerTokens } from './commands/tokens.ts';
import { registerUsers } from './commands/users.ts';
import { registerWebhooks } from './commands/webhooks.ts';

function version(): string {
  const url = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command('latchkey')
    .description('Latchkey: an OAuth 1.0a (RFC 5849) provider, and its operator and client tools.')
    .version(version(), '-V, --version')
    // Errors come back to main.ts as exceptions, which picks the exit code (2 for usage).
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false })
    .addHelpText(
      'after',
      '\nSettings come from flags, LATCHKEY_* environment variables and a JSON file (--config);\n' +
        'see docs/configuration.md. Run `latchkey <command> --help` for a command.',
    );
  registerServe(program);
  registerClients(program);
  registerUsers(program);
  registerTokens(program);
  registerImport(program);
  registerExport(program);
  registerAuthorize(program);
  registerRequest(program);
  registerMigrate(program);
  registerKeys(program);
  registerAudit(program);
  registerWebhooks(program);
  registerAdminTokens(program);
  registerLogin(program);
  return program;
}
