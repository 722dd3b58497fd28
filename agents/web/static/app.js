// The page: Play (you against an agent), Watch (two agents), Replay (a recorded game),
// Tournament (a results folder's standings). Every game is a list of frames, one per
// action (agents/web/views.py), shown one at a time by the same board and stepper.
"use strict";

const $ = (selector) => document.querySelector(selector);
const $$ = (selector) => Array.from(document.querySelectorAll(selector));

const view = {
  info: null,
  frames: [],
  cursor: 0,           // the frame shown
  follow: false,       // advance to the newest frame at the set speed
  seats: ["seat 0", "seat 1"],
  person: null,        // the person's seat in a game being played
  gameId: null,
  waiting: null,       // the decision asked of the person
  record: null,
  source: null,        // the EventSource of the live game
  drawing: null,       // the board's drawing of the frame shown (boards.js), or null
  choices: new Map(),  // the person's legal [action, side] pairs by the cell they are clicked on
  focus: null,         // the cell under the keyboard cursor
  hover: null,         // the cell under the mouse
  timer: null,
  tournamentTimer: null,
};

// --- Requests --------------------------------------------------------------------------

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new Error(`the server does not answer (${error.message})`);
  }
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(answer.error || `HTTP ${response.status}`);
  return answer;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function guarded(action) {
  try {
    showError("");
    await action();
  } catch (error) {
    showError(error.message);
  }
}

// --- Forms -----------------------------------------------------------------------------

function gameInfo(name) {
  return view.info.games.find((game) => game.name === name);
}

function fillRules(form) {
  const game = gameInfo(form.elements.game.value);
  const rules = form.querySelector(".rules");
  rules.textContent = "";
  for (const [name, value] of Object.entries(game.params)) {
    const label = document.createElement("label");
    label.textContent = `${name.replace("_", " ")} `;
    const input = document.createElement("input");
    input.name = `param-${name}`;
    input.dataset.param = name;
    input.dataset.kind = typeof value;
    input.value = value;
    input.placeholder = `${value}`;
    // The rule's range is the game's to check (its make_config): the server says what is wrong.
    if (typeof value === "number") input.type = "number";
    label.append(input);
    rules.append(label);
  }
  $("#agent-names").textContent = "";
  for (const name of game.agents) {
    const option = document.createElement("option");
    option.value = name;
    $("#agent-names").append(option);
  }
}

// The rules filled in; a field left blank is left to the game's default.
function readRules(form) {
  const params = {};
  for (const input of form.querySelectorAll("[data-param]")) {
    if (input.value.trim() === "") continue;
    params[input.dataset.param] = input.dataset.kind === "number" ? Number(input.value) : input.value;
  }
  return params;
}

async function loadInfo() {
  view.info = await api("/api/info");
  for (const select of $$(".game-select")) {
    for (const game of view.info.games) {
      const option = document.createElement("option");
      option.value = game.name;
      option.textContent = game.title;
      select.append(option);
    }
    select.addEventListener("change", () => fillRules(select.form));
    fillRules(select.form);
  }
  await loadFolders();
}

async function loadFolders() {
  const answer = await api("/api/results");
  for (const select of $$(".folder-select")) {
    select.textContent = "";
    for (const folder of answer.folders) {
      const option = document.createElement("option");
      option.value = folder;
      option.textContent = folder === "." ? "(the root)" : folder;
      select.append(option);
    }
    if (!answer.folders.length) {
      const option = document.createElement("option");
      option.value = "";
      option.textContent = "(no results.jsonl under the root)";
      select.append(option);
    }
    for (const note of answer.notes) {
      select.append(Object.assign(document.createElement("option"), { textContent: note, disabled: true }));
    }
  }
}

// --- Live games ------------------------------------------------------------------------

async function startGame(body, person) {
  stopGame();
  $("#status").textContent = "starting the agents…";
  const answer = await api("/api/games", body).finally(() => { $("#status").textContent = ""; });
  showFrames([], answer.seats, true);
  view.gameId = answer.id;
  view.person = person;
  const source = new EventSource(`/api/games/${answer.id}/events`);
  view.source = source;
  source.onmessage = (event) => {
    const message = JSON.parse(event.data);
    view.frames.push(...message.frames);
    view.waiting = message.waiting;
    view.record = message.record;
    if (message.record && message.record.error) showError(message.record.error);
    draw();
    advance();
  };
  source.addEventListener("end", () => source.close());
  source.onerror = () => {
    if (!view.record) showError("the connection to the game was lost");
    source.close();
  };
}

