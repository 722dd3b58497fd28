// How each game's position is drawn: one function per game name, from the fields of that
// game's describe() (trap_env Game.describe). A drawing gives, for each cell of the
// square board, its CSS classes and its label; a game whose cells have walls on their
// sides gives classes such as "wall-n", "wall-e", "wall-s", "wall-w" (style.css draws
// them). A game without a drawing here is shown as its text rendering.
"use strict";

const BOARDS = {
  trap(position) {
    const n = position.board_size;
    const traps = new Set(position.traps);
    return {
      size: n,
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

  othello(position) {
    const n = position.board_size;
    const dark = new Set(position.dark);
    const light = new Set(position.light);
    return {
      size: n,
      cell(index) {
        if (dark.has(index)) return { classes: ["p0", "disc"], label: "●" };
        if (light.has(index)) return { classes: ["p1", "disc"], label: "○" };
        return { classes: [], label: "" };
      },
      legend: `● dark (seat 0): ${position.discs[0]}, ○ light (seat 1): ${position.discs[1]}`,
    };
  },
};

function boardFor(position) {
  const draw = BOARDS[position.game];
  return draw ? draw(position) : null;
}
