"""A peer: oauthlib's ResourceEndpoint (Debian's python3-oauthlib) as a WSGI app under
gunicorn (bench/servers/oauthlib-gunicorn.ts starts it), guarding GET /api/me.

Credentials in memory from BENCH_CREDENTIALS (the lean verifier's JSON); the replay check is
an in-memory nonce set, rotated every window, as in the lean verifier. HMAC-SHA1 in the
Authorization header, as the scenario sends it.
"""

import json
import os
import signal
import string
import threading
import time

from oauthlib.oauth1 import RequestValidator, ResourceEndpoint

WINDOW = 300
_credentials = json.loads(os.environ.get("BENCH_CREDENTIALS", "{}"))
CLIENTS = {c["key"]: c["secret"] for c in _credentials.get("clients", [])}
TOKENS = {t["token"]: t for t in _credentials.get("tokens", [])}


class Nonces:
    """Two generations, rotated every window: bounded memory, O(1) checks."""

    def __init__(self):
        self.current, self.previous, self.rotated = set(), set(), time.monotonic()

    def first_use(self, key):
        if time.monotonic() - self.rotated > WINDOW:
            self.previous, self.current, self.rotated = self.current, set(), time.monotonic()
        if key in self.current or key in self.previous:
            return False
        self.current.add(key)
        return True


NONCES = Nonces()


class Validator(RequestValidator):
    # The generator's keys are 16 base64url characters; oauthlib's defaults want 20-30.
    safe_characters = set(string.ascii_letters + string.digits + "-_")
    client_key_length = (8, 64)
    access_token_length = (8, 64)
    nonce_length = (8, 64)
    enforce_ssl = False
    dummy_client = "dummy-client-0000"
    dummy_access_token = "dummy-token-00000"

    def validate_client_key(self, client_key, request):
        return client_key in CLIENTS

    def get_client_secret(self, client_key, request):
        return CLIENTS.get(client_key, "dummy")

    def validate_access_token(self, client_key, token, request):
        found = TOKENS.get(token)
        return found is not None and found["clientKey"] == client_key

    def get_access_token_secret(self, client_key, token, request):
        found = TOKENS.get(token)
        return found["secret"] if found is not None else "dummy"

    def validate_timestamp_and_nonce(
        self, client_key, timestamp, nonce, request, request_token=None, access_token=None
    ):
        return NONCES.first_use((client_key, access_token, timestamp, nonce))

    def validate_realms(self, client_key, token, request, uri=None, realms=None):
        return True


ENDPOINT = ResourceEndpoint(Validator())


def app(environ, start_response):
    if environ.get("PATH_INFO") != "/api/me":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found"]
    query = environ.get("QUERY_STRING", "")
    uri = "http://" + environ["HTTP_HOST"] + environ["PATH_INFO"] + ("?" + query if query else "")
    headers = {}
    if "HTTP_AUTHORIZATION" in environ:
        headers["Authorization"] = environ["HTTP_AUTHORIZATION"]
    valid, request = ENDPOINT.validate_protected_resource_request(
        uri, http_method=environ["REQUEST_METHOD"], body=None, headers=headers
    )
    if not valid:
        start_response("401 Unauthorized", [("Content-Type", "text/plain")])
        return [b"oauth_problem=signature_invalid"]
    body = json.dumps({"client": request.client_key, "owner": request.resource_owner_key})
    start_response("200 OK", [("Content-Type", "application/json")])
    return [body.encode()]


def _watch_parent(parent):
    """Ends gunicorn when the launcher is gone (killed), so no server outlives the run."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
            return


if os.environ.get("BENCH_WATCH_PARENT") == "1":
    # Loaded once in gunicorn's master (--preload); the thread does not survive the fork.
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
