"""The app factory: `create_app(config)` builds the Flask app, the store, the queue and the API."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import orjson
from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from flask_smorest import Api
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.middleware.proxy_fix import ProxyFix

from service.config import Config
from service.domain.problems import InvalidJson, Problem, Unavailable
from service.ops.server_key import load_server_key
from service.storage.configured import open_store
from service.storage.outage import OUTAGE_DETAIL, is_outage
from service.storage.outage import RETRY_AFTER as OUTAGE_RETRY_AFTER
from service.storage.resolve_queue import make_queue, share_queue
from service.web.api.common_schemas import ProblemSchema
from service.web.api.notification_schemas import WebhookEventSchema, webhooks_section
from service.web.client_route import init_client
from service.web.compress import Gzip
from service.web.errors import problem_response, render_problem
from service.web.fastpath import HotPaths
from service.web.limits import breach_headers, init_limits
from service.web.metrics_route import counted_problem, init_metrics
from service.web.query_params import refuse_unknown_parameters
from service.web.readiness import init_readiness

log = logging.getLogger(__name__)

_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 406: "not_acceptable", 413: "payload_too_large",
               415: "unsupported_media_type", 422: "invalid_request", 429: "rate_limited"}


class FastJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider with orjson for compact responses: the same JSON (keys sorted,
    Flask's `default` for dates and the like), a seat view encoded about eight times faster.
    Indented output (debug mode) stays with the standard encoder, and so does what orjson
    refuses: an error that echoes a lone UTF-16 surrogate a client sent escaped is sent
    escaped again, as before."""

    OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs.get("indent") is None:
            try:
                return orjson.dumps(obj, default=self.default, option=self.OPTIONS).decode()
            except TypeError:
                pass
        return super().dumps(obj, **kwargs)


class ParleyFlask(Flask):
    """Flask for an app without async views: `ensure_sync` hands every function back as it is.

    Flask and flask-smorest call `ensure_sync` in each decorator layer of every request (a move
    POST passes a dozen), and Flask's version inspects the function each time to see whether it
    is a coroutine function. None here is: tests/api/test_app.py checks every registered view,
    hook and error handler."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        return func


class ParleyApi(Api):
    """flask-smorest's Api with RFC 9457 problem JSON for every error."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        """flask-smorest's shared error responses (the 422 of `@blp.arguments`, `default`)
        are documented as problem JSON, the content type every error is sent with."""
        success_type = self.DEFAULT_RESPONSE_CONTENT_TYPE
        self.DEFAULT_RESPONSE_CONTENT_TYPE = "application/problem+json"
        try:
            super()._register_responses()
        finally:
            self.DEFAULT_RESPONSE_CONTENT_TYPE = success_type

    def handle_http_exception(self, error: HTTPException) -> Any:
        status = error.code or 500
        data = getattr(error, "data", None) or {}
        extra: dict[str, Any] = {}
        if "messages" in data:
            extra["errors"] = data["messages"]
        if status >= 500:
            return problem_response(500, "internal_error", "Internal server error",
                                    "The server failed; the failure is logged.")
        code = _HTTP_CODES.get(status, "http_error")
        detail = data.get("message") or error.description or error.name
        headers = data.get("headers")
        if status == 422:
            detail = "The request does not match its schema."
        elif status == 413:
            detail = "The request body is larger than this server accepts (PARLEY_MAX_BODY)."
        elif status == 429:
            detail = (f"Too many requests ({error.description}); retry after the number of "
                      "seconds in Retry-After.")
            headers = {**(headers or {}), **breach_headers()}
        return problem_response(status, code, error.name, detail, headers, **extra)


def create_app(config: Config | None = None) -> Flask:
    config = config or Config()
    app = ParleyFlask("parley")
    app.json = FastJSONProvider(app)
    app.config.update(config.as_flask())
    app.config["PARLEY"] = config
    store = open_store(config)
    queue = make_queue(config.REDIS_URL, config.QUEUE)
    share_queue(store, queue)  # on one Redis, a move's append wakes its game too
    store.pack_history_aside()  # a settled move answers before its history is packed
    app.extensions["parley_store"] = store
    app.extensions["parley_queue"] = queue
    app.extensions["parley_server_key"] = load_server_key(config.SERVER_KEY_PATH)

    api = ParleyApi(app, spec_kwargs={"info": {"description": API_DESCRIPTION}})
    app.extensions["parley_api"] = api
    api.spec.components.security_scheme(
        "bearer", {"type": "http", "scheme": "bearer",
                   "description": "the player's token from POST /v1/players"})
    from service.web.api.blueprints import BLUEPRINTS

    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    api.spec.components.schema("WebhookEvent", schema=WebhookEventSchema)
    api.spec.options["webhooks"] = webhooks_section("#/components/schemas/WebhookEvent")

    refuse_unknown_parameters(app, api.spec.to_dict())
    init_limits(app, config)
    init_metrics(app)  # GET /metrics, outside the OpenAPI document
    init_client(app, config)  # GET /: the browser client (docs/client.md)
    if config.HOT_PATHS:
        app.wsgi_app = HotPaths(app, app.wsgi_app)  # type: ignore[method-assign]
    init_readiness(app, config.RUN_STATE)  # in front of the fast path
    if config.PROXY_HOPS:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config.PROXY_HOPS,  # type: ignore[method-assign]
                                x_proto=config.PROXY_HOPS)
    # outermost: the fast path's answers are compressed too (service/web/compress.py)
    app.wsgi_app = Gzip(app.wsgi_app)  # type: ignore[method-assign]

    @app.before_request
    def refuse_oversize_body() -> None:
        """413 before anything reads a body announced too large (a chunked body without a
        length is cut off by werkzeug's limited stream when read)."""
        limit = app.config.get("MAX_CONTENT_LENGTH")
        if limit and request.content_length is not None and request.content_length > limit:
            raise RequestEntityTooLarge()

    app.register_error_handler(Problem, counted_problem)  # a refused move POST is counted

    @app.errorhandler(Exception)
    def unexpected(err: Exception) -> Any:
        if isinstance(err, HTTPException):
            return api.handle_http_exception(err)
        if isinstance(err, RecursionError) and request.content_length:
            # the body parser's recursion limit: a body nested too deeply is bad JSON (the
            # move routes parse with their own strict parser and say the same)
            return render_problem(InvalidJson("The body is not valid JSON (nested too deeply)."))
        if is_outage(err):  # Redis or a store node away: no fault of ours
            log.error("Redis unavailable: %s: %s", type(err).__name__, err)
            return problem_response(503, Unavailable.code, Unavailable.title, OUTAGE_DETAIL,
                                    {"Retry-After": OUTAGE_RETRY_AFTER})
        log.exception("unhandled error")
        return problem_response(500, "internal_error", "Internal server error",
                                "The server failed; the failure is logged.")

    return app


API_DESCRIPTION = """\
Parley is a correspondence game server. Players register an Ed25519 public key and get a bearer
token; they create games, join seats, read their seat's view with `legal_moves`, and submit
moves as signed envelopes (`parley-move-v1`, RFC 8785 canonical JSON, Ed25519). Every error is
RFC 9457 problem JSON with a machine-readable `code`. Dice are audited: each game commits to a
server seed at creation and reveals it at the end; `/audit` returns a verifiable bundle.
"""
