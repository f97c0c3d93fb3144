/**
 * The interop matrix as data: each real OAuth 1.0a client library, how to run its driver,
 * which signature methods and transmissions (RFC 5849 §3.5) it supports, and its known
 * limits with the awkward values. README.md is the same table for people; keep them in step.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AwkwardTag } from './awkward-parameters.ts';
import type { Transmission } from './run-driver.ts';

/** Something a library gets wrong; the listed cases are left out of its main run. */
export interface Limit {
  readonly request: 'get' | 'post';
  readonly tags: readonly AwkwardTag[];
  /** Only with these transmissions (all when absent). */
  readonly transmissions?: readonly Transmission[];
  /**
   * What goes wrong: the server refuses the signature, accepts a request whose pairs differ,
   * or the library refuses to send the request at all (the driver reports status 0).
   */
  readonly symptom: 'signature_invalid' | 'altered' | 'unsendable';
  readonly reason: string;
}

export interface Driver {
  readonly name: string;
  /** The interpreter and script; undefined with the reason when the library is missing. */
  locate(): { command: string; args: string[] } | { problem: string };
  readonly signatureMethods: readonly string[];
  readonly transmissions: readonly Transmission[];
  /** Whether the driver can add the non-protocol `scope` to the temporary credential request. */
  readonly sendsScope: boolean;
  readonly limits: readonly Limit[];
}

const clients = fileURLToPath(new URL('./clients/', import.meta.url));

/** The first interpreter that runs the probe, so a pyenv/rbenv shim does not hide the system one. */
function firstWorking(
  candidates: readonly string[],
  probe: readonly string[],
  script: string,
  library: string,
): { command: string; args: string[] } | { problem: string } {
  for (const command of candidates) {
    const run = spawnSync(command, probe, { stdio: 'ignore', timeout: 20_000 });
    if (run.status === 0) return { command, args: [`${clients}${script}`] };
  }
  return { problem: `${library} not found (bash .ci/install-interop.sh installs it)` };
}

const nodeDriver = (script: string, library: string) => () => {
  try {
    import.meta.resolve(library);
  } catch {
    return { problem: `npm package ${library} not installed (npm ci)` };
  }
  return { command: process.execPath, args: [`${clients}${script}`] };
};

/** GOPATH where Debian installs Go library sources (golang-*-dev packages). */
const DEBIAN_GOPATH = '/usr/share/gocode';
let goBuild: { command: string; args: string[] } | { problem: string } | undefined;

/**
 * Builds a Go driver once per test process, offline: GOPATH mode against Debian's packaged
 * sources, so no module proxy is asked for anything.
 */
const goDriver = (script: string, importPath: string) => () => {
  if (goBuild !== undefined) return goBuild;
  if (!existsSync(join(DEBIAN_GOPATH, 'src', importPath))) {
    return (goBuild = {
      problem: `Go library ${importPath} not in ${DEBIAN_GOPATH} (bash .ci/install-interop.sh installs it)`,
    });
  }
  const directory = mkdtempSync(join(tmpdir(), 'latchkey-interop-go-'));
  const binary = join(directory, 'driver');
  const build = spawnSync('go', ['build', '-o', binary, `${clients}${script}`], {
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH: DEBIAN_GOPATH,
      GOFLAGS: '',
      GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'latchkey-interop-gocache'),
    },
  });
  if (build.error !== undefined || build.status !== 0) {
    return (goBuild = {
      problem: `go build of ${script} failed (bash .ci/install-interop.sh installs golang-go): ${build.error?.message ?? build.stderr}`,
    });
  }
  return (goBuild = { command: binary, args: [] });
};

