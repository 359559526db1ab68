// Clicking on the board. The engines mark what can be clicked in their pictures
// (data-pick="square:e4", "road:13", "card:rum-05", "loc:7"); here a click is matched against
// the legal moves whose JSON names it. A move's picks are the clicks that make it, in order
// (a Stratego piece then its target; a Cartagena card then a pirate). Each click narrows the
// moves to those that begin with the clicks so far: a single complete move left is played,
// several are offered in the list of moves (which stays the way to every move by keyboard).
import { clearMarks, drawMark, drawPiece, pickLayer, picked } from "./board.js";
import { arranger } from "./arrange.js";
import { h } from "./dom.js";

/** Each game's picks of a move: a list of steps, each one key or a list of keys any of which
 * matches; null for a move that is not made by clicking (it stays in the list). */
const PICKS = {
  stratego: (m) => (m.type === "move" ? [`square:${m.from}`, `square:${m.to}`] : null),
  cartagena: cartagenaPicks,
  elfenland: roadPicks,
};
/** Each kind of key in the hints: its word as a move's first pick, as a later one, and what
 * to click next. */
const WORDS = { square: ["from", "to", "its target"], loc: ["from", "from", "a pirate"],
                card: ["with", "with", "a card"], road: ["on", "on", "a road"] };
const word = (key, i) => (WORDS[kindOf(key)] || ["with", "with"])[i ? 1 : 0];

/** Cartagena: the card (played, cast, discarded, taken or kept), then the pirate's location;
 * a move back or Morgan is its location alone. Two-card spells and the rum's deal name several
 * cards at once: they are chosen from the list. */
function cartagenaPicks(m) {
  const cards = m.card ? [m.card] : typeof m.keep === "string" ? [m.keep] : m.cards || [];
  if (cards.length > 1) return null;
  const steps = cards.map((c) => `card:${c}`);
  if (m.from !== undefined) steps.push(`loc:${m.from}`);
  return steps.length ? steps : null;
}

/** Elfenland (race and war): one click on any road the move uses (placing a counter, an
 * obstacle or a trunk on it, travelling, moving or attacking along it). */
function roadPicks(m) {
  const roads = [m.road, ...(m.roads || []),
    ...(m.steps || []).flatMap((s) => [s.road, ...(s.roads || [])])].filter((r) => r !== undefined);
  return roads.length ? [roads.map((r) => `road:${r}`)] : null;
}

function fits(step, key) {
  return Array.isArray(step) ? step.includes(key) : step === key;
}

function begins(steps, keys) {
  return !!steps && steps.length >= keys.length && keys.every((k, i) => fits(steps[i], k));
}

const kindOf = (key) => key.slice(0, key.indexOf(":"));

/** The clicks on one game page's picture. `play(move)` sends a move, `relist()` redraws the
 * list of moves (which shows only what `offers` accepts), `hint` is the page's live line. */
