/**
 * Opening the store and the provider a command works on, and closing them afterwards. They
 * are loaded on first use, so `--help` and usage errors answer without loading them.
 */
import type { LatchkeyConfig } from './config/config.ts';
import type { PolicyOverrides, Provider } from '../provider/index.ts';
import type { Store } from '../store/index.ts';
import { CommandFailure } from './errors.ts';
import type { KeyChoice } from './secret-keys.ts';

/** How a command uses the store. */
export interface StoreUse {
  /** A command that ends soon: SQLite's automatic checkpoints, no worker (open.ts). */
  readonly shortLived?: boolean;
  /** The keys already chosen (serve chooses them first, to say where they come from). */
  readonly keys?: KeyChoice;
  /**
   * Refuse a database holding secrets sealed under a key not configured (serve): one short
   * command still opens it, to report on it or to remove what cannot be read any more.
   */
  readonly checkKeys?: boolean;
}

/** The provider's rules as the configuration sets them. */
export async function policyOf(config: LatchkeyConfig): Promise<PolicyOverrides> {
  const { SignatureMethodRegistry } = await import('../protocol/index.ts');
  return {
    timestampWindowSeconds: config.timestampWindowSeconds,
    temporaryCredentialLifetimeSeconds: config.temporaryCredentialLifetimeSeconds,
    tokenLifetimeSeconds: config.tokenLifetimeSeconds ?? null,
    sessionTokenLifetimeSeconds: config.sessionTokenLifetimeSeconds,
    sessionExtensionLifetimeSeconds: config.sessionExtensionLifetimeSeconds,
    signatureMethods: new SignatureMethodRegistry().only(config.signatureMethods),
    realm: config.realm,
    scopes: config.scopes,
    defaultScope: config.defaultScope ?? Object.keys(config.scopes).join(' '),
    auditRetentionDays: config.auditRetentionDays,
    signIn: {
      perAccountAddress: config.signIn.perAccountAddress,
      perAddress: config.signIn.perAddress,
      windowSeconds: config.signIn.windowSeconds,
    },
  };
}

/** The database as it may be shown: a URL without its password. */
export function shownDatabase(database: string): string {
  try {
    const url = new URL(database);
    if (url.password !== '') url.password = '***';
    return url.protocol === 'file:' ? database : url.toString();
  } catch {
    return database;
  }
}

/**
 * Opens the store the configuration names (applying migrations): SQLite, or PostgreSQL with
 * Redis and the per-instance cache, whose writes tell running instances (src/store/open.ts).
 */
export async function openStore(
  config: LatchkeyConfig,
  use: StoreUse = { shortLived: true },
): Promise<Store> {
  const [{ openStore: open }, { chooseKeys, missingKeyAdvice }, { MissingSealingKeyError }] =
    await Promise.all([
      import('../store/open.ts'),
      import('./secret-keys.ts'),
      import('../store/sealing.ts'),
    ]);
  const keys = use.keys ?? chooseKeys(config);
  try {
    return await open(config.database, {
      keyring: keys.keyring,
      checkKeys: use.checkKeys === true,
      ...(config.redis === undefined ? {} : { redis: config.redis }),
      schema: config.postgresSchema,
      redisPrefix: config.redisPrefix,
      cache: { ttlMs: config.cacheTtlSeconds * 1000, maxEntries: config.cacheMaxEntries },
      // A short-lived command: SQLite's automatic checkpoints, no worker (open.ts).
      ...(use.shortLived === true ? { checkpointIntervalMs: 0 } : {}),
    });
  } catch (error) {
    if (error instanceof MissingSealingKeyError) {
      throw new CommandFailure(
        missingKeyAdvice(keys, error.keyIds, shownDatabase(config.database)),
      );
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new CommandFailure(
      `database ${shownDatabase(config.database)}: cannot be opened (${detail})`,
    );
  }
}

/** A provider on the configured store, with the configured policy. */
export async function openProvider(config: LatchkeyConfig, use: StoreUse = {}): Promise<Provider> {
  const { chooseKeys, sealingKeysOf } = await import('./secret-keys.ts');
  const keys = use.keys ?? chooseKeys(config);
  const [{ createProvider }, store, policy] = await Promise.all([
    import('../provider/index.ts'),
    openStore(config, { ...use, keys }),
    policyOf(config),
  ]);
  // The admin API reports and rotates the keys this store was opened with.
  return createProvider({ store, policy, ownsStore: true, sealingKeys: sealingKeysOf(keys) });
}

/** Runs `work` with a provider on the configured store, closing both afterwards. */
export async function withProvider<T>(
  config: LatchkeyConfig,
  work: (provider: Provider) => Promise<T>,
): Promise<T> {
  const provider = await openProvider(config, { shortLived: true });
  try {
    return await work(provider);
  } finally {
    await provider.close();
  }
}
