// The shell blocks of README.md and docs/*.md run as a user pastes them, for
// scripts/check-package.ts: each `##` section is one scenario, in a folder of its own on the
// installed tarball (a fresh ./data/latchkey.db), its blocks in order in one bash, so a value
// one command exports is there for the next. Where the prose says the server runs ("in one
// terminal, start the server"), `npx latchkey serve` runs beside them, and the docs' address
// http://127.0.0.1:8080 is that server's (only the port filled in; LATCHKEY_PORT=0 gives each
// documented `serve` a free port of its own). What the reader does by hand is done here the
// same way: alice's Allow for `latchkey authorize` (through the installed package, as the
// consent page does), and the files the prose says the reader has (legacy.jsonl: the docs'
// example export; a config file: the JSON block the section shows).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeBlock } from '../test/package/doc-blocks.ts';
import { commands, kindOf } from '../test/package/doc-blocks.ts';

/** The address the docs give the server at; each scenario's own server stands in for it. */
const DOCS_SERVER = '127.0.0.1:8080';

export interface Scenario {
  readonly file: string;
  readonly section: string;
  readonly blocks: readonly CodeBlock[];
}

/** The shell blocks grouped by section, in the order of the page. */
export function scenarios(blocks: readonly CodeBlock[]): Scenario[] {
  const found = new Map<string, Scenario>();
  for (const block of blocks) {
    const key = `${block.file}#${block.section}`;
    const all = blocks.filter((b) => `${b.file}#${b.section}` === key);
    if (!all.some((b) => kindOf(b) === 'shell')) continue;
    if (!found.has(key)) found.set(key, { file: block.file, section: block.section, blocks: all });
  }
  return [...found.values()];
}

/** A command that runs a server: started in the background, checked to answer, then stopped. */
function serves(command: string): boolean {
  return /\blatchkey serve\b/.test(command) || /^npm start\b/.test(command);
}

/**
 * One bash script for a scenario. Each command runs as written; a server command is started
 * in its own process group, awaited until it listens and answers `/`, then stopped; a command
 * whose comment names the refusal it gets (`# 401 oauth_problem=token_revoked`) must fail with
 * that status and problem.
 */
