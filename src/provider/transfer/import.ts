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
import type { Client, Owner, Store, TokenCredential } from '../../store/types.ts';
import { StoreConflictError } from '../../store/types.ts';
import { InputError } from '../input-error.ts';
import { checkUsername } from '../accounts/owners.ts';
import type { OwnerDirectory } from '../accounts/owners.ts';
import type { Policy } from '../policy.ts';
import { decideBatch, noWrites, outcomeOf } from './batch.ts';
import type { RecordOutcome } from './batch.ts';
import { planClient, planOwner, planToken } from './plan.ts';
import type { Decision } from './plan.ts';
import { parseRecord } from './records.ts';
import { ownerKey, ownerLabel, referenceOf } from './records.ts';
import type {
  ClientRecord,
  OwnerRecord,
  OwnerReference,
  TokenRecord,
  TransferRecord,
} from './records.ts';
import type { ProviderEvents } from '../events.ts';

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

interface Reference {
  readonly line: number;
  count: number;
}

function refer(references: Map<string, Reference>, name: string, line: number): void {
  const known = references.get(name);
  if (known === undefined) references.set(name, { line, count: 1 });
  else known.count += 1;
}

export function createImport(deps: ImportDependencies, options: ImportOptions = {}) {
  const { store, policy } = deps;
  const update = options.update === true;
  const dryRun = options.dryRun === true;
  const fileClients = new Set<string>();
  const clientReferences = new Map<string, Reference>();
  /** Owners referred to, by ownerKey: the reference, and where it first appears. */
  const owners = new Map<string, Reference & { readonly owner: OwnerReference }>();
  const ownerIds = new Map<string, string>();
  const newOwners: OwnerReference[] = [];
  /** The owner records of the file, by ownerKey, and what importing each does. */
  const ownerRecords = new Map<string, { readonly line: number; readonly record: OwnerRecord }>();
  const ownerRecordIds = new Map<string, number>();
  const ownerDecisions: { line: number; record: OwnerRecord; stored: Owner | undefined }[] = [];
  /** Session handle hashes given to a token by this import's earlier batches (and whose). */
  const sessionClaims = new Map<string, string>();
  /** Client keys of the file that were neither stored nor importable: their tokens cannot be. */
  const unimported = new Map<string, number>();
  const problems: LineProblem[] = [];

  function parse(item: NumberedValue): TransferRecord {
    if (item.value instanceof UnreadableLine) throw new InputError('line', item.value.message);
    return parseRecord(item.value, policy);
  }

  function problem(line: number, error: unknown): void {
    if (!(error instanceof InputError)) throw error;
    const field = error.field === 'line' || error.field === 'kind' ? '' : `${error.field}: `;
    problems.push({ line, message: `${field}${error.message}` });
  }

  function findOwner(reference: OwnerReference) {
    return 'username' in reference
      ? store.owners.findByUsername(reference.username)
      : store.owners.findByIdentity(reference);
  }

  /**
   * Each owner record against the store: the owner stored under its id must be the same one
   * (source, issuer, subject, username), and no other stored owner may hold its identity or
   * username. References to it then resolve to its id.
   */
  async function resolveOwnerRecords(): Promise<void> {
    for (const [key, { line, record }] of ownerRecords) {
      const [byId, byIdentity, byUsername] = await Promise.all([
        store.owners.findById(record.id),
        store.owners.findByIdentity(record),
        record.username === null ? undefined : store.owners.findByUsername(record.username),
      ]);
      const clash = ownerClash(record, byId, byIdentity, byUsername);
      if (clash !== undefined) {
        problems.push({ line, message: clash });
        continue;
      }
      // An owner from an identity source found under another id is the same owner: the API
      // knows it by its subject, which is the same; its tokens go to the stored one.
      const stored = byId ?? byIdentity;
      ownerIds.set(key, stored?.id ?? record.id);
      ownerDecisions.push({ line, record, stored });
    }
  }

  async function resolveOwners(): Promise<void> {
    await resolveOwnerRecords();
    const entries = [...owners].filter(([key]) => !ownerRecords.has(key));
    for (let i = 0; i < entries.length; i += 100) {
      const slice = entries.slice(i, i + 100);
      const found = await Promise.all(slice.map(([, entry]) => findOwner(entry.owner)));
      slice.forEach(([key], j) => {
        const owner = found[j];
        if (owner !== undefined) ownerIds.set(key, owner.id);
      });
    }
    for (const [key, entry] of owners) {
      if (ownerIds.has(key)) continue;
      if (options.createOwners === true) {
        try {
          if ('username' in entry.owner) checkUsername(entry.owner.username);
          newOwners.push(entry.owner);
        } catch (error) {
          problem(entry.line, error);
        }
        continue;
      }
      const how = 'username' in entry.owner ? 'create it with `latchkey users add`, or ' : '';
      problems.push({
        line: entry.line,
        message: `no ${ownerLabel(entry.owner)}${more(entry)} (${how}import with --create-owners)`,
      });
    }
  }

  function referOwner(reference: OwnerReference, line: number): void {
    const key = ownerKey(reference);
    const known = owners.get(key);
    if (known === undefined) owners.set(key, { owner: reference, line, count: 1 });
    else known.count += 1;
  }

  async function resolveClients(): Promise<void> {
    for (const [key, reference] of clientReferences) {
      if (fileClients.has(key) || (await store.clients.find(key)) !== undefined) continue;
      problems.push({
        line: reference.line,
        message: `client: no client "${key}" in the file or the database${more(reference)}`,
      });
    }
  }

  function ownerId(reference: OwnerReference): string {
    // A dry run does not create owners: their rows are compared as new ones anyway.
    const key = ownerKey(reference);
    return ownerIds.get(key) ?? `(new owner ${key})`;
  }

  function decideClient(record: ClientRecord, stored: Client | undefined): Decision<Client> {
    const developer =
      record.developer === undefined
        ? undefined
        : record.developer === null
          ? null
          : ownerId(record.developer);
    return planClient(record, stored, developer, update, deps.now(), policy.signatureMethods);
  }

  function decideToken(
    record: TokenRecord,
    stored: TokenCredential | undefined,
    sessions: ReadonlyMap<string, readonly string[]>,
    claims: Map<string, string>,
  ): Decision<TokenCredential> {
    const failedAt = unimported.get(record.client);
    if (failedAt !== undefined) {
      return { outcome: 'error', detail: `its client (line ${failedAt}) was not imported` };
    }
    const decision = planToken(
      record,
      stored,
      ownerId(record.owner),
      policy.defaultScope,
      update,
      deps.now(),
    );
    const hash = decision.row?.sessionHandleHash ?? null;
    if (hash === null) return decision;
    // A renewal deletes the old token and gives its successor the same handle hash: another
    // token under the hash means this one was renewed away. Writing it would fork the session
    // (two live tokens, each renewable), so it is never written, not even with --update.
    const holder = [claims.get(hash), ...(sessions.get(hash) ?? [])].find(
      (token) => token !== undefined && token !== record.token,
    );
    if (holder !== undefined) {
      return {
        outcome: 'error',
        detail: `its session is held by token "${holder}" (renewed since): a session has one current token, so this one is not imported, not even with --update`,
      };
    }
    claims.set(hash, record.token);
    return decision;
  }

  return {
    /** Pass 1, one record at a time: its shape, and what it refers to (checked by resolve). */
    check(item: NumberedValue): 'owner' | 'client' | 'token' | undefined {
      try {
        const record = parse(item);
        if (record.kind === 'owner') {
          const key = ownerKey(referenceOf(record));
          const earlier = ownerRecords.get(key)?.line ?? ownerRecordIds.get(record.id);
          if (earlier !== undefined) {
            throw new InputError(
              'id',
              `the owner of line ${earlier} again (an owner is one record)`,
            );
          }
          ownerRecords.set(key, { line: item.line, record });
          ownerRecordIds.set(record.id, item.line);
        } else if (record.kind === 'client') {
          fileClients.add(record.key);
          if (record.developer) referOwner(record.developer, item.line);
        } else {
          refer(clientReferences, record.client, item.line);
          referOwner(record.owner, item.line);
        }
        return record.kind;
      } catch (error) {
        problem(item.line, error);
        return undefined;
      }
    },

    /** End of pass 1: every problem found, in line order (nothing may be written if any). */
    async resolve(): Promise<LineProblem[]> {
      await resolveClients();
      await resolveOwners();
      return [...problems].sort((a, b) => a.line - b.line);
    },

    /**
     * Writes the owner records (not in a dry run); call after resolve, before the records. A
     * name or password that differs from the stored owner's is a conflict unless `update`;
     * a new password signs the owner's browsers out, as `latchkey users passwd` does.
     */
    async writeOwners(): Promise<RecordOutcome[]> {
      const outcomes: RecordOutcome[] = [];
      for (const { line, record, stored } of ownerDecisions) {
        let decision = planOwner(record, stored, update, deps.now());
        if (!dryRun && decision.row !== undefined) {
          const row = decision.row;
          if (stored === undefined) {
            try {
              await store.owners.create(row);
            } catch (error) {
              if (!(error instanceof StoreConflictError)) throw error;
              decision = { outcome: 'error', detail: 'created meanwhile by another writer' };
            }
          } else {
            if (row.name !== stored.name) await store.owners.rename(stored.id, row.name);
            if (row.passwordHash !== stored.passwordHash && row.passwordHash !== null) {
              await store.owners.setPasswordHash(stored.id, row.passwordHash);
              await store.sessions.removeForOwner(stored.id);
            }
          }
        }
        outcomes.push(outcomeOf(line, 'owner', record.id, decision));
      }
      if (!dryRun && outcomes.length > 0) {
        deps.events.emit('credentials.imported', {
          records: outcomes.length,
          written: outcomes.filter((o) => o.outcome === 'created' || o.outcome === 'updated')
            .length,
        });
      }
      return outcomes;
    },

    /** The owners the import creates (with createOwners), as messages name them. */
    ownersToCreate: (): string[] =>
      newOwners.map((reference) =>
        'username' in reference ? reference.username : `${reference.source}:${reference.subject}`,
      ),

    /**
     * Creates those owners (not in a dry run); call after resolve, before the records. A local
     * one gets no password; one from an identity source is named by its subject until its
     * first sign-in brings its name.
     */
    async createMissingOwners(): Promise<number> {
      if (dryRun) return 0;
      for (const reference of newOwners) {
        const owner =
          'username' in reference
            ? await deps.owners.createWithoutPassword(reference.username)
            : await deps.owners.signInExternal({ ...reference, name: reference.subject });
        ownerIds.set(ownerKey(reference), owner.id);
      }
      return newOwners.length;
    },

    /** The record of a checked line, or undefined when it is not of `kind`. */
    record(item: NumberedValue, kind: 'client' | 'token'): TransferRecord | undefined {
      // Checked in pass 1 already: a record of the other kind need not be parsed again.
      if ((item.value as { kind?: unknown } | null)?.kind !== kind) return undefined;
      return parse(item);
    },

    /** Passes 2 and 3: one batch of records of one kind, in one transaction. */
    async write(
      batch: ReadonlyArray<{ readonly line: number; readonly record: TransferRecord }>,
    ): Promise<RecordOutcome[]> {
      const clients = batch.flatMap(({ line, record }) =>
        record.kind === 'client' ? [{ line, record }] : [],
      );
      const tokens = batch.flatMap(({ line, record }) =>
        record.kind === 'token' ? [{ line, record }] : [],
      );
      const sessions = tokens.flatMap(({ record }) =>
        typeof record.sessionHandleHash === 'string' ? [record.sessionHandleHash] : [],
      );
      let claims = new Map<string, string>();
      const outcomes = await store.transfer.writeBatch(
        {
          clients: clients.map((c) => c.record.key),
          tokens: tokens.map((t) => t.record.token),
          sessions,
        },
        (existing) => {
          // A plan may run again (a retried transaction): it starts from this import's claims.
          claims = new Map(sessionClaims);
          const decided = decideBatch(existing, clients, tokens, decideClient, (record, stored) =>
            decideToken(record, stored, existing.sessions, claims),
          );
          return { writes: dryRun ? noWrites : decided.writes, result: decided.outcomes };
        },
      );
      for (const [hash, token] of claims) sessionClaims.set(hash, token);
      for (const outcome of outcomes) {
        if (outcome.kind === 'client' && outcome.outcome === 'error') {
          const stored = await store.clients.find(outcome.id);
          if (stored === undefined) unimported.set(outcome.id, outcome.line);
        }
      }
      if (!dryRun) {
        deps.events.emit('credentials.imported', {
          records: outcomes.length,
          written: outcomes.filter((o) => o.outcome === 'created' || o.outcome === 'updated')
            .length,
        });
      }
      return outcomes;
    },
  };
}

