/**
 * How a Basic LTI launch that failed is answered (the gateway's `lti` rule and the middleware's
 * `lti` option): the person came from the LMS in a browser, so the answer is for a person.
 * When the launch names a `launch_presentation_return_url` (http or https), a 303 redirect
 * back to it with `lti_errormsg` (for the person) and `lti_errorlog` (for the LMS's log), as
 * the LTI 1.1 Implementation Guide describes; otherwise an HTML page that names the
 * `oauth_problem`. A store outage or an unexpected error is answered as on every route.
 */
import { OAuthError } from '../protocol/index.ts';
import { launchReturnUrl } from '../provider/index.ts';
import type { IncomingRequest } from '../provider/index.ts';
import { failureAnswer } from './error-reply.ts';
import type { FailureAnswer } from './error-reply.ts';

export function ltiFailureAnswer(
  error: unknown,
  request: IncomingRequest,
  realm: string,
): FailureAnswer {
  if (!(error instanceof OAuthError)) return failureAnswer(error, realm);
  const returnUrl = launchReturnUrl(request);
  if (returnUrl !== undefined) {
    returnUrl.searchParams.append(
      'lti_errormsg',
      `The tool could not accept this launch (${error.problem}). Please contact the course administrator.`,
    );
    returnUrl.searchParams.append(
      'lti_errorlog',
      `oauth_problem=${error.problem}: ${error.message}`,
    );
    return {
      status: 303,
      headers: { location: returnUrl.toString(), 'cache-control': 'no-store' },
      body: '',
    };
  }
  const headers: Record<string, string> = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors *",
  };
  const challenge = failureAnswer(error, realm).headers['www-authenticate'];
  if (challenge !== undefined) headers['www-authenticate'] = challenge;
  return { status: error.status, headers, body: errorPage(error) };
}

function errorPage(error: OAuthError): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>This launch could not be accepted</title></head>
<body>
<h1>This launch could not be accepted</h1>
<p>The tool could not verify the launch sent by your learning platform. Please go back and try
again, or tell the course administrator.</p>
<p>oauth_problem: <code>${escapeHtml(error.problem)}</code></p>
<p>${escapeHtml(error.message)}</p>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}
