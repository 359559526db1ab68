// Parley in a browser: routes (#/, #/game/ID, #/join/ID), the views, live updates.
import { cliConfig, importAccount, register } from "./account.js";
import { ApiError, fetchBlob, get, post, postMove } from "./api.js";
import { notation } from "./board.js";
import { download, h } from "./dom.js";
import { canonical } from "./jcs.js";
import { envelope, forgetAccount, loadAccount, randomB64url, signedJoin } from "./keys.js";
import { follow } from "./live.js";
import { boardPicks } from "./picks.js";
import { settingsView } from "./settings.js";

const main = document.getElementById("main");
const status = document.getElementById("status");
let account;
let stopLive = null;
let current = null;  // the game on screen: {id, refresh}
let routed = 0;  // counts routes: a view whose data comes after the next route is not shown

function say(text) { status.textContent = text; }

function show(title, ...content) {
  main.replaceChildren(h("h1", { id: "title", tabindex: "-1" }, title),
                      ...content.filter((c) => c !== null && c !== undefined));
  document.title = `${title} - Parley`;
}

function failed(err) {
  say(err instanceof ApiError ? `Refused: ${err.message}` : `Error: ${err.message}`);
}

// ---- registering ----------------------------------------------------------------------------

function registerView(then) {
  const name = h("input", { id: "name", name: "name", required: true, autocomplete: "nickname",
                            maxlength: 40 });
  const email = h("input", { id: "email", name: "email", type: "email", autocomplete: "email" });
  const form = h("form", { onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      say("Making your key...");
      const made = await register(name.value.trim(), email.value.trim());
      account = made.account;
      backupView(made.backup, then);
    } catch (err) { failed(err); }
  } },
  h("p", {}, "Your key is made in this browser and never leaves it; every move is signed with it."),
  h("label", { for: "name" }, "Name"), name,
  h("label", { for: "email" }, "Mail (optional, for turn mails)"), email,
  h("button", { type: "submit" }, "Register"));
  const pem = h("input", { id: "import-key", type: "file", accept: ".pem" });
  const cfg = h("input", { id: "import-config", type: "file", accept: ".json" });
  const imp = h("form", { onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      account = await importAccount(await pem.files[0].text(), await cfg.files[0].text());
      start(then);
    } catch (err) { failed(err); }
  } },
  h("h2", {}, "Already a player?"),
  h("p", {}, "Import the key file (key.pem) and config file (config.json) of the command-line client."),
  h("label", { for: "import-key" }, "Key file"), pem,
  h("label", { for: "import-config" }, "Config file"), cfg,
  h("button", { type: "submit" }, "Import"));
  show("Register", form, imp);
  say("");
}

function backupView(backup, then) {
  show("Save your key",
    h("p", {}, "This is the only time the key can be saved: this browser keeps it so that no page "
      + "can read it out again. With both files the command-line client plays as you too "
      + "(save them side by side, then `parley --config config.json games`)."),
    h("button", { id: "save-key", onclick: () => download("key.pem", backup, "application/x-pem-file") },
      "Download key.pem"),
    h("button", { id: "save-config", onclick: () => download("config.json", cliConfig(account), "application/json") },
      "Download config.json"),
    h("button", { id: "continue", onclick: () => start(then) }, "Continue"));
  say(`Registered as ${account.name}.`);
}

// ---- the lobby ------------------------------------------------------------------------------

function gameLine(game) {
  const deadline = game.deadline ? ` - deadline ${new Date(game.deadline).toLocaleString()}` : "";
  return h("li", {}, h("a", { href: `#/game/${game.id}` },
    `${game.ruleset} ${game.id} - ${game.status}${deadline}`));
}

