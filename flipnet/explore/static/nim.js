// The Nim games of the sources: a position, its value, each move's value, and games
// against the players flipnet has (optimal, the NIM perceptron, the evolution strategy).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const {ask, el, svg} = flipnet;
  // The games this page offers, as the server's registry describes them (games.js)
  const listed = flipnet.games.filter((g) => g.page === "games");
  const GAMES = Object.fromEntries(listed.map((g) => [g.name, g]));
  const page = {game: null, position: "", misere: true, answer: null, asking: null, record: null, busy: false};
  let asked = 0;

  function params(extra = {}) {
    const p = {game: page.game, position: page.position, ...extra};
    if (GAMES[page.game].rule_choice) p.misere = page.misere ? 1 : 0;
    return p;
  }

  // A position as the game writes it, else why not (checked before it is drawn or asked,
  // or written into the address): a position past the page's limits is one, and says so
  function problem(game, text) {
    const {form, form_words: words, limits = {}} = GAMES[game];
    const title = GAMES[game].title.replace(/ \(.*\)$/, "");
    if (/^\d+(,\d+)*$/.test(text) && (limits.heaps || limits.objects)) {
      const heaps = text.split(",").map(Number);
      const total = heaps.reduce((a, b) => a + b, 0);
      if (limits.heaps && heaps.length > limits.heaps) return `${title} here has at most ${limits.heaps} heaps, not ${heaps.length}`;
      if (limits.objects && total > limits.objects) {
        return `${title} here holds at most ${limits.objects.toLocaleString("en")} objects in all, not ${total.toLocaleString("en")} ` +
          `(\`flipnet value ${game}\` values any size)`;
      }
    }
    return new RegExp(`^(?:${form})$`).test(text) ? null
      : `${JSON.stringify(text.slice(0, 40))} is not a ${game} position: write ${words}`;
  }

  // Every edit outside a game is a step of the browser's history (Back, Forward)
  async function changed(fromHistory = false) {
    const mine = ++asked;
    page.answer = null;
    $("moves-count").textContent = "";
    const query = new URLSearchParams({game: page.game, p: page.position});
    if (GAMES[page.game].rule_choice) query.set("misere", page.misere ? "1" : "0");
    const url = `?${query.toString().replaceAll("%2F", "/").replaceAll("%2C", ",")}`;
    if (url !== location.search) {
      if (!fromHistory && !page.record && location.search) history.pushState(null, "", url);
      else history.replaceState(null, "", url);
    }
    $("position").value = page.position;
    draw();
    try {
      const answer = await ask("/api/position", params(), (q) => { page.asking = q; progress(); }, () => mine !== asked);
      if (answer === null || mine !== asked) return;
      page.answer = answer;
      draw();
      if (page.record && !over() && toMove() === "ai") aiMove();
    } catch (e) {
      if (mine !== asked) return;
      page.asking = null;
      progress();
      $("summary").replaceChildren(e.cancelled ? el("span", {class: "stopped"}, "cancelled")
        : el("span", {class: "error", role: "alert"}, e.message));
    }
  }

  function progress() {
    $("progress").hidden = !page.asking;
    if (page.asking) $("progress-text").textContent = `${page.asking.positions.toLocaleString()} positions, ${page.asking.seconds.toFixed(1)} s`;
  }

  function draw() {
    picture();
    const a = page.answer;
    const summary = $("summary");
    summary.replaceChildren();
    if (a) {
      const words = a.rule === "normal" ? `nim-value ${a.value}` : (a.value ? "a win" : "a loss");
      summary.appendChild(el("span", {id: "value", class: "big"}, words));
      summary.appendChild(el("span", {id: "winner"}, a.value ? " for the player to move" : " for the player to move: every move loses"));
    }
    const body = $("moves").querySelector("tbody");
    body.replaceChildren();
    if (a) {
      a.moves.forEach((m) => {
        const row = el("tr", {"data-move": m.move, class: m.value === 0 ? "wins" : ""});
        [m.move, m.position, String(m.value), m.value === 0 ? "wins" : ""].forEach((t) => row.appendChild(el("td", {}, t)));
        row.addEventListener("click", () => play(m));
        row.tabIndex = 0;
        row.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); play(m); } });
        body.appendChild(row);
      });
      $("moves-count").textContent = `${a.moves.length} moves, best first`;
    }
    record();
  }

  function picture() {
    const box = $("picture");
    box.replaceChildren();
    if (GAMES[page.game].board) {
      const rows = page.position.split("/"), s = 44;
      const board = svg("svg", {id: "grid", width: rows[0].length * s + 8, height: rows.length * s + 8});
      rows.forEach((row, r) => row.split("").forEach((cell, c) => {
        const rect = svg("rect", {x: 4 + c * s + 1, y: 4 + r * s + 1, width: s - 2, height: s - 2, rx: 6,
          class: cell === "1" ? "cell full" : "cell empty", "data-r": r, "data-c": c, tabindex: 0, role: "button",
          "aria-label": `row ${r}, column ${c}: ${cell === "1" ? "a stone" : "empty"}`});
        rect.addEventListener("click", () => toggle(r, c));
        rect.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggle(r, c); } });
        board.appendChild(rect);
      }));
      box.appendChild(board);
      return;
    }
    if (!/^\d+(,\d+)*$/.test(page.position)) {  // a game of neither cells nor heaps: its text
      box.appendChild(el("code", {class: "position"}, page.position));
      return;
    }
    const heaps = page.position.split(",").map(Number);
    const row = el("div", {class: "heaps"});
    heaps.forEach((h, i) => {
      const heap = el("span", {class: "heap", "data-heap": i + 1});
      heap.appendChild(el("small", {}, `#${i + 1}`));  // the number a move names (COUNT@HEAP)
      heap.appendChild(el("b", {}, String(h)));
      for (let k = 0; k < Math.min(h, 60); k++) heap.appendChild(el("i"));
      row.appendChild(heap);
    });
    box.appendChild(row);
  }

  function toggle(r, c) {
    if (page.record) return;
    const rows = page.position.split("/").map((row) => row.split(""));
    rows[r][c] = rows[r][c] === "1" ? "0" : "1";
    page.position = rows.map((row) => row.join("")).join("/");
    changed();
  }

  // --- games ----------------------------------------------------------------------

  function toMove() {
    const g = page.record;
    return g.plies.length % 2 === 0 ? g.first : (g.first === "you" ? "ai" : "you");
  }

  function over() {
    return page.answer && page.answer.moves.length === 0;
  }

  function play(m) {
    if (page.busy || (page.record && (over() || toMove() !== "you"))) return;
    if (page.record) page.record.plies.push({by: "you", move: m.move, position: m.position, value: m.value});
    page.position = m.position;
    changed();
  }

  async function aiMove() {
    const g = page.record;
    page.busy = true;
    $("status").textContent = "thinking…";
    const mine = asked;
    try {
      const answer = await ask("/api/move", params({agent: g.opponent, seed: g.seed, ply: g.plies.length}),
        () => {}, () => mine !== asked || page.record !== g);
      if (answer === null || page.record !== g) return;
      g.plies.push({by: "ai", move: answer.move, position: answer.position, value: null});
      page.position = answer.position;
    } catch (e) {
      $("status").replaceChildren(el("span", {class: "error", role: "alert"}, e.message));
      return;
    } finally {
      page.busy = false;
    }
    changed();
  }

  function record() {
    const g = page.record;
    const body = $("record").querySelector("tbody");
    body.replaceChildren();
    $("start").disabled = !!g;
    $("stop").disabled = !g;
    $("undo").disabled = !g || page.busy || !g.plies.some((p) => p.by === "you");
    if (!g) return;
    if (page.answer && g.plies.length) g.plies[g.plies.length - 1].value = page.answer.value;
    const name = GAMES[page.game].players[g.opponent];
    g.plies.forEach((p, i) => {
      const row = el("tr");
      [String(i + 1), p.by === "you" ? "you" : name, p.move, p.position, p.value === null ? "…" : String(p.value)]
        .forEach((t) => row.appendChild(el("td", {}, t)));
      body.appendChild(row);
    });
    if (over()) {
      const stuck = toMove();
      const misere = page.answer.rule === "misere";
      const won = (stuck === "you") === misere;  // misère: the player left without a move has won
      $("status").textContent = won ? "You won!" : `${name} won.`;
    } else if (!page.busy) {
      $("status").textContent = toMove() === "you" ? "Your move: click one in the list." : "";
    }
  }

  function wire() {
    $("game").replaceChildren(...listed.map((g) => el("option", {value: g.name}, g.title)));
    const params = new URLSearchParams(location.search);
    page.game = GAMES[params.get("game")] ? params.get("game") : listed[0].name;
    page.position = params.get("p") || GAMES[page.game].start;
    if (problem(page.game, page.position)) {  // an address that cannot be read: said, and the start shown
      $("position-error").textContent = problem(page.game, page.position);
      page.position = GAMES[page.game].start;
    }
    page.misere = params.get("misere") !== "0";
    $("game").value = page.game;
    $("misere").checked = page.misere;
    setGame(false);
    $("game").onchange = () => { page.game = $("game").value; page.position = GAMES[page.game].start; setGame(true); };
    $("misere").onchange = () => { page.misere = $("misere").checked; changed(); };
    $("position-form").onsubmit = (event) => {
      event.preventDefault();
      if (page.record) return;
      const text = $("position").value.trim();
      const wrong = problem(page.game, text);
      $("position-error").textContent = wrong || "";
      if (wrong) return;  // the last good position stays
      page.position = text;
      changed();
    };
    window.addEventListener("popstate", () => {
      if (page.record) return;
      const params = new URLSearchParams(location.search);
      const game = GAMES[params.get("game")] ? params.get("game") : page.game;
      const text = params.get("p") || GAMES[game].start;
      const wrong = problem(game, text);
      $("position-error").textContent = wrong || "";
      if (wrong) return;
      if (game !== page.game) { page.game = game; $("game").value = game; }
      page.position = text;
      page.misere = params.get("misere") !== "0";
      $("misere").checked = page.misere;
      setGame(false);
      changed(true);
    });
    $("start").onclick = () => {
      page.record = {start: page.position, first: $("first").value, opponent: $("opponent").value,
        seed: Math.floor(Math.random() * 2 ** 31), plies: []};
      changed();
    };
    $("undo").onclick = () => {
      const g = page.record;
      let last = g.plies.length - 1;
      while (last >= 0 && g.plies[last].by !== "you") last--;
      if (last < 0) return;
      g.plies.length = last;
      page.position = last ? g.plies[last - 1].position : g.start;
      changed();
    };
    $("stop").onclick = () => { page.record = null; $("status").textContent = ""; changed(); };
    document.body.dataset.ready = "1";
  }

  function setGame(reload) {
    const game = GAMES[page.game];
    $("misere-label").hidden = !game.rule_choice;
    $("rules").textContent = game.about;
    const select = $("opponent");
    select.replaceChildren();
    for (const [value, name] of Object.entries(game.players)) select.appendChild(el("option", {value}, name));
    page.record = null;
    if (reload !== false) changed();
  }

  wire();
  changed();
})();
