"""`parley-verify`: check a game's audit bundle (or record) offline, without the server.

The same check as the server's `parley verify`, which calls `verify_files` here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from parley_protocol import signing
from parley_protocol.verify import Report, verify_bundle


class InputError(Exception):
    """A file that cannot be read, or is not strict JSON."""


def read_strict_json(path: str) -> Any:
    """JSON without duplicate keys or NaN: two parsers must not read two different bundles."""
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror}") from err
    try:
        return signing.parse_json_strict(raw)
    except signing.DuplicateKey as err:
        raise InputError(f"{path}: the key {str(err)!r} appears twice in one object") from err
    except (ValueError, RecursionError) as err:
        raise InputError(f"{path} is not valid JSON: {err}") from err


def verify_files(bundle: str, receipts: list[str], server_key: str | None = None,
                 partial: bool = False) -> Report:
    """Verify the bundle or record at `bundle` (- for stdin) with the receipts' files."""
    return verify_bundle(read_strict_json(bundle), server_key=server_key,
                         receipts=[read_strict_json(path) for path in receipts],
                         partial=partial)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", help="the bundle or record JSON file (- for stdin)")
    p.add_argument("--server-key", help="require this server key (from GET /v1/server-key); "
                   "write --server-key=KEY, as a key may begin with '-'")
    p.add_argument("--receipt", action="append", default=[], metavar="FILE",
                   help="a receipt saved by `parley move` to check against the log")
    p.add_argument("--partial", action="store_true",
                   help="accept a running game's bundle, checking what can be checked")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="parley-verify", description=__doc__.splitlines()[0])
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        report = verify_files(args.bundle, args.receipt, args.server_key, args.partial)
    except InputError as err:
        print(f"parley-verify: {err}", file=sys.stderr)
        return 2
    print(report.render())
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
