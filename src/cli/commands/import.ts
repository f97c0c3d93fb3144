/**
 * `latchkey import FILE`: owners, clients and token credentials issued by another provider
 * (or exported by `latchkey export`), in the transfer format of docs/import.md. Every record
 * is checked first and nothing is written if any is bad (each named by its line); then
 * owners, then clients and tokens in batches, each batch atomically. Running it again changes nothing;
 * a different credential under a stored key is reported, not overwritten, unless --update.
 */
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { Provider, RecordOutcome, TransferRecord } from '../../provider/index.ts';
import { storeSettingNames } from '../config/config.ts';
import type { LatchkeyConfig } from '../config/config.ts';
import { isPostgresUrl } from '../../store/locations.ts';
import { openProvider } from '../context.ts';
import { chooseKeys } from '../secret-keys.ts';
import { CommandFailure, EXIT_FAILURE } from '../errors.ts';
import { note, print, printJson } from '../output.ts';
import { progressBar } from '../progress.ts';
import type { Progress } from '../progress.ts';
import { readRecords } from '../record-reader.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { localOnlyCommand } from '../remote/target.ts';

interface ImportCommandOptions {
  update?: boolean;
  dryRun?: boolean;
  createOwners?: boolean;
  batchSize: number;
  json?: boolean;
}

type Tally = Record<'created' | 'updated' | 'unchanged' | 'conflict' | 'error', number>;

interface ImportReport {
  readonly dryRun: boolean;
  /** Records that could not be read or refer to nothing: nothing was written. */
  readonly problems: ReadonlyArray<{ readonly line: number; readonly message: string }>;
  readonly owners: Tally;
  readonly clients: Tally;
  readonly tokens: Tally;
  readonly ownersCreated: readonly string[];
  /** Every record updated, in conflict or in error, by line. */
  readonly changes: RecordOutcome[];
}

const SHOWN = 100;

function batchSize(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100_000) {
    throw new InvalidArgumentError('must be a whole number from 1 to 100000');
  }
  return Number(value);
}

const zero = (): Tally => ({ created: 0, updated: 0, unchanged: 0, conflict: 0, error: 0 });

async function runImport(
  provider: Provider,
  file: string,
  options: ImportCommandOptions,
  progress: Progress,
): Promise<ImportReport> {
  const dryRun = options.dryRun === true;
  const session = provider.transfer.importer({
    update: options.update,
    dryRun,
    createOwners: options.createOwners,
  });
  const report = {
    dryRun,
    problems: [] as { line: number; message: string }[],
    owners: zero(),
    clients: zero(),
    tokens: zero(),
    ownersCreated: [] as string[],
    changes: [] as RecordOutcome[],
  };
  const read = { bytes: 0 };
  const counts = { owner: 0, client: 0, token: 0 };
  // The kind of each line, so the client and token passes parse only their own records.
  let kinds = new Uint8Array(1 << 16);
  const code = { owner: 3, client: 1, token: 2 } as const;
  progress.phase('Checking', statSync(file).size, 'bytes');
  for await (const item of readRecords(file, read)) {
    const kind = session.check(item);
    if (kind !== undefined) {
      counts[kind] += 1;
      if (item.line >= kinds.length) {
        const grown = new Uint8Array(Math.max(kinds.length * 2, item.line + 1));
        grown.set(kinds);
        kinds = grown;
      }
      kinds[item.line] = code[kind];
    }
    if (item.line % 1000 === 0) progress.update(read.bytes);
  }
  progress.update(read.bytes);
  report.problems.push(...(await session.resolve()));
  if (report.problems.length > 0) return report;
  for (const outcome of await session.writeOwners()) {
    report.owners[outcome.outcome] += 1;
    if (outcome.outcome !== 'created' && outcome.outcome !== 'unchanged') {
      report.changes.push(outcome);
    }
  }
  await session.createMissingOwners();
  report.ownersCreated.push(...session.ownersToCreate());

  for (const kind of ['client', 'token'] as const) {
    progress.phase(kind === 'client' ? 'Clients' : 'Tokens', counts[kind], 'records');
    const tally = kind === 'client' ? report.clients : report.tokens;
    let batch: { line: number; record: TransferRecord }[] = [];
    let done = 0;
    const flush = async () => {
      for (const outcome of await session.write(batch)) {
        tally[outcome.outcome] += 1;
        if (outcome.outcome !== 'created' && outcome.outcome !== 'unchanged') {
          report.changes.push(outcome);
        }
      }
      done += batch.length;
      progress.update(done);
      batch = [];
    };
    const other = (line: number) => kinds[line] !== code[kind];
    for await (const item of readRecords(file, undefined, other)) {
      const record = session.record(item, kind);
      if (record === undefined) continue;
      batch.push({ line: item.line, record });
      if (batch.length >= options.batchSize) await flush();
    }
    if (batch.length > 0) await flush();
  }
  report.changes.sort((a, b) => a.line - b.line);
  return report;
}

