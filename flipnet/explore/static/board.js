// The flip board: edit it by clicking, see what every move is worth (exact or a
// network's), its components, and play games against the solver, a network or chance.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const {get, ask, colour, PARTS, el, svg} = flipnet;
  let MAX_SIDE, MAX_LINE, START;  // the board game's limits and opening position (games.js), read first

  const page = {
    rows: 5, cols: 5, cells: [], view: "exact", model: "best", defaultModel: "best", ply: false,
    exact: null, network: null, networkError: null, asking: null, hover: null, busy: false,
    players: {},  // agent -> how the page names it
    game: null,  // {start, first, opponent, seed, model, at, loaded, plies: [{by, move, cells, position, exact, network}]}
  };

  // --- the position as text ---------------------------------------------------------

  const text = () => {
    const rows = [];
    for (let r = 0; r < page.rows; r++) rows.push(page.cells.slice(r * page.cols, (r + 1) * page.cols).join(""));
    return rows.join("/");
  };

  function setText(value) {
    const rows = value.trim().split("/");
    const cols = rows[0].length;
    if (!rows.every((row) => /^[01]+$/.test(row) && row.length === cols)) {
      throw new Error("write rows of 0 and 1 of one length, joined by /");
    }
    const tooBig = rows.length * cols > MAX_LINE || (rows.length > 1 && cols > MAX_SIDE) || (cols > 1 && rows.length > MAX_SIDE);
    if (tooBig || rows.length * cols < 2) throw new Error(`boards here go from 1x2 to ${MAX_SIDE}x${MAX_SIDE}, or a line of up to ${MAX_LINE}`);
    page.rows = rows.length;
    page.cols = cols;
    page.cells = rows.join("").split("").map(Number);
  }

  function resize(rows, cols) {
    const line = rows === 1 || cols === 1;
    const refused = rows < 1 || cols < 1 || rows * cols < 2 ? "a board has at least 2 cells"
      : !line && (rows > MAX_SIDE || cols > MAX_SIDE) ? `boards here go up to ${MAX_SIDE}x${MAX_SIDE}`
      : line && rows * cols > MAX_LINE ? `lines here go up to ${MAX_LINE} cells` : "";
    $("text-error").textContent = refused;  // a button that cannot act says why
    if (refused) return;
    const cells = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) cells.push(r < page.rows && c < page.cols ? page.cells[r * page.cols + c] : 1);
    }
    Object.assign(page, {rows, cols, cells});
    changed();
  }

  // --- asking the server ----------------------------------------------------------

  let asked = 0;  // the latest position asked about; older answers are dropped

  async function changed(fromHistory = false, fromAddress = false) {
    const position = text();
    if (!fromAddress) $("text-error").textContent = "";  // an edit answers what was said of the last one
    const mine = ++asked;
    page.exact = page.network = page.networkError = null;
    if (!(fromAddress && $("text-error").textContent)) writeUrl(position, !fromHistory);  // a bad address stays to be read
    $("text").value = position;
    draw();
    const stale = () => mine !== asked;
    const wantNetwork = page.view === "network" || page.game;
    if (wantNetwork) {
      get("/api/model", {name: page.model, position, ply: page.ply && hasOnePly() ? 1 : 0})
        .then((answer) => { if (!stale()) { page.network = answer; recordValues(); draw(); } })
        .catch((e) => { if (!stale()) { page.networkError = e.message; draw(); } });
    }
    try {
      const answer = await ask("/api/position", {game: "flip", position}, (q) => {
        if (stale()) return;
        page.asking = q;
        if (q && q.partial) {  // the value first, then each move's value as its search ends
          page.exact = q.partial;
          recordValues();  // a game's record has the value even if the next move comes before the rest
          draw();
        }
        showProgress();
      }, stale);
      if (stale() || answer === null) return;
      page.exact = answer;
      recordValues();
      draw();
      if (page.game && live() && !gameOver() && toMove() === "ai") aiMove();
      else if (page.game) valueRecord();
    } catch (e) {
      if (stale()) return;
      page.asking = null;
      showProgress();
      const said = e.cancelled
        ? el("span", {class: "stopped"}, page.exact ? "cancelled: the moves without a number were not valued (edit to ask again)"
          : "cancelled: no value for this position (edit it to ask again)")
        : el("span", {class: "error", role: "alert"}, e.message);
      if (page.exact) {  // the value came first: it stays, with what stopped the moves' values
        draw();
        $("summary").appendChild(said);
      } else {
        $("summary").replaceChildren(said);
      }
    }
  }

  function showProgress() {
    const q = page.asking;
    $("progress").hidden = !q;
    if (q) {
      const what = q.compiling || `${q.positions.toLocaleString()} positions searched`;  // the server's words
      const moves = q.partial ? `${valued(q.partial)} of ${q.partial.moves.length} moves valued, ` : "";
      $("progress-text").textContent = `${moves}${what}, ${q.seconds.toFixed(1)} s`;
    }
  }

  // Every edit, and every ply of a game, is a step of the browser's history (Back and
  // Forward, the page's own arrows and the arrow keys walk it). A game's address holds its
  // record and the ply shown, so that a link opens the same game at the same move
  function writeUrl(position, step) {
    const params = new URLSearchParams({p: position});
    if (page.view !== "exact") params.set("view", page.view);
    if (page.model !== page.defaultModel) params.set("model", page.model);  // the server's own goes unsaid
    if (page.ply) params.set("ply", "1");
    const g = page.game;
    if (g) {
      Object.entries({start: g.start, moves: movesText(g), at: String(shown(g)), vs: g.opponent, first: g.first,
        seed: String(g.seed)}).forEach(([key, value]) => params.set(key, value));
    }
    const url = `?${params.toString().replaceAll("%2F", "/")}`;
    if (url === location.search) return;
    if (step && location.search) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  }

  // A game's moves in an address: each the index of its top or left cell and h or v, by dots
  function movesText(g) {
    return g.plies.map(({cells: [[r1, c1], [r2, c2]]}) =>
      `${Math.min(r1 * page.cols + c1, r2 * page.cols + c2)}${r1 === r2 ? "h" : "v"}`).join(".");
  }

  function movesOf(text, cols) {
    return text ? text.split(".").map((code) => {
      const found = /^(\d+)([hv])$/.exec(code);
      if (!found) throw new Error(`${JSON.stringify(code.slice(0, 12))} is not a move (a cell's number and h or v)`);
      const a = Number(found[1]), r = Math.floor(a / cols), c = a % cols;
      return found[2] === "h" ? [[r, c], [r, c + 1]] : [[r, c], [r + 1, c]];
    }) : [];
  }

  // The position a URL holds; one that cannot be read is named, and the last good one kept
  function readUrl() {
    const params = new URLSearchParams(location.search);
    const wanted = params.get("p");
    if (!page.cells.length) setText(START);
    page.linkedGame = params.has("moves") && params.has("start") ? params : null;  // played once the page is ready
    if (wanted !== null && !page.linkedGame) {
      try {
        setText(wanted);
        $("text-error").textContent = "";
      } catch (e) {
        $("text-error").textContent = `the address's position ${JSON.stringify(wanted.slice(0, 80))} cannot be shown: ${e.message}`;
      }
    }
    page.view = params.get("view") === "network" ? "network" : "exact";
    page.model = params.get("model") || page.defaultModel;
    page.ply = params.get("ply") === "1";
  }

  function fromHistory() {
    const g = page.game;
    if (g) {  // Back and Forward walk the game's plies: an address of this game, at a ply of it
      const params = new URLSearchParams(location.search);
      const mine = movesText(g).split("."), theirs = (params.get("moves") || "").split(".");
      const at = Number(params.get("at"));
      if (params.get("start") === g.start && theirs.every((m, i) => !m || m === mine[i]) && Number.isInteger(at)) {
        viewAt(at, true);
      }
      return;
    }
    readUrl();
    $("model").value = page.model;
    document.querySelectorAll("input[name=view]").forEach((radio) => { radio.checked = radio.value === page.view; });
    if (page.linkedGame) openLinkedGame(page.linkedGame);  // back into a game that was ended
    else changed(true);
  }

  // --- drawing --------------------------------------------------------------------

  function size() {
    // the board fits the room it has: 480 px, or a phone's width
    const room = Math.min(480, ($("board-wrap").clientWidth || 492) - 12);
    return Math.max(14, Math.min(64, Math.floor(room / Math.max(page.rows, page.cols))));
  }

  function moveValues() {
    // [{cells, move, exact, network}] of every legal move, from what has arrived
    const exact = page.exact ? page.exact.moves : [];
    const network = page.network ? new Map(page.network.moves.map((m) => [m.move, m.value])) : new Map();
    return exact.map((m) => ({...m, exact: m.value, network: network.has(m.move) ? network.get(m.move) : null}));
  }

  function valued(answer) {
    // how many of an answer's moves have their value (all, once it is complete)
    return answer.moves.filter((m) => m.value !== null).length;
  }

  function hidden() {
    return page.game && !$("hints").checked;
  }

  function draw() {
    const board = $("board");
    const kept = focused();
    const s = size(), pad = 6;
    board.replaceChildren();
    board.setAttribute("width", page.cols * s + 2 * pad);
    board.setAttribute("height", page.rows * s + 2 * pad);
    const x = (c) => pad + c * s, y = (r) => pad + r * s;
    const [focusRow, focusCol] = page.focus || [0, 0];  // the board's one tab stop
    for (let r = 0; r < page.rows; r++) {
      for (let c = 0; c < page.cols; c++) {
        const full = page.cells[r * page.cols + c];
        const cell = svg("rect", {x: x(c) + 1, y: y(r) + 1, width: s - 2, height: s - 2, rx: 4,
          class: full ? "cell full" : "cell empty", "data-r": r, "data-c": c,
          tabindex: r === Math.min(focusRow, page.rows - 1) && c === Math.min(focusCol, page.cols - 1) ? 0 : -1,
          role: "button", "aria-label": `row ${r}, column ${c}: ${full ? "full" : "empty"}`});
        cell.addEventListener("click", () => { page.focus = [r, c]; toggle(r, c); });
        cell.addEventListener("keydown", (event) => cellKey(event, r, c));
        board.appendChild(cell);
      }
    }
    drawComponents(board, s, x, y);
    drawMoves(board, s, x, y);
    summarise();
    if (page.focusBoard) {  // a move played from the keyboard, a game begun: the board's tab stop
      page.focusBoard = false;
      const cell = board.querySelector("rect[tabindex='0']");
      if (cell) cell.focus();
    } else if (page.refocus) {  // a cell toggled or reached from the keyboard takes the focus
      page.refocus = false;
      const [r, c] = page.focus;
      const cell = board.querySelector(`rect[data-r='${r}'][data-c='${c}']`);
      if (cell) cell.focus();
    } else if (kept) {  // else what had it before the redraw keeps it
      const again = document.querySelector(kept);
      if (again) again.focus();
    }
  }

  // The move list from the keyboard: one tab stop, the arrow keys between rows, Enter plays
  function rowKey(event, row, m) {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      play(m, true);
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      event.stopPropagation();
      const next = event.key === "ArrowDown" ? row.nextElementSibling : row.previousElementSibling;
      if (next) {
        row.tabIndex = -1;
        next.tabIndex = 0;
        next.focus();
      }
    }
  }

  // A selector for the board's cell, domino or move row that has the focus (redraws replace them)
  function focused() {
    const node = document.activeElement;
    if (!node || !node.closest("#board, #moves")) return null;
    if (node.dataset.r !== undefined) return `#board rect[data-r='${node.dataset.r}'][data-c='${node.dataset.c}']`;
    if (node.dataset.move) return `${node.closest("#board") ? "#board line.domino" : "#moves tbody tr"}[data-move='${node.dataset.move}']`;
    return null;
  }

  // The board from the keyboard: one tab stop, the arrow keys move between cells, Enter or
  // Space fills or empties the cell
  function cellKey(event, r, c) {
    const steps = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]};
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      page.focus = [r, c];
      page.refocus = true;
      toggle(r, c);
    } else if (steps[event.key]) {
      event.preventDefault();
      event.stopPropagation();
      const [dr, dc] = steps[event.key];
      page.focus = [Math.min(page.rows - 1, Math.max(0, r + dr)), Math.min(page.cols - 1, Math.max(0, c + dc))];
      page.refocus = true;
      draw();
    }
  }

  function drawComponents(board, s, x, y) {
    if (!page.exact || !page.exact.components || hidden()) return;
    const network = page.view === "network" && page.network && page.network.components ? page.network.components : null;
    page.exact.components.forEach((part, i) => {
      const inside = new Set(part.cells.map(([r, c]) => `${r},${c}`));
      const known = network ? matching(network, part).known : true;
      let d = "";
      for (const [r, c] of part.cells) {
        if (!inside.has(`${r - 1},${c}`)) d += `M${x(c)},${y(r)}h${s}`;
        if (!inside.has(`${r + 1},${c}`)) d += `M${x(c)},${y(r + 1)}h${s}`;
        if (!inside.has(`${r},${c - 1}`)) d += `M${x(c)},${y(r)}v${s}`;
        if (!inside.has(`${r},${c + 1}`)) d += `M${x(c + 1)},${y(r)}v${s}`;
      }
      board.appendChild(svg("path", {d, class: known ? "outline" : "outline unseen", stroke: PARTS[i % PARTS.length],
        "data-component": i}));
      const [r0, c0] = part.cells[0];
      const badge = svg("g", {class: "badge", "data-component": i});
      badge.appendChild(svg("circle", {cx: x(c0) + 9, cy: y(r0) + 9, r: 8, fill: PARTS[i % PARTS.length]}));
      const label = svg("text", {x: x(c0) + 9, y: y(r0) + 12.5});
      label.textContent = part.value;
      badge.appendChild(label);
      board.appendChild(badge);
    });
  }

  function matching(parts, part) {
    const key = JSON.stringify(part.cells);
    return parts.find((p) => JSON.stringify(p.cells) === key) || {known: true, value: null};
  }

  function drawMoves(board, s, x, y) {
    if (!page.exact) return;
    const network = page.view === "network";
    moveValues().forEach((m) => {
      const [[r1, c1], [r2, c2]] = m.cells;
      // the network's value; where it has none (a component it cannot read), the exact one stays
      const shown = network && m.network !== null ? m.network : m.exact;
      const inset = s * 0.16;  // short of the cells' centres, so dominoes that share a cell stay apart
      const dx = Math.sign(c2 - c1) * inset, dy = Math.sign(r2 - r1) * inset;
      const line = svg("line", {
        x1: x(c1) + s / 2 + dx, y1: y(r1) + s / 2 + dy, x2: x(c2) + s / 2 - dx, y2: y(r2) + s / 2 - dy,
        "stroke-width": Math.max(4, s / 4), class: `domino${shown === 0 ? " wins" : ""}${page.hover === m.move ? " hover" : ""}`,
        stroke: hidden() || shown === null ? "#999" : colour(shown), "data-move": m.move,
        tabindex: -1, role: "button",  // the move list plays them from the keyboard: the board stays one tab stop
        "aria-label": `play ${m.move}` + (hidden() || shown === null ? "" : `, it leaves value ${shown}`),
      });
      line.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); play(m); } });
      const tip = svg("title");
      tip.textContent = hidden() ? m.move
        : `${m.move}: leaves value ${m.exact}` + (m.network !== null ? `, the network says ${m.network}` : "");
      line.appendChild(tip);
      line.addEventListener("click", (event) => { event.stopPropagation(); play(m); });
      line.addEventListener("mouseenter", () => highlight(m.move));
      line.addEventListener("mouseleave", () => highlight(null));
      board.appendChild(line);
      const cx = (x(c1) + x(c2)) / 2 + s / 2, cy = (y(r1) + y(r2)) / 2 + s / 2;
      // a point along the domino, from its first cell's centre (0) to its second's (1)
      const along = (t) => [x(c1) + s / 2 + t * (x(c2) - x(c1)), y(r1) + s / 2 + t * (y(r2) - y(r1))];
      const wrong = network && m.network !== null && m.exact !== null && m.network !== m.exact && !hidden();
      // a winning move's mark: a dot where the domino is too small for its number, else the number alone
      if (!hidden() && shown === 0) board.appendChild(svg("circle", {cx, cy, r: Math.max(2, s / 12), class: s >= 20 ? "win-mark under" : "win-mark", "data-move": m.move}));
      const number = (value, [tx, ty], kind) => {  // the value as a number too: colour is never alone
        const light = value >= 1 && value <= 2 && !kind.includes("exact");  // yellow, orange: dark ink reads there
        const label = svg("text", {x: tx, y: ty, class: light ? `${kind} on-light` : kind, "font-size": Math.round(s * 0.34), "data-move": m.move});
        label.textContent = String(value);
        board.appendChild(label);
      };
      if (!hidden() && shown !== null && s >= 20 && !wrong) number(shown, [cx, cy], "move-value");
      if (wrong) {  // the network's value on the first cell, the exact one on the second, the mark between
        if (s >= 20) {
          number(m.network, along(0), "move-value");
          number(m.exact, along(1), "move-value exact-value");
        }
        const mark = svg("g", {class: "disagree", "data-move": m.move});
        const r = Math.max(3, s / 12);
        mark.appendChild(svg("path", {d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}`}));
        board.appendChild(mark);
      }
    });
  }

  function highlight(move) {
    // the move's row and its domino, found by the move itself (with hints off, the list is in board order)
    page.hover = move;
    document.querySelectorAll("#moves tbody tr").forEach((row) => row.classList.toggle("hover", row.dataset.move === move));
    document.querySelectorAll("#board line.domino").forEach((line) => line.classList.toggle("hover", line.dataset.move === move));
  }

  function summarise() {
    const exact = page.exact, net = page.network;
    const summary = $("summary");
    summary.replaceChildren();
    if (!exact) {
      summary.textContent = page.asking ? "searching…" : "…";
    } else if (hidden()) {
      summary.textContent = "(who wins from here is hidden)";
    } else {
      summary.appendChild(el("span", {id: "value", class: "big"}, `value ${exact.value}`));
      summary.appendChild(el("span", {id: "winner"},
        exact.value ? " the player to move wins" : " the player to move loses"));
      if (exact.components && exact.components.length > 1) {
        summary.appendChild(el("div", {class: "xor"}, `= ${exact.components.map((p) => p.value).join(" XOR ")} (its components)`));
      }
    }
    const verdict = $("network-summary");
    verdict.replaceChildren();
    verdict.className = page.view === "network" && page.networkError ? "error" : "";
    fitModels();
    if (page.view === "network") {
      if (page.networkError) verdict.textContent = page.networkError;
      else if (net && net.value === null) {  // a component it cannot read: said, the exact values kept
        verdict.appendChild(el("span", {id: "network-value"}, `${net.model} cannot value this position: ${net.refused}; ` +
          "the moves it can value show its number, the others the exact one"));
      } else if (net) {
        verdict.appendChild(el("span", {id: "network-value"}, `${net.model} says ${net.value}${net.one_ply ? " (one ply)" : ""}`));
        if (exact) {
          const moves = moveValues();
          const wrong = moves.filter((m) => m.network !== null && m.exact !== null && m.network !== m.exact).length;
          verdict.appendChild(el("span", {id: "disagreements", "data-count": wrong},
            ` · disagrees with the exact value on ${wrong} of ${moves.length} moves` +
            (net.value !== exact.value ? " and on this position" : "") +
            (wrong ? " (marked ✗: its value on the domino's first cell, the exact one, dark, on its second)" : "")));
        }
      }
    }
    listComponents();
    listMoves();
    listRecord();
  }

  function listComponents() {
    const list = $("components");
    list.replaceChildren();
    if (!page.exact || !page.exact.components || hidden()) return;
    const parts = page.network && page.network.components;
    page.exact.components.forEach((part, i) => {
      const item = el("li", {"data-component": i});
      const swatch = el("span", {class: "swatch"});
      swatch.style.background = PARTS[i % PARTS.length];
      item.appendChild(swatch);
      let words = `${part.cells.length} cells: value ${part.value}`;
      if (parts) {
        const theirs = matching(parts, part);
        words += theirs.error ? `; ${page.model} cannot read it (${theirs.error})`
          : `; ${page.model} ${theirs.value}, ${theirs.known ? "a shape met in training" : "a shape it never saw"}`;
        const size = theirs.new_shapes_of_its_size;
        if (!theirs.known && size) {  // how far to trust it here, from flipnet by-size
          words += ` (on new ${part.cells.length}-cell shapes of random ${size.board} boards it is wrong ${(100 * size.error).toFixed(0)}% of the time, ${size.shapes} measured)`;
        } else if (!theirs.known && parts) {
          words += " (its error at this size is not measured)";
        }
      }
      item.appendChild(document.createTextNode(words));
      list.appendChild(item);
    });
  }

  function listMoves() {
    const body = $("moves").querySelector("tbody");
    body.replaceChildren();
    if (!page.exact) { $("moves-count").textContent = ""; return; }
    const network = page.view === "network";
    $("moves-network").hidden = !network;
    // with hints off, the moves in board order: the order itself would give the best away
    const key = (m) => ((m.cells[0][0] * 64 + m.cells[0][1]) * 64 + m.cells[1][0]) * 64 + m.cells[1][1];
    const byCells = (a, b) => key(a) - key(b);
    const moves = hidden() ? moveValues().sort(byCells) : moveValues();
    moves.forEach((m) => {
      const row = el("tr", {"data-move": m.move, class: m.exact === 0 && !hidden() ? "wins" : ""});
      row.appendChild(el("td", {}, m.move));
      row.appendChild(el("td", {class: "num"}, hidden() ? "?" : m.exact === null ? "…" : String(m.exact)));
      if (network) {
        const cell = el("td", {class: m.network !== null && m.network !== m.exact ? "num off" : "num"},
          m.network === null ? "…" : String(m.network));
        row.appendChild(cell);
      }
      row.appendChild(el("td", {}, m.exact === 0 && !hidden() ? "wins" : ""));
      row.addEventListener("mouseenter", () => highlight(m.move));
      row.addEventListener("mouseleave", () => highlight(null));
      row.addEventListener("click", () => play(m));
      row.tabIndex = body.children.length === 0 ? 0 : -1;  // the list is one tab stop; the arrow keys walk it
      row.setAttribute("aria-label", `play ${m.move}` + (hidden() || m.exact === null ? "" : `, it leaves value ${m.exact}`));
      row.addEventListener("keydown", (event) => rowKey(event, row, m));
      body.appendChild(row);
    });
    const count = page.exact.moves.length, known = valued(page.exact);
    const many = `${count} move${count === 1 ? "" : "s"}`;
    $("moves-count").textContent = count === 0 ? "no moves: whoever is to move has lost"
      : known < count && !hidden() ? `${known} of ${many} valued so far, best first`
      : `${many}, ${hidden() ? "in board order" : "best first"}`;
  }

  // --- editing ----------------------------------------------------------------------

  function toggle(r, c) {
    if (page.game) return;  // a game's board changes by moves only
    const k = r * page.cols + c;
    page.cells[k] = 1 - page.cells[k];
    changed();
  }

  function apply(cells) {
    for (const [r, c] of cells) page.cells[r * page.cols + c] = 0;
  }

  // --- playing ----------------------------------------------------------------------

  function toMove() {
    const g = page.game;
    const first = g.first;
    return g.plies.length % 2 === 0 ? first : (first === "you" ? "ai" : "you");
  }

  function gameOver() {
    return page.exact && page.exact.moves.length === 0;
  }

  function play(m, fromKeyboard = false) {
    if (page.busy) return;
    page.focusBoard = fromKeyboard;  // the played move's row and domino go: the board takes the focus
    if (page.game) {
      if (!live()) {
        $("status").textContent = "This is an earlier move of the game: go to its last (→, or its last row) to play on.";
        return;
      }
      if (gameOver() || toMove() !== "you") return;
      page.game.plies.push({by: "you", move: m.move, cells: m.cells, position: null, exact: null, network: null});
    }
    apply(m.cells);
    if (page.game) page.game.plies[page.game.plies.length - 1].position = text();
    changed();
  }

  async function aiMove() {
    const g = page.game;
    page.busy = true;
    $("status").textContent = `${opponentName()} is thinking…`;
    const position = text(), mine = asked;
    try {
      const answer = await ask("/api/move", {game: "flip", position, agent: g.opponent, model: g.model,
        seed: g.seed, ply: g.plies.length}, (q) => { page.asking = q; showProgress(); }, () => mine !== asked || page.game !== g);
      if (answer === null || page.game !== g) return;
      g.plies.push({by: "ai", move: answer.move, cells: answer.cells, position: answer.position, exact: null, network: null});
      apply(answer.cells);
    } catch (e) {
      $("status").replaceChildren(el("span", {class: "error", role: "alert"}, e.message));
      return;
    } finally {
      page.busy = false;
    }
    changed();
  }

  function opponentName() {
    const g = page.game;
    return g.opponent === "network" ? g.model : (page.players[g.opponent] || g.opponent).replace(/ \(.*\)$/, "");
  }

  // The players this board's game offers, as the server's registry names them (games.js)
  function players() {
    const game = flipnet.games.find((g) => g.page === "board");
    page.players = game.players;
    ({side: MAX_SIDE, line: MAX_LINE} = game.limits);
    START = game.start;
    $("opponent").replaceChildren(...Object.entries(game.players).map(([value, name]) => el("option", {value}, name)));
  }

  // The ply a game shows: its last (live), or an earlier one stepped back to
  function shown(g) { return g.at === null ? g.plies.length : g.at; }
  function live() { return !page.game || shown(page.game) === page.game.plies.length; }
  function positionAt(g, k) { return k === 0 ? g.start : g.plies[k - 1].position; }

  function viewAt(k, fromHistory = false) {
    const g = page.game;
    if (!g || page.busy) return;
    k = Math.max(0, Math.min(g.plies.length, k));
    if (k === shown(g)) return;
    g.at = k === g.plies.length ? null : k;
    setText(positionAt(g, k));
    page.focusBoard = !fromHistory && Boolean(document.activeElement && document.activeElement.closest("#board"));
    changed(fromHistory);
  }

  // A record may lack values: a game read from a link or a file, or a ply whose answer came
  // after the next move. Once the page's own question is answered, each missing one is
  // asked, one at a time: the exact ones first (questions: the page's next question
  // cancels this one, and the rest are asked after it), then the network's
  async function valueRecord() {
    const g = page.game;
    const all = [g, ...g.plies];
    const k = all.findIndex((p) => p.exact === null);
    const n = all.findIndex((p) => p.network === null && !p.networkAsked);
    if ((k < 0 && n < 0) || page.valuing) return;
    page.valuing = true;
    const mine = asked;
    try {
      if (k >= 0) {
        const answer = await ask("/api/position", {game: "flip", position: positionAt(g, k)}, () => {},
          () => mine !== asked || page.game !== g);
        if (answer === null || page.game !== g) return;
        all[k].exact = answer.value;
      } else {
        all[n].networkAsked = true;  // once: a model that cannot value it says so in the page's own view
        const answer = await get("/api/model", {name: page.model, position: positionAt(g, n), ply: page.ply && hasOnePly() ? 1 : 0});
        if (page.game !== g) return;
        all[n].network = answer.value;
      }
      listRecord();
    } catch (e) {
      return;  // cancelled by the page's own next question, or a model's refusal
    } finally {
      page.valuing = false;
    }
    if (mine === asked) valueRecord();
  }

  function recordValues() {
    const g = page.game;
    if (!g) return;
    const here = text();
    const k = shown(g);
    const ply = k ? g.plies[k - 1] : g;
    if (positionAt(g, k) !== here) return;
    if (page.exact && page.exact.position === here) ply.exact = page.exact.value;
    if (page.network && page.network.position === here) ply.network = page.network.value;
  }

  function listRecord() {
    const g = page.game;
    const body = $("record").querySelector("tbody");
    body.replaceChildren();
    $("undo").disabled = !g || !g.plies.some((p) => p.by === "you") || page.busy || !live();
    $("stop").disabled = !g;
    $("start").disabled = !!g;
    $("save").disabled = !g;
    $("graph").style.display = g ? "" : "none";
    $("record").hidden = !g;  // no header before a game
    if (!g) return;
    const before = [g.exact, ...g.plies.map((p) => p.exact)];
    const mistakes = [];
    g.plies.forEach((p, i) => {
      // a won position (not 0) left won for the other side (not 0): the win thrown away
      const mistake = before[i] !== null && p.exact !== null && before[i] !== 0 && p.exact !== 0;
      if (mistake) mistakes.push(i + 1);
      const here = shown(g) === i + 1;
      const row = el("tr", {class: `${mistake ? "mistake" : ""}${here ? " here" : ""}`});
      const step = el("button", {type: "button", class: "ply", "aria-label": `show the position after ply ${i + 1}`}, String(i + 1));
      if (here) step.setAttribute("aria-current", "step");
      step.onclick = () => viewAt(i + 1);
      const cell = el("td", {});
      cell.appendChild(step);
      row.appendChild(cell);
      [p.by === "you" ? "you" : opponentName(), p.move, p.exact === null ? "…" : String(p.exact),
        p.network === null ? "…" : String(p.network),
        mistake ? `mistake: the win thrown away (it left ${p.exact}; a move to 0 was there)` : ""]
        .forEach((t) => row.appendChild(el("td", {}, t)));
      body.appendChild(row);
    });
    flipnet.graph($("graph"), [{values: before, cls: "exact"}, {values: [g.network, ...g.plies.map((p) => p.network)], cls: "network"}],
      hidden() ? [] : mistakes);
    if (!live()) {
      $("status").textContent = `Ply ${shown(g)} of ${g.plies.length}: ← and → step through the game (its rows too).`;
    } else if (gameOver()) {
      const loser = toMove();
      $("status").textContent = loser === "you" ? `No move left for you: ${opponentName()} won.` : `No move left for ${opponentName()}: you won!`;
    } else if (!page.busy) {
      $("status").textContent = toMove() !== "you" ? "" : page.exact ? "Your move: click a domino." : "…";
    }
  }

  function start(loaded) {
    const g = loaded || {start: text(), first: $("first").value, opponent: $("opponent").value, model: page.model,
      seed: Math.floor(Math.random() * 2 ** 31), at: null, plies: []};
    g.exact = page.exact && page.exact.position === g.start ? page.exact.value : null;
    g.network = page.network && page.network.position === g.start ? page.network.value : null;
    page.game = g;
    page.focusBoard = true;  // not lost to the page when its button goes
    changed();
  }

  function undo() {
    const g = page.game;
    if (!g || page.busy) return;
    let last = g.plies.length - 1;
    while (last >= 0 && g.plies[last].by !== "you") last--;
    if (last < 0) return;
    g.plies.length = last;
    g.at = null;
    setText(last ? g.plies[last - 1].position : g.start);
    changed();
  }

  function stop() {
    page.game = null;
    $("status").textContent = "";
    changed();
  }

  function save() {
    const g = page.game;
    flipnet.download("flipnet-game.json", {format: "flipnet-explore-game-1", start: g.start, first: g.first,
      opponent: g.opponent, model: g.model, seed: g.seed,
      plies: g.plies.map(({by, move, position, exact, network}) => ({by, move, position, exact, network}))});
  }

  async function load() {
    try {
      const data = await flipnet.readFile($("load"));
      if (data.format !== "flipnet-explore-game-1" || !Array.isArray(data.plies)) throw new Error("not a flipnet game record");
      const pairs = data.plies.map((p) => String(p.move).split("+").map((cell) => cell.split(",").map(Number)));
      const g = replay({start: data.start, first: data.first, opponent: data.opponent, model: data.model, seed: data.seed}, pairs);
      g.plies.forEach((p, i) => Object.assign(p, {by: data.plies[i].by === "ai" ? "ai" : "you",
        exact: data.plies[i].exact ?? null, network: data.plies[i].network ?? null}));
      setText(positionAt(g, g.plies.length));  // the game as it was left
      start(g);
      $("status").textContent = "game loaded";
    } catch (e) {
      $("status").textContent = `cannot load it: ${e.message}`;
    }
    $("load").value = "";
  }

  // A game from its start and moves ([[r, c], [r, c]] each), every move checked against
  // the rules; the board left at its start
  function replay(record, pairs) {
    setText(String(record.start));
    const first = record.first === "ai" ? "ai" : "you";
    const g = {start: text(), first, opponent: page.players[record.opponent] ? record.opponent : "perfect",
      model: record.model || page.model, seed: Number(record.seed) || 0, at: null, loaded: true, exact: null,
      network: null, plies: []};
    pairs.forEach(([a, b], i) => {
      const move = `${a}+${b}`;
      const inside = [a, b].every((cell) => Array.isArray(cell) && cell.length === 2 && cell.every(Number.isInteger) &&
        cell[0] >= 0 && cell[0] < page.rows && cell[1] >= 0 && cell[1] < page.cols);
      if (!inside || ![a, b].every(([r, c]) => page.cells[r * page.cols + c] === 1) ||
          Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) !== 1) {
        throw new Error(`move ${i + 1} (${move}) is not legal there`);
      }
      apply([a, b]);
      const by = (i % 2 === 0) === (first === "you") ? "you" : "ai";
      g.plies.push({by, move, cells: [a, b], position: text(), exact: null, network: null});
    });
    setText(g.start);
    return g;
  }

  // A game from a link (`writeUrl`): the same game at the same ply, or what is wrong with it
  function openLinkedGame(params) {
    const before = {rows: page.rows, cols: page.cols, cells: [...page.cells]};
    try {
      setText(params.get("start"));
      const g = replay({start: params.get("start"), first: params.get("first"), opponent: params.get("vs"),
        seed: params.get("seed")}, movesOf(params.get("moves"), page.cols));
      const at = Number(params.get("at") ?? g.plies.length);
      g.at = Number.isInteger(at) && at >= 0 && at < g.plies.length ? at : null;
      setText(positionAt(g, shown(g)));
      page.game = g;
      changed(true);
    } catch (e) {
      try { setText(params.get("start")); } catch (_) { Object.assign(page, before); }  // its start, if it reads
      $("text-error").textContent = `the address's game cannot be shown: ${e.message}`;
      changed(false, true);
    }
  }

  // The address of what the page shows (a position, or a game at a ply), to copy
  function share() {
    const link = $("share-link");
    link.value = location.href;
    link.hidden = false;
    link.select();
    if (navigator.clipboard) navigator.clipboard.writeText(location.href).then(() => { $("status").textContent = "link copied"; }, () => {});
  }

  // --- wiring -----------------------------------------------------------------------

  let modelList = [];  // what /api/models said: each model's board, whether it reads any, one ply

  async function models() {
    const select = $("model");
    try {
      const {models: list, default: chosen} = await get("/api/models", {});
      modelList = list;
      // the server's model (`flipnet explore --model NAME`, else the best), by its own name
      const named = chosen === "best" ? (list.find((m) => m.best) || {name: chosen}).name : chosen;
      if (page.model === page.defaultModel) page.model = named;
      page.defaultModel = named;
      for (const m of list) {
        const reach = m.size_free ? "any board, by component" : `${m.board} only`;
        const option = el("option", {value: m.name}, `${m.name} (${m.kind}, ${reach}${m.source === "trained here" ? ", trained here" : ""})`);
        if (m.best) option.textContent = `best: ${option.textContent}`;
        select.appendChild(option);
      }
    } catch (e) { /* the select keeps its one entry */ }
    if (![...select.options].some((o) => o.value === page.model)) select.appendChild(el("option", {value: page.model}, page.model));
    select.value = page.model;
    fitModels();
  }

  // A model reads its own board, or any (size-free); one ply needs a model that values components
  function readsBoard(m) { return !m.error && (m.size_free || m.board === `${page.rows}x${page.cols}`); }
  function hasOnePly() { const m = modelList.find((x) => x.name === page.model); return !m || Boolean(m.one_ply); }

  function fitModels() {
    for (const option of $("model").options) {
      const m = modelList.find((x) => x.name === option.value);
      if (!m) continue;
      option.disabled = !readsBoard(m) && option.value !== page.model;
      option.title = m.error || `reads ${m.reads}`;
    }
    const chosen = modelList.find((x) => x.name === page.model);
    const off = modelList.filter((m) => !m.error && !readsBoard(m)).map((m) => m.name);
    $("model-reach").textContent = chosen && chosen.reads ? `${chosen.name} reads ${chosen.reads}.` +
      (off.length ? ` Not offered on this board: ${off.join(", ")} (each reads its own board only).` : "") : "";
    const ply = $("ply");
    ply.disabled = !hasOnePly();
    ply.checked = page.ply && !ply.disabled;
    ply.title = ply.disabled ? "this model has no one-ply lookahead (component models have it)" : "";
  }

  function wire() {
    $("rows-minus").onclick = () => !page.game && resize(page.rows - 1, page.cols);
    $("rows-plus").onclick = () => !page.game && resize(page.rows + 1, page.cols);
    $("cols-minus").onclick = () => !page.game && resize(page.rows, page.cols - 1);
    $("cols-plus").onclick = () => !page.game && resize(page.rows, page.cols + 1);
    $("fill").onclick = () => { if (!page.game) { page.cells.fill(1); changed(); } };
    $("clear").onclick = () => { if (!page.game) { page.cells.fill(0); changed(); } };
    $("text-form").onsubmit = (event) => {
      event.preventDefault();
      if (page.game) return;
      try { setText($("text").value); $("text-error").textContent = ""; changed(); } catch (e) { $("text-error").textContent = e.message; }
    };
    $("copy").onclick = () => navigator.clipboard && navigator.clipboard.writeText(text());
    document.querySelectorAll("input[name=view]").forEach((radio) => {
      radio.checked = radio.value === page.view;
      radio.onchange = () => { page.view = radio.value; changed(); };
    });
    $("model").onchange = () => { page.model = $("model").value; changed(); };
    $("ply").checked = page.ply;
    $("ply").onchange = () => { page.ply = $("ply").checked; changed(); };
    $("cancel").onclick = () => { if (page.asking) flipnet.cancel(page.asking.question); };
    $("start").onclick = () => start();
    $("undo").onclick = undo;
    $("back").onclick = () => (page.game ? viewAt(shown(page.game) - 1) : history.back());
    $("forward").onclick = () => (page.game ? viewAt(shown(page.game) + 1) : history.forward());
    $("share").onclick = share;
    window.addEventListener("popstate", fromHistory);
    document.addEventListener("keydown", (event) => {
      const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName) ||
        document.activeElement.closest("#board");  // the board's own arrow keys
      if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
      const step = {ArrowLeft: -1, ArrowRight: 1}[event.key];
      if (!step) return;
      event.preventDefault();
      if (page.game) viewAt(shown(page.game) + step);  // a game's plies
      else if (step < 0) history.back();
      else history.forward();
    });
    $("stop").onclick = stop;
    $("hints").onchange = draw;
    $("save").onclick = save;
    $("load").onchange = load;
    window.addEventListener("resize", draw);
    document.body.dataset.ready = "1";
  }

  function colourKey() {
    const key = $("colour-key");
    key.appendChild(el("span", {}, "a move leaves:"));
    for (let v = 0; v <= 7; v++) {  // a block of the colour, and the number in ink beside it
      const entry = el("span", {class: "value"});
      const swatch = el("span", {class: "swatch", "aria-hidden": "true"});
      swatch.style.background = colour(v);
      entry.append(swatch, v === 7 ? "7+" : String(v));
      key.appendChild(entry);
    }
    key.appendChild(el("span", {}, "(0: a winning move)"));
  }

  players();
  readUrl();
  colourKey();
  wire();
  $("text").value = text();  // the board at once; its first questions once the server's model is known
  draw();
  models().then(() => (page.linkedGame ? openLinkedGame(page.linkedGame) : changed(false, true)));
})();
