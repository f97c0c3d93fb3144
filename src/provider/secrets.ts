/**
 * Credential material from the CSPRNG (§4.5/§4.6: enough randomness for the whole lifetime).
 * Identifiers carry 128 bits, secrets 256, verifiers 128; all in unreserved characters, so
 * they survive every client's encoding untouched.
 */
import { randomBytes, randomInt } from 'node:crypto';

/** Never starts with `-`, so a command line (`latchkey clients show KEY`) cannot take it for an option. */
export function newIdentifier(): string {
  for (;;) {
    const identifier = randomBytes(16).toString('base64url');
    if (!identifier.startsWith('-')) return identifier;
  }
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function newVerifier(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * A verifier meant for typing on a constrained device (§2.2): 8 characters from an alphabet
 * without look-alikes (no 0/O, 1/I/L, 5/S, 2/Z, U/V), shown as two groups of four. 40 bits
 * is enough because it is single use, short-lived and limited to a few guesses.
 */
const TYPING_ALPHABET = 'ABCDEFGHJKMNPQRTWXY346789';

export function newTypingCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += TYPING_ALPHABET[randomInt(TYPING_ALPHABET.length)];
  return code;
}

/** How a typed code is shown: `ABCD-EFGH`. */
export function groupTypingCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Normalizes what a person typed: case, spaces and dashes do not matter. */
export function normalizeTypingCode(typed: string): string {
  return typed.replace(/[\s-]/g, '').toUpperCase();
}
