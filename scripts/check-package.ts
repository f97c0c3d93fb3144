// Proves the package works installed, as a team would use it (`.ci/run` runs this after the
// tests): `npm pack`, install the tarball into an empty folder, then, on each Node version the
// package supports (`node` from the npm registry, installed beside it):
//   - `npx latchkey serve` answers its pages and static files, and one signed request made
//     with the installed CLI (`latchkey request`) is verified;
//   - a program importing `latchkey`, `latchkey/middleware` and `latchkey/client` runs the
//     whole three-step flow against that server, and type-checks against the shipped types;
//   - on the last version, the code blocks of README.md and docs/*.md as written
//     (test/package/doc-blocks.ts): their install commands; each program started and sent one
//     signed request (or a signed LTI launch); then each section's shell blocks in order, in a
//     folder of its own (scripts/package-docs.ts).
// npm must print no engine warning. Then the machine's own Node (the first `node` on PATH
// outside node_modules): when the package does not support it, `npx latchkey serve` and
// `import 'latchkey'` must each stop with the one line naming the Node needed and how to get it
// (src/node-version.ts), and after that command (`npm install -D node@24`) the CLI runs.
// Usage: node scripts/check-package.ts [node versions…]
import { spawn, spawnSync } from 'node:child_process';
import type { SpawnSyncOptions } from 'node:child_process';
import {
  accessSync,
  constants,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSigningFetch, signRequest } from '../src/client/index.ts';
import { unsupportedNode } from '../src/node-version.ts';
import {
  checkedDocs,
  codeBlocks,
  commands,
  firstRoute,
  importedPackages,
  kindOf,
} from '../test/package/doc-blocks.ts';
import { runScenario, scenarios } from './package-docs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
// The lowest version of the range (src/node-version.ts), then the project's own.
const minimum = /(\d+\.\d+\.\d+)/.exec(manifest.engines.node)?.[1];
const versions = process.argv.slice(2);
if (versions.length === 0) versions.push(minimum ?? '22.18.0', process.versions.node);

