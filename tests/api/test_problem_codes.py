"""Every error code is documented, and a problem's `type` leads to its entry (docs/errors.md)."""

from __future__ import annotations

import re
from pathlib import Path

from service.domain.problem_codes import PLATFORM, render_markdown

ROOT = Path(__file__).resolve().parents[2]
#: the ways the service spells a code: keyword, class attribute, problem_response, HTTP table
PATTERNS = (re.compile(r'code="([a-z_]+)"'), re.compile(r'code, title = \d+, "([a-z_]+)"'),
            re.compile(r'problem_response\(\d+, "([a-z_]+)"'), re.compile(r'\d{3}: "([a-z_]+)"'))


def _codes_in_sources() -> set[str]:
    found: set[str] = set()
    for folder in ("service", "workers"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text("utf-8")
            for pattern in PATTERNS:
                found.update(pattern.findall(text))
    return found


def test_every_code_the_service_answers_with_is_listed() -> None:
    found = _codes_in_sources()
    assert len(found) > 40
    missing = sorted(found - set(PLATFORM))
    assert not missing, f"add these codes to service/domain/problem_codes.py PLATFORM: {missing}"


def test_docs_errors_md_is_the_generated_list() -> None:
    text = (ROOT / "docs" / "errors.md").read_text("utf-8")
    assert text == render_markdown(), "regenerate it: parley errors -o docs/errors.md"
    for code in ("game_not_found", "into_lake", "already_chosen", "bad_notation"):
        assert f"| `{code}` |" in text


def test_a_problem_type_resolves_to_its_entry(client) -> None:
    body = client.get("/v1/games/g_nosuchgame").get_json()
    assert body["code"] == "game_not_found"
    assert body["type"] == "/v1/problems/game_not_found"
    entry = client.get(body["type"])
    assert entry.status_code == 200
    assert entry.get_json() == {"code": "game_not_found", "entries": [
        {"source": "platform", "status": 404, "description": PLATFORM["game_not_found"]
         .description}]}


def test_engine_codes_are_served_per_ruleset(client) -> None:
    lake = client.get("/v1/problems/into_lake").get_json()
    assert [(e["source"], e["status"]) for e in lake["entries"]] == [("stratego", 422)]
    listed = {c["code"] for c in client.get("/v1/problems").get_json()}
    assert {"rate_limited", "not_your_turn", "invalid_options"} <= listed
    missing = client.get("/v1/problems/no_such_code")
    assert missing.status_code == 404
    assert missing.get_json()["code"] == "not_found"
