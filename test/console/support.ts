// The console's HTTP tests: the admin world (test/admin/support.ts) with the console plugin,
// and a browser-like caller keeping cookies, reading CSRF tokens from forms, speaking from an
// address of its own through X-Forwarded-For.
import assert from 'node:assert/strict';
import type { AdminRole } from '../../src/provider/index.ts';
import type { Store } from '../../src/store/index.ts';
import { consolePlugin } from '../../src/web/console/index.ts';
import { freshAddress, startAdmin, type AdminWorld } from '../admin/support.ts';

export const CONSOLE = '/admin/console';

export function startConsole(store: Store): Promise<AdminWorld> {
  return startAdmin(store, { console: consolePlugin });
}

export interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A caller with its own cookies and address. */
export class Visitor {
  readonly cookies = new Map<string, string>();
  readonly from: string;
  readonly #world: AdminWorld;

  constructor(world: AdminWorld, from = freshAddress()) {
    this.#world = world;
    this.from = from;
  }

  async request(
    method: string,
    path: string,
    form?: Record<string, string>,
    extra: { readonly raw?: string; readonly headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.from, ...extra.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    let body: string | undefined = extra.raw;
    if (form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const response = await fetch(`${this.#world.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** The CSRF token of the form on `path`. */
  async csrf(path = `${CONSOLE}/signin`): Promise<string> {
    const page = await this.request('GET', path);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(token !== undefined, `no CSRF token on ${path} (${page.status})`);
    return token;
  }

  async signIn(token: string): Promise<Page> {
    return this.request('POST', `${CONSOLE}/signin`, { _csrf: await this.csrf(), token });
  }

  /** Posts a form with a fresh CSRF token from `from`. */
  async post(path: string, form: Record<string, string>, from = `${CONSOLE}/clients`) {
    return this.request('POST', path, { _csrf: await this.csrf(from), ...form });
  }
}

export async function signedIn(world: AdminWorld, role: AdminRole): Promise<Visitor> {
  const visitor = new Visitor(world);
  const answer = await visitor.signIn(world.tokens[role]);
  assert.equal(answer.status, 303, answer.text);
  return visitor;
}
