/**
 * What one import (import.ts) has learned so far, shared by its passes: the records of the
 * file it checked, what they refer to, how each reference resolves, and the problems found.
 */
import type { ProviderEvents } from '../events.ts';
import type { Owner, Store } from '../../store/types.ts';
import type { OwnerDirectory } from '../accounts/owners.ts';
import { InputError } from '../input-error.ts';
import type { Policy } from '../policy.ts';
import type { OwnerRecord, OwnerReference } from './records.ts';

export interface ImportOptions {
  /** Overwrite a stored credential that differs from its record (default: report a conflict). */
  readonly update?: boolean | undefined;
  /** Decide everything, write nothing. */
  readonly dryRun?: boolean | undefined;
  /** Create local accounts (without a password) for owners the store does not have. */
  readonly createOwners?: boolean | undefined;
}

export interface ImportDependencies {
  readonly store: Store;
  readonly policy: Policy;
  readonly now: () => number;
  readonly events: ProviderEvents;
  readonly owners: OwnerDirectory;
}

/** A record of the file, as its line number and parsed JSON (or the parse error). */
export interface NumberedValue {
  readonly line: number;
  readonly value: unknown;
}

export interface LineProblem {
  readonly line: number;
  readonly message: string;
}

/** A parse error of the line itself (not JSON): the reader hands it over as the value. */
export class UnreadableLine {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

export interface Reference {
  readonly line: number;
  count: number;
}

export interface ImportState {
  readonly deps: ImportDependencies;
  readonly update: boolean;
  readonly dryRun: boolean;
  readonly createOwners: boolean;
  readonly fileClients: Set<string>;
  readonly clientReferences: Map<string, Reference>;
  /** Owners referred to, by ownerKey: the reference, and where it first appears. */
  readonly owners: Map<string, Reference & { readonly owner: OwnerReference }>;
  readonly ownerIds: Map<string, string>;
  readonly newOwners: OwnerReference[];
  /** The owner records of the file, by ownerKey, and what importing each does. */
  readonly ownerRecords: Map<string, { readonly line: number; readonly record: OwnerRecord }>;
  readonly ownerRecordIds: Map<string, number>;
  readonly ownerDecisions: { line: number; record: OwnerRecord; stored: Owner | undefined }[];
  /** Session handle hashes given to a token by this import's earlier batches (and whose). */
  readonly sessionClaims: Map<string, string>;
  /** Client keys of the file that were neither stored nor importable: their tokens cannot be. */
  readonly unimported: Map<string, number>;
  readonly problems: LineProblem[];
}

export function createImportState(deps: ImportDependencies, options: ImportOptions): ImportState {
  return {
    deps,
    update: options.update === true,
    dryRun: options.dryRun === true,
    createOwners: options.createOwners === true,
    fileClients: new Set(),
    clientReferences: new Map(),
    owners: new Map(),
    ownerIds: new Map(),
    newOwners: [],
    ownerRecords: new Map(),
    ownerRecordIds: new Map(),
    ownerDecisions: [],
    sessionClaims: new Map(),
    unimported: new Map(),
    problems: [],
  };
}

export function refer(references: Map<string, Reference>, name: string, line: number): void {
  const known = references.get(name);
  if (known === undefined) references.set(name, { line, count: 1 });
  else known.count += 1;
}

/** Records `error` as the problem of `line` when it is bad input; rethrows anything else. */
export function problem(state: ImportState, line: number, error: unknown): void {
  if (!(error instanceof InputError)) throw error;
  const field = error.field === 'line' || error.field === 'kind' ? '' : `${error.field}: `;
  state.problems.push({ line, message: `${field}${error.message}` });
}

/** How many more lines refer to the same thing, for a problem's message. */
export function more(reference: Reference): string {
  const others = reference.count - 1;
  return others === 0 ? '' : ` (and ${others} more line${others === 1 ? '' : 's'} refer to it)`;
}
