#!/usr/bin/env bash
# The whole TypeScript example from a clean state: install the pinned packages, generate the
# client types from openapi/openapi.json, check the signing code against the repository's
# vectors, start a private Parley server (temporary data folder, free ports), play one Stratego
# Duel against it, and stop the server and everything it started, whatever happens.
#
# Exit status: the play's (0: the game finished and its audit checks out); non-zero if a step
# before it failed, or if a server process could not be stopped.
#
#   KEEP_DATA=1 ./run.sh    keep the server's data folder and log afterwards
#   PLAY_SEED=N ./run.sh    replay the same move choices (see src/play.ts)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
parley="$root/.venv/bin/parley"
cd "$here"

log() { printf '\n== %s\n' "$*"; }

node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 20 ]; then
  echo "run.sh: Node.js 20 or newer is needed (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
if [ ! -x "$parley" ]; then
  echo "run.sh: $parley is missing: run 'make install' in $root (or 'make example-ts' there)" >&2
  exit 1
fi

log "install the pinned packages"
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi

log "generate the client types from openapi/openapi.json"
npm run --silent generate

log "check the signing code against docs/move-signing-vectors.json"
npm run --silent test:vectors

# ---- a private server -------------------------------------------------------------------------

data="$(mktemp -d "${TMPDIR:-/tmp}/parley-example-ts.XXXXXX")"
server_log="$data/server.log"
server_pid=""
play_pid=""
own_pgid="$(ps -o pgid= -p $$ | tr -d ' ')"

# every process below $1, found by parent id
descendants() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null || true); do
    echo "$child"
    descendants "$child"
  done
}

alive() { # a pid that runs (a zombie waiting to be reaped counts as gone)
  local stat
  stat="$(ps -o stat= -p "$1" 2>/dev/null | tr -d ' ')" || return 1
  [ -n "$stat" ] && [ "${stat#Z}" = "$stat" ]
}

# Every server process is remembered with its start time: a pid that another process took
# meanwhile (other programs run on this machine too) is never signalled or reported.
remember() {
  local pid started
  for pid in "$@"; do
    grep -q "^$pid " "$data/pids" 2>/dev/null && continue
    started="$(ps -o lstart= -p "$pid" 2>/dev/null)" || continue
    echo "$pid $started" >>"$data/pids"
  done
}

ours() { # a remembered server process that still runs
  local recorded
  alive "$1" || return 1
  recorded="$(grep "^$1 " "$data/pids" 2>/dev/null | cut -d' ' -f2-)"
  [ -n "$recorded" ] && [ "$recorded" = "$(ps -o lstart= -p "$1" 2>/dev/null)" ]
}

stop_server() {
  [ -n "$server_pid" ] || return 0
  local procs pid pgid left="" i
  # the supervisor, what it started, and what those started (also when the supervisor is gone)
  remember $(descendants "$server_pid")
  for pid in $(cut -d' ' -f1 "$data/pids"); do
    if ours "$pid"; then remember $(descendants "$pid"); fi
  done
  procs="$(cut -d' ' -f1 "$data/pids" | sort -n | tr '\n' ' ')"
  procs="${procs% }"
  # `parley run` stops the web and the worker (SIGTERM, in-flight work finishes), then Redis
  if alive "$server_pid"; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for i in $(seq 1 100); do
      alive "$server_pid" || break
      sleep 0.5
    done
  fi
  # anything still running: its process group (each child of `parley run` has its own), or it
  for pid in $procs; do
    if ours "$pid"; then
      pgid="$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')"
      echo "run.sh: process $pid did not stop; killing it" >&2
      if [ -n "$pgid" ] && [ "$pgid" != "$own_pgid" ]; then
        kill -KILL -- "-$pgid" 2>/dev/null || true
      fi
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  wait "$server_pid" 2>/dev/null || true
  sleep 0.2
  for pid in $procs; do
    if ours "$pid"; then left="$left $pid"; fi
  done
  server_pid=""
  if [ -n "$left" ]; then
    echo "run.sh: server processes still running:$left" >&2
    ps -o pid,ppid,pgid,stat,args -p "$(echo $left | tr ' ' ',')" >&2 || true
    return 1
  fi
  echo "server stopped: ps finds none of its processes left (checked: $procs)"
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$play_pid" ] && alive "$play_pid"; then
    echo "run.sh: stopping the play (pid $play_pid)" >&2
    kill -TERM "$play_pid" 2>/dev/null || true
    wait "$play_pid" 2>/dev/null || true
  fi
  if [ -n "$server_pid" ]; then
    log "stop the server"
    if [ "$rc" -ne 0 ] && [ -f "$server_log" ]; then
      echo "-- last lines of the server log ($server_log):"
      tail -n 20 "$server_log" || true
      echo "--"
    fi
    stop_server || { [ "$rc" -ne 0 ] || rc=1; }
  fi
  if [ "${KEEP_DATA:-0}" = 1 ]; then
    echo "data folder kept: $data"
  else
    rm -rf "$data"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# two free ports on loopback (not 8000 or 6390, where a developer's `make run` may listen)
read -r web_port redis_port < <(node -e '
  const net = require("node:net");
  const a = net.createServer(), b = net.createServer();
  a.listen(0, "127.0.0.1", () => b.listen(0, "127.0.0.1", () => {
    console.log(a.address().port, b.address().port); a.close(); b.close();
  }));')
url="http://127.0.0.1:$web_port"

log "start a Parley server on $url (embedded Redis on port $redis_port, data in $data)"
# Its own session, so that a Ctrl-C here reaches only this script, which then stops it in order.
# The server must not use a developer's Redis, server key or mail settings: unset them. No
# gunicorn control socket: its default path in ~/.gunicorn is shared with `make run`. No
# __pycache__ written into the source tree either.
launch=()
if command -v setsid >/dev/null; then launch=(setsid); fi
env -u REDIS_URL -u PARLEY_STORE_URL -u PARLEY_STORE_CLUSTER -u PARLEY_SERVER_KEY \
    -u PARLEY_BASE_URL -u PARLEY_SMTP_URL \
    PARLEY_DATA="$data" PARLEY_PORT="$web_port" PARLEY_REDIS_PORT="$redis_port" \
    GUNICORN_CMD_ARGS="${GUNICORN_CMD_ARGS:-} --no-control-socket" PYTHONDONTWRITEBYTECODE=1 \
    ${launch[@]+"${launch[@]}"} "$parley" run >"$server_log" 2>&1 < /dev/null &
server_pid=$!
remember "$server_pid"

# ready when /v1/health answers 200: Redis answers and a worker is registered
ready=0
for _ in $(seq 1 120); do
  remember $(descendants "$server_pid")
  if ! alive "$server_pid"; then
    echo "run.sh: the server exited while starting" >&2
    exit 1
  fi
  if node -e 'fetch(process.argv[1]).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))' \
      "$url/v1/health" 2>/dev/null; then
    ready=1
    break
  fi
  sleep 0.5
done
if [ "$ready" != 1 ]; then
  echo "run.sh: the server did not become healthy within 60 s" >&2
  exit 1
fi
remember $(descendants "$server_pid")
echo "server ready: pid $server_pid, its processes: $(echo $(descendants "$server_pid"))"

log "play one Stratego Duel"
# in the background, waited for: a signal to this script then stops it at once (see cleanup)
PARLEY_URL="$url" node dist/src/play.js &
play_pid=$!
set +e
wait "$play_pid"
play_rc=$?
set -e
play_pid=""
echo "play exited with status $play_rc"
exit "$play_rc"
