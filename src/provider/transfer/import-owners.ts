/**
 * The owners of an import (import.ts): owner records checked against the store, references
 * resolved to the stored owners' ids (or to owners the import creates), owner records written.
 */
import type { Owner } from '../../store/types.ts';
import { StoreConflictError } from '../../store/types.ts';
import { InputError } from '../input-error.ts';
import { checkUsername } from '../accounts/owners.ts';
import { outcomeOf } from './batch.ts';
import type { RecordOutcome } from './batch.ts';
import { planOwner } from './plan.ts';
import { ownerKey, ownerLabel, referenceOf } from './records.ts';
import type { OwnerRecord, OwnerReference } from './records.ts';
import { more, problem } from './import-state.ts';
import type { ImportState } from './import-state.ts';

/** Pass 1: an owner record, once per owner (by identity and by id). */
export function checkOwnerRecord(state: ImportState, record: OwnerRecord, line: number): void {
  const key = ownerKey(referenceOf(record));
  const earlier = state.ownerRecords.get(key)?.line ?? state.ownerRecordIds.get(record.id);
  if (earlier !== undefined) {
    throw new InputError('id', `the owner of line ${earlier} again (an owner is one record)`);
  }
  state.ownerRecords.set(key, { line, record });
  state.ownerRecordIds.set(record.id, line);
}

export function referOwner(state: ImportState, reference: OwnerReference, line: number): void {
  const key = ownerKey(reference);
  const known = state.owners.get(key);
  if (known === undefined) state.owners.set(key, { owner: reference, line, count: 1 });
  else known.count += 1;
}

/** The stored id of a referred owner (a dry run compares a new owner's rows as new ones). */
export function ownerId(state: ImportState, reference: OwnerReference): string {
  // A dry run does not create owners: their rows are compared as new ones anyway.
  const key = ownerKey(reference);
  return state.ownerIds.get(key) ?? `(new owner ${key})`;
}

function findOwner(state: ImportState, reference: OwnerReference) {
  const store = state.deps.store;
  return 'username' in reference
    ? store.owners.findByUsername(reference.username)
    : store.owners.findByIdentity(reference);
}

/**
 * Each owner record against the store: the owner stored under its id must be the same one
 * (source, issuer, subject, username), and no other stored owner may hold its identity or
 * username. References to it then resolve to its id.
 */
async function resolveOwnerRecords(state: ImportState): Promise<void> {
  const store = state.deps.store;
  for (const [key, { line, record }] of state.ownerRecords) {
    const [byId, byIdentity, byUsername] = await Promise.all([
      store.owners.findById(record.id),
      store.owners.findByIdentity(record),
      record.username === null ? undefined : store.owners.findByUsername(record.username),
    ]);
    const clash = ownerClash(record, byId, byIdentity, byUsername);
    if (clash !== undefined) {
      state.problems.push({ line, message: clash });
      continue;
    }
    // An owner from an identity source found under another id is the same owner: the API
    // knows it by its subject, which is the same; its tokens go to the stored one.
    const stored = byId ?? byIdentity;
    state.ownerIds.set(key, stored?.id ?? record.id);
    state.ownerDecisions.push({ line, record, stored });
  }
}

/** End of pass 1: every referred owner resolves to a stored one, or one to create. */
export async function resolveOwners(state: ImportState): Promise<void> {
  await resolveOwnerRecords(state);
  const entries = [...state.owners].filter(([key]) => !state.ownerRecords.has(key));
  for (let i = 0; i < entries.length; i += 100) {
    const slice = entries.slice(i, i + 100);
    const found = await Promise.all(slice.map(([, entry]) => findOwner(state, entry.owner)));
    slice.forEach(([key], j) => {
      const owner = found[j];
      if (owner !== undefined) state.ownerIds.set(key, owner.id);
    });
  }
  for (const [key, entry] of state.owners) {
    if (state.ownerIds.has(key)) continue;
    if (state.createOwners) {
      try {
        if ('username' in entry.owner) checkUsername(entry.owner.username);
        state.newOwners.push(entry.owner);
      } catch (error) {
        problem(state, entry.line, error);
      }
      continue;
    }
    const how = 'username' in entry.owner ? 'create it with `latchkey users add`, or ' : '';
    state.problems.push({
      line: entry.line,
      message: `no ${ownerLabel(entry.owner)}${more(entry)} (${how}import with --create-owners)`,
    });
  }
}

/**
 * Writes the owner records (not in a dry run). A name or password that differs from the
 * stored owner's is a conflict unless `update`; a new password signs the owner's browsers
 * out, as `latchkey users passwd` does.
 */
export async function writeOwners(state: ImportState): Promise<RecordOutcome[]> {
  const { deps, update, dryRun } = state;
  const store = deps.store;
  const outcomes: RecordOutcome[] = [];
  for (const { line, record, stored } of state.ownerDecisions) {
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
      written: outcomes.filter((o) => o.outcome === 'created' || o.outcome === 'updated').length,
    });
  }
  return outcomes;
}

/**
 * Creates the owners to create (not in a dry run). A local one gets no password; one from an
 * identity source is named by its subject until its first sign-in brings its name.
 */
export async function createMissingOwners(state: ImportState): Promise<number> {
  if (state.dryRun) return 0;
  const owners = state.deps.owners;
  for (const reference of state.newOwners) {
    const owner =
      'username' in reference
        ? await owners.createWithoutPassword(reference.username)
        : await owners.signInExternal({ ...reference, name: reference.subject });
    state.ownerIds.set(ownerKey(reference), owner.id);
  }
  return state.newOwners.length;
}

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
