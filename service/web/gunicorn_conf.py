"""gunicorn settings for Parley's web process: `gunicorn -c python:service.web.gunicorn_conf ...`.

Threaded workers with keep-alive, chosen by measurement (docs/performance.md): gunicorn's
default sync worker closes the connection after every response, so each request of a client
that plays many moves pays a new TCP connection on both sides; on 2 cores a trivial GET went
from ~700 to ~2,500 requests/s with keep-alive. The app keeps no per-request state outside
Flask's request context, and its Redis clients are thread-safe connection pools.
Command-line options (`--workers`, `--bind`) still apply on top of these.
"""

from service.config import Config

worker_class = "gthread"
threads = Config().WEB_THREADS
keepalive = 5  # seconds an idle client connection stays open
# no control socket (gunicorn 25.1+): its default path is one per user, so every gunicorn on
# the machine would take it over from the others, and `gunicornc` would reach the wrong one;
# older gunicorn ignores the setting
control_socket_disable = True
graceful_timeout = 20
# the access log names paths, never query strings or referrers: those carry secrets (an
# unsubscribe link's token, a stream ticket) that a log must not keep
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s "%(a)s" %(M)sms'