export function boardPicks({ picture, hint, play, relist }) {
  const frame = picture.parentElement;
  let layer = null, shown = null, view = null, picksOf = null, keys = [], arrange = null;
  let seat = null;

  const legal = () => (view && view.legal_moves) || [];
  const candidates = (sel) => legal().filter((m) => begins(picksOf(m), sel));

  /** A new picture and view: the layer is made again for another picture (a refresh that
   * brings the same one keeps it, so that no click lands on a layer being replaced); a
   * selection that no move begins with any more is dropped, and a setup being arranged is
   * kept. */
  function show(svg, v, ruleset) {
    view = v;
    picksOf = PICKS[ruleset] || (() => null);
    if (svg !== shown) {
      if (layer) layer.remove();
      shown = svg;
      layer = svg ? pickLayer(svg) : null;
      if (layer) {
        layer.addEventListener("click", onClick);
        frame.append(layer);
      }
    }
    if (keys.length && !candidates(keys).length) { keys = []; hint.replaceChildren(); }
    setupArranger(ruleset);
    drawMarks();
  }

  /** Stratego's setup, while the view asks for one: arranged piece by piece (arrange.js). */
  function setupArranger(ruleset) {
    const offered = legal().filter((m) => m.type === "setup");
    if (ruleset !== "stratego" || !offered.length) {
      if (arrange) { arrange.panel.remove(); arrange = null; }
      return;
    }
    if (!arrange || seat !== view.seat) {
      if (arrange) arrange.panel.remove();
      seat = view.seat;
      arrange = arranger({ seat, suggestions: offered.map((m) => m.placement), changed: drawMarks,
                           submit: (placement) => play({ type: "setup", placement }) });
      hint.after(arrange.panel);
    }
  }

  function onClick(ev) {
    const el = ev.target.closest && ev.target.closest("[data-pick]");
    if (!el) return;
    if (arrange && kindOf(el.dataset.pick) === "square") {
      arrange.put(el.dataset.pick.slice("square:".length));
      return;
    }
    click(el.dataset.pick);
  }

  function click(key) {
    if (!legal().length) { say("No move for you now."); return; }
    if (keys[keys.length - 1] === key) { reset(); return; }  // a second click lets go
    let sel = [...keys, key];
    let found = candidates(sel);
    if (!found.length && keys.length) {
      // another piece to start from; never a one-click move the player did not aim at
      const again = candidates([key]);
      if (again.some((m) => picksOf(m).length > 1)) { sel = [key]; found = again; }
    }
    if (!found.length) {
      keys = [];
      update(`No move ${sel.map((k, i) => `${word(k, i)} ${named(k)}`).join(" ")}.`);
      return;
    }
    const longer = found.filter((m) => picksOf(m).length > sel.length);
    if (found.length === 1 && !longer.length) { play(found[0]); return; }
    keys = sel;
    if (!longer.length) {
      update(`${found.length} moves use ${named(key)}: choose one below.`);
      return;
    }
    const next = WORDS[kindOf(firstKey(picksOf(longer[0])[sel.length]))];
    update(`${capital(named(key))} selected: click ${next ? next[2] : "the next"}, `
      + "or choose from the list.");
  }

  /** A key as the hints name it: "e4", "square 7", "the prison", "the rum card", or a road's
   * name from its tooltip in the picture. */
  function named(key) {
    const [kind, value] = [kindOf(key), key.slice(key.indexOf(":") + 1)];
    if (kind === "square") return value;
    if (kind === "loc") return /^\d+$/.test(value) ? `square ${value}` : `the ${value}`;
    if (kind === "card") return `the ${value.replace(/-\d+$/, "")} card`;
    const el = layer && picked(layer, key)[0];
    return (el && el.querySelector("title")?.textContent) || `${kind} ${value}`;
  }

  /** The hint, the list and the marks after the selection changed. */
  function update(text) {
    say(text);
    relist();
    drawMarks();
  }

  function say(text) {
    hint.replaceChildren(text);
    if (keys.length) {
      hint.append(" ", h("button", { type: "button", class: "unpick", onclick: () => reset() },
        "Show all moves"));
    }
  }

  /** The selection outlined, and where the next click may go. */
  function drawMarks() {
    if (!layer) return;
    clearMarks(layer);
    if (arrange) {
      arrange.marks((square, code) => drawPiece(layer, `square:${square}`, seat, code),
                    (square) => drawMark(layer, `square:${square}`, "target"));
      return;
    }
    for (const key of keys) drawMark(layer, key, "mark");
    const nexts = new Set();
    for (const m of candidates(keys)) {
      const step = keys.length ? picksOf(m)[keys.length] : undefined;
      for (const key of [step || []].flat()) nexts.add(key);
    }
    for (const key of nexts) if (picked(layer, key).length) drawMark(layer, key, "target");
  }

  /** Whether the list of moves shows `move`: every move, or those the clicks so far begin. */
  function offers(move) {
    return !keys.length || begins(picksOf(move), keys);
  }

  /** Forget the selection (a move was sent, or the player asked for every move again). */
  function reset() {
    const had = keys.length;
    keys = [];
    hint.replaceChildren();
    if (had) relist();
    drawMarks();
  }

  picture.addEventListener("click", () => { if (keys.length) reset(); });
  return { show, offers, reset };
}

/** "The rum card selected"; a square keeps its name ("e4 selected"). */
const capital = (text) => text.replace(/^the /, "The ");

function firstKey(step) {
  return Array.isArray(step) ? step[0] : step;
}
