// Bawo Board companion page: plain JS + SVG, no build step, no network beyond this server.
"use strict";
(function () {
  const SIDES = { S: "South", N: "North", G: "Goats", T: "Tigers" };
  const TOKEN = document.querySelector('meta[name="bawo-token"]').content;
  const NS = "http://www.w3.org/2000/svg";
  const LED = 12, GAPX = 10, GAPY = 34, SPLIT = 26;   // SVG units
  // Test and benchmark hooks: what the page showed, when (Date.now(), ms since the epoch).
  const bawo = window.bawo = { updates: [], sows: 0, shown: null };

  function el(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // The LEDs are drawn as the firmware lights them: frame = the canvas' RGB bytes in hex.
  function lift(v) { return v === 0 ? 0 : Math.min(255, Math.round(255 * Math.pow(v / 128, 0.75))); }

  class Board {
    constructor(holder, layout) {
      this.layout = layout;
      holder.textContent = "";
      const L = layout, blk = L.pockets[0];
      const px = (x) => x * LED + Math.floor(x / blk.w) * GAPX;
      const py = (y) => { const r = Math.floor(y / blk.h);
        return y * LED + r * GAPY + (L.split !== null && r >= L.split ? SPLIT : 0); };
      this.px = px; this.py = py;
      const W = px(L.w - 1) + LED + 4, H = py(L.h - 1) + LED + GAPY;
      const svg = this.svg = el("svg", { viewBox: "-4 -4 " + (W + 4) + " " + (H + 4), role: "img",
                                         "aria-label": L.game + " board" }, holder);
      this.leds = [];
      for (let y = 0; y < L.h; y++) for (let x = 0; x < L.w; x++) {
        this.leds.push(el("rect", { x: px(x) + 1, y: py(y) + 1, width: LED - 2, height: LED - 2, rx: 3,
                                     fill: "#2a221b" }, svg));
      }
      if (L.split !== null) {   // which half is whose, in the gap between them
        const y = py(L.split * blk.h) - SPLIT / 2 - 6;
        el("text", { class: "half", x: 0, y: y }, svg).textContent = "\u25B2 North";
        el("text", { class: "half", x: W - 4, y: y + 12, "text-anchor": "end" }, svg).textContent = "South \u25BC";
      }
      this.cells = {};
      for (const p of L.pockets) {
        const x0 = px(p.x), y0 = py(p.y), w = p.w * LED, h = p.h * LED;
        const g = el("g", { class: "pocket", "data-key": p.key, "data-label": p.label,
                            "data-cell": p.cell === null ? "" : p.cell }, svg);
        const hit = el("rect", { class: "hit", x: x0 - 3, y: y0 - 3, width: w + 6, height: h + 6 }, g);
        const count = el("text", { class: "count", x: x0 + w - 2, y: y0 + h + 24, "text-anchor": "end" }, g);
        const lab = el("text", { class: "label", x: x0 + 1, y: y0 + h + 20 }, g);
        lab.textContent = p.label;
        if (p.cell !== null && p.cell !== undefined) this.cells[p.cell] = { hit, count, label: p.label };
      }
    }
    frame(hex) {
      const n = Math.min(this.leds.length, hex.length / 6);
      for (let i = 0; i < n; i++) {
        const o = i * 6;
        const r = lift(parseInt(hex.substr(o, 2), 16)), g = lift(parseInt(hex.substr(o + 2, 2), 16)),
              b = lift(parseInt(hex.substr(o + 4, 2), 16));
        this.leds[i].setAttribute("fill", (r | g | b) ? "rgb(" + r + "," + g + "," + b + ")" : "#2a221b");
      }
    }
    picture(pic, lastCells) {
      this.frame(pic.frame);
      for (const c in this.cells) {
        const t = pic.counts[c];
        this.cells[c].count.textContent = t === undefined ? "" : t;
        this.cells[c].hit.classList.toggle("last", !!(lastCells && lastCells.has(+c)));
      }
      bawo.shown = { position: pic.position, counts: pic.counts };
    }
  }

  const layouts = {};
  async function getLayout(game) {
    if (!layouts[game]) layouts[game] = await (await fetch("/api/layout/" + encodeURIComponent(game))).json();
    return layouts[game];
  }
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  function setText(id, t) { const e = document.getElementById(id); if (e) e.textContent = t; }
  function turnText(pic, result) {
    if (result) return "Game over: " + result;
    return pic && pic.turn ? (SIDES[pic.turn] || pic.turn) + " to move" : "";
  }
  function fillMoves(ol, moves, cur) {
    ol.textContent = "";
    moves.forEach((m, i) => {
      const li = document.createElement("li");
      li.textContent = m; li.dataset.ply = i + 1;
      if (i + 1 === cur) li.className = "cur";
      ol.appendChild(li);
    });
    // The current move in view within the list's own scroll box (.moves is positioned, so
    // offsetTop counts from it); scrollIntoView would scroll the page too, on a phone past
    // the board.
    const c = ol.querySelector(".cur");
    if (c) {
      if (c.offsetTop < ol.scrollTop) ol.scrollTop = c.offsetTop;
      else if (c.offsetTop + c.offsetHeight > ol.scrollTop + ol.clientHeight)
        ol.scrollTop = c.offsetTop + c.offsetHeight - ol.clientHeight;
    }
  }
  // Play a sowing: the firmware's own animation frames with its waits, squeezed into maxMs.
  async function animate(board, frames, maxMs, still) {
    const total = frames.reduce((a, f) => a + f[1], 0) || 1;
    const k = Math.min(1, maxMs / total);
    for (const [hex, wait] of frames) {
      if (still()) return false;
      board.frame(hex);
      await sleep(wait * k);
    }
    return true;
  }

  // -- live page ------------------------------------------------------------------------------
  function live() {
    let board = null, game = null, animating = 0, pending = null;
    const status = document.getElementById("status");
    const links = document.getElementById("gamelinks");
    async function show(msg) {
      setText("note", msg.note || "");   // the watcher's last line, e.g. a move that did not replay
      if (!msg.game || !msg.picture) {
        board = null; game = null; pending = null;
        document.getElementById("board").textContent = "";
        for (const id of ["ply", "last", "result"]) setText(id, "–");
        document.getElementById("moves").textContent = "";
        links.hidden = true;
        setText("gametitle", "No game on the board");
        setText("turnline", "Start a game on the board (MENU): it shows here move by move.");
        bawo.updates.push({ ply: null, id: null, t_recv: msg.t_recv, t_page: Date.now() });
        return;
      }
      if (game !== msg.game) { board = new Board(document.getElementById("board"), await getLayout(msg.game)); game = msg.game; }
      pending = msg;
      if (!animating) board.picture(msg.picture);
      setText("gametitle", msg.game + (msg.id ? " · " + msg.id : ""));
      setText("ply", msg.ply === undefined || msg.ply === null ? "–" : msg.ply);
      setText("last", msg.last || "–");
      setText("result", msg.result || "–");
      setText("turnline", turnText(msg.picture, msg.result));
      // A finished game stays on the page, with its replay and analysis once it is logged.
      links.hidden = !msg.replay;
      if (msg.replay) {
        document.getElementById("replaylink").href = msg.replay;
        document.getElementById("analyselink").href = msg.replay + "#analyse";
      }
      const ol = document.getElementById("moves");
      if (msg.moves) fillMoves(ol, msg.moves, msg.ply); else ol.textContent = "";
      bawo.updates.push({ ply: msg.ply, id: msg.id, last: msg.last, t_recv: msg.t_recv, t_page: Date.now(),
                          counts: msg.picture.counts, over: !!msg.over, result: msg.result || null,
                          replay: msg.replay || null });
    }
    async function sow(msg) {
      if (!board || !msg.frames.length) return;
      animating++;
      const mine = pending;
      await animate(board, msg.frames, 2500, () => pending !== mine);
      animating--;
      bawo.sows++;
      if (!animating && pending) board.picture(pending.picture);
    }
    let es = null;
    function open() {
      es = new EventSource("/live");
      es.onmessage = (e) => {
        const msg = JSON.parse(e.data);
        if (msg.type === "status") {
          status.textContent = msg.text;
          status.className = "status " + (msg.connected ? "on" : "off");
          bawo.connected = msg.connected;
        } else if (msg.type === "position") show(msg);
        else if (msg.type === "sow") sow(msg);
      };
      es.onerror = () => { status.textContent = "lost the server: reconnecting…"; status.className = "status off"; bawo.connected = false; };
    }
    open();
    const form = document.getElementById("moveform");
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const mv = document.getElementById("move").value.trim();
      if (!mv) return;
      const r = await post("/api/move", { move: mv });
      setText("moveerr", r.error || "");
      if (!r.error) document.getElementById("move").value = "";
    });
  }

  async function post(url, body) {
    try {
      const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "X-Bawo-Token": TOKEN },
                                   body: JSON.stringify(body || {}) });
      const t = await r.text();
      try { return JSON.parse(t); } catch (e) { return { error: t.trim() }; }
    } catch (e) { return { error: "the server did not answer: is `bawo serve` still running?" }; }
  }

  // -- game page: replay ---------------------------------------------------------------------
  async function replay() {
    const root = document.getElementById("replay");
    const data = await (await fetch("/api/game/" + encodeURIComponent(root.dataset.gid))).json();
    if (data.error) { setText("turnline", data.error); return; }
    const board = new Board(document.getElementById("board"), data.layout);
    const cache = {};
    let ply = 0, playing = false, seq = 0;
    const n = data.moves.length;
    const slider = document.getElementById("plyslider");
    async function pic(i) {
      if (!cache[i]) {
        const q = "game=" + encodeURIComponent(data.game) + "&position=" + encodeURIComponent(data.positions[i]);
        cache[i] = await (await fetch("/api/picture?" + q)).json();
      }
      return cache[i];
    }
    function texts() {
      slider.value = ply;
      setText("plyinfo", "ply " + ply + " / " + n);
      setText("lastmove", ply ? ply + ". " + data.moves[ply - 1] : "–");
      const over = ply === n && data.header.Result && data.header.Result !== "*";
      setText("turnline", over ? "Game over: " + (SIDES[data.header.Result] || data.header.Result) +
              (data.header.Result === "draw" ? "" : " wins") : (SIDES[data.turns[ply]] || data.turns[ply]) + " to move");
      fillMoves(document.getElementById("moves"), data.moves, ply);
      showMarks();
      window.bawo.ply = ply;
    }
    // Analysis marks (bawo analyse on the server): the value of the shown position for the
    // side to move, the shown ply's mark, and the mistake / missed wins in the move list.
    let marks = null, estimate = false;
    function valueText(i) {
      if (!marks) return "–";
      const side = SIDES[data.turns[i]] || data.turns[i];
      if (i < n) {
        const m = marks[i];
        return (estimate ? "ESTIMATE: " : "") + m.value_text + " (" + side + " to move)";
      }
      return "game over";
    }
    function graph(curve) {
      // The evaluation over the game (bawo.analyse.curve: -1..1 a position, up for the first
      // side): one polyline, the zero line, and a dot on the shown ply.
      const W = 300, H = 80, NS = "http://www.w3.org/2000/svg", box = document.getElementById("evalgraph");
      const x = (i) => (curve.length > 1 ? i * W / (curve.length - 1) : 0).toFixed(1);
      const y = (v) => (H / 2 - v * (H / 2 - 4)).toFixed(1);
      const svg = document.createElementNS(NS, "svg");
      svg.setAttribute("viewBox", "0 0 " + W + " " + H); svg.setAttribute("class", "chart evalgraph");
      const el = (name, attrs) => { const e = document.createElementNS(NS, name); for (const k in attrs) e.setAttribute(k, attrs[k]); svg.appendChild(e); return e; };
      el("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "zero" });
      el("polyline", { points: curve.map((v, i) => x(i) + "," + y(v)).join(" "), class: "eval" });
      const dot = el("circle", { r: 3, class: "here" });
      svg.onclick = (e) => { const r = svg.getBoundingClientRect(); stop(); go(Math.round((e.clientX - r.left) / r.width * (curve.length - 1))); };
      box.textContent = ""; box.appendChild(svg); box.hidden = false;
      document.getElementById("analegend").hidden = false;
      graph.dot = (i) => { if (i < curve.length) { dot.setAttribute("cx", x(i)); dot.setAttribute("cy", y(curve[i])); } };
    }
    function showMarks() {
      setText("value", valueText(ply));
      if (graph.dot) graph.dot(ply);
      if (!marks) { setText("plymark", "–"); return; }
      const m = ply ? marks[ply - 1] : null;
      setText("plymark", m ? (estimate ? "ESTIMATE: " : "") + m.text : "–");
      document.querySelectorAll("#moves li").forEach((li) => {
        const x = marks[+li.dataset.ply - 1]; if (!x) return;
        li.title = (estimate ? "ESTIMATE: " : "") + x.text;
        if (estimate ? x.worst : x.mistake) li.classList.add("mistake");
        else if (!estimate && x.missed) li.classList.add("missed");
      });
    }
    async function analyse() {
      const url = "/api/analysis/" + encodeURIComponent(root.dataset.gid);
      const btn = document.getElementById("analyse"), bar = document.getElementById("anaprog");
      btn.disabled = true;
      let r = await post(url);
      while (!r.error && (r.state === "queued" || r.state === "running")) {
        bar.hidden = false; bar.max = r.total || 1; bar.value = r.done || 0;
        setText("anastate", (r.estimate ? "estimating" : "solving") + ": position " + (r.done || 0) + " of " + r.total);
        await sleep(400);
        r = await (await fetch(url)).json();
      }
      window.bawo.analysis = r;
      bar.hidden = true; btn.disabled = false;
      if (r.error || r.state !== "done") { setText("anastate", r.error || "no analysis"); return; }
      marks = r.marks; estimate = !!r.estimate;
      graph(r.curve || []);
      const bad = marks.filter((x) => estimate ? x.worst : x.mistake).map((x) => x.ply);
      setText("anastate", estimate ? "ESTIMATE (the level-5 search's view, not a proof); the costliest moves: ply " + (bad.join(", ") || "none")
              : bad.length ? "the game was lost at ply " + bad.join(", ") : "no ply turned a won position into a lost one (within the budget)");
      btn.hidden = true;
      texts();
    }
    document.getElementById("analyse").onclick = analyse;
    async function go(i, animated) {
      i = Math.max(0, Math.min(n, i));
      const my = ++seq;
      if (animated && i === ply + 1) {
        const q = "game=" + encodeURIComponent(data.game) + "&position=" + encodeURIComponent(data.positions[ply]) +
                  "&move=" + encodeURIComponent(data.moves[ply]);
        const sw = await (await fetch("/api/sow?" + q)).json();
        if (my !== seq) return;
        ply = i; texts();
        await animate(board, sw.frames || [], playing ? 1800 : 900, () => my !== seq);
        if (my !== seq) return;
        cache[i] = sw.after;
        board.picture(sw.after);
      } else {
        const p = await pic(i);
        if (my !== seq) return;
        ply = i; texts();
        board.picture(p);
      }
      window.bawo.shownPly = ply;
    }
    async function run() {
      while (playing && ply < n) { await go(ply + 1, true); await sleep(250); }
      playing = false; setText("play", "▶ play");
    }
    function toggle() { playing = !playing; setText("play", playing ? "⏸ pause" : "▶ play"); if (playing) run(); }
    function stop() { if (playing) toggle(); }
    document.getElementById("first").onclick = () => { stop(); go(0); };
    document.getElementById("back").onclick = () => { stop(); go(ply - 1); };
    document.getElementById("fwd").onclick = () => { stop(); go(ply + 1, true); };
    document.getElementById("last").onclick = () => { stop(); go(n); };
    document.getElementById("play").onclick = toggle;
    slider.oninput = () => { stop(); go(+slider.value); };
    document.getElementById("moves").onclick = (e) => { const li = e.target.closest("li"); if (li) { stop(); go(+li.dataset.ply); } };
    document.addEventListener("keydown", (e) => {
      if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
      if (e.key === "ArrowLeft") { stop(); go(ply - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { stop(); go(ply + 1, true); e.preventDefault(); }
      else if (e.key === "Home") { stop(); go(0); e.preventDefault(); }
      else if (e.key === "End") { stop(); go(n); e.preventDefault(); }
      else if (e.key === " ") { toggle(); e.preventDefault(); }
    });
    await go(0);
    window.bawo.ready = true;
    if (location.hash === "#analyse") analyse();   // the live page's "Analyse" link
  }

  // -- board page ---------------------------------------------------------------------------
  function boardPage() {
    const status = document.getElementById("status");
    const es = new EventSource("/live");
    es.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "flash") {
        // The bar: files copied of the bundle (file k of n starts: k-1 are done), full when updated.
        const bar = document.getElementById("flashbar");
        let pct = null;
        if (msg.step) pct = Math.floor(100 * (msg.step - 1) / msg.of);
        else if (msg.text.startsWith("staged files verified") || (msg.done && msg.ok)) pct = 100;
        if (pct !== null) {
          bar.hidden = false; bar.value = pct;
          setText("flashpct", pct + "%" + (msg.step ? " (copying file " + msg.step + " of " + msg.of + ")" : ""));
          window.bawo.flashpct = (window.bawo.flashpct || []).concat([pct]);
        }
        const li = document.createElement("li"); li.textContent = msg.text;
        if (msg.done) li.className = msg.ok ? "ok" : "err";
        document.getElementById("flashlog").appendChild(li);
        window.bawo.flashlog = (window.bawo.flashlog || []).concat([msg.text]);
        return;
      }
      if (msg.type !== "status") return;
      status.textContent = msg.text; status.className = "status " + (msg.connected ? "on" : "off");
      const dl = document.getElementById("boardinfo"); dl.textContent = "";
      const b = msg.board || {};
      for (const k of Object.keys(b)) {
        const dt = document.createElement("dt"); dt.textContent = k;
        const dd = document.createElement("dd"); dd.textContent = Array.isArray(b[k]) ? b[k].join(", ") : b[k];
        dl.appendChild(dt); dl.appendChild(dd);
      }
    };
    document.getElementById("flash").onclick = async () => {
      if (!confirm("Update the board's firmware now? The game on the board stops.")) return;
      document.getElementById("flashlog").textContent = "";
      document.getElementById("flashbar").value = 0; setText("flashpct", "0%"); window.bawo.flashpct = [];
      const r = await post("/api/flash");
      window.bawo.flash = r;
    };
    document.getElementById("sync").onclick = async () => {
      setText("syncout", "syncing…");
      const r = await post("/api/sync");
      setText("syncout", r.error ? r.error : "added " + (r.added || []).length + ", already there " +
              (r.reacked || []).length + ((r.conflicts || []).length ? ", conflicts kept: " +
              r.conflicts.map((c) => c.id).join(" ") : "") +
              (r.club ? "; " + (r.club.error || r.club.lines.join("; ")) : ""));
      window.bawo.sync = r;
    };
  }

  // -- play against the computer -----------------------------------------------------------
  function playPage() {
    let board = null, game = null, state = null, clicked = [], busy = false;
    const SIDE = { you: "You", computer: "Computer" };
    async function show(r) {
      if (r.error) { setText("moveerr", r.error); return; }
      setText("moveerr", "");
      if (game !== r.game) {
        board = new Board(document.getElementById("board"), await getLayout(r.game)); game = r.game;
        board.svg.addEventListener("click", onClick);
      }
      for (const st of r.steps || []) {        // each sowing as the board animates it
        setText("last", st.move + " (" + SIDE[st.by] + ")");
        await animate(board, st.frames, 1200, () => false);
      }
      state = r; clicked = [];
      board.picture(r.picture);
      setText("hinttext", "");
      for (const h of board.svg.querySelectorAll(".hit.hint")) h.classList.remove("hint");
      setText("ply", r.ply); setText("result", r.result || "–");
      setText("last", r.moves.length ? r.moves[r.moves.length - 1] : "–");
      setText("turnline", r.result ? "Game over: " + r.result + (r.logged ? " (logged)" : "") :
              "Your move (" + (SIDES[r.you] || r.you) + ")");
      fillMoves(document.getElementById("moves"), r.moves, r.ply);
      // The game's end: its replay and analysis, once it is in the log.
      const links = document.getElementById("gamelinks");
      links.hidden = !r.replay;
      if (r.replay) {
        document.getElementById("replaylink").href = r.replay;
        document.getElementById("analyselink").href = r.replay + "#analyse";
      }
      window.bawo.play = r;
    }
    async function send(mv) {
      if (busy) return;
      busy = true;
      setText("turnline", "The computer is thinking…");
      try { await show(await post("/api/play/move", { move: mv })); } finally { busy = false; }
    }
    const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
    const pre = (a, b) => a.length <= b.length && a.every((x, i) => x === b[i]);
    // The picked pocket, and the pockets its moves go on to (the board's green targets).
    function mark() {
      const targets = new Set();
      if (clicked.length)
        for (const m in state.presses) {
          const p = state.presses[m];
          if (p.length > clicked.length && pre(clicked, p)) targets.add(p[clicked.length]);
        }
      for (const c in board.cells) board.cells[c].hit.classList.remove("last");
      for (const g of board.svg.querySelectorAll("g.pocket")) {
        const hit = g.querySelector(".hit"), k = +g.dataset.key;
        hit.classList.toggle("picked", clicked.includes(k));
        hit.classList.toggle("target", targets.has(k));
      }
      bawo.targets = Array.from(targets).sort((a, b) => a - b);
    }
    function onClick(e) {
      const g = e.target.closest("g.pocket");
      if (!g || !state || busy) return;
      const key = +g.dataset.key;
      if (state.result) { setText("moveerr", "the game is over: start a new one"); return; }
      clicked.push(key);
      let moves = Object.keys(state.presses);
      let said = "";
      if (!moves.some((m) => pre(clicked, state.presses[m]))) {
        clicked = [key];                              // start again from this pocket
        if (!moves.some((m) => pre(clicked, state.presses[m]))) {
          clicked = [];
          said = (state.why && state.why[key]) || "no move starts there";
        }
      }
      setText("moveerr", said);
      const done = moves.filter((m) => same(clicked, state.presses[m]));
      mark();
      if (done.length === 1) send(done[0]);
    }
    // A page opened again (a reload) goes on with the game it had.
    fetch("/api/play").then((r) => r.json()).then((r) => {
      if (r.game && !state) show(Object.assign(r, { steps: [] }));
      bawo.playReady = true;
    });
    document.getElementById("newgame").addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      busy = true;
      try {
        await show(await post("/api/play/new", { game: f.get("game"), side: +f.get("side"), level: +f.get("level") }));
      } finally { busy = false; }
    });
    document.getElementById("hint").addEventListener("click", async () => {
      if (busy || !state) return;
      const r = await post("/api/play/hint");
      if (r.error) { setText("moveerr", r.error); return; }
      await show(r);   // the same position: it marks where the hinted move is pressed
      clicked = []; mark();
      for (const g of board.svg.querySelectorAll("g.pocket"))
        g.querySelector(".hit").classList.toggle("hint", r.hint.presses.includes(+g.dataset.key));
      setText("hinttext", "Hint " + r.hint.n + ": " + r.hint.move);
      window.bawo.hint = r.hint;
    });
    document.getElementById("moveform").addEventListener("submit", (e) => {
      e.preventDefault();
      const mv = document.getElementById("move").value.trim();
      if (mv) { document.getElementById("move").value = ""; send(mv); }
    });
  }

  // -- live page: a club remote game's panel, and the club's open seeks -----------------------
  function clockText(ms) {
    const s = Math.ceil(ms / 1000), m = Math.floor(s / 60);
    return m + ":" + String(s % 60).padStart(2, "0");
  }
  function remotePanel() {
    const box = document.getElementById("remote");
    if (!box) return;
    const $ = (id) => document.getElementById(id);
    let shown = null, busy = false;
    function show(r) {
      bawo.remote = r;
      const g = r.remote;
      box.hidden = !g;
      if (!g) { shown = null; return; }
      shown = g.game;
      setText("r-game", "club game " + g.game + (g.kind ? " · " + g.kind : ""));
      $("r-err").textContent = r.error || "";
      setText("r-note", r.note || "");
      if (r.error && !g.state) {   // the club did not answer: what we know, and why
        for (const id of ["r-opponent", "r-side", "r-turn", "r-peer", "r-result"]) setText(id, "?");
        for (const id of ["r-resign", "r-draw", "r-accept"]) $(id).hidden = true;
        return;
      }
      setText("r-opponent", g.opponent + (g.opponent !== g.opponent_board ? " (board " + g.opponent_board + ")" : ""));
      setText("r-side", g.side_name + " (board " + g.board + ")");
      setText("r-turn", g.state === "over" ? "game over" : (g.turn || "–"));
      const peer = $("r-peer");
      peer.textContent = g.state !== "playing" ? "–" : g.peer ? "here" : "away (not connected)";
      peer.className = g.state !== "playing" ? "" : g.peer ? "here" : "away";
      setText("r-offer", g.offer === "opponent" ? "your opponent offers a draw"
                         : g.offer === "you" ? "you offered a draw: waiting for them" : "none");
      const c = g.clock;
      $("r-clock").hidden = $("r-clock-dt").hidden = !c;
      if (c) {
        setText("r-clock", "you " + clockText(c.you_ms) + " · them " + clockText(c.opponent_ms) +
                (c.running ? (c.running === "you" ? " (yours runs)" : " (theirs runs)") : ""));
        $("r-clock").className = c.low ? "low" : "";
      }
      setText("r-result", g.result || "–");
      const acts = g.actions || [];
      $("r-resign").hidden = !acts.includes("resign");
      $("r-draw").hidden = !acts.includes("draw");
      $("r-accept").hidden = !acts.includes("accept");
      if (!acts.includes("resign")) $("r-confirm").hidden = true;
    }
    let loading = false;   // one look at a time: a club that does not answer takes 10 s
    async function refresh() {
      if (busy || loading) return;
      loading = true;
      try { const r = await (await fetch("/api/remote")).json(); if (!busy) show(r); }
      catch (e) { $("r-err").textContent = "the server did not answer: is `bawo serve` still running?"; }
      finally { loading = false; }
    }
    async function offer(what) {
      if (shown === null) return;
      busy = true;
      for (const id of ["r-resign", "r-draw", "r-accept", "r-yes"]) $(id).disabled = true;
      $("r-err").textContent = "asking the club…";
      const r = await post("/api/remote/offer", { what: what, game: shown });
      for (const id of ["r-resign", "r-draw", "r-accept", "r-yes"]) $(id).disabled = false;
      busy = false;
      $("r-confirm").hidden = true;
      if (r.error) $("r-err").textContent = r.error;
      else show(Object.assign({ note: bawo.remote && bawo.remote.note }, r));
      bawo.offered = { what: what, error: r.error || null };
    }
    $("r-resign").addEventListener("click", () => { $("r-confirm").hidden = false; });
    $("r-no").addEventListener("click", () => { $("r-confirm").hidden = true; });
    $("r-yes").addEventListener("click", () => offer("resign"));
    $("r-draw").addEventListener("click", () => offer("draw"));
    $("r-accept").addEventListener("click", () => offer("accept"));
    refresh();
    setInterval(() => { if (!document.hidden) refresh(); }, 3000);

    const seekBox = $("seeks");
    async function seeks() {
      let r;
      try { r = await (await fetch("/api/remote/seeks")).json(); } catch (e) { return; }
      bawo.seeks = r;
      const list = r.seeks || [];
      seekBox.hidden = !list.length && !r.error;
      $("seekerr").textContent = r.error || "";
      const ul = $("seeklist");
      ul.textContent = "";
      for (const s of list) {
        const li = document.createElement("li");
        li.textContent = (s.mine ? "yours: " : s.by + (s.challenge ? " challenges you: " : " seeks: ")) +
          s.kind + ", " + (s.side === "any" ? "any side" : s.side) + ", " + s.clock + " ";
        if (!s.mine) {
          const code = document.createElement("code");
          code.textContent = s.command;
          li.appendChild(code);
        }
        ul.appendChild(li);
      }
    }
    seeks();
    setInterval(() => { if (!document.hidden && box.hidden) seeks(); }, 15000);
  }

  const page = document.body.dataset.page;
  if (page === "live") { live(); remotePanel(); }
  else if (page === "game") replay();
  else if (page === "board") boardPage();
  else if (page === "play") playPage();
})();
