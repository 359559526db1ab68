"""The `parley` command: run the server (or one of its processes: web, worker, stream), check
the store (`fsck`), or write the OpenAPI document; and the player's client commands (keygen,
register, games, new, join, view, move, away, back, give, audit, export, verify, and more) from
`service.client.commands`, documented in docs/cli.md."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
from pathlib import Path


def openapi_document() -> dict:
    """The OpenAPI document the app generates (no Redis needed)."""
    from service.config import Config
    from service.web.app import create_app

    config = Config()
    config.SERVER_KEY_PATH = Path(tempfile.mkdtemp()) / "openapi-key.pem"
    app = create_app(config)
    return app.extensions["parley_api"].spec.to_dict()


def dump_openapi() -> str:
    return json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"


#: the commands that connect to Redis as a server process does
SERVER_COMMANDS = ("web", "worker", "stream", "mail-in", "fsck")
#: the exit status of a command whose reader went away: 128 + SIGPIPE, what the shell reports
#: for a command that SIGPIPE ended (`yes | head -1`), and so for `set -o pipefail` too
PIPE_CLOSED = 141


def prepare_server(command: str) -> None:
    """Before a server process starts: with no REDIS_URL (the embedded Redis), the password
    kept in the data folder exists, made here if this process is the first (a Procfile runner
    starts every process at once, `parley redis` among them), so that every one reads the
    same; and the stream and mail-in ports are free (the web server checks its own).
    Raises PortTaken or PasswordFileError."""
    from service.config import Config
    from service.ops.ports import ensure_free, served_ports
    from service.ops.private_data import embedded_password

    config = Config()
    if not os.environ.get("REDIS_URL"):
        embedded_password(config.DATA_DIR)
    if command in ("stream", "mail-in"):
        ensure_free(*served_ports(config)[command])


def main(argv: list[str] | None = None) -> int:
    """Run one `parley` command. A reader that stops reading (`parley view G | head -1`) ends
    it quietly, with PIPE_CLOSED: Python ignores SIGPIPE, so the write that finds the pipe
    closed raises BrokenPipeError, which would otherwise end in a traceback on stderr for what
    is no error; every command, `--help` and the server's alike, is covered here."""
    try:
        try:
            return _command(argv)
        finally:
            sys.stdout.flush()  # what is still buffered meets the closed pipe here, not at exit
    except BrokenPipeError:
        # the interpreter flushes stdout once more as it exits: let that write go nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return PIPE_CLOSED


def _command(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="parley", description="Parley game server")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="start Redis (embedded unless REDIS_URL), web and worker")
    w = sub.add_parser("worker", help="run one RQ worker with the scheduler and the sweep")
    w.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    sub.add_parser("redis", help="run the bundled Redis (AOF on) in the foreground")
    web = sub.add_parser("web", help="run the web server (the HTTP API) in the foreground")
    web.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    web.add_argument("--port", type=int, help="port to bind (default $PARLEY_PORT, 8000)")
    web.add_argument("--workers", type=int,
                     help="worker processes (default $PARLEY_WEB_PROCESSES, 1)")
    web.add_argument("--threads", type=int,
                     help="threads per worker process (default $PARLEY_WEB_THREADS, 4)")
    web.add_argument("--access-log", metavar="FILE",
                     help="write an access log line per request to FILE ('-': stdout)")
    web.add_argument("--log-level", default="info",
                     choices=["debug", "info", "warning", "error", "critical"],
                     help="for the server's log lines and the app's (default info)")
    sub.add_parser("stream", help="run the stream process (SSE feeds and long polls)")
    m = sub.add_parser("mail-in", help="receive mail replies (moves by reply) over SMTP or LMTP")
    m.add_argument("--lmtp", action="store_true", help="speak LMTP instead of SMTP")
    f = sub.add_parser("fsck", help="check every stored game for damage (read-only); "
                                    "exit status 1 if any is damaged")
    f.add_argument("games", nargs="*", help="check only these game ids")
    o = sub.add_parser("openapi", help="print or write the OpenAPI document")
    o.add_argument("-o", "--output", help="write to this file instead of stdout")
    e = sub.add_parser("errors", help="print or write docs/errors.md, every error code")
    e.add_argument("-o", "--output", help="write to this file instead of stdout")
    from service.client.commands import add_commands

    add_commands(sub)
    args = parser.parse_args(argv)
    if args.command is None:  # `parley` alone: how to start, not a usage error
        from service.client.commands import getting_started
        from service.client.session import ClientError

        try:
            print(getting_started())
        except ClientError as err:
            print(f"parley: {err}", file=sys.stderr)
            return 1
        return 0
    if getattr(args, "handler", None):  # a client command: no server logging set-up
        return args.handler(args)
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.command in SERVER_COMMANDS:
        from service.ops.ports import PortTaken
        from service.ops.private_data import PasswordFileError

        try:
            prepare_server(args.command)
        except (PortTaken, PasswordFileError) as err:
            print(f"parley: {err}", file=sys.stderr, flush=True)
            return 1
    if args.command == "run":
        from service.ops.runner import run

        return run()
    if args.command == "web":
        from service.web.serve import serve

        return serve(host=args.host, port=args.port, workers=args.workers,
                     threads=args.threads, access_log=args.access_log,
                     log_level=args.log_level)
    if args.command == "worker":
        from workers.main import run_worker

        run_worker(burst=args.burst)
        return 0
    if args.command == "stream":
        from service.stream.server import main as stream_main

        return stream_main()
    if args.command == "mail-in":
        from service.notify.mail_in import main as mail_in_main

        return mail_in_main(lmtp=args.lmtp)
    if args.command == "redis":
        from service.ops.runner import run_redis

        return run_redis()
    if args.command == "fsck":
        from service.ops.fsck import main as fsck_main

        return fsck_main(args.games, sys.stdout)
    if args.command in ("openapi", "errors"):
        if args.command == "openapi":
            text = dump_openapi()
        else:
            from service.domain.problem_codes import render_markdown

            text = render_markdown()
        if args.output:
            Path(args.output).write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
