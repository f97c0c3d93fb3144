/** What every group of routes shares: options, the renderer, error pages, sessions, throttling. */
import type { ErrorPages } from './error-page.ts';
import type { ExternalSignIn } from './identity/external.ts';
import type { SignInThrottle } from '../provider/index.ts';
import type { ResolvedWebOptions } from './options.ts';
import type { Render } from './render.ts';
import type { Sessions } from './sessions.ts';
import type { SignInStep } from './sign-in-limit.ts';

export interface WebContext {
  readonly options: ResolvedWebOptions;
  readonly render: Render;
  readonly errors: ErrorPages;
  readonly sessions: Sessions;
  /** The provider's sign-in counters. */
  readonly throttle: SignInThrottle;
  /** Counts a sign-in step against the per-address cap (429 over it), on every sign-in surface. */
  readonly signInStep: SignInStep;
  /** Sign-in at the OpenID Connect provider or the login app; undefined for local accounts. */
  readonly external: ExternalSignIn | undefined;
}
