/**
 * Every setting, one table assembled from the areas' own (server.ts, store.ts, policy.ts,
 * identity.ts, gateway.ts, edge.ts, webhooks.ts): the CLI builds its flags from it and
 * `scripts/generate-config-docs.ts` turns each entry's TSDoc into docs/configuration.md. Names
 * with a dot belong to a group (`paths.authorize` is `config.paths.authorize` and
 * `{"paths": {"authorize": …}}` in the file).
 */
import type { FormerName, Setting } from './config-values.ts';
import { edgeSettings } from './edge.ts';
import { gatewaySettings } from './gateway.ts';
import { identitySettings } from './identity.ts';
import { policySettings } from './policy.ts';
import { serverSettings } from './server.ts';
import { storeSettings } from './store.ts';
import { webhookSettings } from './webhooks.ts';

/** In the order docs/configuration.md lists them. */
export const settings = {
  ...serverSettings,
  ...storeSettings,
  ...policySettings,
  ...identitySettings,
  ...gatewaySettings,
  ...edgeSettings,
  ...webhookSettings,
} as const satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof settings;
type Values = { -readonly [K in SettingName]: ReturnType<(typeof settings)[K]['parse']> };
type TopLevel = { [K in SettingName]: K extends `${string}.${string}` ? never : K }[SettingName];
type Group = { [K in SettingName]: K extends `${infer G}.${string}` ? G : never }[SettingName];

/** The resolved configuration: one field per setting, grouped settings as nested objects. */
export type LatchkeyConfig = { readonly [K in TopLevel]: Values[K] } & {
  readonly [G in Group]: {
    readonly [K in SettingName as K extends `${G}.${infer R}` ? R : never]: Values[K];
  };
};

export const settingNames = Object.keys(settings) as SettingName[];

/** A name a setting had before (`sessionLifetimeSeconds`), still read with a warning. */
export type FormerSettingName = {
  [K in SettingName]: (typeof settings)[K] extends { formerly: { name: infer N } } ? N : never;
}[SettingName];

/** Every former name, with the setting that now has it. */
export const formerNames: readonly (FormerName & { readonly setting: SettingName })[] =
  settingNames.flatMap((setting) => {
    const formerly = (settings[setting] as Setting<unknown>).formerly;
    return formerly === undefined ? [] : [{ ...formerly, setting }];
  });

/** What every command that opens the store takes: where it is and how it is shared. */
export const storeSettingNames = [
  'database',
  'redis',
  'postgresSchema',
  'redisPrefix',
  'cacheTtlSeconds',
  'cacheMaxEntries',
  'secretKey',
  'secretKeyFile',
] as const satisfies readonly SettingName[];

/** How a setting is spelled in each place, for messages. */
export function spellings(name: SettingName): { flag?: string; env: string; file: string } {
  const setting: Setting<unknown> = settings[name];
  const flag = setting.flag?.split(' ')[0];
  return { ...(flag === undefined ? {} : { flag }), env: setting.env, file: name };
}