function script(scenario: Scenario, base: string | undefined): string {
  const lines = [
    'set -euo pipefail',
    // A documented server still running when a later command fails is stopped all the same.
    'serve_pid=',
    `trap 'if [ -n "$serve_pid" ]; then kill -- -$serve_pid 2>/dev/null || true; fi' EXIT`,
    "trap 'exit 143' TERM",
  ];
  let servers = 0;
  for (const block of scenario.blocks) {
    if (kindOf(block) !== 'shell') continue;
    lines.push(`echo "### ${block.file}:${block.line}"`);
    for (const written of commands(block.code)) {
      const command =
        base === undefined ? written : written.replaceAll(DOCS_SERVER, base.replace('http://', ''));
      const refusal = /#\s*(\d{3})\s+(?:oauth_problem=)?(\w+)\s*$/.exec(command);
      if (serves(command)) {
        const file = `.serve-${++servers}.sh`;
        lines.push(
          `cat > ${file} <<'LATCHKEY_SERVE'`,
          command,
          'LATCHKEY_SERVE',
          `echo "$ ${command.replaceAll('"', '\\"').replaceAll('$', '\\$')}"`,
          `setsid bash ${file} > ${file}.log 2>&1 < /dev/null &`,
          'serve_pid=$!',
          'for _ in $(seq 1 600); do',
          `  grep -q 'listening on' ${file}.log && break`,
          `  kill -0 $serve_pid 2>/dev/null || { cat ${file}.log >&2; exit 1; }`,
          '  sleep 0.1',
          'done',
          `url=$(grep -o 'listening on http[^ ]*' ${file}.log | head -1 | awk '{print $3}')`,
          `[ -n "$url" ] || { cat ${file}.log >&2; exit 1; }`,
          // Printed with the public URL when one is set; else asked for its advertisement.
          'case "$url" in http://127.0.0.1:*|http://0.0.0.0:*)',
          `  curl -fsS -o /dev/null "\${url/0.0.0.0/127.0.0.1}/.well-known/oauth1-provider" || { cat ${file}.log >&2; exit 1; };;`,
          'esac',
          'echo "served at $url"',
          'kill -- -$serve_pid; wait $serve_pid || true',
          'serve_pid=',
        );
      } else if (refusal !== null) {
        const [, status, problem] = refusal;
        lines.push(
          `echo "$ ${command.replaceAll('"', '\\"').replaceAll('$', '\\$').replaceAll('`', '\\`')}"`,
          `if out=$(${command.replace(/\s+#.*$/, '')} 2>&1); then echo "$out"; echo "expected a ${status}" >&2; exit 1; fi`,
          'echo "$out"',
          `grep -q 'HTTP ${status}' <<<"$out" && grep -q '${problem}' <<<"$out" || { echo "expected ${status} ${problem}" >&2; exit 1; }`,
        );
      } else {
        lines.push(
          `echo "$ ${command.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('$', '\\$').replaceAll('`', '\\`')}"`,
          command,
        );
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Resolves once `server`'s output says where it listens. */
function listening(server: ReturnType<typeof spawn>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    server.stdout!.on('data', read);
    server.stderr!.on('data', read);
    server.on('close', () => reject(new Error(`serve ended:\n${output}`)));
  });
}

/** The owner's Allow, as the consent page gives it: through the installed package. */
const APPROVE = `
import { createProvider, openStore } from 'latchkey';
const [database, token, username] = process.argv.slice(2);
const store = await openStore(database);
const provider = createProvider({ store });
const owner = await provider.owners.get(username);
const { verifier } = await provider.authorization.approve(token, owner.id);
await provider.close();
await store.close();
console.log(verifier);
`;

function stop(child: ReturnType<typeof spawn>): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/**
 * Runs one scenario in `folder` (created beside the app, sharing its node_modules); throws
 * with the whole transcript when a command fails. Returns the transcript.
 */
export async function runScenario(
  root: string,
  app: string,
  env: NodeJS.ProcessEnv,
  scenario: Scenario,
  folder: string,
): Promise<string> {
  mkdirSync(folder, { recursive: true });
  symlinkSync(join(app, 'node_modules'), join(folder, 'node_modules'));
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({ name: 'docs-scenario', private: true, type: 'module' }),
  );
  writeFileSync(join(folder, 'approve.mjs'), APPROVE);
  const all = scenario.blocks
    .filter((block) => kindOf(block) === 'shell')
    .flatMap((block) => commands(block.code));
  if (all.some((command) => /\blegacy\.jsonl\b/.test(command))) {
    copyFileSync(join(root, 'docs', 'import-example.jsonl'), join(folder, 'legacy.jsonl'));
  }
  for (const command of all) {
    const config = /--config (\S+\.json)\b/.exec(command)?.[1];
    const shown = scenario.blocks.findLast((block) => block.language === 'json');
    if (config !== undefined && shown !== undefined)
      writeFileSync(join(folder, config), shown.code);
  }
  // The docs' defaults, not the app's: ./data/latchkey.db in this folder; profiles kept here.
  const scenarioEnv: NodeJS.ProcessEnv = {
    ...env,
    LATCHKEY_PROFILES: join(folder, 'profiles.json'),
    LATCHKEY_PORT: '0',
  };
  delete scenarioEnv.LATCHKEY_DATABASE;
  const children: ReturnType<typeof spawn>[] = [];
  try {
    let base: string | undefined;
    if (
      all.some((command) => command.includes(DOCS_SERVER) || /latchkey request\b/.test(command))
    ) {
      const server = spawn('npx', ['--no-install', 'latchkey', 'serve', '--port', '0'], {
        cwd: folder,
        env: scenarioEnv,
        detached: true,
      });
      children.push(server);
      base = await listening(server);
    }
    writeFileSync(join(folder, 'scenario.sh'), script(scenario, base));
    const bash = spawn('bash', ['scenario.sh'], { cwd: folder, env: scenarioEnv, detached: true });
    children.push(bash);
    let transcript = '';
    let approved = false;
    const done = new Promise<number | null>((resolve) => bash.on('close', resolve));
    const read = (chunk: Buffer) => {
      transcript += chunk.toString();
      const token = /\/oauth\/authorize\?oauth_token=([^\s&]+)/.exec(transcript)?.[1];
      if (token !== undefined && !approved && /enter the verifier/.test(transcript)) {
        approved = true;
        const approval = spawnSync(
          'node',
          ['approve.mjs', join(folder, 'data', 'latchkey.db'), decodeURIComponent(token), 'alice'],
          { cwd: folder, env: scenarioEnv, encoding: 'utf8' },
        );
        if (approval.status !== 0) transcript += `approve failed: ${approval.stderr}`;
        bash.stdin.write(`${approval.stdout.trim()}\n`);
      }
    };
    bash.stdout.on('data', read);
    bash.stderr.on('data', read);
    const timer = setTimeout(() => stop(bash), 180_000);
    const status = await done;
    clearTimeout(timer);
    if (status !== 0) {
      throw new Error(`${scenario.file} "${scenario.section}" exited ${status}:\n${transcript}`);
    }
    return transcript;
  } finally {
    for (const child of children) stop(child);
  }
}
