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
import { note } from '../output.ts';
import { formerNames, settingNames, settings, spellings } from './settings.ts';
import type { FormerSettingName, LatchkeyConfig, SettingName } from './settings.ts';

export { ConfigError, SettingProblem } from './config-values.ts';
export type { Setting } from './config-values.ts';
export { formerNames, settingNames, settings, spellings, storeSettingNames } from './settings.ts';
export type { FormerSettingName, LatchkeyConfig, SettingName } from './settings.ts';

export interface ConfigSources {
  /**
   * Values from the command line, by setting name (or a setting's former name); undefined
   * means not given.
   */
  readonly flags?: Readonly<Partial<Record<SettingName | FormerSettingName, unknown>>> | undefined;
  /** The environment (process.env). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The JSON config file; `LATCHKEY_CONFIG` when not given. */
  readonly file?: string | undefined;
  /** Told, one line each, of every former setting name in use (default: stderr). */
  readonly warn?: ((message: string) => void) | undefined;
}

/** A value given for a setting: where, as the person spelled it, and its raw form. */
interface Given {
  readonly origin: Exclude<ConfigError['origin'], 'default'>;
  readonly label: string;
  readonly raw: unknown;
  /** Given under the setting's former name. */
  readonly former: boolean;
}

/** Resolves and validates the configuration; throws ConfigError naming the bad setting. */
export function loadConfig(sources: ConfigSources = {}): LatchkeyConfig {
  const env = sources.env ?? {};
  const filePath = sources.file ?? nonEmpty(env['LATCHKEY_CONFIG']);
  const known = [...settingNames, ...formerNames.map((former) => former.name)];
  const file = filePath === undefined ? {} : readConfigFile(filePath, known);
  const values: Record<string, unknown> = {};
  const origins: Record<string, ConfigError['origin']> = {};
  const warn = sources.warn ?? note;

  for (const name of settingNames) {
    const setting: Setting<unknown> = settings[name];
    const given = givenValue(name, { ...sources, env }, file, filePath, warn);
    origins[name] = given?.origin ?? 'default';
    if (given === undefined) {
      values[name] = setting.default;
      continue;
    }
    let raw = given.raw;
    if (given.origin === 'file' && setting.isPath === true && typeof raw === 'string') {
      raw = resolveFrom(dirname(filePath!), raw);
    }
    try {
      values[name] = setting.parse(raw);
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      const got = setting.secret === true ? '' : `, got ${show(raw)}`;
      throw new ConfigError(name, given.origin, `${given.label}: ${error.message}${got}`);
    }
  }

  checkTogether(values, origins, filePath);
  return nest(values) as LatchkeyConfig;
}

/**
 * The value given for a setting, by precedence: a flag, then the environment, then the file;
 * in each, the setting's name before its former one. Warns of each former name in use, taken
 * or not (the person should rename it either way).
 */
function givenValue(
  name: SettingName,
  sources: ConfigSources & { env: Readonly<Record<string, string | undefined>> },
  file: Readonly<Record<string, unknown>>,
  filePath: string | undefined,
  warn: (message: string) => void,
): Given | undefined {
  const setting: Setting<unknown> = settings[name];
  const spelled = [
    { key: name, env: setting.env, flag: setting.flag, former: false },
    ...(setting.formerly === undefined
      ? []
      : [{ key: setting.formerly.name, ...setting.formerly, former: true }]),
  ];
  const found: Given[] = [];
  for (const spelling of spelled) {
    const flag = sources.flags?.[spelling.key as SettingName];
    const envValue = nonEmpty(sources.env[spelling.env]);
    const flagName = spelling.flag?.split(' ')[0] ?? spelling.key;
    const { former } = spelling;
    if (flag !== undefined) found.push({ origin: 'flag', label: flagName, raw: flag, former });
    if (envValue !== undefined) {
      found.push({ origin: 'env', label: spelling.env, raw: envValue, former });
    }
    if (Object.hasOwn(file, spelling.key)) {
      const label = `${spelling.key} (in ${filePath})`;
      found.push({ origin: 'file', label, raw: file[spelling.key], former });
    }
  }
  const current = spellings(name);
  for (const given of found.filter((item) => item.former)) {
    const now = given.origin === 'flag' ? current.flag : current[given.origin];
    warn(`Warning: ${given.label} is a former name of ${now ?? name}; rename it (still read).`);
  }
  const rank = { flag: 0, env: 1, file: 2 } as const;
  return found.sort(
    (a, b) => rank[a.origin] - rank[b.origin] || Number(a.former) - Number(b.former),
  )[0];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