async function lobbyView() {
  const route = routed;
  const [mine, all, rulesets, lobby] = await Promise.all([
    get(account, "/v1/players/me/games?turn=mine"), get(account, "/v1/players/me/games"),
    get(account, "/v1/rulesets"), get(account, "/v1/games?status=open&limit=50")]);
  const joinable = lobby.games.filter((g) => !g.players.some((p) => p.player === account.id));
  const openLine = (g) => h("li", {}, `${g.ruleset}${g.options.army ? ` (${g.options.army})` : ""}: `
    + `${g.players.filter((p) => p.player).length} of ${g.seats} seated`
    + (g.options.time_control ? `, ${Math.round(g.options.time_control.seconds_per_move / 3600)} h per move ` : " "),
    h("button", { class: "join", "data-game": g.id, onclick: () => join(g.id).catch(failed) },
      `Join ${g.id}`));
  const waiting = new Set(mine.games.map((g) => g.id));
  const others = all.games.filter((g) => !waiting.has(g.id));
  const list = Array.isArray(rulesets) ? rulesets : rulesets.rulesets;
  const choose = h("select", { id: "ruleset", onchange: () => optionsFor(choose.value) },
    list.map((r) => h("option", { value: r.id }, r.title || r.id)));
  const fields = h("div", { id: "options" });
  async function optionsFor(id) {
    const rs = await get(account, `/v1/rulesets/${id}`);
    if (choose.value !== id) return;  // another game was chosen meanwhile
    const players = h("input", { id: "opt-players", name: "players", type: "number",
      min: rs.min_players, max: rs.max_players, value: rs.min_players });
    const hours = h("input", { id: "opt-hours", name: "hours", type: "number", min: 1, max: 1440 });
    const rows = [h("label", { for: "opt-players" }, "Players"), players,
      h("label", { for: "opt-hours" }, "Hours per move (empty: no time limit; a late player forfeits)"), hours];
    for (const [name, spec] of Object.entries(rs.options)) {
      const id = `opt-${name}`;
      const input = spec.choices
        ? h("select", { id, name }, spec.choices.map((c) => h("option", { value: JSON.stringify(c),
            selected: JSON.stringify(c) === JSON.stringify(spec.default) }, String(c))))
        : h("input", { id, name, value: spec.default === null ? "" : JSON.stringify(spec.default) });
      rows.push(h("label", { for: id }, `${name}${spec.description ? ` (${spec.description})` : ""}`), input);
    }
    fields.replaceChildren(...rows);
    fields.dataset.ruleset = id;
  }
  const create = h("form", { onsubmit: async (ev) => {
    ev.preventDefault();
    const options = {};
    let players = 2, timeControl = null;
    for (const el of fields.querySelectorAll("input, select")) {
      if (el.name === "players") { players = Number(el.value); continue; }
      if (el.name === "hours") {
        if (el.value) timeControl = { seconds_per_move: Math.round(Number(el.value) * 3600) };
        continue;
      }
      if (el.value === "") continue;
      try { options[el.name] = JSON.parse(el.value); } catch { options[el.name] = el.value; }
    }
    try {
      const game = await post(account, "/v1/games", { ruleset: choose.value, players, options,
                                                      time_control: timeControl });
      await join(game.id);
    } catch (err) { failed(err); }
  } }, h("label", { for: "ruleset" }, "Game"), choose, fields,
  h("button", { type: "submit" }, "Create and join"));
  const code = h("input", { id: "join-id", placeholder: "g_...", required: true });
  const joinForm = h("form", { onsubmit: (ev) => {
    ev.preventDefault();
    const id = code.value.trim().replace(/^.*#\/(join|game)\//, "");
    location.hash = `#/join/${id}`;
  } }, h("label", { for: "join-id" }, "Game id or invitation link"), code,
  h("button", { type: "submit" }, "Join"));
  if (route !== routed) return;
  show(`Games of ${account.name}`,
    h("h2", {}, "Waiting for you"), h("ul", { id: "waiting" }, mine.games.map(gameLine)),
    mine.games.length ? null : h("p", {}, "Nothing waits for you."),
    h("h2", {}, "Your other games"), h("ul", { id: "games" }, others.map(gameLine)),
    h("h2", {}, "Open games to join"), h("ul", { id: "open-games" }, joinable.map(openLine)),
    joinable.length ? null : h("p", {}, "No open game of another player."),
    h("h2", {}, "New game"), create, h("h2", {}, "Join a game"), joinForm,
    h("h2", {}, "Account"),
    h("button", { id: "save-config", onclick: () => download("config.json", cliConfig(account), "application/json") },
      "Download config.json (for the command-line client)"),
    h("button", { id: "sign-out", onclick: async () => { await forgetAccount(); location.hash = "#/"; location.reload(); } },
      "Forget this account in this browser"));
  await optionsFor(choose.value);
}

async function join(gid) {
  try {
    await post(account, `/v1/games/${gid}/join`, await signedJoin(account, gid, randomB64url(16)));
    say(`Joined ${gid}.`);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 409)) throw err;
    say(err.message);
  }
  location.hash = `#/game/${gid}`;
}

