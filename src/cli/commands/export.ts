/**
 * `latchkey export`: every owner, client and token credential in the transfer format that
 * `latchkey import` reads (docs/import.md), one JSON object a line, to stdout or a file.
 * Secrets and password hashes only with --include-secrets; a file that holds them is created
 * readable by its owner only.
 */
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import { storeSettingNames } from '../config/config.ts';
import { withProvider } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import { note } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';

interface ExportCommandOptions {
  includeSecrets?: boolean;
  output?: string;
}

/** Writes, waiting for the stream to drain when its buffer is full (a million tokens). */
async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
}

export function registerExport(program: Command): void {
  withSettings(program.command('export'), storeSettingNames)
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
      let out: Writable = process.stdout;
      if (options.output !== undefined) {
        out = createWriteStream(options.output, { mode: includeSecrets ? 0o600 : 0o644 });
        const opened = new Promise<void>((resolve, reject) => {
          out.once('open', () => resolve());
          out.once('error', reject);
        });
        await opened.catch((error: NodeJS.ErrnoException) => {
          throw new CommandFailure(`--output: cannot write ${options.output} (${error.code})`);
        });
      }
      const counts = { owner: 0, client: 0, token: 0 };
      await withProvider(configOf(command), async (provider) => {
        for await (const record of provider.transfer.export({ includeSecrets })) {
          counts[record.kind as 'owner' | 'client' | 'token'] += 1;
          await writeLine(out, `${JSON.stringify(record)}\n`);
        }
      });
      if (out !== process.stdout) {
        out.end();
        await finished(out);
        note(
          `Exported ${counts.owner} owner(s), ${counts.client} client(s) and ${counts.token} token(s) to ${options.output}.`,
        );
      }
    });
}
