/**
 * How a failure reaches the operator: one line on stderr and an exit code. 2 means the
 * command line was wrong (commander's own errors, UsageError, a bad flag value); 1 means the
 * command failed (bad input to the provider, unknown client, server error, bad settings in
 * the environment or the config file).
 */
import { CommanderError } from 'commander';
import { OAuthResponseError } from '../client/flow.ts';
import { ConfigError } from './config/config.ts';
import { InputError, NotFoundError } from '../provider/input-error.ts';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** The command line is wrong in a way commander cannot see (options that go together). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The command could not do its job; the message says why. */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
}

/** Provider field names that differ from the flag that sets them. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  signatureMethods: 'signature-method',
  callbacks: 'callback',
  ownerId: 'user',
  clientKey: 'client',
};

export function flagOfField(field: string): string {
  return `--${FLAG_OF_FIELD[field] ?? field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Prints the error (unless commander already did) and returns the exit code. */
export function reportError(error: unknown, write: (line: string) => void): number {
  if (error instanceof CommanderError) {
    // Commander printed its message (or the help) already.
    return error.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (error instanceof UsageError) {
    write(`latchkey: ${error.message}\n(run with --help for usage)`);
    return EXIT_USAGE;
  }
  if (error instanceof ConfigError) {
    write(`latchkey: ${error.message}`);
    return error.origin === 'flag' ? EXIT_USAGE : EXIT_FAILURE;
  }
  if (error instanceof InputError) {
    write(`latchkey: ${flagOfField(error.field)}: ${error.message}`);
    return EXIT_FAILURE;
  }
  if (
    error instanceof NotFoundError ||
    error instanceof CommandFailure ||
    error instanceof OAuthResponseError
  ) {
    write(`latchkey: ${error.message}`);
    return EXIT_FAILURE;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(`latchkey: unexpected error: ${message}`);
  if (process.env['LATCHKEY_DEBUG'] === '1' && error instanceof Error && error.stack) {
    write(error.stack);
  }
  return EXIT_FAILURE;
}
