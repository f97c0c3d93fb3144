/**
 * Files of the CLI that hold secrets (signing profiles, admin API profiles): written whole
 * through a temporary file and a rename, so a reader never sees half of one, readable by
 * their owner only (mode 0600, in a folder of mode 0700).
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function writePrivateJson(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync's mode is masked by the umask; the file must be 0600 whatever it is.
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
