// The replay viewer: play/pause/step/scrub/speed over the frames of one view, markers, the emoji
// channel as a timeline per seat, and a switch between the views embedded in this file.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const el = QuatroTable.el;
  const viewSelect = document.getElementById("view");
  const scrub = document.getElementById("scrub");
  const speed = document.getElementById("speed");
  const playBtn = document.getElementById("play");
  let view = Object.keys(data.views)[0];
  let index = 0;
  let timer = null;
  for (const name of Object.keys(data.views)) {
    const o = el("option", null, name);
    o.value = name;
    viewSelect.appendChild(o);
  }
  function frames() { return data.views[view].frames; }
  function seatOf(name) { return name.startsWith("seat ") ? Number(name.slice(5)) : null; }
  function drawMarkers() {
    const box = document.getElementById("markers");
    box.replaceChildren();
    const total = Math.max(1, frames().length - 1);
    for (const m of data.views[view].markers) {
      const d = el("div", `marker ${m.kind}`);
      d.style.left = `${(100 * m.frame) / total}%`;
      d.title = `tick ${frames()[m.frame].tick}: ${m.label}`;
      d.dataset.kind = m.kind;
      d.addEventListener("click", () => show(m.frame));
      box.appendChild(d);
    }
  }
  function drawTimelines() {
    const box = document.getElementById("timelines");
    box.replaceChildren();
    const total = Math.max(1, frames().length - 1);
    data.views[view].timeline.forEach((row) => {
      const line = el("div", "timeline-row");
      line.appendChild(el("div", "who", `seat ${row.seat}`));
      const strip = el("div", "timeline");
      strip.dataset.seat = row.seat;
      for (const [a, b] of row.held) {
        const h = el("div", "held");
        h.style.left = `${(100 * a) / total}%`;
        h.style.width = `${Math.max(0.2, (100 * (b - a + 1)) / total)}%`;
        strip.appendChild(h);
      }
      for (const [f, emoji] of row.pulses) {
        const p = el("div", "pulse", emoji);
        p.style.left = `${(100 * f) / total}%`;
        p.title = `tick ${frames()[f].tick}: ${emoji}`;
        strip.appendChild(p);
      }
      const now = el("div", "now");
      now.className = "now";
      strip.appendChild(now);
      line.appendChild(strip);
      box.appendChild(line);
    });
  }
  function show(i) {
    const fs = frames();
    index = Math.max(0, Math.min(fs.length - 1, i));
    const f = fs[index];
    scrub.max = fs.length - 1;
    scrub.value = index;
    QuatroTable.render(document.getElementById("table"), f, { me: seatOf(view) });
    const st = QuatroTable.status(f);
    document.getElementById("tick").textContent = f.tick;
    document.getElementById("round").textContent = f.round;
    document.getElementById("phase").textContent = f.phase;
    document.getElementById("phase-left").textContent = f.phase_left;
    document.getElementById("scores").textContent = st.scores;
    document.getElementById("call").textContent = st.call;
    const ev = document.getElementById("events");
    ev.replaceChildren(...f.events.map((t) => el("div", null, t)));
    const total = Math.max(1, fs.length - 1);
    document.querySelectorAll(".timeline .now").forEach((d) => { d.style.left = `${(100 * index) / total}%`; });
  }
  function stop() { if (timer) clearInterval(timer); timer = null; playBtn.textContent = "▶ play"; }
  function start() {
    stop();
    playBtn.textContent = "⏸ pause";
    const ms = (1000 * data.tick_seconds) / Number(speed.value);
    timer = setInterval(() => { if (index >= frames().length - 1) stop(); else show(index + 1); }, ms);
  }
  playBtn.addEventListener("click", () => (timer ? stop() : start()));
  document.getElementById("back").addEventListener("click", () => { stop(); show(index - 1); });
  document.getElementById("step").addEventListener("click", () => { stop(); show(index + 1); });
  scrub.addEventListener("input", () => show(Number(scrub.value)));
  speed.addEventListener("change", () => { if (timer) start(); });
  viewSelect.addEventListener("change", () => { view = viewSelect.value; drawMarkers(); drawTimelines(); show(index); });
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") show(index + 1);
    else if (e.key === "ArrowLeft") show(index - 1);
    else if (e.key === " ") { e.preventDefault(); timer ? stop() : start(); }
  });
  document.getElementById("title").textContent = data.title;
  drawMarkers();
  drawTimelines();
  show(0);
  window.quatroViewer = { show, get index() { return index; }, get view() { return view; } };
})();
