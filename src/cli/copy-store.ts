/**
 * Moving a deployment from the embedded SQLite store to PostgreSQL (`latchkey migrate --from`,
 * docs/deployment.md): owners (with their password hashes), clients (with their secrets and
 * keys, so apps keep working) and live token credentials are copied through the store
 * interfaces. What is short-lived stays behind: flows in progress, browser sessions, sign-in
 * counters and nonces (hence the pause of one timestamp window the guide asks for). Revoked
 * and expired tokens are not copied. Records already in the target are left as they are, so
 * running it again copies only what is new.
 */
import type { Store } from '../store/types.ts';
import { usableUntil } from '../provider/index.ts';

export interface CopyReport {
  readonly owners: number;
  readonly clients: number;
  readonly tokens: number;
  /** Already in the target, or revoked or expired. */
  readonly skipped: number;
}

export async function copyStore(from: Store, to: Store, now: number): Promise<CopyReport> {
  let owners = 0;
  let clients = 0;
  let tokens = 0;
  let skipped = 0;
  for (const owner of await from.owners.list()) {
    if ((await to.owners.findById(owner.id)) !== undefined) {
      skipped += 1;
      continue;
    }
    await to.owners.create(owner);
    owners += 1;
  }
  for (const client of await from.clients.list()) {
    if ((await to.clients.find(client.key)) !== undefined) {
      skipped += 1;
      continue;
    }
    await to.clients.create(client);
    clients += 1;
  }
  const lastUsed = new Map<string, number>();
  const devices = new Map<string, string>();
  for (const token of await from.tokenCredentials.list()) {
    // An expired token whose session can renew it is alive (session extension).
    const until = usableUntil(token);
    const dead = token.revokedAt !== null || (until !== null && until <= now);
    if (dead || (await to.tokenCredentials.find(token.token)) !== undefined) {
      skipped += 1;
      continue;
    }
    const { lastUsedAt, revokedAt, deviceHint, ...issued } = token;
    await to.tokenCredentials.create(issued);
    if (token.lastUsedAt !== null) lastUsed.set(token.token, token.lastUsedAt);
    if (token.deviceHint !== null) devices.set(token.token, token.deviceHint);
    tokens += 1;
  }
  if (lastUsed.size > 0) await to.tokenCredentials.touch(lastUsed, devices);
  return { owners, clients, tokens, skipped };
}
