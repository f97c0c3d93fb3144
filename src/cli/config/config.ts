/**
 * One typed configuration for every `latchkey` command, from flags, `LATCHKEY_*` environment
 * variables and an optional JSON file (precedence in that order, then the defaults),
 * validated at start-up. The settings table (settings.ts, assembled from each area's file)
 * is the single source: the CLI builds its flags from it and
 * `scripts/generate-config-docs.ts` turns its TSDoc into docs/configuration.md
 * (`npm run docs:config`).
 */
import { dirname } from 'node:path';
import { checkTogether } from './checks.ts';
import { nest, readConfigFile, resolveFrom } from './config-file.ts';
import { ConfigError, SettingProblem, show } from './config-values.ts';
import type { Setting } from './config-values.ts';
import { settingNames, settings, spellings } from './settings.ts';
import type { LatchkeyConfig, SettingName } from './settings.ts';

export { ConfigError, SettingProblem } from './config-values.ts';
export type { Setting } from './config-values.ts';
export { settingNames, settings, spellings, storeSettingNames } from './settings.ts';
export type { LatchkeyConfig, SettingName } from './settings.ts';

export interface ConfigSources {
  /** Values from the command line, by setting name; undefined means not given. */
  readonly flags?: Readonly<Partial<Record<SettingName, unknown>>> | undefined;
  /** The environment (process.env). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The JSON config file; `LATCHKEY_CONFIG` when not given. */
  readonly file?: string | undefined;
}

/** Resolves and validates the configuration; throws ConfigError naming the bad setting. */
export function loadConfig(sources: ConfigSources = {}): LatchkeyConfig {
  const env = sources.env ?? {};
  const filePath = sources.file ?? nonEmpty(env['LATCHKEY_CONFIG']);
  const file = filePath === undefined ? {} : readConfigFile(filePath, settingNames);
  const values: Record<string, unknown> = {};
  const origins: Record<string, ConfigError['origin']> = {};

  for (const name of settingNames) {
    const setting: Setting<unknown> = settings[name];
    const names = spellings(name);
    const flagValue = sources.flags?.[name];
    const envValue = nonEmpty(env[setting.env]);
    let origin: ConfigError['origin'] = 'default';
    let label: string = name;
    let raw: unknown = undefined;
    if (flagValue !== undefined) [origin, label, raw] = ['flag', names.flag ?? name, flagValue];
    else if (envValue !== undefined) [origin, label, raw] = ['env', setting.env, envValue];
    else if (Object.hasOwn(file, name)) {
      [origin, label, raw] = ['file', `${name} (in ${filePath})`, file[name]];
      if (setting.isPath === true && typeof raw === 'string' && filePath !== undefined) {
        raw = resolveFrom(dirname(filePath), raw);
      }
    }
    origins[name] = origin;
    if (origin === 'default') {
      values[name] = setting.default;
      continue;
    }
    try {
      values[name] = setting.parse(raw);
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      const got = setting.secret === true ? '' : `, got ${show(raw)}`;
      throw new ConfigError(name, origin, `${label}: ${error.message}${got}`);
    }
  }

  checkTogether(values, origins, filePath);
  return nest(values) as LatchkeyConfig;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
