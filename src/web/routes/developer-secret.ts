/**
 * The developer portal's secret rotation: a confirmation page with a choice of overlap (the
 * current secret stays valid beside the new one for 1 hour, 24 hours or 7 days, or stops at
 * once), the rotation, and ending the running overlaps early from the app's page (a leaked
 * previous secret). Only the app's own developer reaches them (others get 404).
 */
import type { FastifyInstance } from 'fastify';
import type { WebContext } from '../context.ts';
import { keyTypeOf } from '../developer-form.ts';
import {
  OVERLAP_CHOICES,
  overlapSecondsOf,
  previousSecretUntil,
  rotationForm,
} from '../overlap-choice.ts';
import { csrfRefused, html, page, seeOther } from '../../http/route-schemas.ts';
import type { DeveloperPages } from './developer.ts';

const key = { key: { type: 'string', description: "The app's client key." } };
const signInFirst = seeOther('Not signed in: to the sign-in page.');
const notYours = html('No such app among the signed-in developer’s own.');

const schemas = {
  secretForm: page(
    'Rotate the client secret: confirm',
    { 200: html('The confirmation, with the choice of overlap.'), 303: signInFirst, 404: notYours },
    { params: key },
  ),
  secret: {
    ...page(
      'New client secret',
      {
        200: html(
          'The new secret, shown once; the old one stops working at once, or when the chosen overlap ends.',
        ),
        303: signInFirst,
        400: html('An overlap that is not one of the choices: nothing changed.'),
        403: csrfRefused,
        404: notYours,
      },
      {
        params: key,
        description: 'Form fields `overlap` (seconds: 0, 3600, 86400 or 604800) and `_csrf`.',
      },
    ),
    ...rotationForm,
  },
  endOverlaps: page(
    'End the overlap of a rotation now',
    {
      303: seeOther('The previous secret and key are refused from now on: back to the app.'),
      403: csrfRefused,
      404: notYours,
    },
    { params: key, description: 'Form field `_csrf`.' },
  ),
};

export function secretRoutes(fastify: FastifyInstance, web: WebContext, pages: DeveloperPages) {
  const { options, render } = web;
  const { provider } = options;
  const { registry, ownApp, secretPage } = pages;
  const csrf = { preHandler: fastify.csrfProtection };
  const appPath = (key: string) => `/developer/apps/${encodeURIComponent(key)}`;

  // A confirmation first, as for Delete; it is also where the overlap is chosen.
  fastify.get(
    '/developer/apps/:key/secret',
    { schema: schemas.secretForm },
    async (request, reply) => {
      const client = await ownApp(request, reply);
      if (client === undefined) return reply;
      return render(request, reply, 'developer-rotate', {
        title:
          client.secret === ''
            ? `Create a secret for ${client.name}?`
            : `Rotate the secret of ${client.name}?`,
        client,
        keyType: keyTypeOf(client, registry),
        overlaps: OVERLAP_CHOICES,
      });
    },
  );

  fastify.post(
    '/developer/apps/:key/secret',
    { ...csrf, schema: schemas.secret },
    async (request, reply) => {
      const client = await ownApp(request, reply);
      if (client === undefined) return reply;
      const overlapSeconds = overlapSecondsOf(request.body);
      const rotated = await provider.clients.rotateSecret(client.key, { overlapSeconds });
      const until = overlapSeconds > 0 ? await previousSecretUntil(provider, client.key) : null;
      return secretPage(request, reply, rotated, false, until);
    },
  );

  fastify.post(
    '/developer/apps/:key/overlaps/end',
    { ...csrf, schema: schemas.endOverlaps },
    async (request, reply) => {
      const client = await ownApp(request, reply);
      if (client === undefined) return reply;
      await provider.clients.endOverlaps(client.key);
      return reply.redirect(`${appPath(client.key)}?overlap=ended`, 303);
    },
  );
}
