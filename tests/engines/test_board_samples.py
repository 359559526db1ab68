"""The pictures docs/games.md shows are what the drawing code draws now (`make boards`), and a
picture is the same bytes in another process (no hash-seed or address order leaks in)."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engines.svg import MAX_BYTES
from service.ops.board_samples import SAMPLES, sample

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("stem", sorted(SAMPLES))
def test_the_committed_picture_is_what_the_code_draws(stem: str) -> None:
    committed = (ROOT / "docs" / "boards" / f"{stem}.svg").read_text("utf-8")
    drawn = sample(stem)
    assert committed == drawn + "\n", f"docs/boards/{stem}.svg is stale: run `make boards`"
    assert len(drawn.encode()) <= MAX_BYTES
    root = ET.fromstring(drawn)
    assert root.find("{http://www.w3.org/2000/svg}title") is not None


def test_a_picture_is_the_same_bytes_in_another_process() -> None:
    code = ("import sys; from service.ops.board_samples import sample; "
            "sys.stdout.write(sample('elfenland'))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=ROOT, env=env).stdout
    assert other == sample("elfenland")