function run(command: string, args: readonly string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  const output = `${String(result.stdout ?? '')}${String(result.stderr ?? '')}`;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${output}`);
  }
  return output;
}

/** Ends a process group started with `detached` (npx and the server it runs). */
function stop(child: ReturnType<typeof spawn>): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

function step(text: string): void {
  process.stdout.write(`package: ${text}\n`);
}

const work = mkdtempSync(join(tmpdir(), 'latchkey-package-'));
const children: ReturnType<typeof spawn>[] = [];

async function checkOn(version: string, tarball: string): Promise<void> {
  const app = join(work, `app-${version}`);
  run('mkdir', ['-p', app]);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'uses-latchkey',
      private: true,
      type: 'module',
      allowScripts: { node: true },
    }),
  );
  step(`install node@${version}, then with it the tarball, into an empty folder`);
  run('npm', ['install', '--no-audit', '--no-fund', `node@${version}`], { cwd: app });
  const bin = join(app, 'node_modules', '.bin');
  const env = {
    ...process.env,
    // npm, npx and the CLI then run on this Node, and npm checks engines against it.
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    LATCHKEY_DATABASE: join(app, 'data', 'latchkey.db'),
    LATCHKEY_PROFILES: join(app, 'profiles.json'),
    LATCHKEY_LOG_LEVEL: 'warn',
  };
  const installed = run('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: app, env });
  if (/EBADENGINE|Unsupported engine/i.test(installed)) {
    throw new Error(`npm printed an engine warning:\n${installed}`);
  }
  const nodeVersion = run(join(bin, 'node'), ['--version'], { env }).trim();
  if (nodeVersion !== `v${version}`) throw new Error(`node is ${nodeVersion}, not v${version}`);
  const cli = (args: readonly string[], input?: string) =>
    run('npx', ['--no-install', 'latchkey', ...args], { cwd: app, env, input });

  step(`Node ${version}: latchkey users add, clients add, tokens issue`);
  cli(['users', 'add', '--username', 'alice', '--password-stdin'], 'correct horse battery\n');
  const client = JSON.parse(cli(['clients', 'add', '--name', 'Installed', '--json'])) as {
    key: string;
    secret: string;
  };
  const token = JSON.parse(
    cli(['tokens', 'issue', '--client', client.key, '--user', 'alice', '--json']),
  ) as { token: string; secret: string };

  step(`Node ${version}: npx latchkey serve`);
  // A process group of its own: npx runs the server as its child, and both must end.
  const server = spawn('npx', ['--no-install', 'latchkey', 'serve', '--port', '0'], {
    cwd: app,
    env,
    detached: true,
  });
  children.push(server);
  const base = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Latchkey listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.on('close', () => reject(new Error(`serve ended:\n${output}`)));
  });
  try {
    for (const [path, status, text] of [
      ['/', 200, '<!doctype html>'],
      ['/static/latchkey.css', 200, ''],
      ['/oauth/authorize?oauth_token=unknown', 404, 'We can’t find this request'],
      ['/docs', 200, 'oauth_signature_method'],
    ] as const) {
      const response = await fetch(base + path);
      const body = await response.text();
      if (response.status !== status || !body.includes(text)) {
        throw new Error(`GET ${path}: ${response.status}, expected ${status} with "${text}"`);
      }
    }

    step(`Node ${version}: one signed request with the installed CLI (latchkey request)`);
    writeFileSync(
      env.LATCHKEY_PROFILES,
      JSON.stringify({
        profiles: {
          default: {
            server: base,
            client,
            token,
            signatureMethod: 'HMAC-SHA1',
            savedAt: new Date().toISOString(),
          },
        },
      }),
    );
    const me = cli(['request', '/api/me']);
    if (!me.includes('HTTP 200') || !me.includes(client.key)) {
      throw new Error(`latchkey request /api/me:\n${me}`);
    }

    step(
      `Node ${version}: the library API runs the whole flow (latchkey, latchkey/middleware, latchkey/client)`,
    );
    writeFileSync(join(app, 'flow.mjs'), FLOW);
    const flow = run(join(bin, 'node'), ['flow.mjs', base, client.key, client.secret], {
      cwd: app,
      env,
    });
    if (!flow.includes('flow ok')) throw new Error(`flow.mjs:\n${flow}`);
    if (version === versions.at(-1)) {
      const subject = /"subject":\s*"([^"]+)"/.exec(me)?.[1];
      if (subject === undefined) throw new Error(`no owner subject in /api/me:\n${me}`);
      await runDocBlocks(app, env, tarball, client, token, subject);
    }
  } finally {
    stop(server);
  }
  if (version === versions[0]) checkTypes(app);
}

/** A port free now, for a documented program that listens on `PORT`. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once `port` accepts a connection; rejects when `child` ends first. */
async function accepting(port: number, child: ReturnType<typeof spawn>, output: () => string) {
  let ended = false;
  child.once('close', () => (ended = true));
  for (let attempt = 0; attempt < 300; attempt++) {
    if (ended) throw new Error(`the program ended before listening:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the program never listened on ${port}:\n${output()}`);
}

/**
 * The blocks of README.md and docs/middleware.md in this project, as a user pastes them: the
 * install commands (the tarball standing for `latchkey`, which the registry would give), then
 * each program, given the database, a port and one signed request for the owner's subject.
 */
async function runDocBlocks(
  app: string,
  env: NodeJS.ProcessEnv,
  tarball: string,
  client: { key: string; secret: string },
  token: { token: string; secret: string },
  subject: string,
): Promise<void> {
  const blocks = checkedDocs(root).flatMap((file) => codeBlocks(root, file));
  const programs = blocks.filter((block) => kindOf(block) === 'program');
  const installs = blocks.filter((block) => kindOf(block) === 'install');
  for (const block of installs) {
    step(`${block.file}:${block.line}: ${commands(block.code).join('; ')}`);
    for (const line of commands(block.code)) {
      const [, ...args] = line.split(/\s+/).map((word) => (word === 'latchkey' ? tarball : word));
      run('npm', [...args, '--no-audit', '--no-fund'], { cwd: app, env });
    }
  }
  const packages = [...new Set(programs.flatMap((block) => importedPackages(block.code)))];
  if (packages.length > 0) {
    step(`the frameworks the programs import, as the docs say: npm install ${packages.join(' ')}`);
    run('npm', ['install', '--no-audit', '--no-fund', ...packages], { cwd: app, env });
  }
  const signed = createSigningFetch({ client, token });
  for (const block of programs) {
    const request = programRequest(block.code, client);
    step(`${block.file}:${block.line}: the ${block.language} program, ${request.what}`);
    const file = join(app, `app.${block.language}`);
    writeFileSync(file, block.code);
    const port = await freePort();
    const child = spawn(join(app, 'node_modules', '.bin', 'node'), [file], {
      cwd: app,
      env: { ...env, PORT: String(port) },
      detached: true,
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await accepting(port, child, () => output);
      const url = `http://127.0.0.1:${port}${request.path}`;
      const response = await (request.send === undefined ? signed(url) : request.send(url));
      const body = await response.text();
      const expected = request.expect ?? subject;
      if (response.status !== 200 || !body.includes(expected)) {
        throw new Error(`${block.file}:${block.line}: ${request.what}: ${response.status} ${body}`);
      }
    } finally {
      stop(child);
    }
  }
  let shells = 0;
  for (const [index, scenario] of scenarios(blocks).entries()) {
    const run = scenario.blocks.filter((block) => kindOf(block) === 'shell');
    shells += run.length;
    step(
      `${scenario.file} "${scenario.section}": ${run.length} shell block(s) in order ` +
        `(${run.map((block) => block.line).join(', ')})`,
    );
    await runScenario(root, app, env, scenario, join(work, `docs-${index}`));
  }
  const count = (kind: string) => blocks.filter((block) => kindOf(block) === kind).length;
  step(
    `${blocks.length} blocks: ${programs.length} programs, ${installs.length} install and ` +
      `${shells} shell blocks run here; ${count('checkout')} checkout commands (.ci/run), ` +
      `${count('config')} config files (test/docs, test/edge, test/fleet), ${count('service')} ` +
      `/verify services (test/edge), ${count('receiver')} webhook receiver (test/webhooks), ` +
      `${count('sample')} samples and ${count('fragment')} ` +
      `marked fragments not run`,
  );
}

