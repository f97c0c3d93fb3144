/**
 * An operator's or developer's input was not acceptable (registering a client, creating an
 * owner). Distinct from OAuthError, which is about a signed request on the wire.
 */
export class InputError extends Error {
  override readonly name = 'InputError';
  /** The field at fault, as the caller named it (`callback`, `website`, `username`…). */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/** Thrown when the thing to act on does not exist (unknown client key, username, token). */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}
