/**
 * How a Basic LTI launch that failed is answered (the gateway's `lti` rule and the middleware's
 * `lti` option): the person came from the LMS in a browser, so the answer is for a person.
 * When the provider refused the launch after its signature verified the form (a
 * LaunchRefusal, which names the form's http(s) `launch_presentation_return_url`), a 303
 * redirect back to it with `lti_errormsg` (for the person) and `lti_errorlog` (for the LMS's
 * log), as the LTI 1.1 Implementation Guide describes; otherwise an HTML page that names the
 * `oauth_problem` (an unsigned or forged launch names whatever return URL it likes). A store
 * outage or an unexpected error is answered as on every route.
 */
import { OAuthError } from '../../protocol/index.ts';
import { LaunchRefusal } from '../../provider/index.ts';
import { failureAnswer } from '../error-reply.ts';
import type { FailureAnswer } from '../error-reply.ts';

export function ltiFailureAnswer(error: unknown, realm: string): FailureAnswer {
  if (!(error instanceof OAuthError)) return failureAnswer(error, realm);
  if (error instanceof LaunchRefusal) {
    const returnUrl = new URL(error.returnUrl);
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
  const { 'www-authenticate': challenge, 'retry-after': retryAfter } = failureAnswer(
    error,
    realm,
  ).headers;
  if (challenge !== undefined) headers['www-authenticate'] = challenge;
  if (retryAfter !== undefined) headers['retry-after'] = retryAfter;
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
