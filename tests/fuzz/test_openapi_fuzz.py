"""schemathesis against the committed OpenAPI document, on a running server.

Every operation, generated from openapi/openapi.json with valid and invalid data, anonymous
and with a registered player's bearer token; path parameters are often ids that exist (a live
game, a finished one, an open one, the player, a move), so requests get past the 404s into the
handlers. Every response must be documented: no 5xx, a status the operation lists, a body that
matches that status's schema, the documented content type and headers. 413 and 429 are
documented where the server may answer them. PARLEY_FUZZ_EXAMPLES sets the examples per
operation (small in `make test`, 500 in `make fuzz`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.fuzz.conftest import EXAMPLES, Live

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, response_headers_conformance]

schema = schemathesis.openapi.from_path(DOCUMENT)
_live: dict[str, list[str]] = {}  # path parameter -> ids that exist, filled by the fixture


@pytest.fixture(autouse=True)
def _known_ids(live: Live) -> None:
    _live.update(game=[live.game, live.finished_game, live.open_game],
                 player=[live.player.id, live.other.id], move=["1", "2"])


@schema.hook
def flatmap_path_parameters(context, path_parameters):  # noqa: ARG001
    """Half the time an id that exists instead of the generated one."""
    if not path_parameters:
        return st.just(path_parameters)
    choices = {name: st.sampled_from([value, *_live.get(name, [])])
               for name, value in path_parameters.items()}
    return st.fixed_dictionaries(choices)


#: the web server's limit on a request's target (65,534 bytes, hyper's): a longer one is refused
#: by the server itself (414, an empty body) before the app sees it, so it cannot be problem
#: JSON; requests whose whole line is longer are only checked for "no 5xx"
REQUEST_LINE_LIMIT = 65_534


def _request_line(case, base_url: str) -> int:
    kwargs = case.as_transport_kwargs(base_url=base_url)
    prepared = requests.Request(kwargs["method"], kwargs["url"],
                                params=kwargs.get("params")).prepare()
    return len(f"{prepared.method} {prepared.path_url} HTTP/1.1")


def _refused_by_the_server(case) -> bool:
    """A generated `Content-Length` that is not a number, or a `Transfer-Encoding` other than
    chunked: the web server's HTTP layer refuses the request itself (400, an empty body) before
    the app sees it (tests/ops/test_web_server.py), so, as for an overlong request line, only
    "no 5xx" holds."""
    for name, value in (case.headers or {}).items():
        name, value = name.lower(), str(value).strip()
        if ((name == "content-length" and not value.isdigit())
                or (name == "transfer-encoding" and value.lower() != "chunked")):
            return True
    return False


def _call(case, live: Live, headers: dict[str, str] | None = None) -> None:
    if _request_line(case, live.url) > REQUEST_LINE_LIMIT or _refused_by_the_server(case):
        case.call_and_validate(base_url=live.url, checks=[not_a_server_error], timeout=30,
                               headers=headers)
        return
    case.call_and_validate(base_url=live.url, checks=CHECKS, timeout=30, headers=headers)


FUZZ_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                         suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@schema.parametrize()
@FUZZ_SETTINGS
def test_every_operation_anonymous(case, live: Live) -> None:
    _call(case, live)


@pytest.mark.slow
@schema.parametrize()
@FUZZ_SETTINGS
def test_every_operation_as_a_player(case, live: Live) -> None:
    _call(case, live, {"Authorization": f"Bearer {live.player.token}"})


@pytest.mark.slow
def test_a_request_the_server_refuses_itself_is_checked_for_no_5xx_only(live: Live) -> None:
    """Found by this fuzz: a generated header `Content-Length: U-UY]` is refused by the web
    server (400, empty) before the app; every check would fail on it, `_call` keeps one."""
    operation = schema["/v1/players/{player}/stream"]["GET"]
    case = operation.Case(path_parameters={"player": live.player.id},
                          headers={"Content-Length": "U-UY]"})
    assert _refused_by_the_server(case)
    _call(case, live)
    ok = operation.Case(path_parameters={"player": live.player.id}, headers={"Content-Length": "0"})
    assert not _refused_by_the_server(ok)
    assert _refused_by_the_server(operation.Case(path_parameters={"player": live.player.id},
                                                 headers={"Transfer-Encoding": "U-UY]"}))
