// The club's live page: one card a board, from the server's events (SSE). Text goes in with
// textContent only, never as HTML: names and ids come from outside.
"use strict";
(function () {
  const root = document.getElementById("boards");
  const only = root.dataset.board || null;
  // The wall view of a tournament's round: only its boards, each card named by its table.
  const tables = root.dataset.tables ? JSON.parse(root.dataset.tables) : null;
  const big = !!only;
  const cards = {};

  function el(tag, cls, parent) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }

  function card(board) {
    if (cards[board]) return cards[board];
    const c = el("div", "card", root);
    c.dataset.board = board;
    const a = el("a", "name", c);
    a.href = "/live?board=" + encodeURIComponent(board);
    a.textContent = tables ? "table " + tables[board] + ": " + board : board;
    const cv = el("canvas", "leds", c);
    const who = el("div", "who", c);
    const ply = el("div", "ply", c);
    const moves = big ? el("ol", "moves", c) : null;
    cards[board] = { c, cv, who, ply, moves };
    return cards[board];
  }

  function draw(cv, hex, w, h) {
    const s = big ? 12 : 5;
    cv.width = w * s; cv.height = h * s;
    const g = cv.getContext("2d");
    g.fillStyle = "#000"; g.fillRect(0, 0, cv.width, cv.height);
    for (let i = 0; i < w * h; i++) {
      const r = parseInt(hex.substr(i * 6, 2), 16), gg = parseInt(hex.substr(i * 6 + 2, 2), 16),
            b = parseInt(hex.substr(i * 6 + 4, 2), 16);
      if (r || gg || b) {
        g.fillStyle = "rgb(" + Math.min(255, r * 4) + "," + Math.min(255, gg * 4) + "," + Math.min(255, b * 4) + ")";
        g.fillRect((i % w) * s, Math.floor(i / w) * s, s - 1, s - 1);
      }
    }
  }

  function show(m) {
    if (m.type !== "board" || (only && m.board !== only)) return;
    if (tables && !Object.prototype.hasOwnProperty.call(tables, m.board)) return;
    const k = card(m.board);
    if (m.frame && m.w && m.h) draw(k.cv, m.frame, m.w, m.h);
    k.who.textContent = (m.south || "?") + " – " + (m.north || "?") + " (" + m.game + ")";
    k.ply.textContent = "ply " + m.ply + (m.last ? ": " + m.last : "") + (m.done ? " — over" + (m.result ? ", " + m.result + (m.reason ? " (" + m.reason + ")" : "") : "") : "");
    k.c.dataset.ply = m.ply;
    if (k.moves && m.moves) {
      k.moves.textContent = "";
      m.moves.forEach(function (mv) { el("li", null, k.moves).textContent = mv; });
    }
  }

  const status = document.getElementById("status");
  const es = new EventSource("/live/events");
  es.onopen = function () { status.textContent = "live"; };
  es.onerror = function () { status.textContent = "reconnecting…"; };
  es.onmessage = function (e) { show(JSON.parse(e.data)); };
})();
