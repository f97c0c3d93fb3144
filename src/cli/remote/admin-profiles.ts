/**
 * Saved admin API targets for the operator commands: `latchkey login` writes the server and
 * admin token under a name, and `--profile NAME` uses them. One JSON file,
 * ~/.config/latchkey/profiles.json ($XDG_CONFIG_HOME honoured), mode 0600 since it holds
 * tokens. Not ~/.latchkey/profiles.json, which holds `latchkey request`'s OAuth credentials.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writePrivateJson } from '../private-file.ts';
import { CommandFailure } from '../errors.ts';

export interface AdminProfile {
  readonly server: string;
  readonly adminToken: string;
  readonly savedAt: string;
}

interface AdminProfileFile {
  profiles: Record<string, AdminProfile>;
}

export const DEFAULT_ADMIN_PROFILE = 'default';

export function adminProfilesPath(): string {
  const config = process.env['XDG_CONFIG_HOME'];
  const base = config !== undefined && config !== '' ? config : join(homedir(), '.config');
  return join(base, 'latchkey', 'profiles.json');
}

function readFile(path: string): AdminProfileFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { profiles: {} };
  }
  try {
    const parsed = JSON.parse(text) as Partial<AdminProfileFile>;
    return { profiles: parsed.profiles ?? {} };
  } catch {
    throw new CommandFailure(`${path}: not valid JSON`);
  }
}

export function readAdminProfile(name: string): AdminProfile {
  const path = adminProfilesPath();
  const profile = readFile(path).profiles[name];
  if (profile === undefined) {
    throw new CommandFailure(
      `no profile "${name}" in ${path}; save one with \`latchkey login --server URL --admin-token TOKEN --profile ${name}\``,
    );
  }
  return profile;
}

/** Saves a profile; the file is written whole, readable by its owner only. */
export function saveAdminProfile(name: string, profile: AdminProfile): string {
  const path = adminProfilesPath();
  const file = readFile(path);
  file.profiles[name] = profile;
  writePrivateJson(path, file);
  return path;
}
