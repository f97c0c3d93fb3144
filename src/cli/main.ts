/** Entry point of the `latchkey` command (bin/latchkey.js imports this file). */
import { buildProgram } from './program.ts';
import { reportError } from './errors.ts';

// A reader that stops early (`latchkey request --help | head`) closes the pipe: the output
// nobody reads any more ends the command quietly, as it does for other commands in a pipe,
// instead of an unhandled EPIPE and its stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const program = buildProgram();
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error, (line) => process.stderr.write(`${line}\n`));
}
