// Several Latchkey processes for one deployment: each is
// `latchkey serve` (bin/latchkey.js) as a child process on a port of its own, configured by
// LATCHKEY_* variables to share one PostgreSQL schema, one Redis prefix and one session
// secret. Requests reach an instance as through a load balancer: sent to its port with the
// public Host header every instance sees (`latchkey.test`), so a request signed for the
// deployment verifies on any instance.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { baseEnv, bin, runCli } from '../cli/run-cli.ts';
import type { CliResult } from '../cli/run-cli.ts';
import { csrfToken } from '../web/support.ts';

/** The deployment's public name; every signature is computed for it. */
export const PUBLIC = 'http://latchkey.test';

export interface Deployment {
  readonly env: Record<string, string>;
  /** A `latchkey` command with the deployment's configuration. */
  cli(args: readonly string[]): Promise<CliResult>;
  /** Starts one more `latchkey serve` and waits until it listens. */
  start(): Promise<Instance>;
  /** Stops every instance still running. */
  stopAll(): void;
}

export interface Instance {
  readonly port: number;
  readonly child: ChildProcessWithoutNullStreams;
  /** A fetch that sends to this instance, with the deployment's Host. */
  readonly fetch: typeof fetch;
  /** kill -9: the process ends at once, nothing is flushed or closed. */
  kill9(): Promise<void>;
}

export function deploymentOf(names: {
  postgresUrl: string;
  redisUrl: string;
  schema: string;
  prefix: string;
}): Deployment {
  const env = {
    ...baseEnv(),
    LATCHKEY_DATABASE: names.postgresUrl,
    LATCHKEY_REDIS: names.redisUrl,
    LATCHKEY_POSTGRES_SCHEMA: names.schema,
    LATCHKEY_REDIS_PREFIX: names.prefix,
    LATCHKEY_SESSION_SECRET: randomBytes(32).toString('base64url'),
    LATCHKEY_PORT: '0',
    LATCHKEY_LOG_LEVEL: 'silent',
  };
  const running = new Set<ChildProcessWithoutNullStreams>();
  return {
    env,
    cli: (args) => runCli(args, env),
    async start() {
      const child = spawn(process.execPath, [bin, 'serve'], { env });
      running.add(child);
      const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
      void exited.then(() => running.delete(child));
      let output = '';
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          const match = /^Latchkey listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(output);
          if (match !== null) resolve(Number(match[1]));
        });
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        void exited.then(() => reject(new Error(`latchkey serve ended: ${output}`)));
      });
      return {
        port,
        child,
        fetch: balancedFetch(port),
        async kill9() {
          child.kill('SIGKILL');
          await exited;
        },
      };
    },
    stopAll() {
      for (const child of running) child.kill('SIGKILL');
    },
  };
}

/** Sends to 127.0.0.1:`port` whatever the URL's host; the URL's host goes in Host. */
export function balancedFetch(port: number): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const headers: Record<string, string> = { host: url.host };
    for (const [name, value] of new Headers(init.headers).entries()) headers[name] = value;
    const body =
      init.body === undefined || init.body === null
        ? undefined
        : init.body instanceof Uint8Array
          ? Buffer.from(init.body)
          : String(init.body);
    if (init.body instanceof URLSearchParams) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    return new Promise<Response>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: init.method ?? 'GET',
          path: url.pathname + url.search,
          headers,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const out = new Headers();
            for (const [name, value] of Object.entries(response.headers)) {
              for (const item of [value].flat()) if (item !== undefined) out.append(name, item);
            }
            const status = response.statusCode ?? 0;
            const empty = status === 204 || status === 304;
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: out }));
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }) as typeof fetch;
}

/** A browser with one cookie jar for the deployment, talking to whichever instance it is told. */
export class Browser {
  readonly #cookies = new Map<string, string>();

  async get(instance: Instance, path: string): Promise<Response> {
    return this.#send(instance, 'GET', path);
  }

  /** Posts a form; `_csrf` is read from `page` (a page served by any instance). */
  async post(instance: Instance, path: string, fields: Record<string, string>, page: string) {
    const form = new URLSearchParams({ ...fields, _csrf: csrfToken(page) });
    return this.#send(instance, 'POST', path, form);
  }

  async signIn(instance: Instance, username: string, password: string): Promise<Response> {
    const page = await (await this.get(instance, '/signin')).text();
    return this.post(instance, '/signin', { username, password, next: '/' }, page);
  }

  async #send(instance: Instance, method: string, path: string, form?: URLSearchParams) {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await instance.fetch(`${PUBLIC}${path}`, {
      method,
      headers: {
        ...(cookie === '' ? {} : { cookie }),
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form === undefined ? {} : { body: form.toString() }),
    });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0/i.test(set)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return response;
  }
}
