/**
 * One batch of an import, decided inside the store's transaction (TransferStore.writeBatch):
 * each record against the row stored under its key (plan.ts), and the rows to write. A key
 * given twice in a batch is decided against what the first one left.
 */
import type { Client, ExistingRows, TokenCredential, TransferWrites } from '../../store/types.ts';
import type { Decision, Outcome } from './plan.ts';
import type { ClientRecord, TokenRecord } from './records.ts';

export interface RecordOutcome {
  readonly line: number;
  readonly kind: 'owner' | 'client' | 'token';
  readonly id: string;
  readonly outcome: Outcome;
  readonly detail?: string | undefined;
}

export const noWrites: TransferWrites = {
  createClients: [],
  replaceClients: [],
  createTokens: [],
  replaceTokens: [],
};

type Numbered<R> = ReadonlyArray<{ readonly line: number; readonly record: R }>;

export function outcomeOf(
  line: number,
  kind: 'owner' | 'client' | 'token',
  id: string,
  decision: Decision<unknown>,
): RecordOutcome {
  const { outcome, detail } = decision;
  return detail === undefined ? { line, kind, id, outcome } : { line, kind, id, outcome, detail };
}

/** Decides records of one kind against the rows stored under their keys. */
function decideAll<R, Row>(
  numbered: Numbered<R>,
  kind: 'client' | 'token',
  keyOf: (record: R) => string,
  existing: ReadonlyMap<string, Row>,
  decide: (record: R, stored: Row | undefined) => Decision<Row>,
) {
  const stored = new Map(existing);
  const create = new Map<string, Row>();
  const replace = new Map<string, Row>();
  const outcomes: RecordOutcome[] = [];
  for (const { line, record } of numbered) {
    const key = keyOf(record);
    const before = stored.get(key);
    const decision = decide(record, before);
    if (decision.row !== undefined) {
      stored.set(key, decision.row);
      (create.has(key) || before === undefined ? create : replace).set(key, decision.row);
    }
    outcomes.push(outcomeOf(line, kind, key, decision));
  }
  return { create: [...create.values()], replace: [...replace.values()], outcomes };
}

export function decideBatch(
  existing: ExistingRows,
  clients: Numbered<ClientRecord>,
  tokens: Numbered<TokenRecord>,
  decideClient: (record: ClientRecord, stored: Client | undefined) => Decision<Client>,
  decideToken: (
    record: TokenRecord,
    stored: TokenCredential | undefined,
  ) => Decision<TokenCredential>,
): { readonly writes: TransferWrites; readonly outcomes: RecordOutcome[] } {
  const c = decideAll(clients, 'client', (r) => r.key, existing.clients, decideClient);
  const t = decideAll(tokens, 'token', (r) => r.token, existing.tokens, decideToken);
  return {
    writes: {
      createClients: c.create,
      replaceClients: c.replace,
      createTokens: t.create,
      replaceTokens: t.replace,
    },
    outcomes: [...c.outcomes, ...t.outcomes],
  };
}
