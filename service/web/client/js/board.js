// The board picture (GET /v1/games/{id}/board.svg, the caller's seat's view) as an <img>, and
// the layer over it that clicks land on (what a click means is picks.js).

const CODES = { marshal: "M", general: "9", colonel: "8", major: "7", captain: "6",
                lieutenant: "5", sergeant: "4", miner: "3", scout: "2", spy: "S",
                bomb: "B", flag: "F" };

/** A move in the game's notation where the client knows it (Stratego), else compact JSON. */
export function notation(ruleset, move) {
  if (ruleset === "stratego") {
    if (move.type === "move") return `${move.from}-${move.to}`;
    if (move.type === "setup") {
      return ["setup", ...Object.entries(move.placement)
        .map(([sq, p]) => `${sq}=${CODES[p] || p}`)].join(" ");
    }
    return String(move.type);
  }
  return JSON.stringify(move);
}

// ---- the layer that clicks land on ------------------------------------------------------------
// The picture stays an <img> (a blob: URL). Over it lies an inline <svg class="picks">: a copy
// of the picture's clickable shapes (those the engine marked `data-pick="road:13"`, with what
// encloses them, for their place), invisible, so that the browser hit-tests any shape (a curved
// road, a card) exactly; and a visible group for what the client draws itself (a selection,
// the possible targets, a setup being arranged). The copy has no <style>, no style="" and no
// id: the CSP refuses inline styles, and the ids are the page's own (the <img> is #board).

const SVG = "http://www.w3.org/2000/svg";

/** The layer for a picture's text, or null where nothing in it can be clicked. */
export function pickLayer(svgText) {
  // stripped before parsing: even a parsed document reports the styles the CSP refuses
  const clean = svgText.replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/\sstyle=("[^"]*"|'[^']*')/g, "");
  const source = new DOMParser().parseFromString(clean, "image/svg+xml").documentElement;
  if (source.localName !== "svg" || !source.querySelector("[data-pick]")) return null;
  prune(source);
  const layer = svgElement("svg", { class: "picks", viewBox: source.getAttribute("viewBox"),
                                    "aria-hidden": "true", focusable: "false" });
  const hits = svgElement("g", { class: "hits" });
  hits.append(...[...source.childNodes].map((n) => document.importNode(n, true)));
  for (const el of hits.querySelectorAll("[id]")) el.removeAttribute("id");
  // the font sizes are in the picture's <style>: the copy's texts would stand larger than
  // drawn, so a click hits the shapes alone (a square, a card, a road)
  for (const el of hits.querySelectorAll("text")) el.remove();
  layer.append(svgElement("g", { class: "marks" }), hits);
  return layer;
}

/** Keep only the picks, what they hold and what holds them (a transform places them). */
function prune(node) {
  for (const child of [...node.children]) {
    if (child.hasAttribute("data-pick")) continue;
    if (child.querySelector("[data-pick]")) prune(child);
    else child.remove();
  }
}

function svgElement(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return el;
}

/** The shapes a pick key names in the layer (a key may be drawn more than once). */
export function picked(layer, key) {
  return [...layer.querySelectorAll(".hits [data-pick]")].filter((el) => el.dataset.pick === key);
}

/** A shape's box in the picture's units, from where the browser laid it out. */
function boxOf(layer, el) {
  const outer = layer.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  if (!outer.width) return null;
  const k = layer.viewBox.baseVal.width / outer.width;
  return { x: (r.left - outer.left) * k, y: (r.top - outer.top) * k,
           w: r.width * k, h: r.height * k };
}

/** Outline what a key names: a road is traced along its own path, anything else boxed.
 * `kind` is a class of style.css: "mark" (selected) or "target" (a possible next click). */
export function drawMark(layer, key, kind) {
  const marks = layer.querySelector(".marks");
  for (const el of picked(layer, key)) {
    if (el.localName === "path") {
      // the path in the picture's units: its own transform and its groups' (the map's offset)
      const m = layer.getScreenCTM()?.inverse().multiply(el.getScreenCTM());
      if (!m) continue;
      marks.append(svgElement("path", { d: el.getAttribute("d"), class: `${kind} road`,
        transform: `matrix(${m.a} ${m.b} ${m.c} ${m.d} ${m.e} ${m.f})` }));
      continue;
    }
    const box = boxOf(layer, el);
    if (box) marks.append(svgElement("rect", { x: box.x - 1, y: box.y - 1, width: box.w + 2,
                                              height: box.h + 2, rx: 4, class: kind }));
  }
}

/** A piece the player is placing (a Stratego setup not yet sent), drawn as the engine draws
 * it: a disc for Red (seat 0), a square for Blue, its code on it. */
export function drawPiece(layer, key, seat, code) {
  const marks = layer.querySelector(".marks");
  for (const el of picked(layer, key)) {
    const box = boxOf(layer, el);
    if (!box) continue;
    const cx = box.x + box.w / 2, cy = box.y + box.h / 2, r = box.w * 0.39;
    marks.append(seat === 0
      ? svgElement("circle", { cx, cy, r, class: "piece red" })
      : svgElement("rect", { x: cx - r * 0.84, y: cy - r * 0.84, width: r * 1.68,
                             height: r * 1.68, rx: 3, class: "piece blue" }));
    const text = svgElement("text", { x: cx, y: cy + r * 0.36, class: "code",
                                      "font-size": r });
    text.textContent = code;
    marks.append(text);
  }
}

/** Remove every mark the client drew. */
export function clearMarks(layer) {
  layer.querySelector(".marks").replaceChildren();
}
