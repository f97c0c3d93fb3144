#!/usr/bin/env python3
"""Regenerates test/vectors/rfc5849.json with an implementation independent of Latchkey.

Percent-encoding, parameter collection and the base string are computed here with Python's
standard library; HMAC with Python's hmac and again with `openssl dgst -hmac`; RSA with
`openssl dgst -sign` and checked with `openssl dgst -verify`. Where RFC 5849 or OAuth Core 1.0
print a value, the computed value is asserted equal to the printed one before it is written.

    python3 test/vectors/generate.py && npx prettier --write test/vectors/rfc5849.json

RSA PKCS#1 v1.5 signatures are deterministic, so rerunning gives the same file for the same key
(test/fixtures/rsa-private.pem, made once with `openssl genpkey -algorithm RSA
-pkeyopt rsa_keygen_bits:2048`).
"""
import base64
import hashlib
import hmac
import json
import re
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlsplit

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / 'fixtures'
PRIVATE_KEY = FIXTURES / 'rsa-private.pem'
PUBLIC_KEY = FIXTURES / 'rsa-public.pem'


def enc(text):
    """§3.6: UTF-8, then everything but ALPHA / DIGIT / - . _ ~ as %XX (uppercase)."""
    return quote(text.encode('utf-8'), safe='~')


def base_string_uri(scheme, host, path):
    """§3.4.1.2, written from the RFC text."""
    scheme = scheme.lower()
    host = host.lower()
    if ':' in host:
        name, port = host.rsplit(':', 1)
        if (scheme, port) in (('http', '80'), ('https', '443')):
            host = name
    return f'{scheme}://{host}{path.split("?")[0] or "/"}'


def form_pairs(text):
    """§3.4.1.3.1: form-urlencoded, '+' is a space, empty values kept."""
    return parse_qsl(text, keep_blank_values=True, strict_parsing=False, errors='strict')


def header_pairs(header):
    """§3.5.1, just enough for the RFC's own headers: name="value" pairs, realm dropped."""
    pairs = re.findall(r'([A-Za-z0-9_]+)="([^"]*)"', header)
    return [(unquote(n), unquote(v)) for n, v in pairs if n != 'realm']


def normalize(pairs):
    """§3.4.1.3.2: encode, sort by name then value (byte order), join."""
    encoded = sorted((enc(n), enc(v)) for n, v in pairs)
    return '&'.join(f'{n}={v}' for n, v in encoded)


def base_string(method, uri, pairs):
    """§3.4.1.1."""
    return f'{enc(method.upper())}&{enc(uri)}&{enc(normalize(pairs))}'


def shared_key(client_secret, token_secret):
    return f'{enc(client_secret)}&{enc(token_secret)}'


def hmac_b64(digest, key, text):
    ours = base64.b64encode(hmac.new(key.encode(), text.encode(), digest).digest()).decode()
    raw = subprocess.run(
        ['openssl', 'dgst', f'-{digest}', '-hmac', key, '-binary'],
        input=text.encode(), capture_output=True, check=True,
    ).stdout
    assert base64.b64encode(raw).decode() == ours, 'python hmac and openssl disagree'
    return ours


def rsa_b64(digest, text):
    signature = subprocess.run(
        ['openssl', 'dgst', f'-{digest}', '-sign', str(PRIVATE_KEY), '-binary'],
        input=text.encode(), capture_output=True, check=True,
    ).stdout
    with tempfile.NamedTemporaryFile() as sig:
        sig.write(signature)
        sig.flush()
        subprocess.run(
            ['openssl', 'dgst', f'-{digest}', '-verify', str(PUBLIC_KEY), '-signature', sig.name],
            input=text.encode(), capture_output=True, check=True,
        )
    return base64.b64encode(signature).decode()


def sign_request(req):
    """Collects the request's parameters the way a server does and signs them."""
    url = urlsplit(req['url'])
    pairs = form_pairs(url.query) + header_pairs(req['authorization'])
    bs = base_string(req['method'], base_string_uri(url.scheme, url.netloc, url.path), pairs)
    key = shared_key(req['clientSecret'], req['tokenSecret'])
    return bs, hmac_b64('sha1', key, bs)


