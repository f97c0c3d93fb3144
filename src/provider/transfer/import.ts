/**
 * Importing credentials issued by another provider (`latchkey import`, docs/import.md), in
 * three passes over the records so nothing is written unless the whole file is good:
 *
 *   1. check: every record parses, and what it refers to exists (a token's client in the
 *      file or the store, its owner in the file, the store, or to be created with
 *      createOwners); an owner record names the same owner as the store does under its id
 *      and identity (else nothing is written: a subject an API knows must not move). Then the
 *      owner records are written (kept in memory: every referred owner is anyway);
 *   2. the client records, in batches; 3. the token records, in batches.
 *
 * Each batch is one transaction of the store (all its rows, or none) and decides each record
 * against the row stored under its key (plan.ts): running an import twice changes nothing,
 * a different credential under the same key is a conflict unless `update`. A dry run decides
 * the same and writes nothing.
 */
import type { TransferRecord } from './records.ts';
import { parseRecord } from './records.ts';
import { InputError } from '../input-error.ts';
import type { RecordOutcome } from './batch.ts';
import { createImportState, problem, refer, UnreadableLine } from './import-state.ts';
import type {
  ImportDependencies,
  ImportOptions,
  ImportState,
  LineProblem,
  NumberedValue,
} from './import-state.ts';
import {
  checkOwnerRecord,
  createMissingOwners,
  referOwner,
  resolveOwners,
  writeOwners,
} from './import-owners.ts';
import { resolveClients, writeRecords } from './import-credentials.ts';

export { UnreadableLine } from './import-state.ts';
export type {
  ImportDependencies,
  ImportOptions,
  LineProblem,
  NumberedValue,
} from './import-state.ts';
export type { RecordOutcome } from './batch.ts';

function parse(state: ImportState, item: NumberedValue): TransferRecord {
  if (item.value instanceof UnreadableLine) throw new InputError('line', item.value.message);
  return parseRecord(item.value, state.deps.policy);
}

export function createImport(deps: ImportDependencies, options: ImportOptions = {}) {
  const state = createImportState(deps, options);
  return {
    /** Pass 1, one record at a time: its shape, and what it refers to (checked by resolve). */
    check(item: NumberedValue): 'owner' | 'client' | 'token' | undefined {
      try {
        const record = parse(state, item);
        if (record.kind === 'owner') {
          checkOwnerRecord(state, record, item.line);
        } else if (record.kind === 'client') {
          state.fileClients.add(record.key);
          if (record.developer) referOwner(state, record.developer, item.line);
        } else {
          refer(state.clientReferences, record.client, item.line);
          referOwner(state, record.owner, item.line);
        }
        return record.kind;
      } catch (error) {
        problem(state, item.line, error);
        return undefined;
      }
    },

    /** End of pass 1: every problem found, in line order (nothing may be written if any). */
    async resolve(): Promise<LineProblem[]> {
      await resolveClients(state);
      await resolveOwners(state);
      return [...state.problems].sort((a, b) => a.line - b.line);
    },

    /**
     * Writes the owner records (not in a dry run); call after resolve, before the records. A
     * name or password that differs from the stored owner's is a conflict unless `update`;
     * a new password signs the owner's browsers out, as `latchkey users passwd` does.
     */
    writeOwners: (): Promise<RecordOutcome[]> => writeOwners(state),

    /** The owners the import creates (with createOwners), as messages name them. */
    ownersToCreate: (): string[] =>
      state.newOwners.map((reference) =>
        'username' in reference ? reference.username : `${reference.source}:${reference.subject}`,
      ),

    /**
     * Creates those owners (not in a dry run); call after resolve, before the records. A local
     * one gets no password; one from an identity source is named by its subject until its
     * first sign-in brings its name.
     */
    createMissingOwners: (): Promise<number> => createMissingOwners(state),

    /** The record of a checked line, or undefined when it is not of `kind`. */
    record(item: NumberedValue, kind: 'client' | 'token'): TransferRecord | undefined {
      // Checked in pass 1 already: a record of the other kind need not be parsed again.
      if ((item.value as { kind?: unknown } | null)?.kind !== kind) return undefined;
      return parse(state, item);
    },

    /** Passes 2 and 3: one batch of records of one kind, in one transaction. */
    write: (
      batch: ReadonlyArray<{ readonly line: number; readonly record: TransferRecord }>,
    ): Promise<RecordOutcome[]> => writeRecords(state, batch),
  };
}

export type ImportSession = ReturnType<typeof createImport>;
