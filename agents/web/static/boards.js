// How each game's board is drawn: one function per game name, from the frame's position
// (the game's describe()) and the last decision's action (the frame's board, the same for
// every game: agents/web/views.py knows no game). A drawing gives, for each cell of the
// square board, its CSS classes and its label; the legend line (the game's counts); and,
// for a game whose actions are not plain cells, which cell and side each action is. A game
// whose cells have walls on their sides gives classes such as "wall-n", "wall-e", "wall-s",
// "wall-w" (style.css draws them). A game without a drawing here is shown as its text.
"use strict";

const SIDES = ["n", "e", "s", "w"];  // Colosseum's side numbers: up, right, down, left
const SIDE_WORDS = ["up", "right", "down", "left"];

const BOARDS = {
  trap(position) {
    const traps = new Set(position.traps);
    return {
      size: position.board_size,
      cell(index) {
        const classes = [];
        let label = "";
        if (traps.has(index)) { classes.push("trap"); label = "×"; }
        position.players.forEach((at, player) => {
          if (at === index) { classes.push(`p${player}`); label = String(player); }
        });
        if (position.target === index) classes.push("target");
        return { classes, label };
      },
      legend: "0 and 1: the players; ×: a trap",
    };
  },

  // An action is a cell, or n * n: the pass (no cell, so never marked as the last).
  othello(position, last) {
    const dark = new Set(position.dark);
    const light = new Set(position.light);
    const [darkCount, lightCount] = position.discs;
    return {
      size: position.board_size,
      cell(index) {
        const classes = index === last ? ["last"] : [];
        if (dark.has(index)) return { classes: ["p0", "disc", ...classes], label: "●" };
        if (light.has(index)) return { classes: ["p1", "disc", ...classes], label: "○" };
        return { classes, label: "" };
      },
      legend: `● dark (seat 0): ${darkCount}, ○ light (seat 1): ${lightCount}`,
    };
  },

  // An action is cell * 4 + side: the cell moved to and the side its barrier goes on.
  // The walls are [row][col][side], the players' cells [row, col] (null before the start).
  colosseum(position, last) {
    const n = position.board_size;
    const players = position.cells.map((at) => (at === null ? null : at[0] * n + at[1]));
    const zones = position.zones ? `zones: A ${position.zones[0]}, B ${position.zones[1]}` : "";
    const cellOf = (action) => Math.floor(action / 4);
    const sideOf = (action) => action % 4;
    return {
      size: n,
      cell(index) {
        const walls = position.walls[Math.floor(index / n)][index % n];
        const classes = SIDES.filter((_, side) => walls[side]).map((s) => `wall-${s}`);
        let label = "";
        players.forEach((at, player) => {
          if (at === index) { classes.push(`p${player}`); label = "AB"[player]; }
        });
        if (last !== null && index === cellOf(last)) {
          classes.push("last", `new-wall-${SIDES[sideOf(last)]}`);
        }
        return { classes, label };
      },
      cellOf,
      sideOf,
      legend: ["A: seat 0, B: seat 1", zones].filter(Boolean).join("; "),
      pick: "a side of a highlighted cell (to move there and put the barrier on that side)",
    };
  },
};

// The drawing of a frame's board (null: the game has none here, its text is shown): its
// game's function given the frame's describe() and the last decision's action.
function boardFor(frame) {
  const draw = BOARDS[frame.board.game];
  if (!draw) return null;
  const drawing = draw(frame.position, frame.board.last);
  const cells = drawing.size * drawing.size;
  return {
    cellOf: (action) => (action < cells ? action : null),  // a plain cell, or off the board
    sideOf: () => null,
    ...drawing,
  };
}