function stopGame() {
  if (view.source) view.source.close();
  if (view.gameId && !view.record) api(`/api/games/${view.gameId}/close`, {}).catch(() => {});
  view.source = view.gameId = view.waiting = view.record = null;
  view.person = null;
}

async function choose(action, text) {
  if (!isPersonToChoose()) return;
  // Asked no more from now: the next question may arrive before this answer's reply.
  const asked = view.waiting;
  view.waiting = null;
  draw();
  await guarded(async () => {
    try {
      await api(`/api/games/${view.gameId}/action`, text === undefined ? { action } : { text });
    } catch (error) {
      if (view.waiting === null) view.waiting = asked;
      draw();
      throw error;
    }
  });
}

// A click on a cell (on one of its sides: that side's action) or Enter on it: its action,
// or a message when the cell alone does not say which one.
function chooseAt(cell, sideElement) {
  const choices = view.choices.get(cell) || [];
  const name = view.drawing.cellName(cell);
  if (sideElement) choose(Number(sideElement.dataset.action));
  else if (choices.length === 1) choose(choices[0][0]);
  else if (choices.length) showError(`cell ${name} has ${choices.length} choices: click one of its sides, or type the action`);
  else showError(`cell ${name} is not a legal choice; the legal ones are highlighted`);
}

function isPersonToChoose() {
  return view.waiting !== null && view.cursor === view.frames.length - 1;
}

// --- Showing frames --------------------------------------------------------------------

function showFrames(frames, seats, follow) {
  view.frames = frames;
  view.seats = seats;
  view.cursor = 0;
  view.follow = follow;
  view.record = null;
  view.waiting = null;
  draw();
  advance();
}

function frameDelay() {
  const delay = Number($("#speed").value);
  return view.person === null ? delay : delay / 2;  // playing: the agent's reply quicker
}

function advance() {
  if (view.timer || !view.follow || view.cursor >= view.frames.length - 1) return;
  view.timer = setTimeout(() => {
    view.timer = null;
    view.cursor = Math.min(view.cursor + 1, view.frames.length - 1);
    draw();
    advance();
  }, frameDelay());
}

function step(to) {
  if (!view.frames.length) return;
  view.cursor = Math.max(0, Math.min(to, view.frames.length - 1));
  // Back at the newest frame of a live game: follow it again.
  view.follow = view.source !== null && view.cursor === view.frames.length - 1;
  draw();
}

function draw() {
  const frame = view.frames[view.cursor];
  const board = $("#board");
  const text = $("#board-text");
  drawSeats(frame);
  $("#step-count").textContent = view.frames.length ? `${view.cursor} / ${view.frames.length - 1}` : "";
  if (!frame) {
    board.textContent = "";
    text.hidden = true;
    return;
  }
  board.dataset.frame = frame.index;
  board.dataset.decision = frame.decision;
  board.dataset.over = frame.outcome ? "true" : "false";
  const drawing = boardFor(frame);
  view.drawing = drawing;
  view.choices = choicesOf(drawing);
  text.hidden = drawing !== null;
  text.textContent = frame.text;
  if (drawing) {
    drawGrid(board, drawing, decorOf(frame, drawing), chooseAt, hoverOn);
  } else {
    board.textContent = "";
    delete board.dataset.shape;
  }
  drawLegend($("#legend"), drawing);
  $("#status").textContent = statusText(frame);
  $("#action-form").hidden = !isPersonToChoose();
  if (isPersonToChoose()) $("#action-text").placeholder = view.waiting.texts[view.waiting.legal[0]];
  drawOffBoard();
  const record = view.record && view.record.actions ? JSON.stringify(view.record) : "";
  $("#record-box").hidden = !record;
  if ($("#record-text").value !== record) $("#record-text").value = record;
  $("#odds").textContent = oddsText(frame);
}

// The person's legal actions by the cell of the board they are clicked on: [action, side]
// pairs (side null: a click on the cell; a column's action is on each of its cells).
function choicesOf(drawing) {
  const choices = new Map();
  if (!drawing || !isPersonToChoose()) return choices;
  for (const action of view.waiting.legal) {
    for (const [cell, side] of drawing.clicksOf(action)) {
      choices.set(cell, [...(choices.get(cell) || []), [action, side]]);
    }
  }
  return choices;
}