function describeTally(tally: Tally, dryRun: boolean): string {
  const would = (done: string, planned: string) => (dryRun ? planned : done);
  return [
    `${tally.created} ${would('created', 'to create')}`,
    `${tally.updated} ${would('updated', 'to update')}`,
    `${tally.unchanged} unchanged`,
    `${tally.conflict} conflict${tally.conflict === 1 ? '' : 's'}`,
    `${tally.error} error${tally.error === 1 ? '' : 's'}`,
  ].join(', ');
}

function describeChange(change: RecordOutcome, update: boolean): string {
  const what = `line ${change.line}: ${change.kind} ${change.id}`;
  switch (change.outcome) {
    case 'conflict':
      return `${what}: conflict, differs in ${change.detail ?? '?'} (${update ? 'kept' : '--update overwrites it'})`;
    case 'updated':
      return `${what}: ${change.detail ?? ''} updated`;
    default:
      return `${what}: ${change.detail ?? change.outcome}`;
  }
}

function printReport(report: ImportReport, update: boolean): void {
  if (report.problems.length > 0) {
    for (const problem of report.problems.slice(0, SHOWN)) {
      note(`latchkey: line ${problem.line}: ${problem.message}`);
    }
    if (report.problems.length > SHOWN) {
      note(`latchkey: … and ${report.problems.length - SHOWN} more problems (--json lists all)`);
    }
    // The problems named above, counted as named (one may cover several lines: "and 1 more
    // line refer to it").
    const count = report.problems.length;
    note(
      `latchkey: nothing was imported: fix the ${count} problem${count === 1 ? '' : 's'} above, then run it again.`,
    );
    return;
  }
  if (report.dryRun) print('Dry run: nothing was written.');
  if (Object.values(report.owners).some((n) => n > 0)) {
    print(`Owners:  ${describeTally(report.owners, report.dryRun)}.`);
  }
  print(`Clients: ${describeTally(report.clients, report.dryRun)}.`);
  print(`Tokens:  ${describeTally(report.tokens, report.dryRun)}.`);
  if (report.ownersCreated.length > 0) {
    const names = report.ownersCreated.slice(0, 10).join(', ');
    const rest = report.ownersCreated.length > 10 ? ', …' : '';
    print(
      `Owners:  ${report.ownersCreated.length} ${report.dryRun ? 'to create' : 'created'} without a password (${names}${rest}).`,
    );
  }
  for (const change of report.changes.slice(0, SHOWN)) print(describeChange(change, update));
  if (report.changes.length > SHOWN) {
    print(`… and ${report.changes.length - SHOWN} more (--json lists all).`);
  }
}

/**
 * The provider the import works on. A dry run writes nothing, so it creates nothing either:
 * an SQLite database not there yet is an empty one (in memory), and a key file not there is
 * not made (docs/import.md: a dry run "writes nothing").
 */
async function importProvider(config: LatchkeyConfig, dryRun: boolean): Promise<Provider> {
  if (!dryRun) return openProvider(config, { shortLived: true });
  const absent =
    !isPostgresUrl(config.database) &&
    config.database !== ':memory:' &&
    !existsSync(config.database);
  const checked = absent ? { ...config, database: ':memory:' } : config;
  return openProvider(checked, { shortLived: true, keys: chooseKeys(checked, { create: false }) });
}

export function registerImport(program: Command): void {
  localOnlyCommand(withSettings(program.command('import'), storeSettingNames))
    .description(
      'import owners, clients and token credentials from a JSON Lines file (docs/import.md)',
    )
    .argument('<file>', 'the records, one JSON object a line (as `latchkey export` writes)')
    .option('--update', 'overwrite stored credentials that differ from their records')
    .option('--dry-run', 'check and decide everything, write nothing')
    .option('--create-owners', 'create accounts (no password) for owners the database lacks')
    .option('--batch-size <n>', 'records written per transaction', batchSize, 10_000)
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  latchkey import --dry-run legacy.jsonl\n  latchkey import legacy.jsonl --create-owners',
    )
    .action(async (file: string, options: ImportCommandOptions, command: Command) => {
      try {
        if (!statSync(file).isFile()) throw new Error('not a file');
      } catch {
        throw new CommandFailure(`${file}: no such file`);
      }
      const progress = progressBar(options.json !== true);
      const provider = await importProvider(configOf(command), options.dryRun === true);
      const report = await runImport(provider, file, options, progress)
        .finally(() => progress.stop())
        .finally(() => provider.close());
      if (options.json === true) printJson(report);
      else printReport(report, options.update === true);
      const failed =
        report.problems.length > 0 ||
        report.owners.conflict +
          report.owners.error +
          report.clients.conflict +
          report.clients.error +
          report.tokens.conflict +
          report.tokens.error >
          0;
      if (failed) process.exitCode = EXIT_FAILURE;
    });
}
