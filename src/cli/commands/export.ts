/**
 * `latchkey export`: every owner, client and token credential in the transfer format that
 * `latchkey import` reads (docs/import.md), one JSON object a line, to stdout or a file.
 * Secrets and password hashes only with --include-secrets; a file that holds them is created
 * readable by its owner only.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import { storeSettingNames } from '../config/config.ts';
import { withProvider } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import { note } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { localOnlyCommand } from '../remote/target.ts';

interface ExportCommandOptions {
  includeSecrets?: boolean;
  output?: string;
}

/**
 * Where the export is written before it takes the place of `output`: a new file beside it,
 * created with the export's mode, renamed over `output` once complete. An existing file keeps
 * its mode when written in place (a 0644 file would leave the secrets readable by all, and a
 * reader that opened it earlier would read them); this way the secrets are only ever in a
 * file created 0600, and a failed export leaves the old file whole (a symbolic link named as
 * the target is replaced by the file). A target that exists and is not a regular file (a
 * pipe, /dev/stdout) is written as it is: the operator chose it.
 */
async function stagingPath(output: string): Promise<string | undefined> {
  const existing = await stat(output).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) return undefined;
  const tag = randomBytes(6).toString('hex');
  return join(dirname(output), `.${basename(output)}.${tag}.partial`);
}

/** Writes, waiting for the stream to drain when its buffer is full (a million tokens). */
async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
}

export function registerExport(program: Command): void {
  localOnlyCommand(withSettings(program.command('export'), storeSettingNames))
    .description('write every owner, client and token credential as JSON Lines (docs/import.md)')
    .option(
      '--include-secrets',
      'include client and token secrets and password hashes (a file: mode 0600)',
    )
    .option('--output <file>', 'write to this file instead of stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  latchkey export > credentials.jsonl\n  latchkey export --include-secrets --output backup.jsonl',
    )
    .action(async (options: ExportCommandOptions, command: Command) => {
      const includeSecrets = options.includeSecrets === true;
      const output = options.output;
      let out: Writable = process.stdout;
      const staging = output === undefined ? undefined : await stagingPath(output);
      if (output !== undefined) {
        out = createWriteStream(staging ?? output, {
          // A staging file is new ('wx'), so the mode always applies.
          flags: staging === undefined ? 'w' : 'wx',
          mode: includeSecrets ? 0o600 : 0o644,
        });
        const opened = new Promise<void>((resolve, reject) => {
          out.once('open', () => resolve());
          out.once('error', reject);
        });
        await opened.catch((error: NodeJS.ErrnoException) => {
          throw new CommandFailure(`--output: cannot write ${output} (${error.code})`);
        });
      }
      const counts = { owner: 0, client: 0, token: 0 };
      try {
        await withProvider(configOf(command), async (provider) => {
          for await (const record of provider.transfer.export({ includeSecrets })) {
            counts[record.kind as 'owner' | 'client' | 'token'] += 1;
            await writeLine(out, `${JSON.stringify(record)}\n`);
          }
        });
      } catch (error) {
        if (staging !== undefined) {
          out.destroy();
          await unlink(staging).catch(() => undefined);
        }
        throw error;
      }
      if (output !== undefined) {
        out.end();
        await finished(out);
        if (staging !== undefined) await rename(staging, output);
        note(
          `Exported ${counts.owner} owner(s), ${counts.client} client(s) and ${counts.token} token(s) to ${output}.`,
        );
      }
    });
}