def header(realm, params):
    return f'OAuth realm="{realm}", ' + ', '.join(f'{n}="{enc(v)}"' for n, v in params)


# RFC 5849 §1.2: the photos.example.net walkthrough, values as printed there.
CLIENT = {'key': 'dpf43f3p2l4k3l03', 'secret': 'kd94hf93k423kf44'}
TEMPORARY = {'token': 'hh5s93j4hdidpola', 'secret': 'hdhd0244k9j7ao03'}
VERIFIER = 'hfdp7dh39dks9884'
TOKEN = {'token': 'nnch734d00sl2jdk', 'secret': 'pfkkdhi9sl3r4s00'}


def walkthrough_request(title, method, url, token, params, printed_signature, note=None):
    protocol = [('oauth_consumer_key', CLIENT['key'])]
    if token is not None:
        protocol.append(('oauth_token', token['token']))
    protocol += params
    req = {
        'title': title,
        'method': method,
        'url': url,
        'clientSecret': CLIENT['secret'],
        'tokenSecret': '' if token is None else token['secret'],
        'protocolParameters': protocol,
    }
    req['authorization'] = header('Photos', protocol)
    bs, signature = sign_request(req)
    assert signature == printed_signature, (title, signature, printed_signature)
    req['baseString'] = bs
    req['signature'] = signature
    if note:
        req['note'] = note
    return req


walkthrough = {
    'title': 'RFC 5849 §1.2 Example (photos.example.net, printer.example.com)',
    'source': 'RFC 5849 §1.2; every signature below equals the one printed in the RFC.',
    'credentials': {
        'client': CLIENT,
        'temporary': TEMPORARY,
        'verifier': VERIFIER,
        'token': TOKEN,
    },
    'temporaryCredentialsResponse': 'oauth_token=hh5s93j4hdidpola&oauth_token_secret=hdhd0244k9j7ao03&oauth_callback_confirmed=true',
    'authorizationEndpoint': 'https://photos.example.net/authorize',
    'authorizationUrl': 'https://photos.example.net/authorize?oauth_token=hh5s93j4hdidpola',
    'callbackUrl': 'http://printer.example.com/ready?oauth_token=hh5s93j4hdidpola&oauth_verifier=hfdp7dh39dks9884',
    'tokenCredentialsResponse': 'oauth_token=nnch734d00sl2jdk&oauth_token_secret=pfkkdhi9sl3r4s00',
    'requests': [
        walkthrough_request(
            'RFC 5849 §1.2 temporary credential request', 'POST',
            'https://photos.example.net/initiate', None,
            [('oauth_signature_method', 'HMAC-SHA1'), ('oauth_timestamp', '137131200'),
             ('oauth_nonce', 'wIjqoS'), ('oauth_callback', 'http://printer.example.com/ready')],
            '74KNZJeDHnMBp0EMJ9ZHt/XKycU='),
        walkthrough_request(
            'RFC 5849 §1.2 token request', 'POST', 'https://photos.example.net/token', TEMPORARY,
            [('oauth_signature_method', 'HMAC-SHA1'), ('oauth_timestamp', '137131201'),
             ('oauth_nonce', 'walatlh'), ('oauth_verifier', VERIFIER)],
            'gKgrFCywp7rO0OXSjdot/IHF7IU='),
        walkthrough_request(
            'RFC 5849 §1.2 protected resource request', 'GET',
            'http://photos.example.net/photos?file=vacation.jpg&size=original', TOKEN,
            [('oauth_signature_method', 'HMAC-SHA1'), ('oauth_timestamp', '137131202'),
             ('oauth_nonce', 'chapoH')],
            'MdpQcU8iPSUjWoN/UDMsK2sui9I=',
            'The RFC prints this base string with oauth_nonce "chapoh"; the header and the printed '
            'signature use "chapoH", which is what is signed here.'),
    ],
}

