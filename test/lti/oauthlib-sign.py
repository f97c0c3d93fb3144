"""Signs one LTI 1.1 request with oauthlib's signature-only client (oauthlib.oauth1.Client),
as an LMS or a tool written in Python would, and prints it; the test sends it.

Reads one JSON object on stdin:
  {"kind": "launch", "url": ..., "key": ..., "secret": ..., "params": [[name, value], ...]}
    a Basic LTI launch: the form signed in the body (two-legged, HMAC-SHA1), with
    oauth_callback=about:blank as LTI 1.1 launches carry it;
  {"kind": "outcome", "url": ..., "key": ..., "secret": ..., "xml": ...}
    a Basic Outcomes POX request: signed in the Authorization header, oauthlib adding
    oauth_body_hash because the body is not form-encoded.
Prints {"url": ..., "headers": {...}, "body": ...} on stdout.
"""
import json
import sys

from oauthlib.oauth1 import SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_TYPE_BODY, Client


def main():
    request = json.loads(sys.stdin.read())
    if request["kind"] == "launch":
        client = Client(
            request["key"],
            client_secret=request["secret"],
            signature_type=SIGNATURE_TYPE_BODY,
            callback_uri="about:blank",
        )
        url, headers, body = client.sign(
            request["url"],
            http_method="POST",
            body=[tuple(pair) for pair in request["params"]],
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
    else:
        client = Client(
            request["key"],
            client_secret=request["secret"],
            signature_type=SIGNATURE_TYPE_AUTH_HEADER,
        )
        url, headers, body = client.sign(
            request["url"],
            http_method="POST",
            body=request["xml"],
            headers={"Content-Type": "application/xml"},
        )
    print(json.dumps({"url": url, "headers": headers, "body": body}))


if __name__ == "__main__":
    main()
