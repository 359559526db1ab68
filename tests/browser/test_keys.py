"""The key the browser makes signs exactly as the Python protocol does, and its backup is the
CLI's key file: a player moves in the browser and then with `parley move`, by keyboard alone
in the browser too."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import requests
from parley_protocol import signing

from tests.browser.helpers import create_game, game_state, register, wait_step_above

TRICKY = [{"b": 1, "a": [True, None, -5, 0], "é": "ü\u2028\"\\\n\t\x01", "a\u00ff": {}},
          {"z": 9007199254740991, "": "", "aa": [[], {}], "A": "😀"}, "plain", 12, []]

SIGN = """async ([base, tricky]) => {
  const jcs = await import(base + "js/jcs.js");
  const keys = await import(base + "js/keys.js");
  const key = await keys.newKey();
  const claim = {public_key: key.publicKey, name: "zoë"};
  const account = {key_id: "k_test", privateKey: key.privateKey};
  const env = await keys.envelope(account, "g_1", 0, 3, {type: "move", from: "a4", to: "a5"});
  const join = await keys.signedJoin({...account, id: "p_1"}, "g_1", "zoë 🎲");
  const exportable = await crypto.subtle.exportKey("pkcs8", key.privateKey).then(
      () => true, () => false);
  return {public: key.publicKey, claim, proof: await keys.signClaim(key.privateKey, claim),
          env, join, backup: key.backup, exportable,
          canonical: tricky.map((v) => jcs.canonical(v))};
}"""


def test_browser_signatures_verify_in_python(player, live_server) -> None:
    p = player()
    p.page.goto("/")
    p.page.get_by_label("Name").wait_for()
    base = re.search(r'src="(/client/[0-9a-f]+/)', requests.get(live_server.url, timeout=10).text)
    out = p.page.evaluate(SIGN, [base.group(1), TRICKY])
    assert out["canonical"] == [signing.canonical(v).decode() for v in TRICKY]
    assert signing.verify_key_claim(out["claim"], out["proof"])
    env = out["env"]
    assert signing.verify_payload(signing.b64url_decode(out["public"]), env["payload"],
                                  env["signature"])
    assert signing.parse_issued_at(env["payload"]["issued_at"]) is not None
    public = signing.b64url_decode(out["public"])  # the nonce derived, as the server wants
    assert len(signing.b64url_decode(env["payload"]["nonce"])) == 64
    assert signing.is_derived_nonce(public, env["payload"])
    join = out["join"]  # a signed join (docs/audit.md §18)
    assert join["statement"] == signing.join_statement("g_1", "p_1", "zoë 🎲",
                                                       join["statement"]["issued_at"])
    assert join["key_id"] == "k_test"
    assert signing.verify_join(signing.b64url_decode(out["public"]), join["statement"],
                               join["signature"])
    assert not out["exportable"]  # what the browser keeps cannot be read out
    assert out["backup"].startswith("-----BEGIN PRIVATE KEY-----\n")


def _keyboard_move(p) -> None:
    """Tab to the first legal move's button and press Enter: no mouse."""
    for _ in range(60):
        p.page.keyboard.press("Tab")
        if p.page.evaluate("() => document.activeElement?.matches('button.move')"):
            p.page.keyboard.press("Enter")
            return
    raise AssertionError("no move button reached by Tab")


def test_the_cli_plays_with_the_browser_key_and_keyboard_play(player, tmp_path) -> None:
    ann, bob = player(), player()
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob").mkdir()
    ann_files = register(ann, "ann", tmp_path / "ann")
    link = create_game(ann, "stratego", army="duel")
    gid = link.rsplit("/", 1)[1]
    register(bob, "bob", tmp_path / "bob", url=link)
    for p in (ann, bob):  # setups, by keyboard
        p.page.wait_for_function("() => document.querySelector('#game-status')?.dataset.status"
                                 " === 'active'")
        _keyboard_move(p)
    for p in (ann, bob):
        wait_step_above(p, 0)
    for _ in range(4):  # moves by keyboard alone, then the notation box
        mover = ann if "Your turn" in game_state(ann)["text"] else bob
        step = int(game_state(mover)["step"])
        _keyboard_move(mover)
        for p in (ann, bob):  # both pages past the move: the next mover is told by them
            wait_step_above(p, step)
    if "Your turn" not in game_state(ann)["text"]:
        step = int(game_state(bob)["step"])
        bob.page.get_by_label("Move (its number or notation)").focus()
        bob.page.keyboard.type("1")
        bob.page.keyboard.press("Enter")
        wait_step_above(ann, step)
    step = int(game_state(ann)["step"])
    config = tmp_path / "ann" / "config.json"  # key.pem beside it: the CLI's own layout
    cli = [sys.executable, "-m", "service.cli"]
    viewed = subprocess.run([*cli, "view", "--config", str(config), gid], capture_output=True,
                            text=True, timeout=60)
    assert viewed.returncode == 0, viewed.stdout + viewed.stderr
    moved = subprocess.run([*cli, "move", "--config", str(config), gid, "1"],
                           capture_output=True, text=True, timeout=60)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "applied" in moved.stdout
    wait_step_above(ann, step, timeout=2000)  # the browser sees the CLI's move live
    wait_step_above(bob, step, timeout=2000)
    assert json.loads(config.read_text())["player"] == ann_files["config"]["player"]
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
