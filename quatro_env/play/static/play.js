// The live table page: draws the seat's frame each tick and sends the person's actions.
"use strict";
(() => {
  const cfg = JSON.parse(document.getElementById("play-config").textContent);
  const el = QuatroTable.el;
  const errorBox = document.getElementById("error");
  let frame = null;
  let selectedHand = null;
  let socket = null;
  document.getElementById("me").textContent = cfg.seat;
  const myTeam = cfg.seat % cfg.num_teams;
  const contra = document.getElementById("contra-buttons");
  for (let t = 0; t < cfg.num_teams; t++) {
    if (t === myTeam) continue;
    const b = el("button", "call", `«Contra!» team ${t}`);
    b.dataset.kind = "contra";
    b.dataset.team = t;
    contra.appendChild(b);
  }
  function picker(id, kind) {
    const box = document.getElementById(id);
    cfg.emojis.forEach((e, k) => {
      const b = el("button", null, e);
      b.dataset.kind = kind;
      b.dataset.emoji = k;
      box.appendChild(b);
    });
  }
  picker("emojis", "show_emoji");
  picker("signs", "choose_sign");
  function send(message) {
    if (!socket || socket.readyState !== WebSocket.OPEN) { errorBox.textContent = "not connected"; return; }
    socket.send(JSON.stringify(message));
  }
  // for the browser tests: send any message, or raw (possibly malformed) text
  window.quatroSend = send;
  window.quatroSendRaw = (text) => socket.send(text);
  document.body.addEventListener("click", (e) => {
    const card = e.target.closest(".card");
    if (card && card.dataset.handSlot !== undefined && card.closest(`.seat[data-seat="${cfg.seat}"]`)) {
      selectedHand = Number(card.dataset.handSlot);
      draw();
      return;
    }
    if (card && card.dataset.centerSlot !== undefined) {
      if (selectedHand === null) { errorBox.textContent = "pick one of your cards first"; return; }
      send({ type: "action", kind: "exchange", hand: selectedHand, center: Number(card.dataset.centerSlot) });
      selectedHand = null;
      draw();
      return;
    }
    const b = e.target.closest("button[data-kind]");
    if (!b) return;
    const m = { type: "action", kind: b.dataset.kind };
    if (b.dataset.emoji !== undefined) m.emoji = Number(b.dataset.emoji);
    if (b.dataset.team !== undefined) m.team = Number(b.dataset.team);
    send(m);
  });
  function draw() {
    if (!frame) return;
    QuatroTable.render(document.getElementById("table"), frame, { me: cfg.seat, clickable: true, selectedHand });
    const st = QuatroTable.status(frame);
    document.getElementById("tick").textContent = frame.tick;
    document.getElementById("round").textContent = frame.round;
    document.getElementById("phase").textContent = frame.phase;
    document.getElementById("phase-left").textContent = frame.phase_left;
    document.getElementById("scores").textContent = st.scores;
    document.getElementById("call").textContent = st.call + (frame.over ? " — match over" : "");
    document.getElementById("reminder").textContent = frame.reminder
      ? "Your own hand is a quartet: call «Quatro!» again to confirm (Q18)" : "";
    const legal = new Set(frame.legal);
    document.querySelectorAll("button[data-kind]").forEach((b) => { b.disabled = !legal.has(b.dataset.kind); });
  }
  function logEvents() {
    const ev = document.getElementById("events");
    for (const t of frame.events) ev.prepend(el("div", null, `tick ${frame.tick - 1}: ${t}`));
  }
  function connect() {
    // the page's link carries the table's token; the socket must show it too
    const token = new URLSearchParams(location.search).get("token");
    const query = token === null ? "" : `?token=${encodeURIComponent(token)}`;
    socket = new WebSocket(`ws://${location.host}/ws${query}`);
    socket.onopen = () => { document.getElementById("conn").textContent = "connected"; };
    socket.onclose = () => { document.getElementById("conn").textContent = "disconnected"; };
    socket.onmessage = (msg) => {
      const m = JSON.parse(msg.data);
      if (m.type === "frame") {
        const fresh = !frame || m.frame.tick !== frame.tick;
        frame = m.frame;
        document.body.dataset.tick = frame.tick;
        if (fresh) {
          logEvents();
          document.getElementById("queued").textContent = "";
        }
        draw();
      } else if (m.type === "error") {
        errorBox.textContent = m.message;
      } else if (m.type === "queued") {
        errorBox.textContent = "";
        document.getElementById("queued").textContent = `next tick: ${m.action}`;
      }
    };
  }
  connect();
})();
