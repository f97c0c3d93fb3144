// Writes the table of audited events in docs/security.md ("The audit trail") from the audit
// table (src/provider/audit.ts), as generate-errors-docs.ts writes docs/errors.md. `npm run
// docs:audit` runs it; test/docs/audit-docs.test.ts fails when the committed table drifts.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { auditedEvents } from '../src/provider/audit.ts';

export const securityDocPath = fileURLToPath(new URL('../docs/security.md', import.meta.url));

const START =
  '<!-- audited-events: generated from src/provider/audit.ts by `npm run docs:audit`; do not edit by hand -->';
const END = '<!-- /audited-events -->';

/** The generated part: one row per audited event, then the events left out on purpose. */
export function renderAuditedEvents(): string {
  const entries = Object.entries(auditedEvents);
  const rows = entries.flatMap(([name, mapping]) =>
    mapping === null
      ? []
      : [
          `| \`${name}\` | ${mapping.when} | ${mapping.ownerId === undefined ? '' : 'yes'} | ${
            mapping.clientKey === undefined ? '' : 'yes'
          } | ${(mapping.detail ?? []).map((field) => `\`${field}\``).join(', ')} |`,
        ],
  );
  const left = entries.filter(([, mapping]) => mapping === null).map(([name]) => `\`${name}\``);
  return `${START}

| event | recorded when | owner | client | detail kept |
| --- | --- | --- | --- | --- |
${rows.join('\n')}

Not recorded, on purpose (the reason of each is beside it in \`src/provider/audit.ts\`):
${left.join(', ')}.

${END}`;
}

/** docs/security.md as committed, with the generated part written anew. */
export async function renderSecurityDoc(): Promise<string> {
  const current = readFileSync(securityDocPath, 'utf8');
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start === -1 || end < start) {
    throw new Error(`${securityDocPath}: the audited-events markers are missing`);
  }
  const markdown =
    current.slice(0, start) + renderAuditedEvents() + current.slice(end + END.length);
  const options = await prettier.resolveConfig(securityDocPath);
  return prettier.format(markdown, { ...options, parser: 'markdown' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(securityDocPath, await renderSecurityDoc());
  console.log(`Wrote ${securityDocPath}`);
}
