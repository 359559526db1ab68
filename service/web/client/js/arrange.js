// A Stratego setup arranged piece by piece: choose a piece from the palette of those still to
// place, then its square (on the picture, or in the grid of home squares for the keyboard);
// fill the rest at random or start from a suggested setup; send it when every piece stands.
// The setup is the player's secret until sent, so it lives only here (drawn over the picture
// by picks.js), kept while live updates redraw the page.
import { h } from "./dom.js";

/** The pieces strongest first, with the names and codes the picture uses. */
const PIECES = [["marshal", "Marshal", "M"], ["general", "General", "9"],
  ["colonel", "Colonel", "8"], ["major", "Major", "7"], ["captain", "Captain", "6"],
  ["lieutenant", "Lieutenant", "5"], ["sergeant", "Sergeant", "4"], ["miner", "Miner", "3"],
  ["scout", "Scout", "2"], ["spy", "Spy", "S"], ["bomb", "Bomb", "B"], ["flag", "Flag", "F"]];
const CODE = Object.fromEntries(PIECES.map(([id, , code]) => [id, code]));
const NAME = Object.fromEntries(PIECES.map(([id, name]) => [id, name]));
const FILES = "abcdefghij";

/** The seat's home squares as the picture shows them, row by row from the top: Red (seat 0)
 * has ranks 4 to 1 with files a to j; Blue sees the board turned, ranks 7 to 10, files j to a. */
function homeRows(seat) {
  const ranks = seat === 0 ? [4, 3, 2, 1] : [7, 8, 9, 10];
  const files = seat === 0 ? [...FILES] : [...FILES].reverse();
  return ranks.map((r) => files.map((f) => `${f}${r}`));
}

function count(placement) {
  const out = {};
  for (const piece of Object.values(placement)) out[piece] = (out[piece] || 0) + 1;
  return out;
}

