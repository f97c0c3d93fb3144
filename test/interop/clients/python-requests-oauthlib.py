"""Interop driver for requests-oauthlib (on oauthlib): runs the RFC 5849 three-step flow
against a Latchkey-shaped server, then calls /api/me with the awkward parameters.

Usage: python3 python-requests-oauthlib.py BASE_URL; environment: OAUTH_CONSUMER_KEY,
OAUTH_CONSUMER_SECRET, OAUTH_SIGNATURE_METHOD (HMAC-SHA1, HMAC-SHA256, HMAC-SHA512,
RSA-SHA1, RSA-SHA256, RSA-SHA512, PLAINTEXT), OAUTH_RSA_PRIVATE_KEY (PEM file),
OAUTH_TRANSMISSION (header, body, query), INTEROP_PARAMS ({"query": [[n, v]...],
"form": [[n, v]...]}), INTEROP_SCOPE, OAUTH_TOKEN and OAUTH_TOKEN_SECRET (token
credentials to use instead of running the flow). Protocol: see test/interop/README.md.
"""
import json
import os
import sys

from oauthlib.oauth1 import (
    SIGNATURE_TYPE_AUTH_HEADER,
    SIGNATURE_TYPE_BODY,
    SIGNATURE_TYPE_QUERY,
)
from requests_oauthlib import OAuth1Session


def emit(message):
    print(json.dumps(message), flush=True)


def response(r):
    try:
        body = r.json()
    except ValueError:
        body = r.text
    return {"status": r.status_code, "body": body}


def main():
    base = sys.argv[1].rstrip("/")
    method = os.environ.get("OAUTH_SIGNATURE_METHOD") or "HMAC-SHA1"
    transmission = os.environ.get("OAUTH_TRANSMISSION") or "header"
    params = json.loads(os.environ.get("INTEROP_PARAMS") or '{"query": [], "form": []}')
    scope = os.environ.get("INTEROP_SCOPE")
    rsa_key = None
    if method.startswith("RSA-"):
        with open(os.environ["OAUTH_RSA_PRIVATE_KEY"]) as f:
            rsa_key = f.read()
    signature_type = {
        "header": SIGNATURE_TYPE_AUTH_HEADER,
        "body": SIGNATURE_TYPE_BODY,
        "query": SIGNATURE_TYPE_QUERY,
    }[transmission]

    given_token = os.environ.get("OAUTH_TOKEN")
    if given_token:  # token credentials issued before (migrated): no flow
        session = OAuth1Session(
            os.environ["OAUTH_CONSUMER_KEY"],
            client_secret=os.environ.get("OAUTH_CONSUMER_SECRET"),
            resource_owner_key=given_token,
            resource_owner_secret=os.environ["OAUTH_TOKEN_SECRET"],
            signature_method=method,
            signature_type=signature_type,
            rsa_key=rsa_key,
        )
        emit({"step": "token", "token": given_token})
    else:
        session = OAuth1Session(
            os.environ["OAUTH_CONSUMER_KEY"],
            client_secret=os.environ.get("OAUTH_CONSUMER_SECRET"),
            callback_uri="oob",
            signature_method=method,
            signature_type=signature_type,
            rsa_key=rsa_key,
        )
        extra = {"data": {"scope": scope}} if scope else {}
        temporary = session.fetch_request_token(base + "/oauth/request_token", **extra)
        emit({"step": "temporary", "token": temporary["oauth_token"]})

        verifier = sys.stdin.readline().strip()
        token = session.fetch_access_token(base + "/oauth/access_token", verifier=verifier)
        emit({"step": "token", "token": token["oauth_token"]})

    # Lists of pairs keep order and repeated names; requests form-encodes them as UTF-8.
    query = [tuple(pair) for pair in params["query"]]
    form = [tuple(pair) for pair in params["form"]]
    get = None
    if transmission != "body":  # §3.5.2: body transmission needs a form body, GET has none
        get = response(session.get(base + "/api/me", params=query))
    post = response(session.post(base + "/api/me", data=form))
    emit({"step": "me", "get": get, "post": post})


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # report every failure as a protocol line for the harness
        emit({"step": "error", "message": f"{type(error).__name__}: {error}"})
        sys.exit(1)
