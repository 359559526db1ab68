"""The server's Ed25519 key: signs move receipts and audit bundles; created 0600 on first use."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.ops.private_data import write_once


def derived_secret(server_key: Ed25519PrivateKey, purpose: bytes) -> bytes:
    """A secret for one purpose (`b"parley-unsubscribe-v1"`, ...), derived from the server
    key: MACs under it need no secret of their own, and one purpose's MAC is no other's."""
    raw = server_key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                   serialization.NoEncryption())
    return hashlib.sha256(purpose + b"\n" + raw).digest()


@lru_cache(maxsize=8)
def load_server_key(path: Path) -> Ed25519PrivateKey:
    """Load the key at `path`, creating it (mode 0600, exclusive create) if it is missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        # a process starting at the same moment (the web server boots its workers together)
        # sees no key or a whole one, never a half-written file
        write_once(path, pem)
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey), f"{path} is not an Ed25519 key"
    return key
