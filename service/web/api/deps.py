"""What every blueprint needs from the app: the store, the queue, the server key."""

from __future__ import annotations

from typing import Any

from flask import current_app
from rq import Queue

from service.storage.store import Store
from service.web.api.common_schemas import ProblemSchema

#: keyword arguments of `blp.alt_response` documenting a problem JSON answer
PROBLEM = {"schema": ProblemSchema, "content_type": "application/problem+json"}


def store() -> Store:
    return current_app.extensions["parley_store"]


def queue() -> Queue:
    return current_app.extensions["parley_queue"]


def server_key() -> Any:
    return current_app.extensions["parley_server_key"]


def base_url() -> str:
    return current_app.config["PARLEY"].BASE_URL
