/**
 * Opening the store and the provider a command works on, and closing them afterwards. They
 * are loaded on first use, so `--help` and usage errors answer without loading them.
 */
import type { LatchkeyConfig } from '../config.ts';
import type { Policy, Provider } from '../provider/index.ts';
import type { Store } from '../store/index.ts';
import { CommandFailure } from './errors.ts';

/** The provider's rules as the configuration sets them. */
export async function policyOf(config: LatchkeyConfig): Promise<Partial<Policy>> {
  const { SignatureMethodRegistry } = await import('../protocol/index.ts');
  return {
    timestampWindowSeconds: config.timestampWindowSeconds,
    temporaryCredentialLifetimeSeconds: config.temporaryCredentialLifetimeSeconds,
    tokenLifetimeSeconds: config.tokenLifetimeSeconds ?? null,
    signatureMethods: new SignatureMethodRegistry().only(config.signatureMethods),
    realm: config.realm,
  };
}

/** Opens the database the configuration names (applying migrations). */
export async function openStore(config: LatchkeyConfig): Promise<Store> {
  const { createSqliteStore } = await import('../store/index.ts');
  try {
    return createSqliteStore({ path: config.database });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CommandFailure(`database ${config.database}: cannot be opened (${detail})`);
  }
}

/** A provider on the configured store, with the configured policy. */
export async function openProvider(config: LatchkeyConfig): Promise<Provider> {
  const [{ createProvider }, store, policy] = await Promise.all([
    import('../provider/index.ts'),
    openStore(config),
    policyOf(config),
  ]);
  return createProvider({ store, policy });
}

/** Runs `work` with a provider on the configured store, closing both afterwards. */
export async function withProvider<T>(
  config: LatchkeyConfig,
  work: (provider: Provider) => Promise<T>,
): Promise<T> {
  const provider = await openProvider(config);
  try {
    return await work(provider);
  } finally {
    await provider.close();
    await provider.store.close();
  }
}