/** What a documented program is sent: a signed LTI launch, a launch in headers, or a signed GET. */
function programRequest(
  code: string,
  client: { key: string; secret: string },
): {
  what: string;
  path: string;
  expect?: string;
  send?: (url: string) => Promise<Response>;
} {
  const launch = /\.post\(\s*'(\/[^']*)',\s*\{\s*config:\s*\{\s*lti:\s*true/.exec(code)?.[1];
  if (launch !== undefined) {
    return {
      what: `POST ${launch}, a launch signed by the LMS`,
      path: launch,
      expect: 'u-1001',
      send: (url) => {
        const signed = signRequest({
          method: 'POST',
          url,
          body: new URLSearchParams(LAUNCH),
          client,
          transmission: 'body',
        });
        return fetch(signed.url, {
          method: 'POST',
          headers: signed.headers,
          body: String(signed.body),
        });
      },
    };
  }
  if (code.includes("'x-lti-user-id'")) {
    // The tool behind the gateway: the launch arrives as the gateway's headers.
    return {
      what: 'POST /launch with the launch headers the gateway sets',
      path: '/launch',
      expect: 'u-1001',
      send: (url) =>
        fetch(url, {
          method: 'POST',
          headers: { 'x-lti-user-id': 'u-1001', 'x-lti-roles': 'Learner' },
        }),
    };
  }
  const path = firstRoute(code);
  return { what: `GET ${path} signed`, path };
}

/** The fields an LMS's launch carries (LTI 1.1 Basic Launch). */
const LAUNCH: [string, string][] = [
  ['lti_message_type', 'basic-lti-launch-request'],
  ['lti_version', 'LTI-1p0'],
  ['resource_link_id', 'rl-42'],
  ['user_id', 'u-1001'],
  ['roles', 'Learner'],
  ['context_title', 'Café 101'],
];

