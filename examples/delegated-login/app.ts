/**
 * A team's own login app in front of Latchkey (`identity.source` = `delegated`,
 * docs/identity.md): it keeps its own user table, signs people in its own way, and tells
 * Latchkey who signed in through the login challenge admin API, as an ORY Hydra login app
 * does. Latchkey sends a signed-out owner to `GET /login?login_challenge=…`; this app shows
 * its form, checks the password, then calls `POST {latchkey}/admin/login/accept` (or
 * `/admin/login/reject` on Cancel) with the admin token and sends the browser to the
 * `redirect_to` it gets back.
 *
 * Run it beside `latchkey serve --identity delegated`:
 *   LATCHKEY_URL=http://127.0.0.1:8080 LATCHKEY_ADMIN_TOKEN=… node examples/delegated-login/app.ts
 * and set LATCHKEY_LOGIN_URL=http://127.0.0.1:4000/login for Latchkey.
 */
import { scryptSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A row of this app's own user table. The subject is what Latchkey and the API know it by. */
export interface User {
  readonly username: string;
  readonly password: string;
  readonly subject: string;
  readonly name: string;
}

interface StoredUser {
  readonly subject: string;
  readonly name: string;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

export interface LoginAppOptions {
  /** Where this app reaches Latchkey's admin API, e.g. `http://127.0.0.1:8080`. */
  readonly latchkeyUrl: string;
  readonly adminToken: string;
  readonly users: readonly User[];
  readonly port?: number;
}

export interface LoginApp {
  /** `http://127.0.0.1:PORT/login`: Latchkey's `delegated.loginUrl`. */
  readonly loginUrl: string;
  close(): Promise<void>;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The sign-in form. It keeps no session of its own, so every visit asks: `force_login=true`
 * from Latchkey is honoured as it is. `login_hint` pre-fills the email.
 */
function page(challenge: string, error?: string, hint = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Example Co. sign-in</title></head>
<body><main><h1>Sign in to Example Co.</h1>
${error === undefined ? '' : `<p role="alert">${escape(error)}</p>`}
<form method="post" action="/login">
<input type="hidden" name="login_challenge" value="${escape(challenge)}">
<p><label for="email">Email</label> <input id="email" name="username" autocomplete="username" value="${escape(hint)}"></p>
<p><label for="secret">Secret</label> <input id="secret" name="password" type="password"></p>
<p><button type="submit" name="action" value="login">Log in</button>
<button type="submit" name="action" value="cancel">Cancel</button></p>
</form></main></body></html>`;
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 16_384) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

export async function startLoginApp(options: LoginAppOptions): Promise<LoginApp> {
  const users = new Map<string, StoredUser>();
  for (const user of options.users) {
    const salt = randomBytes(16);
    users.set(user.username, { ...user, salt, hash: scryptSync(user.password, salt, 32) });
  }

  /** This app's own password check (any method would do: Latchkey never sees the password). */
  function authenticate(username: string, password: string): StoredUser | undefined {
    const user = users.get(username);
    const salt = user?.salt ?? randomBytes(16);
    const hash = scryptSync(password, salt, 32);
    return user !== undefined && timingSafeEqual(hash, user.hash) ? user : undefined;
  }

  /** Tells Latchkey the outcome; returns where to send the browser. */
  async function tellLatchkey(path: string, body: object): Promise<string> {
    const response = await fetch(`${options.latchkeyUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.adminToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { redirect_to?: string; error_description?: string };
    if (!response.ok || answer.redirect_to === undefined) {
      throw new Error(answer.error_description ?? `Latchkey answered ${response.status}`);
    }
    return answer.redirect_to;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://login.invalid');
    const html = (status: number, text: string) =>
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(text);
    if (url.pathname !== '/login') return void html(404, 'Not found');
    if (request.method === 'GET') {
      const challenge = url.searchParams.get('login_challenge') ?? '';
      return void html(200, page(challenge, undefined, url.searchParams.get('login_hint') ?? ''));
    }
    if (request.method !== 'POST') return void html(405, 'Method not allowed');
    const form = await formOf(request);
    const challenge = form.get('login_challenge') ?? '';
    try {
      if (form.get('action') === 'cancel') {
        const to = await tellLatchkey('/admin/login/reject', { login_challenge: challenge });
        return void response.writeHead(303, { location: to }).end();
      }
      const user = authenticate(form.get('username') ?? '', form.get('password') ?? '');
      if (user === undefined) return void html(401, page(challenge, 'Wrong email or secret.'));
      const to = await tellLatchkey('/admin/login/accept', {
        login_challenge: challenge,
        subject: user.subject,
        name: user.name,
      });
      return void response.writeHead(303, { location: to }).end();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return void html(400, page(challenge, `Latchkey refused: ${message}`));
    }
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end('Something went wrong.');
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    loginUrl: `http://127.0.0.1:${port}/login`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const app = await startLoginApp({
    latchkeyUrl: process.env.LATCHKEY_URL ?? 'http://127.0.0.1:8080',
    adminToken: process.env.LATCHKEY_ADMIN_TOKEN ?? '',
    port: Number(process.env.PORT ?? 4000),
    users: [
      {
        username: 'ada@example.com',
        password: 'analytical engine',
        subject: 'user-1815',
        name: 'Ada Lovelace',
      },
    ],
  });
  console.log(`Example login app on ${app.loginUrl}`);
}
