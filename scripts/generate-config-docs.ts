// Writes docs/configuration.md from the settings table of src/cli/config/ (settings.ts, assembled
// from each area's table: server.ts, store.ts, policy.ts…): the TSDoc of each entry is its
// description, the entry itself gives the flag, variable and default
// (oidc-provider generates its configuration docs the same way). `npm run docs:config`
// runs it; test/cli/configuration-docs.test.ts fails when the committed file drifts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { settingNames, settings } from '../src/cli/config/config.ts';
import type { Setting, SettingName } from '../src/cli/config/config.ts';
import type { FormerName } from '../src/cli/config/config-values.ts';

const configFolder = fileURLToPath(new URL('../src/cli/config/', import.meta.url));
export const docsPath = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

/** The settings that name a file (`isPath`), as the docs list them: what the file resolves. */
function pathSettings(): string {
  return settingNames
    .filter((name) => (settings[name] as Setting<unknown>).isPath === true)
    .map((name) => `\`${name}\``)
    .join(', ');
}

/** The TSDoc text of each entry of the areas' tables (`serverSettings`…), by setting name. */
function settingDocs(): Map<string, string> {
  const docs = new Map<string, string>();
  for (const file of readdirSync(configFolder).filter((name) => name.endsWith('.ts'))) {
    const path = join(configFolder, file);
    const source = ts.createSourceFile(
      path,
      readFileSync(path, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    tableDocs(source, docs);
  }
  return docs;
}

/** Adds the TSDoc of every entry of a table (a variable named `…Settings`) in `source`. */
function tableDocs(source: ts.SourceFile, docs: Map<string, string>): void {
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && /Settings$/.test(node.name.getText(source))) {
      let value = node.initializer;
      while (value !== undefined && (ts.isSatisfiesExpression(value) || ts.isAsExpression(value))) {
        value = value.expression;
      }
      if (value === undefined || !ts.isObjectLiteralExpression(value)) return;
      for (const property of value.properties) {
        const name = property.name;
        if (name === undefined || !(ts.isIdentifier(name) || ts.isStringLiteral(name))) continue;
        const text = ts
          .getJSDocCommentsAndTags(property)
          .filter(ts.isJSDoc)
          .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
          .join('\n')
          .trim();
        docs.set(name.text, text);
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** A setting's former name, still read: each spelling, as the settings are documented. */
function formerLine(former: FormerName): string {
  const flag = former.flag === undefined ? '' : `flag \`${former.flag}\`, `;
  return `- Former name, still read with a warning at start-up: ${flag}\`${former.env}\`, \`${former.name}\` in the file`;
}

function shownDefault(value: unknown): string {
  if (value === undefined) return 'unset';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `\`${value.join(',')}\``;
  return `\`${String(value)}\``;
}

function fileExample(): string {
  return JSON.stringify(
    {
      host: '0.0.0.0',
      port: 8443,
      database: '/var/lib/latchkey/latchkey.db',
      tlsCert: 'tls/cert.pem',
      tlsKey: 'tls/key.pem',
      paths: { authorize: '/authorize' },
      signatureMethods: ['HMAC-SHA1', 'RSA-SHA1'],
    },
    null,
    2,
  );
}

/** The Markdown of docs/configuration.md, formatted as Prettier would. */
export async function renderConfigDocs(): Promise<string> {
  const docs = settingDocs();
  const row = (name: SettingName) => {
    const setting: Setting<unknown> = settings[name];
    const flag = setting.flag === undefined ? '—' : `\`${setting.flag}\``;
    return `| \`${name}\` | ${flag} | \`${setting.env}\` | ${shownDefault(setting.default)} |`;
  };
  const section = (name: SettingName) => {
    const setting: Setting<unknown> = settings[name];
    const doc = docs.get(name);
    if (doc === undefined || doc === '')
      throw new Error(`settings.${name} has no TSDoc in src/cli/config/`);
    return [
      `### \`${name}\``,
      '',
      doc,
      '',
      `- Flag: ${setting.flag === undefined ? 'none' : `\`${setting.flag}\``}`,
      `- Environment: \`${setting.env}\``,
      `- Config file: \`${name}\``,
      `- Default: ${shownDefault(setting.default)}`,
      ...(setting.formerly === undefined ? [] : [formerLine(setting.formerly)]),
      '',
    ].join('\n');
  };
  const markdown = [
    '# Configuration',
    '',
    '<!-- Generated from the settings tables in src/cli/config/ by `npm run docs:config`. Do not edit by hand. -->',
    '',
    'Every `latchkey` command reads one configuration. Each setting can come from a flag of',
    '`latchkey serve` (the commands that use the database take `--database` and `--config`), from a',
    '`LATCHKEY_*` environment variable, or from a JSON config file named by `--config FILE` or',
    '`LATCHKEY_CONFIG`. A flag wins over the environment, the environment over the file, and the',
    'file over the default. An empty environment variable counts as unset.',
    '',
    'Everything is checked at start-up; a bad value stops the command with a message that names',
    'the setting as you gave it, for example `LATCHKEY_PORT: must be an integer 0-65535, got "abc"`.',
    '',
    '## The config file',
    '',
    'A JSON object whose keys are the setting names below; settings with a dot in their name are',
    'grouped (`paths.authorize` is `{"paths": {"authorize": …}}`). Unknown keys are refused.',
    `Relative file paths (${pathSettings()}) are taken from the folder of the file.`,
    'Booleans are `true`/`false` (`1`/`0`, `yes`/`no` in the environment); a list is a JSON array',
    '(comma-separated in a flag or the environment); `null` (or `none`) unsets an optional setting.',
    '',
    '```json',
    fileExample(),
    '```',
    '',
    '## Settings',
    '',
    '| Setting | Flag | Environment | Default |',
    '| --- | --- | --- | --- |',
    ...settingNames.map(row),
    '',
    ...settingNames.map(section),
  ].join('\n');
  const options = await prettier.resolveConfig(docsPath);
  return prettier.format(markdown, { ...options, parser: 'markdown' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(docsPath, await renderConfigDocs());
  console.log(`Wrote ${docsPath}`);
}
