/**
 * §2.2 resource owner authorization: the page the client sends the owner to. The owner signs
 * in, reads who asks and for what, and allows (verifier to the callback, or shown for `oob`)
 * or denies (`oauth_problem=user_refused`, or a page for `oob`).
 *
 * "Sign in with" (docs/identity.md): `/oauth/authenticate` takes the same request and sends
 * an owner whose live grant covers it straight back; `force_login=true` signs the owner in
 * again, `screen_name` names who is expected. A client that remembers consent is not asked
 * again on either page within the scope the owner allowed.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRegisteredCallback } from '../../provider/index.ts';
import type { Approval, AuthorizationRequest } from '../../provider/index.ts';
import type { WebContext } from '../context.ts';
import { missingTokenProblem } from '../error-page.ts';
import { field, fields } from '../form.ts';
import { lifetimeChoices, parseLifetime, safeLink } from '../format.ts';
import { csrfRefused, html, page, seeOther } from '../../http/route-schemas.ts';

const badFormProblem = {
  status: 400,
  title: 'This answer can’t be read',
  message:
    'The form did not say whether to allow or deny, or asked for a lifetime this page does not offer. Nothing was changed.',
  action: 'Go back, reload the page and choose again.',
};

/**
 * The answer to the consent form redirects to the callback, and CSP `form-action` governs
 * that redirect. http and https are allowed app-wide; a custom scheme the client registered
 * (`myapp:`) is added to this page's policy only.
 */
function allowCallbackScheme(reply: FastifyReply, callback: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(callback)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'http' || scheme === 'https') return;
  const policy = reply.getHeader('content-security-policy');
  if (typeof policy !== 'string') return;
  reply.header(
    'content-security-policy',
    policy.replace(/form-action ([^;]*)/, `form-action $1 ${scheme}:`),
  );
}

const consentSchema = page(
  'Authorization page (RFC 5849 §2.2)',
  {
    200: html(
      'Signed in: the consent page (who asks, for what scope and how long; Allow or Deny). Signed out: the sign-in form.',
    ),
    303: seeOther('To the identity provider or the login app (owners from another source).'),
    400: html('No oauth_token: a page that says so.'),
    403: html('The app that asked was disabled by the operator.'),
    404: html('An unknown oauth_token (or its app was deleted).'),
    410: html('The request expired, or was answered already (allowed or denied).'),
    429: html('Signed out, with an identity source: too many sign-ins from this address.'),
  },
  {
    description: 'The client sends the owner here with `?oauth_token=` (the temporary credential).',
  },
);
const authenticateSchema = page(
  '"Sign in with" (authorization without asking again)',
  {
    200: html(
      'Signed in without a covering grant: the consent page; oob with one: the verifier. Signed out, or with force_login and a sign-in from before the request: the sign-in form.',
    ),
    303: seeOther(
      "A live grant covers the request: to the client's callback with oauth_token and oauth_verifier. Or to the identity provider or the login app.",
    ),
    400: html('No oauth_token: a page that says so.'),
    403: html('The app that asked was disabled by the operator.'),
    404: html('An unknown oauth_token (or its app was deleted).'),
    410: html('The request expired, or was answered already (allowed or denied).'),
    429: html('Signed out, with an identity source: too many sign-ins from this address.'),
  },
  {
    description:
      'The parameters of the authorization page, and `force_login=true` (sign in again) and `screen_name` (who is expected to sign in).',
  },
);
/** The longest `screen_name` passed on: an account name, not a document. */
const MAX_SCREEN_NAME = 100;

const decisionSchema = page(
  "The owner's decision",
  {
    200: html('oob: the verifier to give the app (or the page saying access was denied).'),
    303: seeOther(
      "To the client's callback with oauth_token and oauth_verifier (or oauth_problem=user_refused).",
    ),
    400: html('A form that cannot be read, or an answer the page did not offer.'),
    403: csrfRefused,
    404: html('An unknown oauth_token (or its app was deleted).'),
    410: html('The request expired, or was answered already (allowed or denied).'),
  },
  {
    description:
      'Form fields `oauth_token`, `decision` (`allow` or `deny`), `lifetime`, `scope` (repeatable) and `_csrf`.',
  },
);

/** Whole minutes, at least one, until the request expires (the page says so). */
function minutesLeft(asked: AuthorizationRequest, now: number): number {
  return Math.max(1, Math.ceil((asked.temporaryCredential.expiresAt - now) / 60000));
}

/**
 * Where Allow and Deny both send the owner, as the page names it: the callback's host (or
 * its scheme, for an app's own `myapp:` callback), and whether the app registered it.
 * Null for `oob`, where the page shows a code instead.
 */
function callbackShown(asked: AuthorizationRequest) {
  const callback = asked.temporaryCredential.callback;
  if (callback === 'oob') return null;
  const url = new URL(callback);
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  return {
    place: web ? url.host : url.protocol,
    registered: isRegisteredCallback(callback, asked.client),
  };
}

