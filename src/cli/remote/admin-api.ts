/**
 * The admin API (docs/admin.md) as the CLI calls it from another machine: `Authorization:
 * Bearer` with an admin token, JSON in and out. A refusal (application/problem+json, RFC 9457)
 * or a server that cannot be reached becomes one CommandFailure line naming the server.
 */
import { CommandFailure } from '../errors.ts';

export class AdminApi {
  readonly server: string;
  readonly #token: string;

  constructor(server: string, token: string) {
    this.server = server.replace(/\/+$/, '');
    this.#token = token;
  }

  /** Every page of a listing (`{ items, next }`), in order. */
  async all<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.call<{ items: T[]; next: string | null }>('GET', path, {
        query: { ...query, limit: '100', cursor },
      });
      items.push(...page.items);
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    return items;
  }

  async call<T>(
    method: string,
    path: string,
    options: {
      query?: Record<string, string | undefined>;
      body?: unknown;
      ifMatch?: string;
    } = {},
  ): Promise<T> {
    const url = new URL(`${this.server}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new CommandFailure(`${this.server}: cannot be reached (${reasonOf(error)})`);
    }
    const text = await response.text();
    if (!response.ok) throw new CommandFailure(`${this.server}: ${refusalOf(response, text)}`);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CommandFailure(`${this.server}: answered ${response.status} with no JSON`);
    }
  }
}

/** The deepest cause of a fetch failure (undici wraps ECONNREFUSED, certificate errors…). */
function reasonOf(error: unknown): string {
  let reason: unknown = error;
  while (reason instanceof Error && reason.cause !== undefined) reason = reason.cause;
  if (reason instanceof Error) {
    const code = (reason as { code?: unknown }).code;
    return typeof code === 'string' && !reason.message.includes(code)
      ? `${code}: ${reason.message}`
      : reason.message;
  }
  return String(reason);
}

/** "403 Forbidden: <detail>" from a problem document, or the status alone. */
function refusalOf(response: Response, text: string): string {
  const status = `${response.status} ${response.statusText}`.trim();
  try {
    const problem = JSON.parse(text) as { detail?: unknown; field?: unknown };
    if (typeof problem.detail === 'string') {
      const field = typeof problem.field === 'string' ? ` (${problem.field})` : '';
      return `${status}: ${problem.detail}${field}`;
    }
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return status;
}
