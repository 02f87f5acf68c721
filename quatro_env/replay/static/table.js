// Draws one display frame (quatro_env/replay/views.py) as the Quatro table. Shared by the replay
// viewer and the live table. A hidden item arrives as null and is drawn as a card back: the page
// never holds what the frame does not.
"use strict";
const QuatroTable = (() => {
  const RED = new Set(["♥", "♦"]);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function card(label, attrs) {
    const c = el("div", "card", label === null ? "" : label);
    if (label === null) c.classList.add("back");
    else if (RED.has(label.slice(-1))) c.classList.add("red");
    for (const [k, v] of Object.entries(attrs || {})) c.dataset[k] = v;
    return c;
  }
  function cooldown(label, ticks, max) {
    const wrap = el("div");
    wrap.title = `${label}: ${ticks} ticks`;
    const bar = el("div", "cool");
    const fill = el("div");
    fill.style.width = `${Math.min(100, (100 * ticks) / Math.max(1, max))}%`;
    bar.appendChild(fill);
    wrap.appendChild(bar);
    return wrap;
  }
  function render(root, frame, opts) {
    opts = opts || {};
    const n = frame.seats.length;
    const me = opts.me === undefined || opts.me === null ? 0 : opts.me;
    root.replaceChildren();
    const wrap = el("div", "table-wrap");
    wrap.appendChild(el("div", "felt"));
    const center = el("div", "center");
    center.id = "center";
    frame.center.forEach((label, k) => {
      const c = card(label, { centerSlot: k });
      c.classList.add("slot");
      if (opts.clickable) c.classList.add("clickable");
      center.appendChild(c);
    });
    wrap.appendChild(center);
    const maxCool = opts.maxCooldown || 4;
    frame.seats.forEach((s) => {
      const r = (s.seat - me + n) % n; // me at the bottom, then clockwise
      const angle = Math.PI / 2 + (2 * Math.PI * r) / n;
      const box = el("div", `seat team-${s.team}`);
      box.dataset.seat = s.seat;
      box.style.left = `${50 + 38 * Math.cos(angle)}%`;
      box.style.top = `${50 + 40 * Math.sin(angle)}%`;
      if (s.floor) box.classList.add("floor");
      if (!s.connected) box.classList.add("offline");
      if (s.quartet) box.classList.add("quartet");
      const name = el("div", "name");
      const sign = frame.signs[s.team];
      name.appendChild(el("span", null, `seat ${s.seat}${s.seat === opts.me ? " (you)" : ""} · team ${s.team}`));
      const signEl = el("span", "sign", sign === null ? "" : `sign ${sign}`);
      name.appendChild(signEl);
      box.appendChild(name);
      const hand = el("div", "hand");
      const cards = s.hand === null ? [null, null, null, null] : s.hand;
      if (frame.phase === "play" || frame.phase === "pause" || frame.phase === "over" || s.hand !== null) {
        cards.forEach((label, k) => {
          const c = card(label, { handSlot: k });
          if (opts.clickable && s.seat === opts.me) c.classList.add("clickable");
          if (s.seat === opts.me && opts.selectedHand === k) c.classList.add("selected");
          hand.appendChild(c);
        });
      }
      box.appendChild(hand);
      const badges = el("div", "badges");
      const add = (text, hot, cls) => {
        const b = el("span", `badge${hot ? " hot" : ""}${cls ? " " + cls : ""}`, text);
        badges.appendChild(b);
      };
      if (s.floor) add("floor", true, "floor-badge");
      if (s.emoji) add(`showing ${s.emoji}`, true, "showing");
      if (s.pulse) add(`pulse ${s.pulse}${s.pulse_age === null ? "" : ` ${s.pulse_age}t ago`}`, s.pulse_age === 0, "pulse-badge");
      if (frame.phase === "sign" && s.ready) add("ready");
      if (!s.connected) add("offline");
      if (frame.vote && frame.vote.voters.includes(s.seat)) add(frame.vote.yes.includes(s.seat) ? "voted yes" : "voter");
      if (frame.vote && frame.vote.proposer === s.seat) add("proposed reshuffle");
      if (frame.call && frame.call.caller === s.seat) add(frame.call.kind === "quatro" ? "called «Quatro!»" : "called «Contra!»", true);
      box.appendChild(badges);
      if (frame.phase === "play") {
        box.appendChild(cooldown("exchange cooldown", s.exchange_wait, maxCool));
        box.appendChild(cooldown("floor cooldown", s.floor_wait, maxCool));
      }
      wrap.appendChild(box);
    });
    root.appendChild(wrap);
  }
  function status(frame) {
    const scores = frame.scores.map((v, t) => `T${t} ${v}`).join(" · ");
    let call = "";
    if (frame.call) {
      const c = frame.call;
      const who = c.caller === null ? "" : ` by seat ${c.caller}`;
      const on = c.target_team === null ? "" : ` on team ${c.target_team}`;
      const scored = c.scoring_teams.length ? `, scored: team ${c.scoring_teams.join(", ")}` : "";
      call = `last call: ${c.kind}${who}${on}${scored}`;
    }
    return { scores, call };
  }
  return { render, status, el };
})();
