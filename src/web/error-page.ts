/**
 * The one place an error on a web page becomes a page: what happened and what to do, with
 * the right status, never a stack trace or internal detail.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isOAuthError } from '../protocol/index.ts';
import { LoginRefusedError, NotFoundError } from '../provider/index.ts';
import type { LoginRefusal } from '../provider/index.ts';
import { SealedValueError, StoreUnavailableError } from '../provider/index.ts';
import { logSealedValue, STORE_OUTAGE_RETRY_AFTER_SECONDS } from '../http/error-reply.ts';
import { IdentityProviderError } from './identity/oidc.ts';
import type { IdentityProviderFailure } from './identity/oidc.ts';
import type { Render } from './render.ts';

export interface PageProblem {
  readonly status: number;
  readonly title: string;
  readonly message: string;
  readonly action: string;
}

const startAgain =
  'Go back to the app you came from and connect again; it will send you here with a new request.';

/** The page for an unusable authorization request (§2.2), keyed by the provider's problem. */
function authorizationProblem(problem: string, message: string): PageProblem {
  switch (problem) {
    case 'token_rejected':
      return {
        status: 404,
        title: 'We can’t find this request',
        message: `${message} The link may be incomplete, or the app that asked may have been deleted.`,
        action: startAgain,
      };
    case 'token_expired':
      return {
        status: 410,
        title: 'This request has expired',
        message:
          'Requests to connect an app are valid for a few minutes only, and this one ran out.',
        action: startAgain,
      };
    case 'token_used':
      return {
        status: 410,
        title: 'This request was already answered',
        message:
          'Someone already allowed or denied this request, and each request can be answered once.',
        action: `If you did not answer it, check your connected apps. ${startAgain}`,
      };
    case 'token_revoked':
      return {
        status: 410,
        title: 'This request was denied',
        message: 'This request was denied, so it cannot be used any more.',
        action: startAgain,
      };
    case 'consumer_key_rejected':
      return {
        status: 403,
        title: 'This app can’t connect now',
        message: 'The operator of this server has disabled the app that sent you here.',
        action: 'Nothing was shared with it. Ask the app’s developer, or try again later.',
      };
    case 'permission_denied':
      return {
        status: 403,
        title: 'This app can’t have that access',
        message: `${message} The operator of this server limits what this app may ask for.`,
        action:
          'Nothing was shared. Go back and allow what the page offers, or ask the app’s developer.',
      };
    default:
      return { status: 400, title: 'This request can’t be used', message, action: startAgain };
  }
}

const signInAgain = 'Go back to the app you came from and connect again, or sign in again.';

/** A sign-in handed to the identity provider or the login app that cannot be completed. */
function signInProblem(reason: LoginRefusal): PageProblem {
  switch (reason) {
    case 'expired':
      return {
        status: 410,
        title: 'This sign-in has expired',
        message: 'Signing in must be finished within a few minutes, and this one ran out.',
        action: signInAgain,
      };
    case 'answered':
      return {
        status: 409,
        title: 'This sign-in was already used',
        message:
          'Each sign-in link works once, and this one was already used or refused. Nothing was changed.',
        action: signInAgain,
      };
    case 'other-browser':
      return {
        status: 403,
        title: 'This sign-in was started in another browser',
        message:
          'For your safety a sign-in must be finished in the browser that started it. Nothing was changed.',
        action:
          'Open the app’s link again in this browser, or finish in the browser you started in.',
      };
    default:
      return {
        status: 400,
        title: 'We can’t find this sign-in',
        message:
          'The link does not belong to a sign-in started here: it may be incomplete or made up. Nothing was changed.',
        action: signInAgain,
      };
  }
}

function identityProviderProblem(failure: IdentityProviderFailure): PageProblem {
  if (failure === 'refused') {
    return {
      status: 403,
      title: 'You were not signed in',
      message:
        'The sign-in service did not sign you in (it may have been cancelled). Nothing was shared.',
      action: signInAgain,
    };
  }
  return {
    status: 502,
    title: 'The sign-in service is not answering properly',
    message:
      failure === 'unreachable'
        ? 'We could not reach the service you sign in with, or could not read its answer. Nothing was approved.'
        : 'The answer of the service you sign in with did not pass our checks, so it was not trusted. Nothing was approved.',
    action:
      'Wait a moment and try again. If it keeps happening, tell the people who run this service.',
  };
}

