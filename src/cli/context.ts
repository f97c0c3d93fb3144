/** Opening the store and the provider a command works on, and closing them afterwards. */
import type { LatchkeyConfig } from '../config.ts';
import { SignatureMethodRegistry } from '../protocol/index.ts';
import { createProvider } from '../provider/index.ts';
import type { Policy, Provider } from '../provider/index.ts';
import { createSqliteStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { CommandFailure } from './errors.ts';

/** The provider's rules as the configuration sets them. */
export function policyOf(config: LatchkeyConfig): Partial<Policy> {
  return {
    timestampWindowSeconds: config.timestampWindowSeconds,
    temporaryCredentialLifetimeSeconds: config.temporaryCredentialLifetimeSeconds,
    tokenLifetimeSeconds: config.tokenLifetimeSeconds ?? null,
    signatureMethods: new SignatureMethodRegistry().only(config.signatureMethods),
    realm: config.realm,
  };
}

/** Opens the database the configuration names (applying migrations). */
export function openStore(config: LatchkeyConfig): Store {
  try {
    return createSqliteStore({ path: config.database });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CommandFailure(`database ${config.database}: cannot be opened (${detail})`);
  }
}

/** Runs `work` with a provider on the configured store, closing both afterwards. */
export async function withProvider<T>(
  config: LatchkeyConfig,
  work: (provider: Provider) => Promise<T>,
): Promise<T> {
  const store = openStore(config);
  const provider = createProvider({ store, policy: policyOf(config) });
  try {
    return await work(provider);
  } finally {
    await provider.close();
    await store.close();
  }
}
