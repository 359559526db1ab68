"""The browser client (docs/client.md): `GET /` and its static files, from the web process.

The files under `service/web/client/` are served as they are committed: plain ES modules, no
build step. Their URLs carry a digest of the whole folder (`/client/<version>/app.js`), so they
are cached for a year and a new release is fetched at once; `/` itself is never cached.
Every answer carries a Content-Security-Policy without inline scripts or styles: a page that
holds a signing key runs only the code this server ships. `connect-src` names the stream
process too, where the live updates' redirect leads (docs/live.md).

Not part of the public API (the OpenAPI document does not list these routes).
"""

from __future__ import annotations

import hashlib
import mimetypes
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, Response, abort

from service.config import Config

CLIENT_DIR = Path(__file__).parent / "client"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml", ".txt": "text/plain"}
YEAR = 365 * 24 * 3600


def client_version(folder: Path = CLIENT_DIR) -> str:
    """A digest of every file's path and bytes: what makes the assets' URLs change."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def content_security_policy(stream_url: str) -> str:
    parts = urlsplit(stream_url)
    stream = f"{parts.scheme}://{parts.netloc}"
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
            f"connect-src 'self' {stream}; form-action 'self'; base-uri 'none'; "
            "frame-ancestors 'none'")


def init_client(app: Flask, config: Config) -> None:
    """Register `/` and `/client/<version>/<path>` on `app`."""
    version = client_version()
    csp = content_security_policy(config.STREAM_URL)
    index = (CLIENT_DIR / "index.html").read_text(encoding="utf-8").replace("{{v}}", version)
    headers = {"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff",
               "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}

    @app.get("/")
    def client_page() -> Response:
        return Response(index, content_type=_TYPES[".html"],
                        headers={**headers, "Cache-Control": "no-cache"})

    @app.get("/client/<tag>/<path:name>")
    def client_file(tag: str, name: str) -> Response:
        path = (CLIENT_DIR / name).resolve()
        if tag != version or not path.is_relative_to(CLIENT_DIR) or not path.is_file():
            abort(404)
        kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "text/plain"
        return Response(path.read_bytes(), content_type=kind,
                        headers={**headers, "Cache-Control": f"public, max-age={YEAR}, immutable"})