/** A fair shuffle (the setup is a secret; Math.random would do, but costs the same). */
function shuffled(items) {
  const out = [...items];
  const draws = crypto.getRandomValues(new Uint32Array(out.length));
  for (let i = out.length - 1; i > 0; i--) {
    const j = draws[i] % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The arranger: `panel` to show, `put(square)` for a click on the picture, `marks(piece,
 * target)` to draw the arrangement; `changed()` asks for the marks again, `submit(placement)`
 * sends the setup. The army is the suggested setups' (every one holds the whole army). */
export function arranger({ seat, suggestions, changed, submit }) {
  const army = count(suggestions[0]);
  const rows = homeRows(seat);
  const home = new Set(rows.flat());
  let placement = {}, chosen = null;

  const left = () => {
    const used = count(placement);
    return Object.fromEntries(Object.entries(army).map(([p, n]) => [p, n - (used[p] || 0)]));
  };
  const done = () => Object.values(left()).every((n) => n === 0);

  const palette = h("div", { class: "palette", role: "group", "aria-label": "Pieces to place" });
  const grid = h("div", { class: "homes", role: "group",
                          "aria-label": "Your home squares (arrow keys move between them)" });
  const note = h("p", { id: "arrange-note", "aria-live": "polite" });
  const send = h("button", { type: "button", id: "arrange-submit", onclick: () => sendIt() },
    "Send this setup");
  const panel = h("section", { id: "arrange", class: "arrange", "aria-labelledby": "arrange-title" },
    h("h2", { id: "arrange-title" }, "Arrange your setup"),
    h("p", {}, "Choose a piece, then its square: on the board or in the grid below. A placed "
      + "piece chosen again is taken up, to go on another square. Or send one of the suggested "
      + "setups from the list of moves."),
    palette, grid, note,
    h("div", { class: "arrange-actions" },
      h("button", { type: "button", id: "arrange-random", onclick: () => fillRandom() },
        "Fill the rest at random"),
      suggestions.map((s, i) => h("button", { type: "button", class: "suggest", "data-index": i,
        onclick: () => { placement = { ...s }; chosen = null; redraw(`Suggestion ${i + 1} laid out.`); } },
        `Start from suggestion ${i + 1}`)),
      h("button", { type: "button", id: "arrange-clear",
        onclick: () => { placement = {}; chosen = null; redraw("Cleared."); } }, "Clear"),
      send));

  /** A click on a square (on the picture or in the grid). */
  function put(square) {
    if (!home.has(square)) { redraw(`${square} is not one of your home squares.`); return; }
    const there = placement[square];
    if (chosen) {
      placement[square] = chosen;
      const placed = NAME[chosen];
      if (!left()[chosen]) chosen = there || null;  // the last of its kind: hold what was there
      redraw(`${placed} on ${square}.${there ? ` ${NAME[there]} taken up.` : ""}`);
    } else if (there) {
      delete placement[square];
      chosen = there;
      redraw(`${NAME[there]} taken up from ${square}: choose its new square.`);
    } else {
      redraw("Choose a piece first.");
    }
  }

  function choose(piece) {
    chosen = chosen === piece ? null : piece;
    redraw(chosen ? `${NAME[piece]} chosen: click its square.` : "");
  }

  function fillRandom() {
    const pieces = Object.entries(left()).flatMap(([p, n]) => Array(n).fill(p));
    const free = shuffled([...home].filter((sq) => !placement[sq]));
    pieces.forEach((p, i) => { placement[free[i]] = p; });
    chosen = null;
    redraw(`${pieces.length} pieces placed at random.`);
  }

  function sendIt() {
    if (!done()) { redraw("Place every piece first."); return; }
    submit({ ...placement });
  }

  /** The palette, the grid and the marks again, and a word of what happened. */
  function redraw(text) {
    if (text !== undefined) note.textContent = text;
    const rest = left();
    palette.replaceChildren(...PIECES.filter(([p]) => army[p]).map(([p, name, code]) =>
      h("button", { type: "button", class: "piece", "data-piece": p, "aria-pressed": String(chosen === p),
        disabled: !rest[p] && chosen !== p, onclick: () => choose(p) }, `${name} (${code}) \u00d7${rest[p]}`)));
    drawGrid();
    send.disabled = !done();
    changed();
  }

  /** One button per home square, one Tab stop for all: the arrow keys move between them. */
  function drawGrid() {
    const focused = grid.contains(document.activeElement) ? document.activeElement.dataset.square : null;
    const current = focused || grid.querySelector("[tabindex='0']")?.dataset.square || rows[0][0];
    grid.replaceChildren(...rows.map((row, r) => h("div", { class: "home-row" }, row.map((sq, c) =>
      h("button", { type: "button", class: "home", "data-square": sq, tabindex: sq === current ? 0 : -1,
        "aria-label": `${sq}: ${placement[sq] ? NAME[placement[sq]] : "empty"}`,
        onclick: () => put(sq), onkeydown: (ev) => step(ev, r, c) },
      placement[sq] ? CODE[placement[sq]] : "\u00b7")))));
    if (focused) grid.querySelector(`[data-square='${focused}']`).focus();
  }

  function step(ev, r, c) {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const d = moves[ev.key];
    if (!d) return;
    ev.preventDefault();
    const sq = rows[Math.min(3, Math.max(0, r + d[0]))][Math.min(9, Math.max(0, c + d[1]))];
    for (const b of grid.querySelectorAll("button")) b.tabIndex = b.dataset.square === sq ? 0 : -1;
    grid.querySelector(`[data-square='${sq}']`).focus();
  }

  /** Draw the arrangement: `piece(square, code)` for each placed piece and, while a piece is
   * chosen, `target(square)` for each free home square. */
  function marks(piece, target) {
    for (const [sq, p] of Object.entries(placement)) piece(sq, CODE[p] || "?");
    if (chosen) for (const sq of home) if (!placement[sq]) target(sq);
  }

  redraw();
  return { panel, put, marks };
}
