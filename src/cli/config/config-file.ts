/**
 * The optional JSON config file of src/cli/config/config.ts: read it, flatten grouped settings
 * (`{"paths": {"authorize": …}}` is `paths.authorize`), refuse names it does not know, and
 * take relative file paths from the file's folder.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from './config-values.ts';

/** Reads the JSON file into setting name -> raw value, refusing names it does not know. */
export function readConfigFile(
  filePath: string,
  settingNames: readonly string[],
): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(undefined, 'file', `config file ${filePath}: cannot be read (${code})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'invalid';
    throw new ConfigError(undefined, 'file', `config file ${filePath}: not valid JSON (${detail})`);
  }
  if (!isObject(parsed)) {
    throw new ConfigError(undefined, 'file', `config file ${filePath}: must be a JSON object`);
  }
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key === '$schema') continue;
    const grouped = isObject(value) && settingNames.some((name) => name.startsWith(`${key}.`));
    for (const [name, raw] of grouped
      ? Object.entries(value).map(([inner, v]) => [`${key}.${inner}`, v] as const)
      : [[key, value] as const]) {
      if (!settingNames.includes(name)) {
        throw new ConfigError(name, 'file', `${name} (in ${filePath}): unknown setting`);
      }
      flat[name] = raw;
    }
  }
  return flat;
}

/** Setting name -> value, with grouped names as nested objects. */
export function nest(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, Record<string, unknown> | unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const dot = name.indexOf('.');
    if (dot === -1) out[name] = value;
    else {
      const group = name.slice(0, dot);
      const inner = (out[group] ?? {}) as Record<string, unknown>;
      inner[name.slice(dot + 1)] = value;
      out[group] = inner;
    }
  }
  return out;
}

/** A file path in the config file is relative to the file, not to the working directory. */
export function resolveFrom(dir: string, value: string): string {
  if (isAbsolute(value) || value.includes('://') || value === ':memory:') return value;
  return resolve(dir, value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
