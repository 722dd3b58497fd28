// How each game's board is drawn: one function per game name, from the frame's board view
// (agents/web/views.py board_view). A drawing gives, for each cell of the square board,
// its CSS classes and its label; the legend line (the game's counts); and, for a game
// whose actions are not plain cells, which cell and side each action is. A game whose
// cells have walls on their sides gives classes such as "wall-n", "wall-e", "wall-s",
// "wall-w" (style.css draws them). A game without a drawing here is shown as its text.
"use strict";

const SIDES = ["n", "e", "s", "w"];  // Colosseum's side numbers: up, right, down, left
const SIDE_WORDS = ["up", "right", "down", "left"];

const BOARDS = {
  trap(board) {
    const traps = new Set(board.traps);
    return {
      size: board.size,
      cell(index) {
        const classes = [];
        let label = "";
        if (traps.has(index)) { classes.push("trap"); label = "×"; }
        board.players.forEach((at, player) => {
          if (at === index) { classes.push(`p${player}`); label = String(player); }
        });
        if (board.target === index) classes.push("target");
        return { classes, label };
      },
      legend: "0 and 1: the players; ×: a trap",
    };
  },

  othello(board) {
    const dark = new Set(board.dark);
    const light = new Set(board.light);
    return {
      size: board.size,
      cell(index) {
        const classes = index === board.last ? ["last"] : [];
        if (dark.has(index)) return { classes: ["p0", "disc", ...classes], label: "●" };
        if (light.has(index)) return { classes: ["p1", "disc", ...classes], label: "○" };
        return { classes, label: "" };
      },
      legend: `● dark (seat 0): ${board.counts[0]}, ○ light (seat 1): ${board.counts[1]}`,
    };
  },

  // An action is cell * 4 + side: the cell moved to and the side its barrier goes on.
  colosseum(board) {
    const zones = board.counts ? `zones: A ${board.counts[0]}, B ${board.counts[1]}` : "";
    return {
      size: board.size,
      cell(index) {
        const classes = SIDES.filter((_, side) => board.walls[index][side]).map((s) => `wall-${s}`);
        let label = "";
        board.players.forEach((at, player) => {
          if (at === index) { classes.push(`p${player}`); label = "AB"[player]; }
        });
        if (index === board.last) classes.push("last", `new-wall-${SIDES[board.last_side]}`);
        return { classes, label };
      },
      cellOf: (action) => Math.floor(action / 4),
      sideOf: (action) => action % 4,
      legend: ["A: seat 0, B: seat 1", zones].filter(Boolean).join("; "),
      pick: "a side of a highlighted cell (to move there and put the barrier on that side)",
    };
  },
};

function boardFor(frame) {
  const draw = frame.board && BOARDS[frame.board.game];
  if (!draw) return null;
  const drawing = draw(frame.board);
  const cells = drawing.size * drawing.size;
  return {
    cellOf: (action) => (action < cells ? action : null),  // a plain cell, or off the board
    sideOf: () => null,
    ...drawing,
  };
}
