/**
 * Flags from the settings table (src/cli/config/settings.ts), and the configuration of one command run:
 * its flags, then the environment, then the config file, then the defaults.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { loadConfig, settings } from './config/config.ts';
import type { FormerSettingName, LatchkeyConfig, Setting, SettingName } from './config/config.ts';

/** Which setting each option attribute (`tlsCert` for `--tls-cert`) sets, per command. */
const settingOfAttribute = new WeakMap<Command, Map<string, SettingName | FormerSettingName>>();

/** Adds `--config` and the flags of the named settings to a command. */
export function withSettings<C extends Command>(command: C, names: readonly SettingName[]): C {
  const map = new Map<string, SettingName | FormerSettingName>();
  command.option('--config <file>', 'JSON config file (default: $LATCHKEY_CONFIG)');
  for (const name of names) {
    const setting: Setting<unknown> = settings[name];
    if (setting.flag === undefined) continue;
    const option = new Option(setting.flag, `${setting.summary} (${setting.env})`);
    command.addOption(option);
    map.set(option.attributeName(), name);
    // A former flag still works (loadConfig warns of it), left out of --help.
    if (setting.formerly?.flag === undefined) continue;
    const former = new Option(setting.formerly.flag, `former name of ${setting.flag}`).hideHelp();
    command.addOption(former);
    map.set(former.attributeName(), setting.formerly.name as FormerSettingName);
  }
  settingOfAttribute.set(command, map);
  return command;
}

/** The configuration for this run of `command`; throws ConfigError naming a bad setting. */
export function configOf(command: Command): LatchkeyConfig {
  const options = command.opts<Record<string, unknown>>();
  const flags: Partial<Record<SettingName | FormerSettingName, unknown>> = {};
  for (const [attribute, name] of settingOfAttribute.get(command) ?? []) {
    if (options[attribute] !== undefined) flags[name] = options[attribute];
  }
  const file = typeof options['config'] === 'string' ? options['config'] : undefined;
  return loadConfig({ flags, env: process.env, file });
}