// What the frame adds to the board: the person's legal cells, their sides and the cursor,
// the last decision's cell (with sides: its new wall), the last chance node's aim and
// landing, and chance odds on the cells they are about.
function decorOf(frame, drawing) {
  const choosing = isPersonToChoose();
  const last = frame.board.last === null ? null : drawing.placeOf(frame.board.last);
  const [aimed, landed] = frame.last_chance && isLanding(frame)
    ? frame.last_chance.map((action) => drawing.placeOf(action)) : [null, null];
  const odds = new Map();
  for (const [outcome, p] of chanceOdds(frame)) {
    const place = drawing.placeOf(outcome);
    if (place) odds.set(place.cell, p);
  }
  return {
    odds,
    classes(cell) {
      const classes = [];
      if (view.choices.has(cell)) classes.push("legal");
      if (cell === view.focus && choosing) classes.push("cursor");
      if (last && last.cell === cell) {
        classes.push("last", ...(last.side === null ? [] : [`new-wall-${SIDES[last.side]}`]));
      }
      if (aimed && aimed.cell === cell) classes.push("thrown-at");
      if (landed && landed.cell === cell) classes.push("landed");
      if (odds.has(cell)) classes.push("odds");
      return classes;
    },
    sides: (cell) => (view.choices.get(cell) || []).filter(([, side]) => side !== null),
  };
}

function hoverOn(cell) {
  view.hover = cell;
  draw();
}

// Legal actions that no click on the board reaches (Othello's pass) get a button each.
function drawOffBoard() {
  const box = $("#off-board");
  box.textContent = "";
  if (!isPersonToChoose() || !view.drawing) return;
  for (const action of view.waiting.legal.filter((a) => !view.drawing.clicksOf(a).length)) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.action = action;
    button.textContent = view.waiting.texts[action];
    button.addEventListener("click", () => choose(action));
    box.append(button);
  }
}

function drawSeats(frame) {
  const toAct = frame ? frame.to_act : null;
  $("#seats").innerHTML = "";
  view.seats.forEach((label, seat) => {
    const span = document.createElement("span");
    span.className = `seat p${seat}` + (toAct === seat ? " to-act" : "");
    span.textContent = `seat ${seat}: ${label}`;
    $("#seats").append(span);
  });
}

function isLanding(frame) {
  return frame.actor === "chance";
}

// The choice under the mouse or the keyboard cursor, when that cell is one choice.
function pointedChoice() {
  const choices = view.choices.get(view.hover ?? view.focus) || [];
  return choices.length === 1 ? choices[0][0] : null;
}

// [outcome, probability] pairs: of the chance node shown, or before a choice those of the
// chance node the choice under the mouse or cursor leads to (Trap!: where a throw lands).
function chanceOdds(frame) {
  if (frame.odds) return frame.odds;
  const pointed = isPersonToChoose() && view.waiting.odds ? pointedChoice() : null;
  return pointed === null ? [] : view.waiting.odds[pointed] || [];
}

// An action or outcome by its cell where it is one cell, else by its number (a column).
function placeName(action) {
  const place = view.drawing && view.drawing.placeOf(action);
  return place ? view.drawing.cellName(place.cell) : String(action);
}

function oddsText(frame) {
  const listed = (odds) => odds.map(([outcome, p]) => `${placeName(outcome)} ${(100 * p).toFixed(1)}%`).join(", ");
  if (frame.odds) return `landing odds: ${listed(frame.odds)}`;
  if (frame.last_chance && isLanding(frame)) {
    const [aimed, landed] = frame.last_chance.map(placeName);
    return aimed === landed ? `landed where aimed, on ${landed}` : `aimed at ${aimed}, landed on ${landed}`;
  }
  const odds = chanceOdds(frame);
  if (!odds.length) return "";
  return `${view.waiting.decision} ${view.waiting.texts[pointedChoice()]} lands: ${listed(odds)}`;
}

function statusText(frame) {
  const played = frame.action === null ? "the start"
    : frame.actor === "chance" ? `landing on ${frame.action}` : `seat ${frame.actor}'s ${frame.did} ${frame.action}`;
  if (frame.outcome) {
    const { winner, reason, detail } = frame.outcome;
    const why = detail ? `${reason}: ${detail}` : reason;
    if (winner === null) return `Draw (${why}) after ${frame.turn} turns.`;
    const who = view.person === winner ? "You win" : view.person !== null ? "You lose" : `Seat ${winner} (${view.seats[winner]}) wins`;
    return `${who} (${why}) after ${frame.turn} turns.`;
  }
  if (isPersonToChoose()) {
    const where = view.drawing && view.drawing.hasSides ? "a side of a highlighted cell" : "a highlighted cell";
    return `Your ${view.waiting.decision}: click ${where} (turn ${frame.turn}).`;
  }
  if (frame.to_act === null) return `Turn ${frame.turn}: ${played}; chance acts next.`;
  const who = view.person === frame.to_act ? "you" : `seat ${frame.to_act} (${view.seats[frame.to_act]})`;
  return `Turn ${frame.turn}: ${played}; ${who} to ${frame.decision}.`;
}

