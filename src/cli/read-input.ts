/** Reading what a person or a pipe gives on stdin: a password, a verifier. */
import { createInterface } from 'node:readline';
import { CommandFailure, UsageError } from './errors.ts';
import { note } from './output.ts';

/** All of stdin, without the one line break a pipe or here-string adds. */
async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** One line typed at a terminal without echo. */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (finish: () => void) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      finish();
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') return done(() => resolve(typed));
        if (char === '\u0003') return done(() => reject(new CommandFailure('interrupted')));
        typed = char === '\u007f' || char === '\b' ? typed.slice(0, -1) : typed + char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** The password from `--password` or `--password-stdin` (exactly one of them). */
export async function passwordFrom(options: {
  password?: string;
  passwordStdin?: boolean;
}): Promise<string> {
  if (options.password !== undefined && options.passwordStdin === true) {
    throw new UsageError('give --password or --password-stdin, not both');
  }
  if (options.password !== undefined) {
    note(
      'Warning: a password given with --password is visible to other users of this machine; prefer --password-stdin.',
    );
    return options.password;
  }
  if (options.passwordStdin !== true) {
    throw new UsageError('a password is required: give --password-stdin (or --password)');
  }
  if (process.stdin.isTTY) return readHidden('Password: ');
  const password = await readAll();
  if (password === '') throw new CommandFailure('no password on stdin');
  return password;
}

/** The first line on stdin, after printing `prompt` on stderr. */
export async function readLine(prompt: string): Promise<string | undefined> {
  process.stderr.write(prompt);
  const lines = createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of lines) return line;
    return undefined;
  } finally {
    lines.close();
    process.stdin.pause();
  }
}