/** The first `node` on PATH outside a node_modules folder: the machine's own. */
function machineNode(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (folder === '' || folder.includes('node_modules')) continue;
    try {
      accessSync(join(folder, 'node'), constants.X_OK);
      return join(folder, 'node');
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The tarball installed with the machine's own Node and npm. An unsupported Node gets the one
 * line from src/node-version.ts from the CLI and from the import, and the command it names
 * then makes the CLI run.
 */
function checkMachineNode(tarball: string): void {
  const node = machineNode();
  if (node === undefined) throw new Error('no node on PATH outside node_modules');
  const version = run(node, ['-p', 'process.versions.node']).trim();
  const expected = unsupportedNode(version);
  if (expected === undefined) {
    step(`the machine's own Node ${version} is supported; checked above like the others`);
    if (!versions.includes(version)) throw new Error(`add ${version} to the versions checked`);
    return;
  }
  const app = join(work, 'app-machine');
  run('mkdir', ['-p', app]);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'uses-latchkey', private: true, type: 'module' }),
  );
  // This Node first on PATH: npm, npx and the CLI's `#!/usr/bin/env node` all run on it.
  const folders = (process.env.PATH ?? '').split(delimiter);
  const env = {
    ...process.env,
    PATH: [join(node, '..'), ...folders.filter((folder) => !folder.includes('node_modules'))].join(
      delimiter,
    ),
  };
  step(`the machine's own Node ${version}: install the tarball with its npm`);
  run('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: app, env });
  step(`Node ${version}: npx latchkey serve and import 'latchkey' each say which Node to get`);
  const serve = spawnSync('npx', ['--no-install', 'latchkey', 'serve', '--port', '0'], {
    cwd: app,
    env,
    encoding: 'utf8',
  });
  if (serve.status !== 1 || serve.stderr !== `${expected}\n` || serve.stdout !== '') {
    throw new Error(`npx latchkey serve on Node ${version}: ${serve.status}\n${serve.stderr}`);
  }
  const imported = spawnSync(
    node,
    [
      '--input-type=module',
      '-e',
      "import('latchkey').catch((error) => console.log(error.message))",
    ],
    { cwd: app, env, encoding: 'utf8' },
  );
  if (imported.stdout !== `${expected}\n`) {
    throw new Error(`import 'latchkey' on Node ${version}:\n${imported.stdout}${imported.stderr}`);
  }
  step(`Node ${version}: after npm install -D node@24 (what the line says), npx latchkey runs`);
  run('npm', ['install', '--no-audit', '--no-fund', '-D', 'node@24'], { cwd: app, env });
  const help = run('npx', ['--no-install', 'latchkey', 'clients', 'list'], { cwd: app, env });
  if (/needs Node/.test(help)) throw new Error(`still refused after node@24:\n${help}`);
}

/** The shipped declarations, used as a TypeScript program would (strict, nodenext). */
function checkTypes(app: string): void {
  step('the shipped types check (tsc, strict, module nodenext)');
  writeFileSync(join(app, 'types.ts'), TYPES);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
      },
      files: ['types.ts'],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  run(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')], { cwd: app });
}

/** The flow a team's code runs with the installed package: SDK for the client, provider for the owner. */
const FLOW = `
import { createProvider, openStore } from 'latchkey';
import { createNodeVerifier } from 'latchkey/middleware';
import {
  createSigningFetch,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
} from 'latchkey/client';

const [base, key, secret] = process.argv.slice(2);
const client = { key, secret };
if (typeof createNodeVerifier !== 'function') throw new Error('latchkey/middleware');
const temporary = await processTemporaryCredentialsResponse(
  await requestTemporaryCredentials(base + '/oauth/request_token', { client, callback: 'oob' }),
);
const page = await fetch(base + '/oauth/authorize?oauth_token=' + temporary.token);
if (page.status !== 200 || !(await page.text()).includes('Sign in')) throw new Error('sign-in page');
// The owner's Allow, through the provider on the same database (the consent page calls this).
const store = await openStore(process.env.LATCHKEY_DATABASE);
const provider = createProvider({ store });
const owner = await provider.owners.get('alice');
const { verifier } = await provider.authorization.approve(temporary.token, owner.id);
await provider.close();
await store.close();
const token = await processTokenCredentialsResponse(
  await requestTokenCredentials(base + '/oauth/access_token', { client, temporary, verifier }),
);
const me = await createSigningFetch({ client, token })(base + '/api/me');
const body = await me.json();
if (me.status !== 200 || body.owner.name !== 'alice') throw new Error(JSON.stringify(body));
console.log('flow ok');
`;

const TYPES = `
import { createProvider, openStore } from 'latchkey';
import type { Provider } from 'latchkey';
import { createNodeVerifier, latchkeyExpress, latchkeyFastify } from 'latchkey/middleware';
import { signRequest } from 'latchkey/client';
import type { TokenCredentials } from 'latchkey/client';

export async function check(): Promise<string> {
  const provider: Provider = createProvider({ store: await openStore('data/latchkey.db') });
  const token: TokenCredentials = { token: 't', secret: 's' };
  const signed = signRequest({ method: 'GET', url: 'https://api.example/me', client: { key: 'k', secret: 's' }, token });
  void [createNodeVerifier, latchkeyExpress, latchkeyFastify];
  return signed.headers['Authorization'] ?? provider.policy.realm;
}
`;

async function main(): Promise<void> {
  try {
    step('npm pack');
    run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root });
    const tarball = join(
      work,
      readdirSync(work).find((name) => name.endsWith('.tgz'))!,
    );
    for (const version of versions) await checkOn(version, tarball);
    checkMachineNode(tarball);
    process.stdout.write(`package: ok on Node ${versions.join(' and ')}\n`);
  } finally {
    for (const child of children) stop(child);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
