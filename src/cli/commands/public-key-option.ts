/**
 * `--public-key FILE`, the client's key for the public-key signature methods (RFC 5849 §3.4.3),
 * and `--rsa-public-key`, its former name, still accepted: scripts written when RSA was the
 * only such method keep working.
 */
import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { CommandFailure, UsageError } from '../errors.ts';

export interface PublicKeyOptions {
  publicKey?: string;
  rsaPublicKey?: string;
}

/** `--public-key <file>`. */
export function publicKeyOption(description: string): Option {
  return new Option('--public-key <file>', description);
}

/** `--rsa-public-key <file>`, hidden from the help: the former name of `--public-key`. */
export function rsaPublicKeyAlias(): Option {
  return new Option('--rsa-public-key <file>', 'former name of --public-key').hideHelp();
}

/** The PEM text of the file given with either name, or undefined when neither was given. */
export function readPublicKeyOption(options: PublicKeyOptions): string | undefined {
  if (options.publicKey !== undefined && options.rsaPublicKey !== undefined) {
    throw new UsageError('--public-key and --rsa-public-key do not go together');
  }
  const file = options.publicKey ?? options.rsaPublicKey;
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    const flag = options.publicKey === undefined ? '--rsa-public-key' : '--public-key';
    throw new CommandFailure(`${flag}: cannot read ${file} (${code})`);
  }
}
