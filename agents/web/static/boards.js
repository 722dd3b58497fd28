// The generic board: every game whose describe() gives a grid (trap_env/grid.py) is drawn
// from it, whatever its shape: rows x cols cells, each with its piece (a disc in its
// legend's colour, with its label), its mark (the cell in its legend's colour) and its
// walls (thick sides, wall-n/-e/-s/-w in style.css); the legend under the board. The grid's
// click says which action a click on a cell (or on one of its sides) is; read both ways, it
// gives the cells where each legal action is clicked and the one cell (and side) that an
// action marks: the last decision, a chance node's odds and landing. An action that no
// click reaches is a button under the board; a game without a grid is shown as its text.
"use strict";

const SIDES = "nesw";  // a cell's sides by number: up, right, down, left
const SIDE_WORDS = ["up", "right", "down", "left"];

// The drawing of a frame's board (null: the game gives no grid, its text is shown).
function boardFor(frame) {
  const grid = frame.position.grid;
  if (!grid) return null;
  const targets = clickTargets(grid);
  return {
    grid,
    legend: new Map(grid.legend.map((entry) => [entry.key, entry])),
    hasSides: Boolean(grid.click && grid.click.side),
    // Where an action is clicked: [cell, side] pairs (side null: the cell as a whole).
    clicksOf: (action) => targets.get(action) || [],
    // The one cell (and side) an action is at; null when it is at none or at several (a column).
    placeOf(action) {
      const at = targets.get(action);
      return at && at.length === 1 ? { cell: at[0][0], side: at[0][1] } : null;
    },
    cellName: (cell) => `${Math.floor(cell / grid.cols)},${cell % grid.cols}`,
  };
}

// Every action a click reaches, with where: the grid's click rule, cell by cell.
function clickTargets(grid) {
  const targets = new Map();
  const click = grid.click;
  if (!click) return targets;
  const sides = click.side ? [0, 1, 2, 3] : [null];
  for (let cell = 0; cell < grid.rows * grid.cols; cell++) {
    const row = Math.floor(cell / grid.cols);
    const col = cell % grid.cols;
    for (const side of sides) {
      const action = row * click.row + col * click.col + (side ?? 0) * click.side;
      if (!targets.has(action)) targets.set(action, []);
      targets.get(action).push([cell, side]);
    }
  }
  return targets;
}

// Dark text on a light colour, white on a dark one.
function inkOn(color) {
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(color.slice(at, at + 2), 16) / 255);
  return 0.299 * r + 0.587 * g + 0.114 * b > 0.6 ? "#1b2631" : "#ffffff";
}

// The board's cells as buttons (made again only when the shape changes), each drawn with
// its piece, mark and walls, and the frame's decorations: `decor.classes(cell)` gives the
// extra classes (legal, last, landed, ...), `decor.sides(cell)` the legal [action, side]
// strips, `decor.odds` the chance odds by cell; `onCell(cell, event)` and `onHover(cell)`
// are called back.
function drawGrid(board, drawing, decor, onCell, onHover) {
  const { rows, cols } = drawing.grid;
  board.style.gridTemplateColumns = `repeat(${cols}, var(--cell))`;
  if (board.dataset.shape !== `${rows}x${cols}`) {
    board.textContent = "";
    board.dataset.shape = `${rows}x${cols}`;
    for (let index = 0; index < rows * cols; index++) {
      const cell = document.createElement("button");
      cell.type = "button";
      cell.tabIndex = -1;
      cell.dataset.cell = index;
      cell.dataset.row = Math.floor(index / cols);
      cell.dataset.col = index % cols;
      cell.addEventListener("click", (event) => onCell(index, event.target.closest(".side")));
      cell.addEventListener("mouseenter", () => onHover(index));
      cell.addEventListener("mouseleave", () => onHover(null));
      board.append(cell);
    }
  }
  for (const cell of board.children) drawCell(cell, drawing, decor);
}

function drawCell(cell, drawing, decor) {
  const index = Number(cell.dataset.cell);
  const { piece = "", mark = "", walls = "" } = drawing.grid.cells[index] || {};
  const classes = ["cell", ...Array.from(walls, (side) => `wall-${side}`), ...decor.classes(index)];
  cell.className = classes.join(" ");
  Object.assign(cell.dataset, { piece, mark, walls });
  cell.style.setProperty("--mark", mark ? drawing.legend.get(mark).color : null);
  cell.style.color = mark && !piece ? inkOn(drawing.legend.get(mark).color) : "";
  cell.textContent = "";
  if (piece) {
    const entry = drawing.legend.get(piece);
    const disc = Object.assign(document.createElement("span"), { className: "piece", textContent: entry.label });
    disc.style.setProperty("--piece", entry.color);
    disc.style.color = inkOn(entry.color);
    cell.append(disc);
  } else if (mark) {
    cell.append(drawing.legend.get(mark).label);
  }
  const strips = decor.sides(index);
  for (const [action, side] of strips) {
    const strip = Object.assign(document.createElement("span"), { className: `side side-${SIDES[side]}` });
    strip.dataset.action = action;
    strip.title = `${drawing.cellName(index)},${SIDE_WORDS[side]}`;
    cell.append(strip);
  }
  if (decor.odds.has(index)) {
    const odds = document.createElement("small");
    odds.textContent = `${(100 * decor.odds.get(index)).toFixed(0)}%`;
    cell.append(odds);
  }
  cell.disabled = !classes.includes("legal");
  const words = [piece && drawing.legend.get(piece).text, mark && drawing.legend.get(mark).text];
  cell.setAttribute("aria-label", [`row ${cell.dataset.row} column ${cell.dataset.col}`, ...words.filter(Boolean)].join(", "));
}

// The legend: each key's swatch (its colour and label) and words.
function drawLegend(place, drawing) {
  place.textContent = "";
  if (!drawing) return;
  for (const entry of drawing.grid.legend) {
    const item = Object.assign(document.createElement("span"), { className: "key" });
    const swatch = Object.assign(document.createElement("span"), { className: "swatch", textContent: entry.label });
    swatch.style.background = entry.color;
    swatch.style.color = inkOn(entry.color);
    item.append(swatch, ` ${entry.text}`);
    place.append(item);
  }
}
