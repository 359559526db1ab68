"""A test player: an Ed25519 key, a token, and signed envelopes, as a real client makes them;
and the running server it speaks to by URL (`Site`), for the tests and the benchmarks alike."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from parley_protocol import signing

from service.ops import clock


@dataclass
class Site:
    """A server reached by its URL: requests by path on one keep-alive session, what
    `TestPlayer.register` and a harness need of a running server (tests/e2e's `Server` is one,
    with the processes it started)."""

    url: str
    http: requests.Session = field(default_factory=requests.Session)
    timeout: float = 10

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.http.get(self.url + path, timeout=self.timeout, **kw)

    def post(self, path: str, **kw: Any) -> requests.Response:
        return self.http.post(self.url + path, timeout=self.timeout, **kw)


@dataclass
class TestPlayer:
    name: str
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    id: str = ""
    key_id: str = ""
    token: str = ""

    __test__ = False  # not a test class

    @property
    def public_key(self) -> str:
        return signing.public_key_b64(self.key)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def registration(self, **extra: Any) -> dict[str, Any]:
        """The body of `POST /v1/players`, with the key's proof of possession."""
        claim = signing.key_claim(self.public_key, name=self.name)
        return {"name": self.name, "public_key": self.public_key,
                "proof": signing.sign_key_claim(self.key, claim), **extra}

    def key_for(self, player: str) -> dict[str, str]:
        """The body of `POST /v1/players/{player}/keys` adding this key to `player`."""
        claim = signing.key_claim(self.public_key, player=player)
        return {"public_key": self.public_key, "proof": signing.sign_key_claim(self.key, claim)}

    def consent(self, mail_moves: bool = True, issued_at: str | None = None) -> dict[str, Any]:
        """The body of `POST /v1/players/{id}/consents`: a signed statement about moves by
        mail (docs/audit.md §16)."""
        statement = signing.consent_statement(self.id, mail_moves,
                                              issued_at or signing.issued_now())
        return {"statement": statement, "key_id": self.key_id,
                "signature": signing.sign_consent(self.key, statement)}

    def join_body(self, game: str, seed: str | None = None, seat: int | None = None,
                  issued_at: str | None = None) -> dict[str, Any]:
        """The body of `POST /v1/games/{game}/join`: a signed join with the client seed
        `seed` (a fresh random one if None), at `seat` if given (docs/audit.md §18)."""
        statement = signing.join_statement(
            game, self.id, seed if seed is not None else secrets.token_urlsafe(16),
            issued_at or _issued_now())
        body: dict[str, Any] = {"statement": statement, "key_id": self.key_id,
                                "signature": signing.sign_join(self.key, statement)}
        if seat is not None:
            body["seat"] = seat
        return body

    def register(self, http: Any) -> TestPlayer:
        """Register through `http` (a Flask test client or a requests-like session)."""
        resp = http.post("/v1/players", json=self.registration())
        assert resp.status_code == 201, resp
        body = resp.get_json() if hasattr(resp, "get_json") else resp.json()
        self.id, self.key_id, self.token = body["id"], body["key_id"], body["token"]
        return self

    def envelope(self, game: str, seat: int, step: int, move: dict[str, Any],
                 nonce: str | None = None, issued_at: str | None = None, repeat: int = 0
                 ) -> dict[str, Any]:
        """A signed move with its derived nonce (docs/audit.md §6; `repeat`: the very same
        move made once more at this step), unless `nonce` names another (`random_nonce()`
        for a game without derived nonces, or to see one refused)."""
        payload = {"game": game, "seat": seat, "step": step, "move": move, "nonce": "",
                   "issued_at": issued_at or _issued_now()}
        payload["nonce"] = nonce or signing.derive_nonce(self.key, payload, repeat)
        return {"payload": payload, "key_id": self.key_id,
                "signature": signing.sign_payload(self.key, payload)}


def random_nonce() -> str:
    """16 random bytes in base64url: a nonce as clients made them before derived nonces."""
    return signing.b64url_encode(secrets.token_bytes(16))


def _issued_now() -> str:
    """Now on the server's clock (tests may move it ahead: `service.ops.clock.travel`)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock.now()))