// ---- a game ---------------------------------------------------------------------------------

// an event as the server tells it (`text`, the engines' sentences with the players' names; ""
// for one not worth a line), or, from a server without it, its type and fields
function sentence(ev, seatName) {
  if (typeof ev.text === "string") return ev.text;
  const e = ev.event || {};
  const who = e.seat !== undefined ? `${seatName(e.seat)} ` : "";
  const parts = Object.entries(e).filter(([k]) => !["type", "seat"].includes(k))
    .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`);
  return `#${ev.seq ?? ""} ${who}${String(e.type || "event").replaceAll("_", " ")}`
    + (parts.length ? `: ${parts.join(", ")}` : "");
}

async function gameView(gid) {
  const route = routed;
  const picture = h("img", { id: "board", alt: "The board" });
  const board = h("div", { class: "board" }, picture);
  const info = h("p", { id: "game-status" });
  const hint = h("p", { id: "hint", "aria-live": "polite" });
  const moves = h("ol", { id: "moves", class: "moves" });
  const box = h("input", { id: "notation", autocomplete: "off", spellcheck: "false" });
  const form = h("form", { id: "notation-form", onsubmit: (ev) => { ev.preventDefault(); typed(); } },
    h("label", { for: "notation" }, "Move (its number or notation)"), box,
    h("button", { type: "submit" }, "Play"));
  const resign = h("button", { id: "resign", onclick: () => askResign() }, "Resign");
  const after = h("div", { id: "after" });
  const events = h("ol", { id: "events", class: "events" });
  const invite = h("p", { id: "invite" });
  let view, summary, generation = 0, pictureUrl = null;
  // clicks on the picture (picks.js): they narrow the list of moves, or play one
  const picks = boardPicks({ picture, hint, play: (m) => play(m), relist: () => listMoves() });

  show(`Game ${gid}`, info, invite, board, hint, h("h2", {}, "Your moves"), moves, form, resign,
    after, h("h2", {}, "What happened (latest first)"), events);

  const names = new Map();  // player id -> name, read once per game page
  const seatName = (seat) => {
    const p = (summary.players || []).find((x) => x.seat === seat);
    if (p && p.player === account.id) return "you";
    return (p && names.get(p.player)) || (p && p.player ? "someone" : "nobody yet");
  };
  async function readNames(players) {
    const unknown = players.filter((p) => p.player && !names.has(p.player));
    await Promise.all(unknown.map(async (p) => {
      names.set(p.player, (await get(account, `/v1/players/${p.player}`)).name);
    }));
  }

  async function refresh() {
    const mine = ++generation;
    const [v, s] = await Promise.all([
      get(account, `/v1/games/${gid}/view`), get(account, `/v1/games/${gid}`), readEvents()]);
    await readNames(s.players || []);
    let svg = null;
    if (v.status !== "open") svg = await (await fetchBlob(account, `/v1/games/${gid}/board.svg`)).text();
    if (mine !== generation || route !== routed) return;  // a newer refresh, or another page
    view = v; summary = s;
    render(svg);
  }

  // the events arrive once each: every refresh reads on from the last page's cursor
  let cursor = "", seen = [], reading = null;
  function readEvents() {
    reading = (reading || Promise.resolve()).catch(() => {}).then(async () => {
      for (;;) {
        const page = await get(account, `/v1/games/${gid}/events?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
        seen = seen.concat(page.events);
        cursor = page.next;
        if (page.events.length < 200) return;
      }
    });
    return reading;
  }

  function render(svg) {
    const refocus = main.contains(document.activeElement) && document.activeElement.closest("#moves");
    const toAct = (view.to_act || []).map(seatName).join(", ");
    const yours = (view.to_act || []).includes(view.seat);
    const deadline = summary.deadline ? ` Time left: ${timeLeft(summary.deadline)}.` : "";
    const ended = seen.findLast((e) => e.event && e.event.type === "game_finished" && e.text);
    info.textContent = view.status === "finished"
      ? `Finished. ${ended ? ended.text : JSON.stringify(view.result)}`
      : view.status === "active"
        ? `Step ${view.step}. ${yours ? "Your turn." : `Waiting for ${toAct}.`}${deadline}`
          + clockLine(view.clocks, seatName)
        : `Waiting for players (${view.status}).`;
    info.dataset.step = String(view.step);
    info.dataset.status = view.status;
    info.dataset.seat = String(view.seat);
    info.dataset.version = `${view.step}.${seen.length ? seen[seen.length - 1].id : 0}`;
    invite.replaceChildren();
    if (view.status === "open") {
      const link = `${location.origin}/#/join/${gid}`;
      invite.append("Invite a friend with this link: ", h("a", { id: "invite-link", href: link }, link));
    }
    if (svg) {
      if (pictureUrl) URL.revokeObjectURL(pictureUrl);
      pictureUrl = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
      picture.src = pictureUrl;
      picture.alt = view.text || "The board";
      picks.show(svg, view, summary.ruleset);
    }
    listMoves();
    resign.hidden = view.status !== "active";
    after.replaceChildren();
    if (view.status === "finished") {
      after.append(h("h2", {}, "The game is over"),
        h("p", {}, "Download the audit bundle and check it offline with `parley verify audit.json`: "
          + "every move's signature, the dice and the result."),
        h("button", { id: "audit", onclick: saveAudit }, "Download the audit"));
    }
    const told = seen.map((e) => sentence(e, seatName)).filter((t) => t);
    events.replaceChildren(...told.slice(-100).reverse().map((t) => h("li", {}, t)));
    if (refocus) (moves.querySelector("button") || box).focus();
  }

  function listMoves() {
    const legal = view.legal_moves || [];
    const shown = legal.map((m, i) => [m, i]).filter(([m]) => picks.offers(m));
    moves.replaceChildren(...shown.map(([m, i]) => h("li", {},
      h("button", { class: "move", "data-index": i, onclick: () => play(m) },
        `${i + 1}. ${moveText(m)}`))));
    if (!legal.length) moves.append(h("li", {}, "No move for you now."));
  }

  // a move in the game's notation: the view lists each legal move's (`legal_moves_notation`);
  // another (a setup arranged on the board) in the client's own Stratego notation, else JSON
  function moveText(move) {
    const legal = view.legal_moves || [], texts = view.legal_moves_notation || [];
    let i = legal.indexOf(move);
    if (i < 0) i = legal.findIndex((m) => sameMove(m, move));
    return texts[i] ?? notation(summary.ruleset, move);
  }

  // the notation box: a move's number, or a move typed in the game's notation, matched against
  // the listed moves (exactly, else ignoring case) and otherwise read by the server
  // (POST /v1/rulesets/{id}/notation): a listing may offer only examples (a setup)
  async function typed() {
    const text = box.value.trim();
    if (!text) return;
    const legal = view.legal_moves || [], texts = view.legal_moves_notation || [];
    let move = /^\d+$/.test(text) ? legal[Number(text) - 1] : undefined;
    if (!move) {
      const exact = texts.indexOf(text);
      const folded = texts.filter((t) => t.toLowerCase() === text.toLowerCase());
      const i = exact >= 0 ? exact : folded.length === 1 ? texts.indexOf(folded[0]) : -1;
      move = legal[i];
    }
    if (!move) {
      try {
        move = (await post(account, `/v1/rulesets/${summary.ruleset}/notation`, { text })).move;
      } catch (err) {
        if (err instanceof ApiError && err.status === 422) say(`"${text}": ${err.message}`);
        else failed(err);
        return;
      }
    }
    box.value = "";
    play(move);
  }

  /** How often the game's log holds this very move of ours at this step. */
  async function timesMade(move) {
    const audit = await get(account, `/v1/games/${gid}/audit`);
    const same = canonical([view.seat, view.step, move]);
    return audit.entries.filter((e) => e.envelope && canonical(
      [e.envelope.payload.seat, e.envelope.payload.step, e.envelope.payload.move]) === same).length;
  }

  async function play(move) {
    picks.reset();
    try {
      const path = `/v1/games/${gid}/moves`;
      let answer;
      try {  // signed once, posted until an answer comes (postMove)
        answer = await postMove(account, path,
          await envelope(account, gid, view.seat, view.step, move));
      } catch (err) {
        // the very same move made at this step before (a second unit of one kind): it is
        // signed once more as its next repeat, counted in the game's log (docs/audit.md §6)
        const made = err instanceof ApiError && err.problem.code === "duplicate_nonce"
          ? await timesMade(move) : 0;
        if (!made) throw err;
        answer = await postMove(account, path,
          await envelope(account, gid, view.seat, view.step, move, made));
      }
      let state = answer.data;
      const where = answer.headers.get("Location");
      for (let i = 0; state.status === "queued" && where && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 100));
        state = await get(account, where);
      }
      say(state.status === "rejected" ? `Refused: ${state.code || "rejected"}`
        : `Played ${moveText(move)}.`);
    } catch (err) { failed(err); }
    await refresh();
  }

  function askResign() {
    const sure = h("button", { id: "resign-confirm", onclick: () => { sure.remove(); play({ type: "resign" }); } },
      "Yes, resign");
    resign.after(sure);
    sure.focus();
  }

  async function saveAudit() {
    const resp = await fetchBlob(account, `/v1/games/${gid}/audit`);
    download(`audit-${gid}.json`, await resp.blob(), "application/json");
  }

  current = { id: gid, refresh: () => refresh().catch(failed) };
  await refresh();
}

/** Whether two moves are the same JSON object (the keys in any order). */
function sameMove(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || !a || !b) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameMove(a[k], b[k]));
}