export const csrfProblem: PageProblem = {
  status: 403,
  title: 'This form can’t be accepted',
  message:
    'The form was too old, was sent twice, or did not come from a Latchkey page. Nothing was changed.',
  action:
    'Go back, reload the page and submit the form again. If you did not just submit a form, another site may have tried to act for you: you can ignore it.',
};

export const missingTokenProblem: PageProblem = {
  status: 400,
  title: 'This link is incomplete',
  message:
    'An authorization link must say which request it is for (oauth_token), and this one does not.',
  action: startAgain,
};

export const notFoundProblem: PageProblem = {
  status: 404,
  title: 'Page not found',
  message: 'There is nothing at this address, or it is not yours to see.',
  action: 'Check the address, or start again from the home page.',
};

/** `waitMinutes`: how long the per-address sign-in limit lasts, for the 429 page. */
export function problemFor(error: unknown, waitMinutes = 15): PageProblem {
  if (isOAuthError(error)) return authorizationProblem(error.problem, error.message);
  if (error instanceof NotFoundError) return notFoundProblem;
  if (error instanceof LoginRefusedError) return signInProblem(error.reason);
  if (error instanceof IdentityProviderError) return identityProviderProblem(error.failure);
  if (error instanceof StoreUnavailableError) {
    return {
      status: 503,
      title: 'Latchkey is briefly unavailable',
      message: 'Our storage did not answer. Nothing was changed.',
      action: 'Wait a few seconds and try again.',
    };
  }
  const code = (error as Partial<FastifyError> | undefined)?.code ?? '';
  const status = (error as Partial<FastifyError> | undefined)?.statusCode ?? 500;
  if (code.startsWith('FST_CSRF_')) return csrfProblem;
  if (status === 429) {
    return {
      status: 429,
      title: 'Too many sign-in attempts',
      message:
        'There were too many sign-in attempts from your network. Sign-in is paused for a while to keep accounts safe.',
      action: `Wait ${waitMinutes} minutes, then try again.`,
    };
  }
  if (status >= 400 && status < 500) {
    return {
      status,
      title: 'This request can’t be read',
      message: 'The browser sent something this page does not understand.',
      action: 'Go back and try again.',
    };
  }
  return {
    status: 500,
    title: 'Something went wrong on our side',
    message: 'The page could not be shown. Nothing was changed.',
    action: 'Try again in a moment.',
  };
}

export function createErrorPages(render: Render, waitMinutes: number) {
  return {
    async show(request: FastifyRequest, reply: FastifyReply, problem: PageProblem) {
      return render(request, reply, 'error', { title: problem.title, problem }, problem.status);
    },

    /** setErrorHandler for the web context. */
    async handle(error: unknown, request: FastifyRequest, reply: FastifyReply) {
      const problem = problemFor(error, waitMinutes);
      if (error instanceof IdentityProviderError) {
        // The provider's own fault, not ours: a warning with the cause, for the operator.
        request.log.warn({ err: error, cause: error.cause }, 'identity provider failed');
      } else if (error instanceof SealedValueError) logSealedValue(request.log, error);
      else if (problem.status >= 500) request.log.error({ err: error }, 'web page failed');
      if (problem.status === 503) {
        reply.header('retry-after', String(STORE_OUTAGE_RETRY_AFTER_SECONDS));
      }
      try {
        return await this.show(request, reply, problem);
      } catch {
        // The renderer itself failed (for example the CSRF cookie could not be set): plain text.
        return reply
          .code(problem.status)
          .type('text/plain; charset=utf-8')
          .send(`${problem.title}\n\n${problem.message}\n`);
      }
    },
  };
}

export type ErrorPages = ReturnType<typeof createErrorPages>;
