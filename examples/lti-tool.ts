// A learning tool (LTI 1.1 tool provider) built on Fastify with Latchkey's middleware: the LMS
// launches it with a signed form POST, the tool shows a quiz and posts the grade back to the
// LMS (Basic Outcomes, signed with oauth_body_hash). Register the LMS first:
//   npx latchkey clients add --name "Moodle at Example University"
// and give its key and secret to the LMS administrator (an "External tool" with this URL:
// http://127.0.0.1:3000/launch). The tool signs grades with the same key and secret: the key
// is the launch's, the secret is read from LTI_SECRET.
// Run: LTI_SECRET=… npx node --conditions=source examples/lti-tool.ts
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { createProvider, latchkeyFastify, openStore, replaceResult } from 'latchkey';
import type { LtiLaunch } from 'latchkey';

const store = await openStore(process.env.LATCHKEY_DATABASE ?? './data/latchkey.db');
const provider = createProvider({ store });
const app = Fastify({ logger: true });
await app.register(latchkeyFastify, { provider });

/** Launches by a random id the quiz page carries (a real tool keeps them in its session store). */
const launches = new Map<string, LtiLaunch>();

// The launch: verified (signature, timestamp window, nonce, the LMS registered and enabled)
// before this handler runs; a failed launch goes back to the LMS with lti_errormsg.
app.post('/launch', { config: { lti: true } }, async (request, reply) => {
  const launch = request.lti!;
  const id = randomUUID();
  launches.set(id, launch);
  const title = escapeHtml(launch.resourceLinkTitle ?? 'Quiz');
  const course = escapeHtml(launch.contextTitle ?? '');
  const grading = launch.outcomeServiceUrl !== undefined && launch.resultSourcedId !== undefined;
  return reply.type('text/html').send(`<!doctype html>
<title>${title}</title>
<h1>${title}</h1><p>${course} · roles: ${escapeHtml(launch.roles.join(', '))}</p>
<form method="post" action="/answer">
  <input type="hidden" name="launch" value="${id}">
  <label>2 + 2 = <input name="answer"></label> <button>Submit</button>
</form>
${grading ? '' : '<p>This placement is not graded.</p>'}`);
});

// The answer: a form of the tool's own page, not signed by anyone, so not verified.
app.post('/answer', { config: { oauth: false } }, async (request, reply) => {
  const form = request.body as { launch?: string; answer?: string };
  const launch = launches.get(form.launch ?? '');
  if (launch === undefined) return reply.code(404).send('Launch again from the course.');
  const score = form.answer?.trim() === '4' ? 1 : 0;
  if (launch.outcomeServiceUrl !== undefined && launch.resultSourcedId !== undefined) {
    await replaceResult(
      {
        serviceUrl: launch.outcomeServiceUrl,
        sourcedId: launch.resultSourcedId,
        client: { key: launch.consumerKey, secret: process.env.LTI_SECRET ?? '' },
      },
      score,
    );
  }
  return { score };
});

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

app.addHook('onClose', () => store.close());
await app.listen({ host: '127.0.0.1', port: 3000 });
