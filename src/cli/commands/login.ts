/**
 * `latchkey login`: saves a server and an admin token as a profile for the operator commands'
 * `--profile`, after checking the token with the server (`GET /admin/whoami`).
 */
import type { Command } from 'commander';
import { print } from '../output.ts';
import { AdminApi } from '../remote/admin-api.ts';
import { DEFAULT_ADMIN_PROFILE, saveAdminProfile } from '../remote/admin-profiles.ts';
import { checkServer } from '../remote/target.ts';

interface LoginOptions {
  server: string;
  adminToken: string;
  profile: string;
}

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('save a server and an admin token as a profile for --profile')
    .requiredOption('--server <url>', "the server's base URL")
    .requiredOption('--admin-token <token>', 'an admin API token (`latchkey admin-tokens add`)')
    .option('--profile <name>', 'the profile to save', DEFAULT_ADMIN_PROFILE)
    .action(async (options: LoginOptions) => {
      checkServer(options.server);
      const api = new AdminApi(options.server, options.adminToken);
      const me = await api.call<{ name: string; role: string }>('GET', '/admin/whoami');
      const path = saveAdminProfile(options.profile, {
        server: api.server,
        adminToken: options.adminToken,
        savedAt: new Date().toISOString(),
      });
      print(
        `Saved profile "${options.profile}" in ${path}: ${api.server} as ${me.name} (${me.role}).`,
      );
    });
}
