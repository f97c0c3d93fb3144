<?php
// Interop driver for the PECL OAuth extension: runs the RFC 5849 three-step flow against a
// Latchkey-shaped server, then calls /api/me with the awkward parameters.
//
// Usage: php php-pecl-oauth.php BASE_URL; environment as in test/interop/README.md.
// PECL OAuth signs with HMAC-SHA1, HMAC-SHA256, RSA-SHA1 and PLAINTEXT, and sends the
// protocol parameters in the header (OAUTH_AUTH_TYPE_AUTHORIZATION), the query
// (OAUTH_AUTH_TYPE_URI) or the form body (OAUTH_AUTH_TYPE_FORM).

function emit(array $message): void
{
    echo json_encode($message, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
}

function result(OAuth $oauth): array
{
    $info = $oauth->getLastResponseInfo();
    $text = (string) $oauth->getLastResponse();
    $body = json_decode($text, true);
    return ['status' => (int) $info['http_code'], 'body' => $body === null ? $text : $body];
}

// RFC 3986 encoding of pairs, the ordinary PHP way (rawurlencode keeps "~" since PHP 5.3).
function encode_pairs(array $pairs): string
{
    return implode('&', array_map(fn ($p) => rawurlencode($p[0]) . '=' . rawurlencode($p[1]), $pairs));
}

$base = rtrim($argv[1] ?? '', '/');
$method = getenv('OAUTH_SIGNATURE_METHOD') ?: 'HMAC-SHA1';
$transmission = getenv('OAUTH_TRANSMISSION') ?: 'header';
$params = json_decode(getenv('INTEROP_PARAMS') ?: '{"query":[],"form":[]}', true);
$scope = getenv('INTEROP_SCOPE') ?: '';

try {
    $oauth = new OAuth(
        getenv('OAUTH_CONSUMER_KEY'),
        getenv('OAUTH_CONSUMER_SECRET'),
        [
            'HMAC-SHA1' => OAUTH_SIG_METHOD_HMACSHA1,
            'HMAC-SHA256' => OAUTH_SIG_METHOD_HMACSHA256,
            'RSA-SHA1' => OAUTH_SIG_METHOD_RSASHA1,
            'PLAINTEXT' => OAUTH_SIG_METHOD_PLAINTEXT,
        ][$method],
        [
            'header' => OAUTH_AUTH_TYPE_AUTHORIZATION,
            'query' => OAUTH_AUTH_TYPE_URI,
            'body' => OAUTH_AUTH_TYPE_FORM,
        ][$transmission]
    );
    if ($method === 'RSA-SHA1') {
        $oauth->setRSACertificate(file_get_contents(getenv('OAUTH_RSA_PRIVATE_KEY')));
    }
    if (getenv('OAUTH_TOKEN')) { // token credentials issued before (migrated): no flow
        $token = ['oauth_token' => getenv('OAUTH_TOKEN'), 'oauth_token_secret' => getenv('OAUTH_TOKEN_SECRET')];
    } else {
        // getRequestToken() takes no extra parameters; the query of the URL is signed (§3.4.1.3.1).
        $requestTokenUrl = $base . '/oauth/request_token' . ($scope === '' ? '' : '?scope=' . rawurlencode($scope));
        $temporary = $oauth->getRequestToken($requestTokenUrl, 'oob', OAUTH_HTTP_METHOD_POST);
        if (!is_array($temporary)) {
            throw new Exception('temporary credential request failed: ' . $oauth->getLastResponse());
        }
        emit(['step' => 'temporary', 'token' => $temporary['oauth_token']]);

        $verifier = trim((string) fgets(STDIN));
        $oauth->setToken($temporary['oauth_token'], $temporary['oauth_token_secret']);
        $token = $oauth->getAccessToken($base . '/oauth/access_token', '', $verifier, OAUTH_HTTP_METHOD_POST);
        if (!is_array($token)) {
            throw new Exception('token request failed: ' . $oauth->getLastResponse());
        }
    }
    emit(['step' => 'token', 'token' => $token['oauth_token']]);

    $oauth->setToken($token['oauth_token'], $token['oauth_token_secret']);
    $fetch = function (string $url, $extra, string $httpMethod) use ($oauth) {
        try {
            $oauth->fetch($url, $extra, $httpMethod);
        } catch (OAuthException $e) {
            // a 4xx is data for the harness, not a failure of the driver
        }
        return result($oauth);
    };
    $get = null;
    if ($transmission !== 'body') { // §3.5.2: body transmission needs a form body; GET has none
        $query = encode_pairs($params['query']);
        $get = $fetch($base . '/api/me' . ($query === '' ? '' : '?' . $query), [], OAUTH_HTTP_METHOD_GET);
    }
    // fetch() takes the form as a PHP array, so a repeated name keeps only its last value.
    $form = [];
    foreach ($params['form'] as [$name, $value]) {
        $form[$name] = $value;
    }
    $post = $fetch($base . '/api/me', $form, OAUTH_HTTP_METHOD_POST);
    emit(['step' => 'me', 'get' => $get, 'post' => $post]);
} catch (Throwable $e) {
    $detail = $e instanceof OAuthException ? ' ' . $e->lastResponse : '';
    emit(['step' => 'error', 'message' => get_class($e) . ': ' . $e->getMessage() . $detail]);
    exit(1);
}