# OAuth Core 1.0 / 1.0a Appendix A.5: the same walkthrough with oauth_version=1.0.
appendix = walkthrough_request(
    'OAuth Core 1.0a Appendix A.5.1-A.5.2 protected resource request (same credentials as §1.2)',
    'GET', 'http://photos.example.net/photos?file=vacation.jpg&size=original', TOKEN,
    [('oauth_signature_method', 'HMAC-SHA1'), ('oauth_timestamp', '1191242096'),
     ('oauth_nonce', 'kllo9940pd9333jh'), ('oauth_version', '1.0')],
    'tR3+Ty81lMeYAr/Fid0kMTYa/WM=',
    'Predecessor of RFC 5849 §1.2. The printed signature holds only with oauth_version=1.0 signed.')
appendix['source'] = 'OAuth Core 1.0a Appendix A.5; the signature equals the printed one.'
PRINTED_APPENDIX_BASE = (
    'GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3D'
    'dpf43f3p2l4k3l03%26oauth_nonce%3Dkllo9940pd9333jh%26oauth_signature_method%3DHMAC-SHA1%26'
    'oauth_timestamp%3D1191242096%26oauth_token%3Dnnch734d00sl2jdk%26oauth_version%3D1.0%26'
    'size%3Doriginal')
assert appendix['baseString'] == PRINTED_APPENDIX_BASE

# RFC 5849 §3.4.1.1 / §3.4.1.3.1 / §3.4.1.3.2: the example.com request.
EXAMPLE_AUTH = ('OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", '
                'oauth_token="kkk9d7dh3k39sjv7", oauth_signature_method="HMAC-SHA1", '
                'oauth_timestamp="137131201", oauth_nonce="7d8f3e4a", '
                'oauth_signature="djosJKDKJSD8743243%2Fjdk33klY%3D"')
example_url = 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b'
example_body = 'c2&a3=2+q'
example_pairs = (form_pairs(urlsplit(example_url).query)
                 + [p for p in header_pairs(EXAMPLE_AUTH) if p[0] != 'oauth_signature']
                 + form_pairs(example_body))
example_uri = base_string_uri('http', 'example.com', '/request')
example = {
    'title': 'RFC 5849 §3.4.1 signature base string example (§3.4.1.1, §3.4.1.3.1, §3.4.1.3.2)',
    'source': 'RFC 5849 §3.4.1.1 and §3.4.1.3; computed here and equal to the strings printed there.',
    'request': {
        'method': 'POST',
        'url': example_url,
        'scheme': 'http',
        'host': 'example.com',
        'path': '/request',
        'query': urlsplit(example_url).query,
        'contentType': 'application/x-www-form-urlencoded',
        'body': example_body,
        'authorization': EXAMPLE_AUTH,
    },
    'realm': 'Example',
    'parameters': example_pairs,
    'baseStringUri': example_uri,
    'normalizedParameters': normalize(example_pairs),
    'baseString': base_string('POST', example_uri, example_pairs),
}
assert example['normalizedParameters'] == (
    'a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9djdj82h48djs9d2'
    '&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1&oauth_timestamp=137131201'
    '&oauth_token=kkk9d7dh3k39sjv7')
assert example['baseString'] == (
    'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D'
    '%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D'
    '7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token'
    '%3Dkkk9d7dh3k39sjv7')


def uri_case(uri, scheme, host, path, printed):
    assert base_string_uri(scheme, host, path) == printed
    return {'uri': uri, 'scheme': scheme, 'host': host, 'path': path, 'baseStringUri': printed}


base_string_uris = {
    'title': 'RFC 5849 §3.4.1.2 base string URI examples',
    'source': 'RFC 5849 §3.4.1.2 (the two requests printed there, written as URIs).',
    'cases': [
        uri_case('HTTP://EXAMPLE.COM:80/r%20v/X?id=123', 'HTTP', 'EXAMPLE.COM:80',
                 '/r%20v/X?id=123', 'http://example.com/r%20v/X'),
        uri_case('https://www.example.net:8080/?q=1', 'https', 'www.example.net:8080', '/?q=1',
                 'https://www.example.net:8080/'),
    ],
}

