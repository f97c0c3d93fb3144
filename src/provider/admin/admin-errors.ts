/**
 * Why the admin API refused a caller before doing anything: no token or an unknown one (401),
 * a role that may not (403), or an address that sent too many wrong tokens (429). The HTTP
 * layer renders them (src/http/admin/problem.ts).
 */
export class AdminRefusal extends Error {
  override readonly name = 'AdminRefusal';
  readonly status: 401 | 403 | 429;
  /** With 429: when the address may try again. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: 401 | 403 | 429, message: string, retryAfterSeconds?: number) {
    super(message);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