// --- Keyboard --------------------------------------------------------------------------

function onKey(event) {
  if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)) return;
  const frame = view.frames[view.cursor];
  if (!frame) return;
  if (isPersonToChoose() && view.drawing) {
    const { rows, cols } = view.drawing.grid;
    if (view.focus === null) view.focus = view.choices.keys().next().value ?? 0;
    const moves = { ArrowUp: -cols, ArrowDown: cols, ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves) {
      const next = view.focus + moves[event.key];
      const vertical = event.key === "ArrowUp" || event.key === "ArrowDown";
      const sameRow = Math.floor(next / cols) === Math.floor(view.focus / cols);
      if (next >= 0 && next < rows * cols && (vertical || sameRow)) view.focus = next;
      event.preventDefault();
      draw();
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      chooseAt(view.focus, null);
    }
    return;
  }
  const keys = { ArrowLeft: view.cursor - 1, ArrowRight: view.cursor + 1, Home: 0, End: view.frames.length - 1 };
  if (event.key in keys) {
    event.preventDefault();
    step(keys[event.key]);
  }
}

// --- Tabs ------------------------------------------------------------------------------

function showTab(tab) {
  for (const button of $$("#tabs button")) button.classList.toggle("active", button.dataset.tab === tab);
  for (const form of $$("#controls form")) form.hidden = form.dataset.tab !== tab;
  $("#game-view").hidden = tab === "tournament" || tab === "ratings";
  $("#tournament-view").hidden = tab !== "tournament";
  $("#ratings-view").hidden = tab !== "ratings";
  $("#speed-label").hidden = tab === "replay";
  clearInterval(view.tournamentTimer);
  showError("");
}

// --- Replay and tournament -------------------------------------------------------------

async function listGames() {
  const folder = $("#replay-form").elements.folder.value;
  const select = $("#replay-index");
  select.textContent = "";
  if (!folder) return;
  const answer = await api(`/api/results?folder=${encodeURIComponent(folder)}`);
  for (const game of answer.games) {
    const option = document.createElement("option");
    option.value = game.index;
    const result = game.winner < 0 ? "draw" : `${game.seats[game.winner]} won`;
    option.textContent = `${game.index}: ${game.seats[0]} vs ${game.seats[1]}, ${result} (${game.reason}, ${game.turns} turns)`;
    select.append(option);
  }
}

function showReplay(answer) {
  stopGame();
  showFrames(answer.frames, answer.seats, false);
}

async function showTournament() {
  const folder = $("#tournament-form").elements.folder.value;
  const answer = await api(`/api/tournament?folder=${encodeURIComponent(folder)}`);
  const percent = (x) => `${(100 * x).toFixed(1)}%`;
  $("#tournament-games").textContent = `(${answer.games} games)`;
  const rows = (table, items, cells) => {
    const body = $(`${table} tbody`);
    body.textContent = "";
    for (const item of items) {
      const row = document.createElement("tr");
      for (const text of cells(item)) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      }
      body.append(row);
    }
  };
  // A file of several games: each row names its game (standings are kept per game).
  const named = (row, spec) => (answer.game_names.length > 1 ? `${row.game}: ${spec}` : spec);
  rows("#standings", answer.agents, (a) => [named(a, a.spec), a.games, a.results.join("-"),
    `${percent(a.rate)} [${percent(a.interval[0])}, ${percent(a.interval[1])}]`, a.elo.toFixed(0)]);
  rows("#pairings", answer.pairings, (p) => [named(p, p.first), named(p, p.second), p.results.join("-"),
    `${percent(p.rate)} [${percent(p.interval[0])}, ${percent(p.interval[1])}]`]);
}

// A card's interval on its ladder's scale (the games' alone), as its line writes one;
// "" for a card written before it (or of no games).
function scaleInterval(row) {
  const [low, high] = [row.scale_low, row.scale_high].map((end) => end?.toFixed(0));
  if (low !== undefined && high !== undefined) return `[${low}, ${high}]`;
  return low !== undefined ? `> ${low}` : high !== undefined ? `< ${high}` : "";
}

