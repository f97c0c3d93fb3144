/**
 * What the two Node drivers share with the drivers in other languages: the settings from
 * argv and the environment, the JSON lines on stdout and the verifier line on stdin
 * (test/interop/README.md, "Driver protocol"). No OAuth here; each library does its own.
 */
import { createInterface } from 'node:readline';

export type Pair = [name: string, value: string];

export interface DriverSettings {
  readonly base: string;
  readonly key: string;
  readonly secret: string;
  readonly method: string;
  readonly transmission: 'header' | 'body' | 'query';
  readonly privateKeyFile: string;
  readonly query: Pair[];
  readonly form: Pair[];
  readonly scope: string;
  /** Token credentials issued before (migrated): use them instead of running the flow. */
  readonly token: { readonly token: string; readonly secret: string } | undefined;
}

export function readSettings(): DriverSettings {
  const env = process.env;
  const params = JSON.parse(env.INTEROP_PARAMS || '{"query":[],"form":[]}') as {
    query: Pair[];
    form: Pair[];
  };
  const base = process.argv[2];
  if (base === undefined) throw new Error('usage: driver BASE_URL');
  return {
    base: base.replace(/\/$/, ''),
    key: env.OAUTH_CONSUMER_KEY ?? '',
    secret: env.OAUTH_CONSUMER_SECRET ?? '',
    method: env.OAUTH_SIGNATURE_METHOD || 'HMAC-SHA1',
    transmission: (env.OAUTH_TRANSMISSION || 'header') as DriverSettings['transmission'],
    privateKeyFile: env.OAUTH_RSA_PRIVATE_KEY ?? '',
    query: params.query,
    form: params.form,
    scope: env.INTEROP_SCOPE ?? '',
    token: env.OAUTH_TOKEN
      ? { token: env.OAUTH_TOKEN, secret: env.OAUTH_TOKEN_SECRET ?? '' }
      : undefined,
  };
}

export function emit(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** The verifier, typed by the "owner" after approving: one line on stdin. */
export async function readLine(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line.trim();
  }
  return '';
}

/** A /api/me reply as the harness wants it: the status and the JSON, or the raw text. */
export function meResult(status: number, text: string): { status: number; body: unknown } {
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    return { status, body: text };
  }
}

/** Runs a driver, turning any failure into an `error` line and exit code 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    emit({ step: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
  });
}