export type ImportSession = ReturnType<typeof createImport>;
export type { RecordOutcome } from './batch.ts';

/** Why an owner record cannot be imported as the owner the store has, if it cannot. */
function ownerClash(
  record: OwnerRecord,
  byId: Owner | undefined,
  byIdentity: Owner | undefined,
  byUsername: Owner | undefined,
): string | undefined {
  const label = `owner "${record.id}"`;
  if (byId !== undefined) {
    if (
      byId.source !== record.source ||
      (byId.issuer ?? '') !== (record.issuer ?? '') ||
      byId.subject !== record.subject
    ) {
      return `id: the database has another ${label} (${byId.source} subject "${byId.subject}"); an owner's id and subject are kept, never changed`;
    }
    if (byId.username !== record.username) {
      return `username: the database's ${label} is "${byId.username ?? ''}"; a username is kept, never changed`;
    }
  }
  // A local owner's subject is its id: another id under its username would be another subject.
  const other =
    record.source === 'local'
      ? [byIdentity, byUsername].find((owner) => owner !== undefined && owner.id !== record.id)
      : undefined;
  if (other !== undefined) {
    return `username: the database has another owner "${other.username ?? other.subject}" (id ${other.id}); importing this one would change its subject (remove it with \`latchkey users remove\`, or leave this record out)`;
  }
  return undefined;
}

function more(reference: Reference): string {
  const others = reference.count - 1;
  return others === 0 ? '' : ` (and ${others} more line${others === 1 ? '' : 's'} refer to it)`;
}
