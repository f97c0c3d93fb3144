// Writes docs/errors.md from the oauth_problem catalog (src/protocol/problems.ts), as Fastify
// documents its error catalog. `npm run docs:errors` runs it; test/docs/errors-docs.test.ts
// fails when the committed file drifts from the catalog.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { problems } from '../src/protocol/problems.ts';

export const errorsDocPath = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

export function renderErrorsDoc(): string {
  const rows = Object.entries(problems).map(
    ([code, entry]) => `| \`${code}\` | ${entry.status} | ${entry.when} | ${entry.fix} |`,
  );
  return `# Errors

Generated from \`src/protocol/problems.ts\` by \`npm run docs:errors\`; do not edit by hand.

When a signed request fails, Latchkey answers with the status below and an
\`application/x-www-form-urlencoded\` body in the OAuth Problem Reporting format:

\`\`\`text
oauth_problem=timestamp_refused&oauth_problem_advice=oauth_timestamp%20is%20outside%20the%20accepted%20window%20(...)&oauth_acceptable_timestamps=1795320000-1795320600
\`\`\`

Every 401 also carries \`WWW-Authenticate: OAuth realm="…", oauth_problem="…"\`. Advice fields:
\`oauth_parameters_absent\` (with \`parameter_absent\`), \`oauth_parameters_rejected\` (with
\`parameter_rejected\`), \`oauth_acceptable_timestamps\` (with \`timestamp_refused\`),
\`oauth_acceptable_versions\` (with \`version_rejected\`). Messages never contain secrets,
signatures or base strings. A backend outage is \`503\` with \`Retry-After\`, and the request is
refused (fail closed).

| \`oauth_problem\` | status | when | how the client fixes it |
|---|---|---|---|
${rows.join('\n')}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(errorsDocPath, renderErrorsDoc());
  console.log(`Wrote ${errorsDocPath}`);
}
