/**
 * Saved client and token credentials for `latchkey request`, like twurl's ~/.twurlrc: one
 * JSON file, default ~/.latchkey/profiles.json (LATCHKEY_PROFILES overrides), readable by
 * its owner only since it holds secrets.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writePrivateJson } from './private-file.ts';
import { CommandFailure } from './errors.ts';

export interface Profile {
  /** The server's base URL, for requests given as a path. */
  readonly server: string;
  readonly client: { readonly key: string; readonly secret?: string | undefined };
  /** PEM private key file for the RSA methods, instead of a client secret. */
  readonly privateKeyFile?: string | undefined;
  readonly token: { readonly token: string; readonly secret: string };
  readonly signatureMethod: string;
  readonly savedAt: string;
}

interface ProfileFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

export function profilesPath(): string {
  const set = process.env['LATCHKEY_PROFILES'];
  return set !== undefined && set !== '' ? set : join(homedir(), '.latchkey', 'profiles.json');
}

function readProfiles(path: string): ProfileFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CommandFailure(`cannot read the profiles file ${path}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<ProfileFile>;
    return { profiles: { ...parsed.profiles } };
  } catch {
    throw new CommandFailure(`the profiles file ${path} is not valid JSON`);
  }
}

export function loadProfile(name: string): Profile {
  const path = profilesPath();
  const profile = readProfiles(path).profiles[name];
  if (profile === undefined) {
    throw new CommandFailure(
      `no profile named "${name}" in ${path}: run \`latchkey authorize\` first`,
    );
  }
  return profile;
}

/** Saves a profile, writing the whole file anew with mode 0600 (it holds secrets). */
export function saveProfile(name: string, profile: Profile): string {
  const path = profilesPath();
  const file = readProfiles(path);
  file.profiles[name] = profile;
  writePrivateJson(path, file);
  return path;
}
