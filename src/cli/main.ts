/** Entry point of the `latchkey` command (bin/latchkey.js imports this file). */
import { buildProgram } from './program.ts';
import { reportError } from './errors.ts';

const program = buildProgram();
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error, (line) => process.stderr.write(`${line}\n`));
}
