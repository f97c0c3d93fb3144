/**
 * The cookies Latchkey's pages set, named once: the pages set them, and the gateway never
 * forwards them to the upstream API (they are Latchkey's credentials, not the app's).
 */
const cookieNames = {
  /** The owner's signed-in session. */
  session: 'latchkey_session',
  /** The CSRF secret of the pages' forms. */
  csrf: 'latchkey_csrf',
  /** The browser binding of a sign-in at an identity provider (OIDC, delegated). */
  login: 'latchkey_login',
  /** The operator console's signed-in session (docs/admin.md "Console"). */
  console: 'latchkey_console',
  /** The CSRF secret of the console's forms. */
  consoleCsrf: 'latchkey_console_csrf',
} as const;

/**
 * A cookie's name: with the `__Host-` prefix when the cookies are `Secure`, so the browser
 * refuses one set without Secure, with a Domain or off Path=/.
 */
export function cookieName(cookie: keyof typeof cookieNames, secure: boolean): string {
  return secure ? `__Host-${cookieNames[cookie]}` : cookieNames[cookie];
}

/** Every name Latchkey's cookies may have, with and without the prefix. */
export const latchkeyCookieNames: ReadonlySet<string> = new Set(
  Object.values(cookieNames).flatMap((name) => [name, `__Host-${name}`]),
);
