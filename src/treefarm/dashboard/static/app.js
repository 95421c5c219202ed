// The treefarm dashboard page: studies, a server-paged trials table, uPlot charts, live polling.
// Every number shown comes from the JSON API (see treefarm/dashboard/app.py); nothing is computed here
// beyond laying it out.
"use strict";

const state = {
  study: null, studies: [], offset: 0, limit: 50, orderBy: "number", descending: false,
  filter: {}, total: 0, version: null, poll: 1000, charts: [], selected: null,
  writes: false, token: null, readToken: null, parameters: [], hints: [], asked: [],
};

// The write token arrives once in the URL (?token=..., printed at start-up); it is kept in this tab's
// sessionStorage and removed from the address bar, so it stays out of the history and of any Referer.
(function takeToken() {
  const url = new URL(window.location.href);
  const given = url.searchParams.get("token");
  if (given) {
    sessionStorage.setItem("treefarm-token", given);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  state.token = sessionStorage.getItem("treefarm-token");
})();

const $ = (sel) => document.querySelector(sel);
const fmt = (v) => (v === null || v === undefined ? "" : typeof v === "number" ? String(Number(v.toPrecision(6))) : String(v));
const escape = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

async function api(path) {
  const response = await fetch(path, { headers: state.token ? { "X-Treefarm-Token": state.token } : {} });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

// A write: a POST with a JSON body and the token in a header (never a cookie); the server's message on refusal.
async function write(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(state.token ? { "X-Treefarm-Token": state.token } : {}) },
    body: JSON.stringify({ author: $("#author").value, ...body }),
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// Each loader draws only the answer to its latest call: a slow answer for the study, plot or page the
// person just left must not overwrite the one they chose (a live update may overlap a click).
const calls = {};
function ticket(name) {
  const mine = (calls[name] = (calls[name] || 0) + 1);
  return () => calls[name] === mine;
}

function say(text, error = false) {
  const m = $("#message");
  m.hidden = !text;
  m.textContent = text;
  m.className = error ? "error" : "ok";
}

async function act(what, path, body, done) {
  try {
    const result = await write(path, body);
    say(`${what}: done`);
    if (done) await done(result);
    await refresh();
  } catch (e) {
    say(`${what} refused: ${e.message}`, true);
  }
}

// ------------------------------------------------------------------ studies
async function loadStudies() {
  const data = await api("/api/studies");
  state.studies = data.studies;
  state.poll = data.poll_seconds * 1000;
  const list = $("#studies");
  list.innerHTML = "";
  for (const s of data.studies) {
    const li = document.createElement("li");
    li.dataset.id = s.id;
    const result = s.front ? `front of ${s.front.size}` : `best ${escape(labels(s)[0])} ${fmt(s.best)}`;
    li.innerHTML = `${escape(s.name)}<small>${s.total} trials · ${result}</small>`;
    li.classList.toggle("active", state.study && state.study.id === s.id);
    li.onclick = () => selectStudy(s.id);
    list.appendChild(li);
  }
  if (state.study) {
    state.study = data.studies.find((s) => s.id === state.study.id) || state.study;
    showSummary();
  }
}

// The objectives' names as the server gives them ("value" for one unnamed objective; "value 0", "value 1"… for several).
const labels = (s) => (s.objectives ? s.objectives.names : ["value"]);

// "error (minimize), size (minimize)", or the one direction of one unnamed objective.
function objectivesText(s) {
  const o = s.objectives;
  if (!o) return s.direction;
  if (!o.named && o.names.length === 1) return o.directions[0];
  return o.names.map((n, i) => `${n} (${o.directions[i]})`).join(", ");
}

// A study with several objectives has a front, not a best value: its size and its first trials by name.
function frontText(s) {
  const f = s.front || { size: 0, trials: [] };
  const names = labels(s);
  const listed = f.trials.map((t) => `#${t.number} (${t.values.map((v, i) => `${escape(names[i])} ${fmt(v)}`).join(", ")})`);
  const more = f.size > f.trials.length ? [`${f.size - f.trials.length} more`] : [];
  return `Pareto front of <b id="front">${f.size}</b> trials${f.size ? ": " + [...listed, ...more].join("; ") : ""}`;
}

// The table's value columns: one per objective, headed by its name (the first sorts and filters the table).
function valueHeads(s) {
  const names = labels(s);
  const first = $("th[data-sort=value]");
  first.textContent = names[0];
  document.querySelectorAll("th.more-value").forEach((th) => th.remove());
  let at = first;
  for (const name of names.slice(1)) {
    const th = document.createElement("th");
    th.className = "more-value";
    th.textContent = name;
    at.after(th);
    at = th;
  }
  $("#value-min").previousSibling.textContent = `${names[0]} ≥ `;
  $("#value-max").previousSibling.textContent = `${names[0]} ≤ `;
}

function showSummary() {
  const s = state.study;
  const several = labels(s).length > 1;
  $("#pareto-option").hidden = !several;
  if (!several && $("#plot-kind").value === "pareto") $("#plot-kind").value = "convergence";
  const counts = Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(", ");
  const result = several ? frontText(s) : `best ${escape(labels(s)[0])} <b id="best">${fmt(s.best)}</b>`;
  $("#summary").innerHTML = `<h2>${escape(s.name)}</h2><p>${escape(objectivesText(s))} · ${s.total} trials (${escape(counts)}) · ${result}</p>`;
  valueHeads(s);
}

async function selectStudy(id) {
  state.study = state.studies.find((s) => s.id === id);
  history.replaceState(null, "", `#study=${id}`);
  state.offset = 0;
  state.version = null;
  document.querySelectorAll("#studies li").forEach((li) => li.classList.toggle("active", Number(li.dataset.id) === id));
  showSummary();
  if (labels(state.study).length > 1 && $("#plot-kind").value === "convergence") $("#plot-kind").value = "pareto"; // its front first
  $("#detail").hidden = true;
  state.selected = null;
  await Promise.all([loadTrials(), loadNotes(), loadHints(), loadAsked()]); // the table first: the first plot of a large study reads all of it
  await loadPlot();
  const version = (await api(`/api/studies/${id}/version`)).version.join(",");
  if (state.study.id === id) state.version = version;
}

// ------------------------------------------------------------------- table
async function loadTrials() {
  const q = new URLSearchParams({ offset: state.offset, limit: state.limit, order_by: state.orderBy, descending: state.descending });
  for (const [k, v] of Object.entries(state.filter)) if (v !== "") q.set(k, v);
  const current = ticket("trials");
  const data = await api(`/api/studies/${state.study.id}/trials?${q}`);
  if (!current()) return;
  state.total = data.total;
  const body = $("#trials tbody");
  body.innerHTML = "";
  for (const r of data.rows) {
    const tr = document.createElement("tr");
    tr.className = r.state;
    tr.dataset.number = r.number;
    const m = labels(state.study).length;
    const values = r.values && r.values.length === m ? r.values : [r.value, ...Array(m - 1).fill(null)];
    tr.innerHTML = `<td>${r.number}</td><td>${r.state}</td>${values.map((v) => `<td>${fmt(v)}</td>`).join("")}<td>${fmt(r.duration)}</td><td>${escape(r.params)}</td>`;
    tr.onclick = () => showTrial(r.number);
    body.appendChild(tr);
  }
  const pages = Math.max(1, Math.ceil(data.total / state.limit));
  $("#page-info").textContent = `page ${Math.floor(state.offset / state.limit) + 1} of ${pages} · ${data.total} trials`;
  $("#prev-page").disabled = state.offset === 0;
  $("#next-page").disabled = state.offset + state.limit >= data.total;
  document.querySelectorAll("th[data-sort]").forEach((th) => {
    th.classList.toggle("sorted", th.dataset.sort === state.orderBy);
    th.classList.toggle("desc", th.dataset.sort === state.orderBy && state.descending);
  });
}

async function showTrial(number, withPosterior = true) {
  state.selected = number;
  history.replaceState(null, "", `#study=${state.study.id}&trial=${number}`); // a link to this trial page
  const current = ticket("trial");
  const t = await api(`/api/studies/${state.study.id}/trials/${number}`);
  if (!current()) return;
  const d = $("#detail");
  d.hidden = false;
  const steps = t.intermediate.steps.map((s, i) => `${s}: ${fmt(t.intermediate.values[i])}`).join("\n");
  const { artifacts, ...attrs } = t.user_attrs;
  const noteList = Array.isArray(t.notes) ? t.notes : [];
  const files = (Array.isArray(artifacts) ? artifacts : []).filter((a) => a && typeof a.name === "string");
  const fileRows = files.map((a) => `<li><a href="/api/studies/${state.study.id}/trials/${t.number}/artifacts/${encodeURIComponent(a.name)}${state.readToken ? `?token=${encodeURIComponent(state.readToken)}` : ""}" download>${escape(a.name)}</a>
    <small>${escape(fmt(a.size))} bytes · sha256 ${escape(String(a.sha256 || "").slice(0, 12))}…</small></li>`).join("");
  const several = Array.isArray(t.values) && t.values.length > 1;
  const names = labels(state.study);
  const shown = several ? escape(t.values.map((v, i) => `${names[i] ?? `value ${i}`} ${fmt(v)}`).join(", ")) : `${escape(names[0])} ${fmt(t.value)}`;
  const limits = Array.isArray(t.constraints) ? ` · constraints ${escape(t.constraints.map(fmt).join(", "))} (${t.feasible ? "feasible" : "infeasible"})` : "";
  const continued = Number.isInteger(t.continues) ? ` · continues trial ${t.continues}${t.resumed ? " from its checkpoint" : " from scratch"}` : "";
  const spent = (t.fidelity !== null && t.fidelity !== undefined ? ` · fidelity ${fmt(t.fidelity)}` : "") + continued + (t.cost ? ` · cost ${fmt(t.cost)}` : "");
  d.innerHTML = `<h3>trial ${t.number} · ${escape(t.state)} · ${shown}${limits}${escape(spent)}
      <button id="close-trial" type="button">close</button> <button id="use-config" type="button">use in the act form</button></h3>
    <div class="columns"><div>
    <h4>configuration</h4><table id="detail-params">${Object.entries(t.config).map(([k, v]) => `<tr><td>${escape(k)}</td><td>${escape(fmt(v))}</td></tr>`).join("")}</table>
    <h4>built value (expression, depth ${t.depth})</h4><pre id="detail-expression">${escape(t.expression)}</pre>
    ${t.fail_reason ? `<h4>reason for failure</h4><pre class="error" id="detail-fail">${escape(t.fail_reason)}</pre>` : ""}
    <h4>intermediate values</h4><div id="detail-curve"></div><pre id="detail-intermediate">${escape(steps || "none")}</pre>
    <h4>user attributes</h4><pre id="detail-user">${escape(JSON.stringify(attrs, null, 1))}</pre>
    <h4>system attributes</h4><pre>${escape(JSON.stringify(t.system_attrs, null, 1))}</pre>
    </div><div>
    ${files.length ? `<h4>artifacts</h4><ul id="trial-artifacts">${fileRows}</ul>` : ""}
    <h4>notes</h4><ul id="trial-notes">${noteList.map(noteItem).join("") || "<li class='none'>none</li>"}</ul>
    ${state.writes ? `<form id="trial-note-form"><input id="trial-note-text" maxlength="10000" placeholder="a note on this trial"> <button type="submit">add note</button></form>` : ""}
    <h4>the GP's posterior along each parameter at this trial</h4><div id="detail-posterior" data-number="${t.number}"></div>
    </div></div>
    <pre id="detail-config" hidden>${escape(JSON.stringify(t.config))}</pre>`;
  $("#close-trial").onclick = () => { d.hidden = true; state.selected = null; history.replaceState(null, "", `#study=${state.study.id}`); };
  $("#use-config").onclick = () => fillConfig(t.config);
  const form = $("#trial-note-form");
  if (form) form.onsubmit = (e) => {
    e.preventDefault();
    act("note", `/api/studies/${state.study.id}/trials/${t.number}/notes`, { text: $("#trial-note-text").value });
  };
  if (t.intermediate.steps.length > 1) {
    chart({ height: 160, scales: { x: { time: false } }, legend: { show: false }, axes: [{ label: "step" }, {}], series: [{}, { stroke: "#1f5fa0" }] },
      [t.intermediate.steps, t.intermediate.values], $("#detail-curve"), 460, false);
  }
  if (withPosterior) {
    d.scrollIntoView({ block: "start" });
    loadPosterior(t.number);
  }
}

async function loadPosterior(number) {
  const into = $("#detail-posterior");
  into.textContent = "fitting…";
  try {
    const p = await api(`/api/studies/${state.study.id}/trials/${number}/posterior`);
    if (!into.isConnected || into.dataset.number !== String(number)) return;
    into.textContent = "";
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = p.note;
    into.appendChild(note);
    for (const s of p.slices) {
      const here = s.here;
      chart({ height: 140, scales: { x: { time: false, distr: s.log ? 3 : 1 } }, legend: { show: false },
        axes: [{ label: s.address, values: s.log ? logTicks : undefined }, {}], bands: [{ series: [3, 2], fill: "rgba(31,95,160,0.15)" }],
        hooks: { draw: [(u) => vline(u, here, "#b03020")] },
        series: [{}, { stroke: "#1f5fa0", width: 2 }, { stroke: "rgba(31,95,160,0.3)" }, { stroke: "rgba(31,95,160,0.3)" }] },
      [s.grid, s.mean, s.low, s.high], into, 460, false);
    }
  } catch (e) {
    into.innerHTML = `<span class="error">${escape(e.message)}</span>`;
  }
}

// ------------------------------------------------------------ notes, hints
const when = (t) => new Date(t * 1000).toLocaleString();
const noteItem = (n) => `<li><b>${escape(n.author || "")}</b> <small>${escape(when(n.time))}${n.trial === null || n.trial === undefined ? "" : ` · trial ${Number(n.trial)}`}</small><br><span class="note-text">${escape(n.text)}</span></li>`;

async function loadNotes() {
  const current = ticket("notes");
  const data = await api(`/api/studies/${state.study.id}/notes`);
  if (!current()) return;
  $("#notes").innerHTML = data.notes.map(noteItem).join("") || "<li class='none'>none</li>";
}

async function loadHints() {
  const current = ticket("hints");
  const data = await api(`/api/studies/${state.study.id}/hints`);
  if (!current()) return;
  state.hints = data.hints;
  $("#hints-panel").hidden = data.hints.length === 0;
  $("#hints tbody").innerHTML = data.hints.map((h) => `<tr data-id="${Number(h.id)}"><td>${Number(h.id)}</td><td class="${h.bad ? "bad" : "good"}">${h.bad ? "bad" : "good"}</td>
    <td>credibility ${fmt(h.credibility)} · spread ${fmt(h.spread)}</td><td>${escape(JSON.stringify(h.config))}</td><td>${escape(h.author || "")}</td><td>${escape(when(h.created))}</td>
    <td>${state.writes ? `<button type="button" class="remove-hint" data-id="${Number(h.id)}">remove</button>` : ""}</td></tr>`).join("");
  document.querySelectorAll(".remove-hint").forEach((b) => {
    b.onclick = () => act(`removing hint ${b.dataset.id}`, `/api/studies/${state.study.id}/hints/${b.dataset.id}/remove`, {});
  });
}

// ------------------------------------------------------------------- act
function showParameters(addresses, categories) {
  if (addresses.join() === state.parameters.join()) return;
  state.parameters = addresses;
  $("#config-inputs tbody").innerHTML = addresses.map((a, i) => {
    const cats = categories[a] || [];
    const input = cats.length
      ? `<select data-address="${escape(a)}"><option value=""></option>${cats.map((c) => `<option>${escape(c)}</option>`).join("")}</select>`
      : `<input data-address="${escape(a)}" size="12">`;
    return `<tr><td>${escape(a)}</td><td>${input}</td></tr>`;
  }).join("");
}

function fillConfig(config) {
  $("#act").open = true;
  document.querySelectorAll("#config-inputs [data-address]").forEach((el) => {
    const v = config[el.dataset.address];
    el.value = v === undefined ? "" : String(v);
  });
}

function parseValue(text) {
  // a number, true/false or a list ([1.5, 2] for several objectives) as JSON, anything else as the text it is
  // (the server checks it as the API does)
  if (/^\s*\[.*\]\s*$/.test(text)) { try { return JSON.parse(text); } catch (e) { return text; } }
  if (/^\s*(true|false|-?\d+(\.\d*)?([eE][-+]?\d+)?|-?\.\d+([eE][-+]?\d+)?)\s*$/.test(text)) return JSON.parse(text.trim());
  return text;
}

function statedConfig() {
  const config = {};
  document.querySelectorAll("#config-inputs [data-address]").forEach((el) => {
    if (el.value !== "") config[el.dataset.address] = parseValue(el.value);
  });
  return config;
}

async function loadAsked() {
  if (!state.writes) return;
  const current = ticket("asked");
  const asked = (await api(`/api/studies/${state.study.id}/asked`)).asked;
  if (!current()) return;
  state.asked = asked;
  const typed = new Map([...document.querySelectorAll("#asked .asked")].map((d) => [d.dataset.number, d.querySelector(".told-value").value]));
  showAsked(typed);
}

function showAsked(typed = new Map()) {
  $("#asked").innerHTML = state.asked.map((a) => `<div class="asked" data-number="${Number(a.number)}">
    trial <b>${Number(a.number)}</b>${a.fidelity == null ? "" : ` at fidelity <b>${Number(a.fidelity)}</b>${a.continues == null ? "" : ` (continues trial ${Number(a.continues)})`}`}: <code>${escape(JSON.stringify(a.config))}</code>
    <input class="told-value" size="8" placeholder="measured value" value="${escape(typed.get(String(a.number)) || "")}"> <button type="button" class="tell">tell</button>
    <button type="button" class="tell-failed">failed</button></div>`).join("");
  document.querySelectorAll("#asked .asked").forEach((div) => {
    const number = Number(div.dataset.number);
    const done = () => loadAsked();
    div.querySelector(".tell").onclick = () => act(`telling trial ${number}`, `/api/studies/${state.study.id}/trials/${number}/tell`,
      { value: parseValue(div.querySelector(".told-value").value) }, done);
    div.querySelector(".tell-failed").onclick = () => act(`telling trial ${number} failed`, `/api/studies/${state.study.id}/trials/${number}/tell`, { state: "failed" }, done);
  });
}

// ------------------------------------------------------------------- plots
function clearPlot() {
  for (const c of state.charts) c.destroy();
  state.charts = [];
  $("#plot").innerHTML = "";
}

const width = () => Math.max(320, $("#plot-panel").clientWidth - 10);
const logTicks = (u, ticks) => ticks.map((t) => fmt(t));
const pointsOnly = (label, stroke) => ({ label, stroke, paths: () => null, points: { show: true, size: 4, fill: stroke } });

function chart(opts, data, into = $("#plot"), w = null, plot = true) {
  const div = document.createElement("div");
  into.appendChild(div);
  const c = new uPlot({ width: w || width(), height: 300, ...opts }, data, div);
  if (plot) state.charts.push(c);
  return c;
}

function vline(u, x, color, window = null, alpha = 0.12) {
  if (x === null || x === undefined || typeof x !== "number") return;
  const g = u.ctx, top = u.bbox.top, h = u.bbox.height;
  g.save();
  if (window) {
    const a = u.valToPos(window[0], "x", true), b = u.valToPos(window[1], "x", true);
    g.fillStyle = color; g.globalAlpha = alpha;
    g.fillRect(Math.min(a, b), top, Math.abs(b - a), h);
    g.globalAlpha = 1;
  }
  g.strokeStyle = color; g.lineWidth = 2; g.setLineDash([6, 4]);
  const px = u.valToPos(x, "x", true);
  g.beginPath(); g.moveTo(px, top); g.lineTo(px, top + h); g.stroke();
  g.restore();
}

function stepAt(xs, bestX, best) {
  // the best-so-far step function evaluated at each x (bestX sorted ascending)
  let j = -1;
  return xs.map((x) => { while (j + 1 < bestX.length && bestX[j + 1] <= x) j++; return j >= 0 ? best[j] : null; });
}

const draw = {
  convergence(d) {
    const xs = [...new Set([...d.x, ...d.best_x])].sort((a, b) => a - b);
    const at = new Map(d.x.map((x, i) => [x, d.value[i]]));
    chart({ scales: { x: { time: false } }, axes: [{ label: d.axis === "time" ? "seconds" : "trial number" }, { label: labels(state.study)[0] }],
      series: [{ label: d.axis === "time" ? "seconds" : "trial" }, pointsOnly("trial value", "#999"), { label: "best so far", stroke: "#1f5fa0", width: 2, paths: uPlot.paths.stepped({ align: 1 }), spanGaps: true }] },
      [xs, xs.map((x) => (at.has(x) ? at.get(x) : null)), stepAt(xs, d.best_x, d.best)]);
    return d.shown < d.total ? `showing ${d.shown} of ${d.total} values (sampled); the best-so-far line is exact` : "";
  },
  slices(d, param) {
    const s = d.slices.find((x) => x.address === param) || d.slices[0];
    if (!s) return "no complete trial";
    const cat = s.categories.length > 0;
    const marks = s.hints || [];
    chart({ scales: { x: { time: false, distr: s.log ? 3 : 1 } },
      axes: [{ label: s.address, values: cat ? (u, ticks) => ticks.map((t) => (Number.isInteger(t) ? s.categories[t] || "" : "")) : s.log ? logTicks : undefined }, { label: labels(state.study)[0] }],
      hooks: { draw: [(u) => marks.forEach((m) => vline(u, m.x, m.bad ? "#c0392b" : "#27ae60", m.window || null, 0.05 + 0.15 * m.credibility))] },
      series: [{}, pointsOnly("value", "#1f5fa0")] }, [s.x, s.y]);
    const told = marks.length ? `; ${marks.length} hint${marks.length > 1 ? "s" : ""} drawn (green good, red bad; the band is the hint's spread)` : "";
    return (s.shown < s.total ? `showing ${s.shown} of ${s.total} trials (sampled); ` : "") + `trials where ${s.address} is active` + told;
  },
  importance(d) {
    const rows = d.scores.map(([a, v]) => `<tr><td>${escape(a)}</td><td style="width:60%"><div class="bar" style="width:${Math.max(0, v) * 100}%"></div></td><td>${v.toFixed(3)}</td></tr>`);
    $("#plot").innerHTML = `<table class="bars">${rows.join("")}</table>`;
    return "main-effect share of the loss-rank variance (first-order Sobol index by the correlation ratio)" + (d.shown < d.total ? `; estimated on ${d.shown} of ${d.total} trials, evenly spaced` : "");
  },
  parallel(d) {
    const canvas = document.createElement("canvas");
    const w = width(), h = 320, pad = 40;
    canvas.width = w; canvas.height = h;
    $("#plot").appendChild(canvas);
    const g = canvas.getContext("2d");
    const n = d.addresses.length, x = (j) => pad + (j * (w - 2 * pad)) / Math.max(1, n - 1), y = (u) => h - pad - u * (h - 2 * pad);
    const lo = Math.min(...d.values), hi = Math.max(...d.values);
    const order = d.values.map((v, i) => i).sort((a, b) => d.values[b] - d.values[a]);
    for (const i of order) {
      const t = hi > lo ? (d.values[i] - lo) / (hi - lo) : 0;
      g.strokeStyle = `hsla(${220 - 180 * t}, 70%, ${35 + 30 * t}%, 0.5)`;
      g.beginPath();
      let pen = false;
      d.unit[i].forEach((u, j) => { if (u === null) { pen = false; return; } pen ? g.lineTo(x(j), y(u)) : g.moveTo(x(j), y(u)); pen = true; });
      g.stroke();
    }
    g.fillStyle = "#222"; g.font = "12px sans-serif";
    d.addresses.forEach((a, j) => {
      g.fillRect(x(j), pad, 1, h - 2 * pad); g.fillText(a, x(j) - 10, h - 12);
      d.ticks[j][0].forEach((p, k) => g.fillText(d.ticks[j][1][k], x(j) + 4, y(p)));
    });
    return (d.shown < d.total ? `showing ${d.shown} of ${d.total} trials (the best fifth and a sample); ` : "") + "blue is better";
  },
  intermediate(d) {
    if (!d.numbers.length) return "no trial reported intermediate values";
    const xs = [...new Set(d.steps.flat())].sort((a, b) => a - b);
    const series = d.numbers.map((n, i) => { const m = new Map(d.steps[i].map((s, k) => [s, d.values[i][k]])); return xs.map((x) => (m.has(x) ? m.get(x) : null)); });
    chart({ scales: { x: { time: false } }, legend: { show: false }, axes: [{ label: "step" }, { label: "intermediate value" }],
      series: [{}, ...d.numbers.map((n, i) => ({ label: `trial ${n}`, stroke: `hsl(${(i * 47) % 360}, 60%, 45%)`, spanGaps: true }))] }, [xs, ...series]);
    return d.shown < d.total ? `showing the ${d.shown} best of ${d.total} curves` : "";
  },
  structures(d) {
    const rows = d.rows.map((r, i) => `<tr><td>${i + 1}</td><td>${r.number}</td><td>${fmt(r.value)}</td><td>${r.depth}</td><td>${escape(r.expression)}</td></tr>`);
    $("#plot").innerHTML = `<table id="structures"><thead><tr><th>rank</th><th>trial</th><th>value</th><th>depth</th><th>expression</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
    return "the best distinct expressions";
  },
  gp(d) {
    if (!d.address) return "the GP needs 3 complete trials with a numeric parameter";
    const sync = uPlot.sync("gp");
    const x = { x: { time: false, distr: d.log ? 3 : 1 } };
    chart({ scales: x, cursor: { sync: { key: sync.key } }, axes: [{ values: d.log ? logTicks : undefined }, { label: "loss (model scale)" }], bands: [{ series: [3, 2], fill: "rgba(31,95,160,0.15)" }],
      series: [{}, { label: "mean", stroke: "#1f5fa0", width: 2 }, { label: "−1.96σ", stroke: "rgba(31,95,160,0.3)" }, { label: "+1.96σ", stroke: "rgba(31,95,160,0.3)" }] },
      [d.grid, d.mean, d.low, d.high]);
    chart({ scales: x, height: 150, cursor: { sync: { key: sync.key } }, axes: [{ label: d.address, values: d.log ? logTicks : undefined }, { label: "log EI" }], series: [{}, { label: "log EI", stroke: "#b03020" }] }, [d.grid, d.acquisition]);
    return `others at trial ${d.at}` + (d.shown < d.total ? `; fitted to ${d.shown} of ${d.total} trials (sampled)` : "");
  },
};

draw.relationship = function (d) {
  if (!d.addresses) return "two parameters are needed";
  const canvas = document.createElement("canvas");
  const w = Math.min(width(), 620), h = 420, pad = 56, b = d.mean_rank.length;
  canvas.width = w; canvas.height = h;
  $("#plot").appendChild(canvas);
  const g = canvas.getContext("2d");
  const cw = (w - 2 * pad) / b, ch = (h - 2 * pad) / b;
  d.mean_rank.forEach((row, i) => row.forEach((r, j) => {
    if (r === null) return;
    g.fillStyle = `hsl(215, 60%, ${25 + 68 * r}%)`; // mean loss rank 0 (best) dark, 1 (worst) near white
    g.fillRect(pad + j * cw, h - pad - (i + 1) * ch, cw + 0.5, ch + 0.5);
  }));
  g.fillStyle = "rgba(230,120,20,0.8)";
  d.x.forEach((x, k) => { g.beginPath(); g.arc(pad + x * (w - 2 * pad), h - pad - d.y[k] * (h - 2 * pad), 2, 0, 7); g.fill(); });
  g.fillStyle = "#222"; g.font = "12px sans-serif"; g.strokeStyle = "#222";
  g.strokeRect(pad, pad, w - 2 * pad, h - 2 * pad);
  const [tx, ty] = d.ticks;
  tx[0].forEach((p, k) => g.fillText(tx[1][k], pad + p * (w - 2 * pad) - 10, h - pad + 14));
  ty[0].forEach((p, k) => g.fillText(ty[1][k], 4, h - pad - p * (h - 2 * pad) + 4));
  g.fillText(d.addresses[0], w / 2 - 20, h - 12);
  g.save(); g.translate(14, h / 2 + 20); g.rotate(-Math.PI / 2); g.fillText(d.addresses[1], 0, 0); g.restore();
  const sampled = d.estimated_on < d.complete ? `; estimated on ${d.estimated_on} of ${d.complete} trials, evenly spaced` : "";
  return `colour: mean loss rank of the trials in each cell (dark is better); orange dots: the best fifth (${d.shown} shown of the ${d.total} trials where both are active)${sampled}`;
};

function ticks(lo, hi, n = 5) {
  return Array.from({ length: n }, (_, k) => lo + ((hi - lo) * k) / (n - 1));
}

draw.pareto = function (d) {
  if (!d.objectives) return "the Pareto front needs a study with several objectives";
  const canvas = document.createElement("canvas");
  const w = Math.min(width(), 640), h = 440, pad = 60;
  canvas.width = w; canvas.height = h;
  canvas.id = "pareto";
  $("#plot").appendChild(canvas);
  const g = canvas.getContext("2d");
  const finite = (v) => v.filter((x) => x !== null);
  const [x0, x1] = [Math.min(...finite(d.x)), Math.max(...finite(d.x))], [y0, y1] = [Math.min(...finite(d.y)), Math.max(...finite(d.y))];
  const px = (x) => pad + ((x - x0) / (x1 - x0 || 1)) * (w - 2 * pad), py = (y) => h - pad - ((y - y0) / (y1 - y0 || 1)) * (h - 2 * pad);
  g.strokeStyle = "#222"; g.strokeRect(pad, pad, w - 2 * pad, h - 2 * pad);
  g.fillStyle = "#222"; g.font = "12px sans-serif";
  ticks(x0, x1).forEach((t) => g.fillText(fmt(Number(t.toPrecision(3))), px(t) - 12, h - pad + 16));
  g.textAlign = "right";
  ticks(y0, y1).forEach((t) => g.fillText(fmt(Number(t.toPrecision(3))), pad - 6, py(t) + 4));
  g.textAlign = "left";
  g.fillText(`${d.labels[0]} (${d.directions[0]})`, w / 2 - 50, h - 14);
  g.save(); g.translate(12, h / 2 + 50); g.rotate(-Math.PI / 2); g.fillText(`${d.labels[1]} (${d.directions[1]})`, 0, 0); g.restore();
  const front = d.numbers.map((n, k) => k).filter((k) => d.on_front[k]).sort((a, b) => d.x[a] - d.x[b]);
  d.numbers.forEach((n, k) => {
    const x = px(d.x[k]), y = py(d.y[k]);
    if (!d.feasible[k]) {
      g.strokeStyle = "#999"; g.lineWidth = 1;
      g.beginPath(); g.moveTo(x - 3, y - 3); g.lineTo(x + 3, y + 3); g.moveTo(x - 3, y + 3); g.lineTo(x + 3, y - 3); g.stroke();
    } else if (!d.on_front[k]) {
      g.fillStyle = "rgba(31,95,160,0.55)"; g.beginPath(); g.arc(x, y, 2.5, 0, 7); g.fill();
    }
  });
  g.strokeStyle = "#c0392b"; g.lineWidth = 1.5;
  g.beginPath();
  front.forEach((k, i) => (i ? g.lineTo(px(d.x[k]), py(d.y[k])) : g.moveTo(px(d.x[k]), py(d.y[k]))));
  g.stroke();
  front.forEach((k) => { g.beginPath(); g.arc(px(d.x[k]), py(d.y[k]), 5, 0, 7); g.stroke(); });
  canvas.onclick = (e) => {
    const r = canvas.getBoundingClientRect(), cx = e.clientX - r.left, cy = e.clientY - r.top;
    let best = null, dist = 100;
    d.numbers.forEach((n, k) => { const dd = (px(d.x[k]) - cx) ** 2 + (py(d.y[k]) - cy) ** 2; if (dd < dist) { dist = dd; best = n; } });
    if (best !== null) showTrial(best);
  };
  canvas.title = "click a point to open its trial";
  return `${d.front_size} trials on the feasible front (red) of ${d.total}; crosses are infeasible; click a point to open its trial` + (d.shown < d.total ? ` (showing ${d.shown})` : "");
};

draw.compare = function (d) {
  const tables = d.studies.map((s) => [s.x, s.best]);
  const joined = uPlot.join(tables);
  const all = d.studies.flatMap((s) => s.best).filter((v) => v !== null);
  const log = all.length > 0 && Math.min(...all) > 0 && Math.max(...all) > 10 * Math.min(...all);
  chart({ scales: { x: { time: false }, y: { distr: log ? 3 : 1 } }, axes: [{ label: "trial number" }, { label: "best value so far", values: log ? logTicks : undefined }],
    series: [{}, ...d.studies.map((s, i) => ({ label: s.name, stroke: `hsl(${(i * 67) % 360}, 60%, 42%)`, width: 2, spanGaps: true, paths: uPlot.paths.stepped({ align: 1 }) }))] }, joined);
  return "each study's best value so far; tick the studies to compare";
};

function studyChooser(ids) {
  const box = document.createElement("div");
  box.id = "compare-studies";
  box.innerHTML = state.studies.map((s) => `<label><input type="checkbox" value="${Number(s.id)}" ${ids.includes(s.id) ? "checked" : ""}> ${escape(s.name)}</label>`).join(" ");
  box.onchange = () => {
    state.compare = [...box.querySelectorAll("input:checked")].map((i) => Number(i.value));
    loadPlot();
  };
  return box;
}

async function loadPlot() {
  if (!state.study) return;
  const kind = $("#plot-kind").value;
  const select = $("#plot-param"), second = $("#plot-param2");
  const param = kind === "relationship" || kind === "pareto" ? [select.value, second.value].filter(Boolean).join(",") : select.value || "";
  $("#plot-note").textContent = "computing…";
  const current = ticket("plot");
  try {
    let d;
    if (kind === "compare") {
      const ids = state.compare && state.compare.length ? state.compare : state.studies.slice(0, 6).map((s) => s.id);
      d = ids.length >= 2 ? await api(`/api/compare?studies=${ids.join(",")}`) : null;
      if (!current()) return;
      $("#param-label").hidden = true; $("#param2-label").hidden = true;
      clearPlot();
      $("#plot").appendChild(studyChooser(ids));
      $("#plot-note").textContent = d ? draw.compare(d) : "tick two studies or more";
      $("#plot").dataset.kind = kind;
      return;
    }
    d = await api(`/api/studies/${state.study.id}/plots/${kind}?param=${encodeURIComponent(param)}`);
    if (!current()) return;
    if (kind === "slices") showParameters(d.slices.map((s) => s.address), Object.fromEntries(d.slices.map((s) => [s.address, s.categories])));
    const pair = kind === "relationship" ? d.addresses || [] : kind === "pareto" ? (d.objectives || []).map(String) : null;
    const options = kind === "slices" ? d.slices.map((s) => s.address) : kind === "gp" || kind === "relationship" ? d.options
      : kind === "pareto" ? Array.from({ length: d.count }, (_, i) => String(i)) : kind === "convergence" ? ["number", "time"] : [];
    $("#param-label").hidden = options.length === 0;
    $("#param2-label").hidden = pair === null;
    for (const [el, chosen] of pair !== null ? [[select, pair[0]], [second, pair[1]]] : [[select, param]]) {
      const shown = kind === "pareto" ? labels(state.study) : options; // objectives by name
      if (options.join() !== [...el.options].map((o) => o.value).join()) el.innerHTML = options.map((o, k) => `<option value="${escape(o)}">${escape(shown[k] ?? o)}</option>`).join("");
      if (options.includes(chosen)) el.value = chosen;
    }
    clearPlot();
    $("#plot-note").textContent = draw[kind](d, select.value) || "";
    $("#plot").dataset.kind = kind;
  } catch (e) {
    if (!current()) return;
    clearPlot();
    $("#plot-note").innerHTML = `<span class="error">${escape(e.message)}</span>`;
  }
}

// -------------------------------------------------------------------- live
async function refresh() {
  await loadStudies();
  await Promise.all([loadTrials(), loadNotes(), loadHints(), loadAsked(), loadPlot()]);
  if (state.selected !== null && !$("#detail").hidden) await showTrial(state.selected, false);
}

async function poll() {
  if (state.study && state.version !== null) {
    try {
      const id = state.study.id;
      const v = (await api(`/api/studies/${id}/version`)).version.join(",");
      if (state.study.id === id && v !== state.version) {
        state.version = v;
        await refresh();
      }
      $("#updated").textContent = `up to date ${new Date().toLocaleTimeString()}`;
    } catch (e) {
      $("#updated").textContent = `connection lost: ${e.message}`;
    }
  }
  setTimeout(poll, state.poll);
}

// --------------------------------------------------------------- controls
document.querySelectorAll("th[data-sort]").forEach((th) => {
  th.onclick = () => {
    state.descending = state.orderBy === th.dataset.sort ? !state.descending : false;
    state.orderBy = th.dataset.sort;
    state.offset = 0;
    loadTrials();
  };
});
$("#filters").onsubmit = (e) => {
  e.preventDefault();
  state.filter = { state: $("#state-filter").value, value_min: $("#value-min").value, value_max: $("#value-max").value };
  state.offset = 0;
  loadTrials();
};
$("#prev-page").onclick = () => { state.offset = Math.max(0, state.offset - state.limit); loadTrials(); };
$("#next-page").onclick = () => { state.offset += state.limit; loadTrials(); };
$("#plot-kind").onchange = () => { $("#plot-param").innerHTML = ""; $("#plot-param2").innerHTML = ""; loadPlot(); };
$("#plot-param").onchange = () => loadPlot();
$("#plot-param2").onchange = () => loadPlot();
$("#config-form").onsubmit = (e) => {
  e.preventDefault();
  act("hint", `/api/studies/${state.study.id}/hints`, {
    config: statedConfig(), credibility: parseValue($("#hint-credibility").value), spread: parseValue($("#hint-spread").value), bad: $("#hint-bad").checked,
  });
};
$("#enqueue").onclick = () => act("enqueue", `/api/studies/${state.study.id}/enqueue`, { config: statedConfig() });
$("#ask").onclick = () => act("ask", `/api/studies/${state.study.id}/ask`, {}, () => loadAsked());
$("#note-form").onsubmit = (e) => {
  e.preventDefault();
  act("note", `/api/studies/${state.study.id}/notes`, { text: $("#note-text").value }, () => { $("#note-text").value = ""; });
};
$("#author").onchange = () => localStorage.setItem("treefarm-author", $("#author").value);

async function loadConfig() {
  const c = await api("/api/config");
  state.readToken = c.read_token;
  state.writes = c.writes && !(state.token && state.token === c.read_token);  // the read-only token reads only
  $("#mode").textContent = !state.writes ? "read-only" : state.token ? "writes on" : "writes on: open the URL with ?token=… printed at start-up to act";
  $("#author-label").hidden = !state.writes;
  $("#author").value = localStorage.getItem("treefarm-author") || c.author;
  $("#act").hidden = !state.writes;
  $("#note-form").hidden = !state.writes;
}

Promise.all([loadConfig(), loadStudies()]).then(() => {
  const linked = new URLSearchParams(window.location.hash.slice(1));
  const chosen = state.studies.find((s) => String(s.id) === linked.get("study")) || state.studies[0];
  const trial = Number(linked.get("trial") ?? NaN);
  if (chosen) selectStudy(chosen.id).then(() => (Number.isInteger(trial) ? showTrial(trial) : null)).catch((e) => say(e.message, true));
  setTimeout(poll, state.poll);
});
