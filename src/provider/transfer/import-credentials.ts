/**
 * The client and token records of an import (import.ts): their clients resolved, and each
 * batch decided and written in one transaction of the store (plan.ts, batch.ts).
 */
import type { Client, TokenCredential } from '../../store/types.ts';
import { decideBatch, noWrites } from './batch.ts';
import type { RecordOutcome } from './batch.ts';
import { planClient, planToken } from './plan.ts';
import type { Decision } from './plan.ts';
import type { ClientRecord, TokenRecord, TransferRecord } from './records.ts';
import { ownerId } from './import-owners.ts';
import { more } from './import-state.ts';
import type { ImportState } from './import-state.ts';

/** End of pass 1: every token's client is in the file or the store. */
export async function resolveClients(state: ImportState): Promise<void> {
  const store = state.deps.store;
  for (const [key, reference] of state.clientReferences) {
    if (state.fileClients.has(key) || (await store.clients.find(key)) !== undefined) continue;
    state.problems.push({
      line: reference.line,
      message: `client: no client "${key}" in the file or the database${more(reference)}`,
    });
  }
}

function decideClient(
  state: ImportState,
  record: ClientRecord,
  stored: Client | undefined,
): Decision<Client> {
  const developer =
    record.developer === undefined
      ? undefined
      : record.developer === null
        ? null
        : ownerId(state, record.developer);
  return planClient(
    record,
    stored,
    developer,
    state.update,
    state.deps.now(),
    state.deps.policy.signatureMethods,
  );
}

function decideToken(
  state: ImportState,
  record: TokenRecord,
  stored: TokenCredential | undefined,
  sessions: ReadonlyMap<string, readonly string[]>,
  claims: Map<string, string>,
): Decision<TokenCredential> {
  const failedAt = state.unimported.get(record.client);
  if (failedAt !== undefined) {
    return { outcome: 'error', detail: `its client (line ${failedAt}) was not imported` };
  }
  const decision = planToken(
    record,
    stored,
    ownerId(state, record.owner),
    state.deps.policy.defaultScope,
    state.update,
    state.deps.now(),
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

/** Passes 2 and 3: one batch of records of one kind, in one transaction. */
export async function writeRecords(
  state: ImportState,
  batch: ReadonlyArray<{ readonly line: number; readonly record: TransferRecord }>,
): Promise<RecordOutcome[]> {
  const { deps, dryRun } = state;
  const store = deps.store;
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
      claims = new Map(state.sessionClaims);
      const decided = decideBatch(
        existing,
        clients,
        tokens,
        (record, stored) => decideClient(state, record, stored),
        (record, stored) => decideToken(state, record, stored, existing.sessions, claims),
      );
      return { writes: dryRun ? noWrites : decided.writes, result: decided.outcomes };
    },
  );
  for (const [hash, token] of claims) state.sessionClaims.set(hash, token);
  for (const outcome of outcomes) {
    if (outcome.kind === 'client' && outcome.outcome === 'error') {
      const stored = await store.clients.find(outcome.id);
      if (stored === undefined) state.unimported.set(outcome.id, outcome.line);
    }
  }
  if (!dryRun) {
    deps.events.emit('credentials.imported', {
      records: outcomes.length,
      written: outcomes.filter((o) => o.outcome === 'created' || o.outcome === 'updated').length,
    });
  }
  return outcomes;
}