/** The consent page: who asks, for what scope and how long. */
function consentPage(
  web: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  asked: AuthorizationRequest,
) {
  const { render, options } = web;
  const { client } = asked;
  allowCallbackScheme(reply, asked.temporaryCredential.callback);
  return render(request, reply, 'consent', {
    title: `Allow ${client.name}?`,
    client,
    website: safeLink(client.website),
    scope: asked.scope,
    lifetimes: lifetimeChoices(asked.defaultLifetime),
    token: asked.temporaryCredential.token,
    callback: callbackShown(asked),
    minutesLeft: minutesLeft(asked, options.provider.now()),
    remembers: client.rememberConsent === 'same-scope',
  });
}

/** The approval sent on: to the callback, or (oob, §2.2) the verifier on a page. */
function sendApproval(
  web: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  asked: AuthorizationRequest,
  approval: Approval,
) {
  const { render, options } = web;
  if (approval.redirect !== undefined) return reply.redirect(approval.redirect, 303);
  return render(request, reply, 'verifier', {
    title: `Your code for ${asked.client.name}`,
    client: asked.client,
    verifier: approval.displayVerifier,
    typing: asked.client.constrainedDevice,
    minutesLeft: minutesLeft(asked, options.provider.now()),
  });
}

export async function authorizeRoutes(fastify: FastifyInstance, web: WebContext): Promise<void> {
  const { options, render, errors } = web;
  const { provider } = options;
  const path = options.paths.authorize;

  /**
   * Both pages: the request checked, the owner signed in (again, with `force_login`), then
   * approved at once when consent stands, or asked. `authenticate` also accepts a live grant.
   */
  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    authenticate: boolean,
  ): Promise<FastifyReply> {
    const token = field(request.query, 'oauth_token');
    if (token === '') return errors.show(request, reply, missingTokenProblem);
    // Check the request first: a dead link gets its clear page before any sign-in.
    const asked = await provider.authorization.describe(token);
    const forceLogin = authenticate && field(request.query, 'force_login') === 'true';
    const screenName = authenticate
      ? field(request.query, 'screen_name').trim().slice(0, MAX_SCREEN_NAME)
      : '';
    const back = new URLSearchParams({ oauth_token: token });
    if (forceLogin) back.set('force_login', 'true');
    if (screenName !== '') back.set('screen_name', screenName);
    const next = `${authenticate ? options.paths.authenticate : path}?${back.toString()}`;
    const signedIn = request.signedIn;
    // force_login: only a sign-in made after the client asked counts (a session from before,
    // however live, is signed in again); the return here then finds it fresh.
    const fresh =
      signedIn !== null && (!forceLogin || signedIn.since >= asked.temporaryCredential.createdAt);
    if (!fresh) {
      const hint = { forceLogin, loginHint: screenName === '' ? undefined : screenName };
      // An external source: straight to the identity provider or the login app, and back here.
      if (web.external !== undefined)
        return web.external.start(request, reply, { next, oauthToken: token, hint });
      return render(request, reply, 'sign-in', {
        title: 'Sign in',
        next,
        client: asked.client,
        username: screenName !== '' ? screenName : (signedIn?.owner.username ?? ''),
        error: null,
        notice: null,
      });
    }
    const standing = await provider.authorization.approveStanding(asked, signedIn.owner.id, {
      liveGrant: authenticate,
    });
    if (standing !== undefined) return sendApproval(web, request, reply, asked, standing);
    return consentPage(web, request, reply, asked);
  }

  fastify.get(path, { schema: consentSchema }, (request, reply) => answer(request, reply, false));
  fastify.get(options.paths.authenticate, { schema: authenticateSchema }, (request, reply) =>
    answer(request, reply, true),
  );

  fastify.post(
    path,
    { preHandler: fastify.csrfProtection, schema: decisionSchema },
    async (request, reply) => {
      const token = field(request.body, 'oauth_token');
      if (token === '') return errors.show(request, reply, missingTokenProblem);
      const signedIn = request.signedIn;
      if (signedIn === null) {
        const back = `${path}?oauth_token=${encodeURIComponent(token)}`;
        return reply.redirect(`/signin?next=${encodeURIComponent(back)}`, 303);
      }
      const decision = field(request.body, 'decision');
      if (decision === 'deny') {
        const denied = await provider.authorization.deny(token, signedIn.owner.id);
        if (denied.redirect !== undefined) return reply.redirect(denied.redirect, 303);
        return render(request, reply, 'denied', { title: 'Access denied', client: denied.client });
      }
      if (decision !== 'allow') return errors.show(request, reply, badFormProblem);
      const asked = await provider.authorization.describe(token);
      const lifetime = parseLifetime(field(request.body, 'lifetime'), asked.defaultLifetime);
      if (lifetime === null) return errors.show(request, reply, badFormProblem);
      // The owner may untick requested scopes (never add one: the provider narrows, §2.2).
      // Without the marker the form offered no choice, and the requested scope stands.
      const scope =
        field(request.body, 'scope_offered') === '1'
          ? fields(request.body, 'scope').join(' ')
          : undefined;
      // The request as just described: approving does not read it again.
      const approval = await provider.authorization.approve(asked, signedIn.owner.id, {
        lifetime,
        scope,
      });
      // oob (§2.2): the page shows the verifier and tells the owner to give it to the app.
      return sendApproval(web, request, reply, asked, approval);
    },
  );
}
