// LTI 1.1 end to end on one store: launches signed by an LMS that is not Latchkey (Python
// oauthlib, the ims-lti package) reach an upstream through the gateway and a Fastify app
// through the middleware; replayed and tampered launches are refused; grades are posted with
// oauth_body_hash to an outcomes endpoint that Latchkey protects. sqlite.test.ts and
// postgres-redis.test.ts run it on each backend.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import http from 'node:http';
import { once } from 'node:events';
import express from 'express';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import {
  deleteResult,
  OutcomeError,
  outcomeRequestXml,
  readResult,
  replaceResult,
  signRequest,
} from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import {
  createNodeVerifier,
  latchkeyExpress,
  latchkeyFastify,
} from '../../src/http/middleware/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import type { Client, Store } from '../../src/store/index.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';
import { requirement } from '../support/requirements.ts';
import {
  imsLtiReplaceResult,
  imsLtiSignLaunch,
  locatePython,
  oauthlibSign,
  startGradeBook,
} from './support.ts';
import type { GradeBook, Pairs } from './support.ts';

const python = locatePython();
const pythonSkip = requirement('Python oauthlib', 'problem' in python ? python.problem : undefined);
const pythonCommand = 'command' in python ? python.command : 'python3';

/** The fields a launch carries (Moodle and Canvas send these and more). */
function launchFields(gradeBook: string, extra: Pairs = []): Pairs {
  return [
    ['lti_message_type', 'basic-lti-launch-request'],
    ['lti_version', 'LTI-1p0'],
    ['resource_link_id', 'rl-42'],
    ['resource_link_title', 'Week 3 — Quiz & notes'],
    ['user_id', 'u-1001'],
    ['roles', 'Instructor,urn:lti:role:ims/lis/TeachingAssistant'],
    ['context_id', 'course-7'],
    ['context_title', 'Café 101'],
    ['lis_outcome_service_url', `${gradeBook}/outcomes`],
    ['lis_result_sourcedid', `src-${randomUUID()}`],
    ['custom_chapter', '3'],
    ...extra,
  ];
}

function field(pairs: Pairs, name: string): string {
  return pairs.find(([n]) => n === name)?.[1] ?? '';
}

function post(url: string, body: string, extra: Record<string, string> = {}) {
  const headers = new Headers(extra);
  headers.set('content-type', 'application/x-www-form-urlencoded');
  return fetch(url, { method: 'POST', headers, body, redirect: 'manual' });
}

/** Replaces one field's value in a signed form body, keeping the signature. */
function tamper(body: string, name: string, value: string): string {
  const params = new URLSearchParams(body);
  assert.ok(params.has(name));
  params.set(name, value);
  return params.toString();
}

