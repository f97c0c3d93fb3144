/**
 * What loadConfig checks across settings once each has its value: TLS certificate and key
 * together, Redis only beside PostgreSQL, what an identity source needs, scopes that exist,
 * distinct flow paths. Each refusal names the setting as it was given.
 */
import { ConfigError, show } from './config-values.ts';
import type { GatewayRule } from '../../http/gateway/rules.ts';
import { isPostgresUrl } from '../../store/locations.ts';
import { spellings } from './settings.ts';
import type { SettingName } from './settings.ts';

export function checkTogether(
  values: Record<string, unknown>,
  origins: Record<string, ConfigError['origin']>,
  filePath: string | undefined,
): void {
  const where = (name: SettingName): string => {
    const names = spellings(name);
    const origin = origins[name];
    if (origin === 'flag') return names.flag ?? name;
    if (origin === 'env') return names.env;
    return `${name} (in ${filePath})`;
  };
  const cert = values['tlsCert'];
  const key = values['tlsKey'];
  if ((cert === undefined) !== (key === undefined)) {
    const [given, missing]: [SettingName, SettingName] =
      cert === undefined ? ['tlsKey', 'tlsCert'] : ['tlsCert', 'tlsKey'];
    const other = spellings(missing);
    throw new ConfigError(
      given,
      origins[given] ?? 'default',
      `${where(given)}: needs ${missing} too (${other.flag} or ${other.env}): give both or neither`,
    );
  }
  if (values['redis'] !== undefined && !isPostgresUrl(String(values['database']))) {
    throw new ConfigError(
      'redis',
      origins['redis'] ?? 'default',
      `${where('redis')}: needs a PostgreSQL database (database must be a postgres:// URL)`,
    );
  }
  const needs: Record<string, readonly SettingName[]> = {
    oidc: ['oidc.issuer', 'oidc.clientId'],
    delegated: ['delegated.loginUrl', 'delegated.adminToken'],
  };
  for (const name of needs[String(values['identity.source'])] ?? []) {
    if (values[name] !== undefined) continue;
    const names = spellings(name);
    throw new ConfigError(
      name,
      'default',
      `${where('identity.source')}: ${String(values['identity.source'])} needs ${name} ` +
        `(${names.flag === undefined ? '' : `${names.flag} or `}${names.env})`,
    );
  }
  checkScopes(values, origins, where);
  if (Number(values['webhooks.leaseMs']) <= Number(values['webhooks.timeoutMs'])) {
    throw new ConfigError(
      'webhooks.leaseMs',
      origins['webhooks.leaseMs'] ?? 'default',
      `${where('webhooks.leaseMs')}: must be longer than webhooks.timeoutMs ` +
        `(${show(values['webhooks.timeoutMs'])}), or a live instance's delivery could be claimed again`,
    );
  }
  const seen = new Map<unknown, SettingName>();
  for (const name of ['paths.requestToken', 'paths.authorize', 'paths.accessToken'] as const) {
    const earlier = seen.get(values[name]);
    if (earlier !== undefined) {
      throw new ConfigError(
        name,
        origins[name] ?? 'default',
        `${where(name)}: must differ from ${earlier}, got ${show(values[name])} for both`,
      );
    }
    seen.set(values[name], name);
  }
}

/**
 * The default scope and every gateway rule's scope name only scopes that are defined: a rule
 * requiring an unknown scope could never be satisfied (no client can be granted it).
 */
function checkScopes(
  values: Record<string, unknown>,
  origins: Record<string, ConfigError['origin']>,
  where: (name: SettingName) => string,
): void {
  const scopes = values['scopes'] as Readonly<Record<string, string>>;
  const known = Object.keys(scopes);
  const unknownOf = (names: string) =>
    names.split(' ').filter((name) => name !== '' && !Object.hasOwn(scopes, name));
  const defaultScope = values['defaultScope'] as string | undefined;
  if (defaultScope !== undefined) {
    const unknown = unknownOf(defaultScope);
    if (unknown.length > 0) {
      throw new ConfigError(
        'defaultScope',
        origins['defaultScope'] ?? 'default',
        `${where('defaultScope')}: names ${unknown.map((n) => `"${n}"`).join(', ')}, not among the scopes (${known.join(', ')})`,
      );
    }
  }
  (values['gateway.rules'] as readonly GatewayRule[]).forEach((rule, index) => {
    const unknown = unknownOf(rule.scope ?? '');
    if (unknown.length === 0) return;
    throw new ConfigError(
      'gateway.rules',
      origins['gateway.rules'] ?? 'default',
      `${where('gateway.rules')}: rule ${index} (${rule.path}) requires scope ${unknown.map((n) => `"${n}"`).join(', ')}, which no client can be granted: define it in scopes (defined: ${known.join(', ')})`,
    );
  });
}
