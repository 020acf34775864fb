// What both pages share: asking the server, waiting for the solver's questions,
// colours of values, and the game record's file.
"use strict";

const flipnet = (() => {
  async function get(path, params) {
    const query = new URLSearchParams(params).toString();
    const response = await fetch(`${path}?${query}`, {cache: "no-store"});
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `${response.status}`);
    return data;
  }

  async function post(path, params) {
    const response = await fetch(`${path}?${new URLSearchParams(params)}`, {method: "POST"});
    return response.json();
  }

  // An exact question: its answer, after polling while the solver works. `progress(q)`
  // sees each report; `stale()` says the page no longer wants it (then null comes back).
  // The server's new question cancels the one under way, so a page's questions reach it in
  // the order they were asked: each is sent once the one before has its first reply (a
  // moment at most), and not at all if the page no longer wants it by then. Two edits in
  // quick succession could otherwise arrive the wrong way round, the older cancelling the
  // newer, and the page would show "cancelled" where nobody cancelled.
  let previous = Promise.resolve();
  async function ask(path, params, progress, stale) {
    const before = previous;
    let replied;
    previous = new Promise((resolve) => { replied = resolve; });
    let q;
    try {
      await before;
      if (stale()) return null;
      q = await get(path, params);
    } finally {
      replied();
    }
    while (q.status === "running") {
      if (stale()) return null;
      progress(q);
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (stale()) return null;
      q = await get("/api/question", {question: q.question});
    }
    progress(null);
    if (q.status === "done") return q.answer;
    const error = new Error(q.error || q.status);
    error.cancelled = q.status === "cancelled";  // a stop the user asked for, not a failure
    throw error;
  }

  function cancel(number) {
    return post("/api/cancel", {question: number});
  }

  // 0 wins (green); higher values warmer and darker
  const WARM = ["#f6c141", "#f1932d", "#e8601c", "#dc050c", "#a5170e", "#72190e", "#42150a"];
  function colour(value) {
    return value === 0 ? "#1a9850" : WARM[Math.min(value - 1, WARM.length - 1)];
  }

  const PARTS = ["#4477aa", "#aa3377", "#228833", "#ccbb44", "#66ccee", "#ee6677", "#bbbbbb", "#882255"];

  function download(name, data) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 1)], {type: "application/json"}));
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  function readFile(input) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => {
        try { resolve(JSON.parse(reader.result)); } catch (e) { reject(new Error("not a JSON file")); }
      };
      reader.onerror = () => reject(new Error("cannot read the file"));
      reader.readAsText(input.files[0]);
    });
  }

  function el(tag, attrs = {}, text = "") {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== "") node.textContent = text;
    return node;
  }

  function svg(tag, attrs = {}) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  // A small graph of values after each ply: lines of [values], dots where marked.
  function graph(node, series, marks) {
    node.replaceChildren();
    const width = 320, height = 90, pad = 14;
    const n = Math.max(1, ...series.map((s) => s.values.length - 1));
    const top = Math.max(1, ...series.flatMap((s) => s.values.filter((v) => v !== null)));
    node.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const x = (i) => pad + (i * (width - 2 * pad)) / n;
    const y = (v) => height - pad - (v * (height - 2 * pad)) / top;
    node.appendChild(svg("line", {x1: pad, y1: y(0), x2: width - pad, y2: y(0), class: "axis"}));
    for (const s of series) {
      const points = s.values.map((v, i) => (v === null ? null : `${x(i)},${y(v)}`)).filter(Boolean);
      if (points.length) node.appendChild(svg("polyline", {points: points.join(" "), class: s.cls}));
    }
    for (const i of marks) node.appendChild(svg("circle", {cx: x(i), cy: y(series[0].values[i] ?? 0), r: 4, class: "mistake"}));
    for (let v = 0; v <= top; v += Math.max(1, Math.ceil(top / 4))) {
      const label = svg("text", {x: 2, y: y(v) + 3, class: "tick"});
      label.textContent = v;
      node.appendChild(label);
    }
  }

  return {get, post, ask, cancel, colour, PARTS, download, readFile, el, svg, graph};
})();
