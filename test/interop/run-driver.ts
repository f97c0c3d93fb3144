/**
 * Runs one client driver (test/interop/clients/*) through the three-step flow of RFC 5849 §2:
 * it prints the temporary credentials, the test approves them in-process as the owner would
 * on the authorization page, writes the verifier to the driver's stdin, and collects what
 * the driver prints for the token exchange and the /api/me calls.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Parameter } from '../../src/protocol/index.ts';

export type Transmission = 'header' | 'body' | 'query';

export interface DriverRun {
  readonly command: string;
  readonly args: readonly string[];
  readonly baseUrl: string;
  readonly client: { readonly key: string; readonly secret: string };
  readonly signatureMethod: string;
  readonly transmission: Transmission;
  /** PEM file of the client's RSA private key, for RSA-SHA1. */
  readonly privateKeyFile?: string | undefined;
  readonly query: readonly Parameter[];
  readonly form: readonly Parameter[];
  /** Sent as the non-protocol `scope` parameter of the temporary credential request. */
  readonly scope?: string | undefined;
  /** Token credentials issued before (migrated): the driver skips the flow and uses them. */
  readonly token?: { readonly token: string; readonly secret: string } | undefined;
  /** The owner's approval: temporary token in, verifier out. */
  approve(temporaryToken: string): string | Promise<string>;
}

/** One /api/me call as the driver saw it: the status and the parsed JSON (or the raw text). */
export interface MeResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface DriverResult {
  readonly exitCode: number | null;
  readonly temporary?: { readonly token: string } | undefined;
  readonly token?: { readonly token: string } | undefined;
  readonly me?: { readonly get: MeResponse | null; readonly post: MeResponse | null } | undefined;
  readonly error?: unknown;
  /** Everything the driver wrote to stderr, for failure messages. */
  readonly stderr: string;
}

/** Guards a stuck driver so the suite ends; not an assertion on speed. */
const DRIVER_TIMEOUT_MS = 60_000;

export function runDriver(run: DriverRun): Promise<DriverResult> {
  const child = spawn(run.command, [...run.args, run.baseUrl], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      OAUTH_CONSUMER_KEY: run.client.key,
      OAUTH_CONSUMER_SECRET: run.client.secret,
      OAUTH_SIGNATURE_METHOD: run.signatureMethod,
      OAUTH_TRANSMISSION: run.transmission,
      OAUTH_RSA_PRIVATE_KEY: run.privateKeyFile ?? '',
      INTEROP_PARAMS: JSON.stringify({ query: run.query, form: run.form }),
      INTEROP_SCOPE: run.scope ?? '',
      OAUTH_TOKEN: run.token?.token ?? '',
      OAUTH_TOKEN_SECRET: run.token?.secret ?? '',
    },
  });
  const result: {
    temporary?: { token: string };
    token?: { token: string };
    me?: { get: MeResponse | null; post: MeResponse | null };
    error?: unknown;
  } = {};
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => {}); // the driver may exit before reading; its output says why

  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    let message: { step?: string; [key: string]: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      stderr += `(stdout) ${line}\n`;
      return;
    }
    switch (message.step) {
      case 'temporary':
        result.temporary = { token: String(message.token) };
        void Promise.resolve()
          .then(() => run.approve(String(message.token)))
          .then(
            (verifier) => child.stdin.end(`${verifier}\n`),
            (error: unknown) => {
              result.error = `approval failed: ${String(error)}`;
              child.stdin.end('\n');
            },
          );
        break;
      case 'token':
        result.token = { token: String(message.token) };
        break;
      case 'me':
        result.me = {
          get: (message.get ?? null) as MeResponse | null,
          post: (message.post ?? null) as MeResponse | null,
        };
        break;
      case 'error':
        result.error = message;
        break;
      default:
        stderr += `(stdout) ${line}\n`;
    }
  });

  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), DRIVER_TIMEOUT_MS);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ ...result, exitCode, stderr });
    });
  });
}