# Percent-encoding and normalization cases: the OAuth wiki "TestCases" page, recomputed here.
ENCODING = ['abcABC123', '-._~', '%', '+', '&=*', '\n', ' ', '\x7f', '\u0080', '\u3001',
            "!'()", '\U0001F600']
percent_encoding = {
    'title': 'RFC 5849 §3.6 percent encoding',
    'source': 'Cases from the OAuth wiki TestCases page plus !\'() and a 4-octet character; '
              'encoded with Python urllib.parse.quote(safe="~") over UTF-8.',
    'cases': [{'text': t, 'encoded': enc(t)} for t in ENCODING],
}
NORMALIZATION = [
    [('name', '')],
    [('a', 'b')],
    [('a', 'b'), ('c', 'd')],
    [('a', 'x!y'), ('a', 'x y')],
    [('x!y', 'a'), ('x', 'a')],
]
normalization = {
    'title': 'RFC 5849 §3.4.1.3.2 parameter normalization',
    'source': 'Cases from the OAuth wiki TestCases page, normalized here.',
    'cases': [{'parameters': c, 'normalized': normalize(c)} for c in NORMALIZATION],
}

# One base string signed by every method: the Appendix A.5 request.
methods_base = appendix['baseString']
methods_key = shared_key(CLIENT['secret'], TOKEN['secret'])
signature_methods = {
    'title': 'RFC 5849 §3.4.2 HMAC-SHA1, §3.4.3 RSA-SHA1, §3.4.4 PLAINTEXT, and SHA-256/512 variants',
    'source': 'HMAC: Python hmac, cross-checked with openssl dgst -hmac. RSA: openssl dgst -sign '
              'with test/fixtures/rsa-private.pem, checked with openssl dgst -verify and '
              'test/fixtures/rsa-public.pem. PLAINTEXT: RFC 5849 §3.4.4 by hand.',
    'baseString': methods_base,
    'clientSecret': CLIENT['secret'],
    'tokenSecret': TOKEN['secret'],
    'signatures': {
        'HMAC-SHA1': hmac_b64('sha1', methods_key, methods_base),
        'HMAC-SHA256': hmac_b64('sha256', methods_key, methods_base),
        'HMAC-SHA512': hmac_b64('sha512', methods_key, methods_base),
        'RSA-SHA1': rsa_b64('sha1', methods_base),
        'RSA-SHA256': rsa_b64('sha256', methods_base),
        'RSA-SHA512': rsa_b64('sha512', methods_base),
    },
    'plaintext': [
        {'clientSecret': CLIENT['secret'], 'tokenSecret': TOKEN['secret'],
         'signature': shared_key(CLIENT['secret'], TOKEN['secret'])},
        {'clientSecret': CLIENT['secret'], 'tokenSecret': '',
         'signature': shared_key(CLIENT['secret'], '')},
        {'clientSecret': 'a b&c', 'tokenSecret': '~%',
         'signature': shared_key('a b&c', '~%')},
    ],
}
assert signature_methods['signatures']['HMAC-SHA1'] == 'tR3+Ty81lMeYAr/Fid0kMTYa/WM='
assert signature_methods['plaintext'][0]['signature'] == 'kd94hf93k423kf44&pfkkdhi9sl3r4s00'
assert signature_methods['plaintext'][1]['signature'] == 'kd94hf93k423kf44&'

document = {
    'title': 'RFC 5849 examples as test vectors',
    'generatedBy': 'test/vectors/generate.py (independent of Latchkey: Python stdlib and openssl)',
    'percentEncoding': percent_encoding,
    'baseStringUri': base_string_uris,
    'baseStringExample': example,
    'normalization': normalization,
    'walkthrough': walkthrough,
    'appendixA': appendix,
    'signatureMethods': signature_methods,
}
text = json.dumps(document, indent=2, ensure_ascii=False)
# Invisible control characters are written as escapes so the file stays readable.
text = re.sub('[\x7f-\x9f]', lambda m: f'\\u{ord(m.group()):04x}', text)
(HERE / 'rfc5849.json').write_text(text + '\n')
print('wrote', HERE / 'rfc5849.json')