export function describeLti(backend: string, openStore: () => Promise<Store>): void {
  describe(`LTI 1.1 on ${backend}`, () => {
    let store: Store;
    let provider: Provider;
    let gateway: FastifyInstance;
    let gatewayUrl: string;
    let upstream: EchoUpstream;
    let tool: FastifyInstance;
    let toolUrl: string;
    let expressTool: http.Server;
    let expressUrl: string;
    let nodeTool: http.Server;
    let nodeUrl: string;
    let gradeBook: GradeBook;
    let lms: Client;

    before(async () => {
      store = await openStore();
      provider = createProvider({ store });
      upstream = await startEchoUpstream();
      gateway = await buildApp({
        provider,
        gateway: {
          upstream: upstream.url,
          rules: [
            { path: '/lti/launch', methods: ['POST'], lti: true },
            { path: '/public/*', access: 'public' },
          ],
        },
      });
      await gateway.listen({ host: '127.0.0.1', port: 0 });
      gatewayUrl = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;

      tool = Fastify();
      await tool.register(latchkeyFastify, { provider });
      tool.post('/launch', { config: { lti: true } }, async (request) => ({
        lti: request.lti,
        lms: request.oauth?.client.key,
        form: request.body,
      }));
      toolUrl = await tool.listen({ host: '127.0.0.1', port: 0 });

      const expressApp = express();
      expressApp.post('/launch', latchkeyExpress({ provider, lti: true }), (req, res) => {
        const request = req as typeof req & { lti?: unknown; oauth?: { client: { key: string } } };
        res.json({ lti: request.lti, lms: request.oauth?.client.key, form: req.body });
      });
      expressTool = expressApp.listen(0, '127.0.0.1');
      await once(expressTool, 'listening');
      expressUrl = `http://127.0.0.1:${(expressTool.address() as AddressInfo).port}`;

      const verify = createNodeVerifier({ provider, lti: true });
      nodeTool = http.createServer((request, response) => {
        void verify(request, response).then((verified) => {
          if (verified === undefined) return;
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify({ lti: verified.lti, lms: verified.caller.client.key }));
        });
      });
      nodeTool.listen(0, '127.0.0.1');
      await once(nodeTool, 'listening');
      nodeUrl = `http://127.0.0.1:${(nodeTool.address() as AddressInfo).port}`;

      gradeBook = await startGradeBook(provider);
      // The LMS, registered by the tool's operator: it signs launches with this key and secret,
      // and the tool signs grades with the same pair (LTI 1.1 Basic Outcomes).
      lms = await provider.clients.register({ name: 'Moodle at Example University' });
    });

    after(async () => {
      await gateway.close();
      await tool.close();
      expressTool.close();
      nodeTool.close();
      await gradeBook.close();
      await upstream.close();
      await provider.close();
      await store.close();
    });

    describe('launch through the gateway', () => {
      it(
        'hands an oauthlib-signed launch to the upstream as X-LTI-* headers, the form without oauth_*',
        {
          skip: pythonSkip,
        },
        async () => {
          const fields = launchFields(gradeBook.url);
          const signed = oauthlibSign(pythonCommand, {
            kind: 'launch',
            url: `${gatewayUrl}/lti/launch`,
            key: lms.key,
            secret: lms.secret,
            params: fields,
          });
          assert.match(signed.body, /oauth_callback=about%3Ablank/);
          const before = upstream.received.length;
          const response = await post(signed.url, signed.body, signed.headers);
          assert.equal(response.status, 200, await response.clone().text());
          assert.equal(upstream.received.length, before + 1);
          const received = upstream.received.at(-1)!;
          const h = received.headers;
          const decoded = (name: string) => decodeURIComponent(String(h[name]));
          assert.equal(decoded('x-lti-consumer-key'), lms.key);
          assert.equal(decoded('x-lti-user-id'), 'u-1001');
          assert.equal(decoded('x-lti-roles'), 'Instructor,urn:lti:role:ims/lis/TeachingAssistant');
          assert.equal(decoded('x-lti-context-id'), 'course-7');
          assert.equal(decoded('x-lti-context-title'), 'Café 101');
          assert.equal(decoded('x-lti-resource-link-id'), 'rl-42');
          assert.equal(decoded('x-lti-resource-link-title'), 'Week 3 — Quiz & notes');
          assert.equal(decoded('x-lti-outcome-service-url'), `${gradeBook.url}/outcomes`);
          assert.equal(decoded('x-lti-result-sourcedid'), field(fields, 'lis_result_sourcedid'));
          assert.equal(h['x-oauth-client'], lms.key);
          assert.equal(h['x-oauth-owner'], undefined);
          const form = new URLSearchParams(received.body.toString('utf8'));
          assert.equal(form.get('custom_chapter'), '3');
          assert.equal(form.get('resource_link_id'), 'rl-42');
          assert.deepEqual(
            [...form.keys()].filter((name) => name.startsWith('oauth_')),
            [],
          );
        },
      );

      it('hands a launch signed by the ims-lti package to the upstream', async () => {
        const fields = Object.fromEntries(launchFields(gradeBook.url));
        const body = imsLtiSignLaunch(
          `${gatewayUrl}/lti/launch`,
          lms.key,
          lms.secret,
          fields,
          randomUUID(),
        );
        const response = await post(`${gatewayUrl}/lti/launch`, body);
        assert.equal(response.status, 200, await response.clone().text());
        const h = upstream.received.at(-1)!.headers;
        assert.equal(h['x-lti-resource-link-id'], 'rl-42');
        assert.equal(h['x-lti-consumer-key'], lms.key);
      });

      it(
        'refuses a replayed launch (nonce_used) and sends the person back to the LMS',
        {
          skip: pythonSkip,
        },
        async () => {
          const signed = oauthlibSign(pythonCommand, {
            kind: 'launch',
            url: `${gatewayUrl}/lti/launch`,
            key: lms.key,
            secret: lms.secret,
            params: launchFields(gradeBook.url, [
              ['launch_presentation_return_url', 'https://lms.example/course/7?tab=tools'],
            ]),
          });
          assert.equal((await post(signed.url, signed.body)).status, 200);
          const count = upstream.received.length;
          const replay = await post(signed.url, signed.body);
          assert.equal(replay.status, 303);
          const location = new URL(replay.headers.get('location')!);
          assert.equal(location.origin + location.pathname, 'https://lms.example/course/7');
          assert.equal(location.searchParams.get('tab'), 'tools');
          assert.match(location.searchParams.get('lti_errormsg')!, /nonce_used/);
          assert.match(location.searchParams.get('lti_errorlog')!, /^oauth_problem=nonce_used: /);
          assert.equal(upstream.received.length, count, 'the replay never reached the upstream');
        },
      );

      it(
        'refuses a tampered launch and one re-signed with another secret (signature_invalid), with an error page',
        {
          skip: pythonSkip,
        },
        async () => {
          const signed = oauthlibSign(pythonCommand, {
            kind: 'launch',
            url: `${gatewayUrl}/lti/launch`,
            key: lms.key,
            secret: lms.secret,
            params: launchFields(gradeBook.url),
          });
          const count = upstream.received.length;
          const tampered = await post(signed.url, tamper(signed.body, 'roles', 'Administrator'));
          assert.equal(tampered.status, 401);
          assert.match(tampered.headers.get('content-type')!, /^text\/html/);
          const page = await tampered.text();
          assert.match(page, /This launch could not be accepted/);
          assert.match(page, /signature_invalid/);

          const forged = oauthlibSign(pythonCommand, {
            kind: 'launch',
            url: `${gatewayUrl}/lti/launch`,
            key: lms.key,
            secret: 'a secret the attacker guessed',
            params: launchFields(gradeBook.url, [['roles', 'Administrator']]),
          });
          const resigned = await post(forged.url, forged.body);
          assert.equal(resigned.status, 401);
          assert.match(await resigned.text(), /signature_invalid/);
          assert.equal(upstream.received.length, count);
        },
      );

      it('refuses what is not a Basic LTI launch, with the same problem codes', async () => {
        const sign = (fields: Pairs, key = lms.key) =>
          signRequest({
            method: 'POST',
            url: `${gatewayUrl}/lti/launch`,
            body: new URLSearchParams(fields as [string, string][]),
            client: { key, secret: lms.secret },
            transmission: 'body',
            protocolParameters: { oauth_callback: 'about:blank' },
          });
        const cases: [Pairs, number, RegExp][] = [
          [
            launchFields(gradeBook.url).filter(([n]) => n !== 'resource_link_id'),
            400,
            /parameter_absent[\s\S]*resource_link_id/,
          ],
          [
            launchFields(gradeBook.url).map(([n, v]) =>
              n === 'lti_message_type' ? [n, 'ContentItemSelectionRequest'] : [n, v],
            ),
            400,
            /parameter_rejected[\s\S]*lti_message_type/,
          ],
          [
            launchFields(gradeBook.url).map(([n, v]) =>
              n === 'lti_version' ? [n, 'LTI-2p0'] : [n, v],
            ),
            400,
            /parameter_rejected[\s\S]*lti_version/,
          ],
        ];
        for (const [fields, status, problem] of cases) {
          const signed = sign(fields);
          const response = await post(signed.url, String(signed.body), signed.headers);
          assert.equal(response.status, status);
          assert.match(await response.text(), problem);
        }
        const unknown = sign(launchFields(gradeBook.url), 'not-a-registered-lms');
        const response = await post(unknown.url, String(unknown.body), unknown.headers);
        assert.equal(response.status, 401);
        assert.match(await response.text(), /consumer_key_unknown/);
      });

      it('does not redirect to a return URL that is not http(s)', async () => {
        const body = imsLtiSignLaunch(
          `${gatewayUrl}/lti/launch`,
          lms.key,
          'wrong secret',
          Object.fromEntries(
            launchFields(gradeBook.url, [
              ['launch_presentation_return_url', 'javascript:alert(1)'],
            ]),
          ),
          randomUUID(),
        );
        const response = await post(`${gatewayUrl}/lti/launch`, body);
        assert.equal(response.status, 401);
        assert.equal(response.headers.get('location'), null);
        assert.match(await response.text(), /signature_invalid/);
      });

      it('drops forged X-LTI-* headers, hyphenated or with underscores, on every path', async () => {
        const forged = {
          'X-LTI-Roles': 'Administrator',
          X_LTI_User_Id: 'admin',
          'x_lti-context-id': 'other-course',
        };
        const body = imsLtiSignLaunch(
          `${gatewayUrl}/lti/launch`,
          lms.key,
          lms.secret,
          Object.fromEntries(launchFields(gradeBook.url)),
          randomUUID(),
        );
        assert.equal((await post(`${gatewayUrl}/lti/launch`, body, forged)).status, 200);
        const launched = upstream.received.at(-1)!.headers;
        assert.equal(
          launched['x-lti-roles'],
          encodeURIComponent('Instructor,urn:lti:role:ims/lis/TeachingAssistant'),
        );
        assert.equal(launched['x-lti-user-id'], 'u-1001');
        assert.equal(launched['x-lti-context-id'], 'course-7');
        for (const name of Object.keys(launched)) assert.doesNotMatch(name, /^x_lti/i);

        const open = await fetch(`${gatewayUrl}/public/page`, { headers: forged });
        assert.equal(open.status, 200);
        const headers = upstream.received.at(-1)!.headers;
        assert.deepEqual(
          Object.keys(headers).filter((name) => /^x[-_]lti[-_]/i.test(name)),
          [],
        );
      });
    });

    describe('launch into a Fastify app through the middleware', () => {
      it(
        'sets request.lti for an oauthlib-signed launch; refuses its replay and a tampered copy',
        {
          skip: pythonSkip,
        },
        async () => {
          const fields = launchFields(gradeBook.url);
          const signed = oauthlibSign(pythonCommand, {
            kind: 'launch',
            url: `${toolUrl}/launch`,
            key: lms.key,
            secret: lms.secret,
            params: fields,
          });
          const response = await post(signed.url, signed.body);
          assert.equal(response.status, 200, await response.clone().text());
          const seen = (await response.json()) as { lti: Record<string, unknown>; lms: string };
          assert.deepEqual(seen.lti, {
            consumerKey: lms.key,
            resourceLinkId: 'rl-42',
            resourceLinkTitle: 'Week 3 — Quiz & notes',
            userId: 'u-1001',
            roles: ['Instructor', 'urn:lti:role:ims/lis/TeachingAssistant'],
            contextId: 'course-7',
            contextTitle: 'Café 101',
            outcomeServiceUrl: `${gradeBook.url}/outcomes`,
            resultSourcedId: field(fields, 'lis_result_sourcedid'),
          });
          assert.equal(seen.lms, lms.key);

          const replay = await post(signed.url, signed.body);
          assert.equal(replay.status, 401);
          assert.match(await replay.text(), /nonce_used/);
          const tampered = await post(signed.url, tamper(signed.body, 'user_id', 'u-1'));
          assert.equal(tampered.status, 401);
          assert.match(await tampered.text(), /signature_invalid/);
        },
      );

      it('takes a launch signed by the ims-lti package', async () => {
        const body = imsLtiSignLaunch(
          `${toolUrl}/launch`,
          lms.key,
          lms.secret,
          Object.fromEntries(launchFields(gradeBook.url)),
          randomUUID(),
        );
        const response = await post(`${toolUrl}/launch`, body);
        assert.equal(response.status, 200, await response.clone().text());
        const seen = (await response.json()) as { lti: { userId: string }; form: object };
        assert.equal(seen.lti.userId, 'u-1001');
        assert.equal((seen.form as Record<string, string>)['custom_chapter'], '3');
      });
    });

    describe('launch into Express and node:http (option lti)', () => {
      for (const adapter of ['Express', 'node:http'] as const) {
        it(`${adapter}: takes an ims-lti launch, refuses its replay with a redirect to the LMS`, async () => {
          const url = `${adapter === 'Express' ? expressUrl : nodeUrl}/launch`;
          const body = imsLtiSignLaunch(
            url,
            lms.key,
            lms.secret,
            Object.fromEntries(
              launchFields(gradeBook.url, [
                ['launch_presentation_return_url', 'https://lms.example/return'],
              ]),
            ),
            randomUUID(),
          );
          const response = await post(url, body);
          assert.equal(response.status, 200, await response.clone().text());
          const seen = (await response.json()) as { lti: { roles: string[] }; lms: string };
          assert.deepEqual(seen.lti.roles, [
            'Instructor',
            'urn:lti:role:ims/lis/TeachingAssistant',
          ]);
          assert.equal(seen.lms, lms.key);
          const replay = await post(url, body);
          assert.equal(replay.status, 303);
          const location = new URL(replay.headers.get('location')!);
          assert.match(location.searchParams.get('lti_errorlog')!, /nonce_used/);
          // Tampered: the form (its return URL too) is nobody's word, so no redirect.
          const tampered = await post(url, tamper(body, 'roles', 'Administrator'));
          assert.equal(tampered.status, 401);
          assert.equal(tampered.headers.get('location'), null);
          assert.match(await tampered.text(), /signature_invalid/);
        });
      }
    });

    describe('what a launch may not do: go past its limits, or redirect unsigned', () => {
      const places = () => [
        { name: 'the gateway', url: `${gatewayUrl}/lti/launch` },
        { name: 'the Fastify middleware', url: `${toolUrl}/launch` },
      ];
      const sign = (url: string, client: Client, secret = client.secret, extra: Pairs = []) =>
        imsLtiSignLaunch(
          url,
          client.key,
          secret,
          Object.fromEntries(launchFields(gradeBook.url, extra)),
          randomUUID(),
        );
      const limitedLms = async () => {
        const registered = await provider.clients.register({ name: 'Limited LMS' });
        return provider.clients.update(registered.key, {
          requestsPerMinute: 2,
          failuresPerMinute: 2,
        });
      };
      const assertLimited = async (response: Response) => {
        assert.equal(response.status, 429);
        assert.ok(Number(response.headers.get('retry-after')) >= 1);
        assert.match(await response.text(), /rate_limit_exceeded/);
      };

      it('counts launches against the LMS’s request limit: the 3rd in a minute gets 429', async () => {
        for (const place of places()) {
          const client = await limitedLms();
          const before = upstream.received.length;
          for (let launch = 1; launch <= 2; launch++) {
            const response = await post(place.url, sign(place.url, client));
            assert.equal(response.status, 200, `${place.name}: ${await response.text()}`);
          }
          await assertLimited(await post(place.url, sign(place.url, client)));
          if (place.url.startsWith(gatewayUrl)) {
            assert.equal(upstream.received.length, before + 2, 'the 3rd never reached the tool');
          }
        }
      });

      it('counts bad signatures against the LMS’s failure limit: the 3rd gets 429', async () => {
        for (const place of places()) {
          const client = await limitedLms();
          for (let failure = 1; failure <= 2; failure++) {
            const response = await post(place.url, sign(place.url, client, 'wrong secret'));
            assert.equal(response.status, 401, place.name);
            assert.match(await response.text(), /signature_invalid/);
          }
          await assertLimited(await post(place.url, sign(place.url, client, 'wrong secret')));
          // Over its limit, this address is refused before verification, signed well or not.
          await assertLimited(await post(place.url, sign(place.url, client)));
        }
      });

      it('never redirects an unsigned or forged launch to the return URL it names', async () => {
        const phish: Pairs = [['launch_presentation_return_url', 'https://evil.example/phish']];
        for (const place of places()) {
          const unsigned = await post(
            place.url,
            new URLSearchParams(
              launchFields(gradeBook.url, phish) as [string, string][],
            ).toString(),
          );
          assert.ok([400, 401].includes(unsigned.status), `${place.name}: ${unsigned.status}`);
          assert.equal(unsigned.headers.get('location'), null);
          assert.match(await unsigned.text(), /This launch could not be accepted/);

          const forged = await post(place.url, sign(place.url, lms, 'a guessed secret', phish));
          assert.equal(forged.status, 401, place.name);
          assert.equal(forged.headers.get('location'), null);
          assert.match(await forged.text(), /signature_invalid/);

          // Signed by the LMS and refused after (a replay): back to the LMS's return URL.
          const signed = sign(place.url, lms, lms.secret, [
            ['launch_presentation_return_url', 'https://lms.example/course/7'],
          ]);
          assert.equal((await post(place.url, signed)).status, 200);
          const replay = await post(place.url, signed);
          assert.equal(replay.status, 303, place.name);
          assert.equal(new URL(replay.headers.get('location')!).host, 'lms.example');
        }
      });
    });

    describe('grades (Basic Outcomes) posted with oauth_body_hash, verified by Latchkey', () => {
      const target = () => ({
        serviceUrl: `${gradeBook.url}/outcomes`,
        sourcedId: 'src-outcomes-1',
        client: { key: lms.key, secret: lms.secret },
      });

      it('replaceResult, readResult and deleteResult from the client SDK', async () => {
        const replaced = await replaceResult(target(), 0.92);
        assert.equal(replaced.codeMajor, 'success');
        assert.equal(replaced.operation, 'replaceResult');
        assert.equal(gradeBook.grades.get('src-outcomes-1'), '0.92');
        assert.equal(gradeBook.callers.at(-1), lms.key);
        assert.equal((await readResult(target())).score, 0.92);
        assert.equal((await deleteResult(target())).codeMajor, 'success');
        assert.equal(gradeBook.grades.has('src-outcomes-1'), false);
        assert.equal((await readResult(target())).score, undefined);
      });

      it('a grade posted by the ims-lti package (its own body hash and signature)', async () => {
        const ok = await imsLtiReplaceResult(
          `${gradeBook.url}/outcomes`,
          'src-ims-lti',
          lms.key,
          lms.secret,
          0.5,
        );
        assert.equal(ok, true);
        assert.equal(gradeBook.grades.get('src-ims-lti'), '0.5');
      });

      it('a grade signed by oauthlib (header, oauth_body_hash)', { skip: pythonSkip }, async () => {
        const xml = outcomeRequestXml('replaceResult', 'src-oauthlib', 'm-1', {
          score: 0.75,
          language: 'en',
        });
        const signed = oauthlibSign(pythonCommand, {
          kind: 'outcome',
          url: `${gradeBook.url}/outcomes`,
          key: lms.key,
          secret: lms.secret,
          xml,
        });
        assert.match(signed.headers['Authorization']!, /oauth_body_hash=/);
        const response = await fetch(signed.url, {
          method: 'POST',
          headers: signed.headers,
          body: signed.body,
        });
        assert.equal(response.status, 200, await response.clone().text());
        assert.equal(gradeBook.grades.get('src-oauthlib'), '0.75');
      });

      it('refuses a grade whose body changed after signing, one without a body hash, and a replay', async () => {
        const sign = (xml: string, bodyHash: boolean) =>
          signRequest({
            method: 'POST',
            url: `${gradeBook.url}/outcomes`,
            headers: { 'Content-Type': 'application/xml' },
            body: xml,
            client: { key: lms.key, secret: lms.secret },
            bodyHash,
          });
        const xml = outcomeRequestXml('replaceResult', 'src-tamper', 'm-2', {
          score: 0.1,
          language: 'en',
        });
        const signed = sign(xml, true);
        const send = (body: string, headers = signed.headers) =>
          fetch(signed.url, { method: 'POST', headers, body });

        const changed = await send(xml.replace('0.1', '1'));
        assert.equal(changed.status, 401);
        assert.match(await changed.text(), /oauth_problem=body_hash_invalid/);

        const unhashed = sign(xml, false);
        const missing = await send(xml, unhashed.headers);
        assert.equal(missing.status, 400);
        assert.match(await missing.text(), /oauth_problem=parameter_absent/);
        assert.equal(gradeBook.grades.has('src-tamper'), false);

        assert.equal((await send(xml)).status, 200);
        assert.equal(gradeBook.grades.get('src-tamper'), '0.1');
        const replay = await send(xml);
        assert.equal(replay.status, 401);
        assert.match(await replay.text(), /oauth_problem=nonce_used/);
      });

      it('the client SDK reports a refusal as an OutcomeError with the status', async () => {
        await assert.rejects(
          replaceResult({ ...target(), client: { key: lms.key, secret: 'wrong' } }, 0.3),
          (error: unknown) =>
            error instanceof OutcomeError &&
            error.status === 401 &&
            /signature_invalid/.test(error.message),
        );
      });
    });
  });
}