// One table of ratings; `apart` rows (cards of no shipped ladder) name their game and say why.
function ratingsTable(rows, apart) {
  const table = document.createElement("table");
  table.className = "ratings";
  const head = table.createTHead().insertRow();
  const columns = ["agent", "rating [95% CI]", "on the ladder's scale", "games", "card", "date"];
  for (const text of apart ? ["game", ...columns, "why apart"] : columns) {
    head.append(Object.assign(document.createElement("th"), { textContent: text }));
  }
  for (const row of rows) {
    const line = table.insertRow();
    const rating = row.line.split(": ").slice(1).join(": ").replace(/ \(\d+ games\)$/, "");
    const cells = [row.spec, rating, scaleInterval(row), row.num_games, row.path, row.date];
    for (const text of apart ? [row.game, ...cells, row.note] : cells) {
      line.insertCell().textContent = text;
    }
  }
  return table;
}

async function showRatings() {
  const answer = await api("/api/ratings");
  const place = $("#ratings");
  place.textContent = "";
  for (const ladder of answer.ladders.filter((ladder) => ladder.rows.length)) {
    const title = Object.assign(document.createElement("h2"), { textContent: ladder.name });
    title.title = `sha256 ${ladder.sha256}`;
    place.append(title, ratingsTable(ladder.rows, false));
  }
  if (answer.apart.length) {
    const title = Object.assign(document.createElement("h2"), { textContent: "Other ladders (not ranked)" });
    place.append(title, ratingsTable(answer.apart, true));
  }
  if (!place.childElementCount) place.textContent = "No card under the results root.";
  const notes = $("#ratings-notes");
  notes.textContent = "";
  for (const note of answer.notes) notes.append(Object.assign(document.createElement("li"), { textContent: note }));
}

// --- Wiring ----------------------------------------------------------------------------

function wire() {
  for (const button of $$("#tabs button")) button.addEventListener("click", () => showTab(button.dataset.tab));
  $("#play-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const seat = Number(form.elements.seat.value);
    const spec = form.elements.spec.value;
    const specs = seat === 0 ? [null, spec] : [spec, null];
    guarded(() => startGame({ game: form.elements.game.value, params: readRules(form), specs,
      time_budget: Number(form.elements.time_budget.value) }, seat));
  });
  $("#watch-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const specs = [form.elements.spec0.value, form.elements.spec1.value];
    guarded(() => startGame({ game: form.elements.game.value, params: readRules(form), specs,
      time_budget: Number(form.elements.time_budget.value) }, null));
  });
  $("#replay-form").elements.folder.addEventListener("change", () => guarded(listGames));
  $("#replay-load").addEventListener("click", () => guarded(async () => {
    const form = $("#replay-form");
    const folder = encodeURIComponent(form.elements.folder.value);
    showReplay(await api(`/api/results/game?folder=${folder}&index=${form.elements.index.value}`));
  }));
  $("#replay-paste").addEventListener("click", () => guarded(async () => {
    showReplay(await api("/api/replay", { record: $("#replay-record").value }));
  }));
  $("#tournament-load").addEventListener("click", () => guarded(async () => {
    clearInterval(view.tournamentTimer);
    await showTournament();
    view.tournamentTimer = setInterval(() => guarded(showTournament), 2000);
  }));
  $("#ratings-load").addEventListener("click", () => guarded(showRatings));
  $("#action-form").addEventListener("submit", (event) => {
    event.preventDefault();
    choose(null, $("#action-text").value);
    $("#action-text").value = "";
  });
  $("#step-first").addEventListener("click", () => step(0));
  $("#step-back").addEventListener("click", () => step(view.cursor - 1));
  $("#step-forward").addEventListener("click", () => step(view.cursor + 1));
  $("#step-last").addEventListener("click", () => step(view.frames.length - 1));
  $("#speed").addEventListener("input", () => {
    $("#speed-value").textContent = `${$("#speed").value} ms per action`;
  });
  $("#speed-value").textContent = `${$("#speed").value} ms per action`;
  document.addEventListener("keydown", onKey);
  window.addEventListener("pagehide", () => {  // a game left behind frees its workers
    if (view.gameId && !view.record) {
      fetch(`/api/games/${view.gameId}/close`, { method: "POST", keepalive: true,
        headers: { "Content-Type": "application/json" }, body: "{}" });
    }
  });
  showTab("play");
}

wire();
guarded(async () => {
  await loadInfo();
  await listGames();
});
