/**
 * The developer portal: a signed-in owner registers apps, sees each app's client key, sees
 * the secret once (at registration and at each rotation), edits what an app registered (name,
 * website, description, callbacks, methods, public key) and deletes apps. Rotating (with its
 * overlap, developer-secret.ts) and deleting each ask for a confirmation first (a page with the
 * form that posts). An app is visible only to the account that registered it.
 */
import { appUsage } from '../usage-chart.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InputError } from '../../provider/index.ts';
import type { Client } from '../../provider/index.ts';
import type { WebContext } from '../context.ts';
import {
  appFormOf,
  blankAppForm,
  formField,
  keyTypeOf,
  publicKeyMethodsOf,
  readAppForm,
  toChanges,
  toRegistration,
} from '../developer-form.ts';
import type { AppFormValues } from '../developer-form.ts';
import { notFoundProblem } from '../error-page.ts';
import { field } from '../form.ts';
import { formatTime, safeLink } from '../format.ts';
import { signedInOrRedirect } from '../guard.ts';
import { runningOverlaps } from '../overlap-choice.ts';
import { secretRoutes } from './developer-secret.ts';
import { csrfRefused, formAgain, html, page, seeOther } from '../../http/route-schemas.ts';

const key = { key: { type: 'string', description: "The app's client key." } };
const signInFirst = seeOther('Not signed in: to the sign-in page.');
const notYours = html('No such app among the signed-in developer’s own.');
const appFields =
  'Form fields `name`, `description`, `website`, `callbacks`, `signature_methods`, `public_key`, `constrained_device` and `_csrf`.';

/** The developer portal's pages: a signed-in owner registers and manages its own apps. */
const schemas = {
  apps: page('Your apps', { 200: html("The signed-in developer's apps."), 303: signInFirst }),
  newForm: page('Register an app: the form', {
    200: html('The registration form.'),
    303: signInFirst,
  }),
  register: page(
    'Register an app',
    {
      200: html('The new key and secret, shown once.'),
      303: signInFirst,
      403: csrfRefused,
      422: formAgain,
    },
    { description: appFields },
  ),
  app: page(
    'An app',
    { 200: html('Its key, callbacks and methods.'), 303: signInFirst, 404: notYours },
    { params: key },
  ),
  editForm: page(
    'Edit an app: the form',
    { 200: html('The edit form.'), 303: signInFirst, 404: notYours },
    { params: key },
  ),
  edit: page(
    'Edit an app',
    {
      303: seeOther('Saved (or not signed in: to the sign-in page).'),
      403: csrfRefused,
      404: notYours,
      422: formAgain,
    },
    { params: key, description: appFields },
  ),
  deleteForm: page(
    'Delete an app: confirm',
    { 200: html('The confirmation.'), 303: signInFirst, 404: notYours },
    { params: key },
  ),
  remove: page(
    'Delete an app',
    {
      303: seeOther('Deleted with every token issued to it: to your apps.'),
      403: csrfRefused,
      404: notYours,
    },
    { params: key },
  ),
};

/** The flow endpoints as a developer's app calls them. */
function endpointsOf(options: WebContext['options'], request: FastifyRequest) {
  const base = options.baseUrlOf(request);
  return {
    requestToken: base + options.paths.requestToken,
    authorize: base + options.paths.authorize,
    accessToken: base + options.paths.accessToken,
  };
}

/** What the developer pages share: the app in the URL, the endpoints, the forms. */
function developerPages(web: WebContext) {
  const { options, render, errors } = web;
  const { provider } = options;
  const registry = provider.policy.signatureMethods;
  const methods = registry.names();
  const keyMethods = publicKeyMethodsOf(methods, registry).map((method) => method.name);

  /** The signed-in developer's own app named in the URL; answers 404 (or sign-in) otherwise. */
  async function ownApp(request: FastifyRequest, reply: FastifyReply): Promise<Client | undefined> {
    const signedIn = signedInOrRedirect(request, reply);
    if (signedIn === undefined) return undefined;
    const key = field(request.params, 'key');
    const client = await provider.clients.findOwnedBy(key, signedIn.owner.id);
    if (client === undefined) {
      await errors.show(request, reply, notFoundProblem);
      return undefined;
    }
    return client;
  }

  const endpoints = (request: FastifyRequest) => endpointsOf(options, request);

  /** The registration form, again with the error when one was made. */
  function formPage(
    request: FastifyRequest,
    reply: FastifyReply,
    values: AppFormValues,
    error?: InputError,
  ) {
    return render(
      request,
      reply,
      'developer-new',
      {
        title: 'Register an app',
        values,
        methods,
        keyMethods,
        error:
          error === undefined ? null : { field: formField(error.field), message: error.message },
      },
      error === undefined ? 200 : 422,
    );
  }

  /** The page that shows a client secret, the one time it is shown. */
  function secretPage(
    request: FastifyRequest,
    reply: FastifyReply,
    client: Client,
    created: boolean,
    previousUntil: string | null = null,
  ) {
    return render(
      request,
      reply,
      'developer-secret',
      {
        title: created ? `${client.name} is registered` : `New secret for ${client.name}`,
        client,
        keyType: keyTypeOf(client, registry),
        created,
        previousUntil,
        endpoints: endpoints(request),
      },
      created ? 201 : 200,
    );
  }

  /** The edit form, again with the error when one was made. */
  function editPage(
    request: FastifyRequest,
    reply: FastifyReply,
    client: Client,
    values: AppFormValues,
    error?: InputError,
  ) {
    return render(
      request,
      reply,
      'developer-edit',
      {
        title: `Edit ${client.name}`,
        client,
        values,
        methods,
        keyMethods,
        error:
          error === undefined ? null : { field: formField(error.field), message: error.message },
      },
      error === undefined ? 200 : 422,
    );
  }

  return { registry, methods, ownApp, endpoints, formPage, secretPage, editPage };
}

