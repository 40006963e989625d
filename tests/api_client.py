"""A JSON client of the HTTP API for the tests, the e2e tests and the benchmarks:
one request, the bearer token when given, the decoded body back."""

from __future__ import annotations

import json
import urllib.request
from typing import Any


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None,
         timeout: float = 10) -> Any:
    """``method base+path`` with ``body`` as JSON; raises ``urllib.error.HTTPError``
    on an error status."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())
