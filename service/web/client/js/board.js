// The board picture (GET /v1/games/{id}/board.svg, the caller's seat's view) as an <img>, and
// where a click on it lands. The SVG is fetched with the token and shown from a blob: URL; its
// text is parsed (never inserted into the page) to learn the squares' cells.

const CODES = { marshal: "M", general: "9", colonel: "8", major: "7", captain: "6",
                lieutenant: "5", sergeant: "4", miner: "3", scout: "2", spy: "S",
                bomb: "B", flag: "F" };
const FILES = "abcdefghij";

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

/** Stratego's cells from the picture's text: the board group draws its 100 squares in order,
 * rank 1 to 10 and file a to j each (engines/stratego/svg.py, `_board`). */
export function strategoCells(svgText) {
  // without its <style>: the parsed copy is never drawn, and the page's CSP refuses it
  const doc = new DOMParser().parseFromString(svgText.replace(/<style[\s\S]*?<\/style>/g, ""),
                                              "image/svg+xml");
  const root = doc.documentElement;
  const [, , width, height] = (root.getAttribute("viewBox") || "0 0 1 1").split(/\s+/).map(Number);
  const rects = [...doc.querySelectorAll("#board rect")]
    .filter((r) => /\b(sq|lake)\b/.test(r.getAttribute("class") || ""));
  const cells = rects.slice(0, 100).map((r, i) => ({
    square: FILES[i % 10] + (Math.floor(i / 10) + 1),
    x: +r.getAttribute("x"), y: +r.getAttribute("y"),
    w: +r.getAttribute("width"), h: +r.getAttribute("height") }));
  return { width, height, cells };
}

/** The square under a click on the <img> showing the picture, or null. */
export function squareAt(layout, img, clientX, clientY) {
  const box = img.getBoundingClientRect();
  const x = ((clientX - box.left) / box.width) * layout.width;
  const y = ((clientY - box.top) / box.height) * layout.height;
  const cell = layout.cells.find((c) => x >= c.x && x < c.x + c.w && y >= c.y && y < c.y + c.h);
  return cell ? cell.square : null;
}