function timeLeft(deadline) {
  return span(Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000)));
}

function span(s) {
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  return s > 3600 ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
    : `${Math.floor(s / 60)} min ${s % 60} s`;
}

// every seat's clock: time left, whether it runs, and a vacation (games.md "Clocks")
function clockLine(clocks, seatName) {
  if (!clocks) return "";
  return " Clocks: " + clocks.map((c) => `${seatName(c.seat)} ${span(c.left)}`
    + (c.running ? " (running)" : "")
    + (c.away_until ? `, away until ${new Date(c.away_until).toLocaleString()}` : "")).join("; ")
    + ".";
}

// ---- routing and live updates ---------------------------------------------------------------

async function route() {
  current = null;
  const mine = ++routed;
  const hash = location.hash || "#/";
  const joining = /^#\/join\/(g_[\w-]+)$/.exec(hash);
  if (!account) { registerView(hash); return; }
  try {
    if (joining) await join(joining[1]);
    else if (/^#\/game\/(g_[\w-]+)$/.test(hash)) await gameView(hash.split("/")[2]);
    else if (hash === "#/settings") {
      const content = await settingsView(account, say);
      if (mine === routed) show("Settings", ...content);
    }
    else await lobbyView();
    document.getElementById("title")?.focus();
  } catch (err) { failed(err); }
}

function start(then) {
  if (stopLive) stopLive();
  stopLive = follow(account, (name, data) => {
    if (name === "ready") { document.body.dataset.live = "ready"; return; }
    if (current && (data.game === current.id || name === "reconnect")) current.refresh();
  });
  if (then && then !== location.hash) location.hash = then;
  else route();
}

window.addEventListener("hashchange", route);
account = await loadAccount();
if (account) start(location.hash); else route();