export type DeveloperPages = ReturnType<typeof developerPages>;

/** The developer's apps: the list, the registration form, a registration. */
function appListRoutes(fastify: FastifyInstance, web: WebContext, pages: DeveloperPages): void {
  const { options, render } = web;
  const { provider } = options;
  const { registry, formPage, secretPage } = pages;
  const csrf = { preHandler: fastify.csrfProtection };

  fastify.get('/developer', { schema: schemas.apps }, async (request, reply) => {
    const signedIn = signedInOrRedirect(request, reply);
    if (signedIn === undefined) return reply;
    const apps = await provider.clients.list({ developerId: signedIn.owner.id });
    apps.sort((a, b) => b.createdAt - a.createdAt);
    const deleted = field(request.query, 'deleted') === '1';
    return render(request, reply, 'developer-apps', { title: 'Your apps', apps, deleted });
  });

  fastify.get('/developer/apps/new', { schema: schemas.newForm }, async (request, reply) => {
    if (signedInOrRedirect(request, reply) === undefined) return reply;
    return formPage(request, reply, blankAppForm);
  });

  fastify.post('/developer/apps', { ...csrf, schema: schemas.register }, async (request, reply) => {
    const signedIn = signedInOrRedirect(request, reply);
    if (signedIn === undefined) return reply;
    const values = readAppForm(request.body);
    try {
      const client = await provider.clients.register(
        toRegistration(values, signedIn.owner.id, registry),
      );
      return await secretPage(request, reply, client, true);
    } catch (error) {
      if (error instanceof InputError) return formPage(request, reply, values, error);
      throw error;
    }
  });
}

/** One app: its page, its edit form, an edit. */
function appRoutes(fastify: FastifyInstance, web: WebContext, pages: DeveloperPages): void {
  const { options, render } = web;
  const { provider } = options;
  const { registry, methods, ownApp, endpoints, editPage } = pages;
  const csrf = { preHandler: fastify.csrfProtection };

  fastify.get('/developer/apps/:key', { schema: schemas.app }, async (request, reply) => {
    const client = await ownApp(request, reply);
    if (client === undefined) return reply;
    return render(request, reply, 'developer-app', {
      title: client.name,
      client,
      keyType: keyTypeOf(client, registry),
      website: safeLink(client.website),
      created: formatTime(client.createdAt),
      endpoints: endpoints(request),
      methods: client.signatureMethods.length === 0 ? methods : client.signatureMethods,
      serverScopes: Object.keys(provider.policy.scopes),
      updated: field(request.query, 'updated') === '1',
      overlapEnded: field(request.query, 'overlap') === 'ended',
      overlaps: await runningOverlaps(provider, client.key),
      usage: await appUsage(provider, client.key),
    });
  });

  fastify.get('/developer/apps/:key/edit', { schema: schemas.editForm }, async (request, reply) => {
    const client = await ownApp(request, reply);
    if (client === undefined) return reply;
    return editPage(request, reply, client, appFormOf(client));
  });

  fastify.post(
    '/developer/apps/:key',
    { ...csrf, schema: schemas.edit },
    async (request, reply) => {
      const client = await ownApp(request, reply);
      if (client === undefined) return reply;
      const values = readAppForm(request.body);
      try {
        await provider.clients.update(client.key, toChanges(values, registry));
      } catch (error) {
        if (error instanceof InputError) return editPage(request, reply, client, values, error);
        throw error;
      }
      return reply.redirect(`/developer/apps/${encodeURIComponent(client.key)}?updated=1`, 303);
    },
  );
}

/** An app deleted, after a confirmation page. */
function deleteRoutes(fastify: FastifyInstance, web: WebContext, pages: DeveloperPages): void {
  const { options, render } = web;
  const { provider } = options;
  const { ownApp } = pages;
  const csrf = { preHandler: fastify.csrfProtection };

  fastify.get(
    '/developer/apps/:key/delete',
    { schema: schemas.deleteForm },
    async (request, reply) => {
      const client = await ownApp(request, reply);
      if (client === undefined) return reply;
      return render(request, reply, 'developer-delete', {
        title: `Delete ${client.name}?`,
        client,
      });
    },
  );

  fastify.post(
    '/developer/apps/:key/delete',
    { ...csrf, schema: schemas.remove },
    async (request, reply) => {
      const client = await ownApp(request, reply);
      if (client === undefined) return reply;
      await provider.clients.remove(client.key);
      return reply.redirect('/developer?deleted=1', 303);
    },
  );
}

export async function developerRoutes(fastify: FastifyInstance, web: WebContext): Promise<void> {
  const pages = developerPages(web);
  appListRoutes(fastify, web, pages);
  appRoutes(fastify, web, pages);
  secretRoutes(fastify, web, pages);
  deleteRoutes(fastify, web, pages);
}
