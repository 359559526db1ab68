"""What this client sent in each game, for `parley verify GAME --me` to find in the game's audit
bundle: the signed join with the client seed it chose (docs/audit.md §18) and the digest of
every envelope the server accepted from it (§6).

One small JSON file per game, `journal/<game>.json` beside the config file (so one per profile),
written like the config (mode 0600, atomically): {"join": {statement, key_id, signature} | null,
"envelopes": [digest, ...]}.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from parley_protocol import signing

from service.client.session import ClientError, write_private

#: what a game id may be to name a file (the server's are `g_` and 12 hex digits)
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Journal:
    """The record of one game on this machine."""

    def __init__(self, config_path: Path, game: str) -> None:
        if not GAME_ID.fullmatch(game):
            raise ClientError(f"{game!r} is not a game id")
        self.path = config_path.parent / "journal" / f"{game}.json"

    def read(self) -> dict[str, Any]:
        if not self.path.exists():
            return {"join": None, "envelopes": []}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except ValueError as err:
            raise ClientError(f"{self.path} is not valid JSON: {err}") from err
        return {"join": data.get("join"), "envelopes": list(data.get("envelopes") or [])}

    def _write(self, data: dict[str, Any]) -> None:
        write_private(self.path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())

    def joined(self, signed: dict[str, Any]) -> None:
        """Keep the signed join the server took."""
        data = self.read()
        data["join"] = signed
        self._write(data)

    def posted(self, envelope: dict[str, Any]) -> None:
        """Keep the digest of an envelope the server accepted (once)."""
        data = self.read()
        digest = signing.envelope_digest(envelope)
        if digest not in data["envelopes"]:
            data["envelopes"].append(digest)
            self._write(data)


def check_mine(bundle: dict[str, Any], player: str, kept: dict[str, Any]
               ) -> list[tuple[bool, str]]:
    """The player's own checks of a bundle against what this client kept -> (passed, line)
    each: its signed join holds the client seed it sent, and every envelope it posted is in
    the log."""
    lines: list[tuple[bool, str]] = []
    joined = bundle.get("joined") or []
    seat = joined.index(player) if player in joined else None
    signed = kept["join"]
    seed = signed["statement"]["client_seed"] if signed else None
    if signed is None:
        lines.append((True, "join: this client kept no join of this game (you joined "
                            "elsewhere, or before it kept them): not checked"))
    elif seat is None:
        lines.append((False, f"join: player {player} holds no seat in the bundle, though this "
                             f"client joined with client seed {seed!r}"))
    else:
        joins = bundle.get("joins")
        listed = joins[seat] if isinstance(joins, list) and seat < len(joins) else None
        seeds = bundle.get("client_seeds") or []
        listed_seed = seeds[seat] if seat < len(seeds) else None
        if listed_seed != seed:
            lines.append((False, f"join: the bundle's client seed of your seat {seat} is "
                                 f"{listed_seed!r}, but this client sent {seed!r}"))
        elif not isinstance(listed, dict) or any(
                listed.get(k) != signed[k] for k in ("statement", "key_id", "signature")):
            lines.append((False, f"join: the bundle does not hold the join this client signed "
                                 f"for seat {seat} (client seed {seed!r})"))
        else:
            lines.append((True, f"join: seat {seat} holds your signed join with the client seed "
                                f"this client sent ({seed!r})"))
    digests = kept["envelopes"]
    logged = {e.get("digest") for e in bundle.get("entries") or [] if isinstance(e, dict)}
    missing = [d for d in digests if d not in logged]
    if missing:
        lines.append((False, f"moves: {len(missing)} of the {len(digests)} envelopes this client "
                             f"posted {'is' if len(missing) == 1 else 'are'} not in the log "
                             f"(digest {', '.join(d[:16] + '...' for d in missing[:5])})"))
    else:
        lines.append((True, f"moves: all {len(digests)} envelopes this client posted are in "
                            f"the log"))
    return lines