export const drivers: readonly Driver[] = [
  {
    name: 'requests-oauthlib (Python)',
    locate: () =>
      firstWorking(
        [process.env.LATCHKEY_PYTHON ?? 'python3', '/usr/bin/python3'],
        ['-c', 'import requests_oauthlib'],
        'python-requests-oauthlib.py',
        'python3 with requests_oauthlib',
      ),
    signatureMethods: [
      'HMAC-SHA1',
      'HMAC-SHA256',
      'HMAC-SHA512',
      'RSA-SHA1',
      'RSA-SHA256',
      'RSA-SHA512',
      'PLAINTEXT',
    ],
    transmissions: ['header', 'body', 'query'],
    sendsScope: true,
    limits: [],
  },
  {
    name: 'Net::OAuth (Perl)',
    locate: () =>
      firstWorking(
        ['perl'],
        ['-MNet::OAuth', '-MLWP::UserAgent', '-MCrypt::OpenSSL::RSA', '-e1'],
        'perl-net-oauth.pl',
        'perl with Net::OAuth, LWP and Crypt::OpenSSL::RSA',
      ),
    signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256', 'RSA-SHA1', 'PLAINTEXT'],
    transmissions: ['header', 'body', 'query'],
    sendsScope: true,
    limits: [
      ...(['get', 'post'] as const).map((request) => ({
        request,
        tags: ['repeated'] as const,
        symptom: 'signature_invalid' as const,
        reason: `Net::OAuth signs a repeated name with one value only (${request})`,
      })),
      ...(['get', 'post'] as const).map((request) => ({
        request,
        tags: ['prefix-name'] as const,
        symptom: 'signature_invalid' as const,
        reason: `Net::OAuth sorts "name=value" strings, misordering a name that prefixes another (${request})`,
      })),
    ],
  },
  {
    name: 'PECL OAuth (PHP)',
    locate: () =>
      firstWorking(
        ['php'],
        ['-r', 'exit(class_exists("OAuth") ? 0 : 1);'],
        'php-pecl-oauth.php',
        'php with the PECL OAuth extension',
      ),
    signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256', 'RSA-SHA1', 'PLAINTEXT'],
    transmissions: ['header', 'body', 'query'],
    sendsScope: true,
    limits: [
      {
        request: 'get',
        tags: ['repeated'],
        symptom: 'signature_invalid',
        reason: 'PECL OAuth signs a repeated name in the URL query with one value only',
      },
      {
        request: 'post',
        tags: ['repeated'],
        symptom: 'altered',
        reason:
          'PECL OAuth takes the form as a PHP array (a string body is sent unsigned), so a repeated name keeps one value',
      },
    ],
  },
  {
    name: 'oauth gem (Ruby)',
    locate: () =>
      firstWorking(['ruby'], ['-roauth', '-e', ''], 'ruby-oauth.rb', 'ruby with the oauth gem'),
    signatureMethods: ['HMAC-SHA1', 'RSA-SHA1', 'PLAINTEXT'],
    transmissions: ['header', 'body', 'query'],
    sendsScope: true,
    limits: [],
  },
  {
    name: 'oauth (npm)',
    locate: nodeDriver('node-oauth.ts', 'oauth'),
    signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256', 'RSA-SHA1', 'PLAINTEXT'],
    transmissions: ['header'],
    sendsScope: true,
    limits: [
      {
        request: 'get',
        tags: ['repeated'],
        symptom: 'signature_invalid',
        reason: 'node-oauth signs a repeated query name as "name[0]", "name[1]"',
      },
    ],
  },
  {
    name: 'oauth-1.0a (npm)',
    locate: nodeDriver('node-oauth-1.0a.ts', 'oauth-1.0a'),
    signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256', 'HMAC-SHA512', 'RSA-SHA1', 'PLAINTEXT'],
    transmissions: ['header', 'body', 'query'],
    sendsScope: true,
    limits: [
      {
        request: 'get',
        tags: ['awkward-name'],
        symptom: 'signature_invalid',
        reason: 'oauth-1.0a does not decode query names before encoding them (double encoding)',
      },
    ],
  },
  {
    name: 'mrjones/oauth (Go)',
    locate: goDriver('go-mrjones-oauth.go', 'github.com/mrjones/oauth'),
    signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256', 'RSA-SHA1', 'RSA-SHA256'],
    transmissions: ['header'],
    sendsScope: true,
    limits: [
      ...(['get', 'post'] as const).map((request) => ({
        request,
        tags: ['repeated'] as const,
        symptom: 'unsendable' as const,
        reason: `mrjones/oauth refuses a repeated name before sending ("Must have exactly one value per param", ${request})`,
      })),
      ...(['get', 'post'] as const).map((request) => ({
        request,
        tags: ['awkward-name'] as const,
        symptom: 'signature_invalid' as const,
        reason: `mrjones/oauth percent-encodes values but not names for the base string (${request})`,
      })),
    ],
  },
];
