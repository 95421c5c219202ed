// The treefarm dashboard page: studies, a server-paged trials table, uPlot charts, live polling.
// Every number shown comes from the JSON API (see treefarm/dashboard/app.py); nothing is computed here
// beyond laying it out.
"use strict";

const state = {
  study: null, studies: [], offset: 0, limit: 50, orderBy: "number", descending: false,
  filter: {}, total: 0, version: null, poll: 1000, charts: [], selected: null,
};

const $ = (sel) => document.querySelector(sel);
const fmt = (v) => (v === null || v === undefined ? "" : typeof v === "number" ? String(Number(v.toPrecision(6))) : String(v));
const escape = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

async function api(path) {
  const response = await fetch(path);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
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
    li.innerHTML = `${escape(s.name)}<small>${s.total} trials · best ${fmt(s.best)}</small>`;
    li.classList.toggle("active", state.study && state.study.id === s.id);
    li.onclick = () => selectStudy(s.id);
    list.appendChild(li);
  }
  if (state.study) {
    state.study = data.studies.find((s) => s.id === state.study.id) || state.study;
    showSummary();
  }
}

function showSummary() {
  const s = state.study;
  const counts = Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(", ");
  $("#summary").innerHTML = `<h2>${escape(s.name)}</h2><p>${s.direction} · ${s.total} trials (${escape(counts)}) · best value <b id="best">${fmt(s.best)}</b></p>`;
}

async function selectStudy(id) {
  state.study = state.studies.find((s) => s.id === id);
  state.offset = 0;
  state.version = null;
  document.querySelectorAll("#studies li").forEach((li) => li.classList.toggle("active", Number(li.dataset.id) === id));
  showSummary();
  await loadTrials(); // the table first: the first plot of a large study reads all of it
  await loadPlot();
  state.version = (await api(`/api/studies/${id}/version`)).version.join(",");
}

// ------------------------------------------------------------------- table
async function loadTrials() {
  const q = new URLSearchParams({ offset: state.offset, limit: state.limit, order_by: state.orderBy, descending: state.descending });
  for (const [k, v] of Object.entries(state.filter)) if (v !== "") q.set(k, v);
  const data = await api(`/api/studies/${state.study.id}/trials?${q}`);
  state.total = data.total;
  const body = $("#trials tbody");
  body.innerHTML = "";
  for (const r of data.rows) {
    const tr = document.createElement("tr");
    tr.className = r.state;
    tr.dataset.number = r.number;
    tr.innerHTML = `<td>${r.number}</td><td>${r.state}</td><td>${fmt(r.value)}</td><td>${fmt(r.duration)}</td><td>${escape(r.params)}</td>`;
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

async function showTrial(number) {
  state.selected = number;
  const t = await api(`/api/studies/${state.study.id}/trials/${number}`);
  const d = $("#detail");
  d.hidden = false;
  const steps = t.intermediate.steps.map((s, i) => `${s}: ${fmt(t.intermediate.values[i])}`).join("\n");
  d.innerHTML = `<h3>trial ${t.number} · ${t.state} · value ${fmt(t.value)}</h3>
    <h4>built value (expression, depth ${t.depth})</h4><pre id="detail-expression">${escape(t.expression)}</pre>
    ${t.fail_reason ? `<h4>reason for failure</h4><pre class="error" id="detail-fail">${escape(t.fail_reason)}</pre>` : ""}
    <h4>configuration</h4><pre id="detail-config">${escape(JSON.stringify(t.config, null, 1))}</pre>
    <h4>user attributes</h4><pre id="detail-user">${escape(JSON.stringify(t.user_attrs, null, 1))}</pre>
    <h4>intermediate values</h4><pre id="detail-intermediate">${escape(steps || "none")}</pre>
    <h4>system attributes</h4><pre>${escape(JSON.stringify(t.system_attrs, null, 1))}</pre>`;
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

function chart(opts, data, into = $("#plot")) {
  const div = document.createElement("div");
  into.appendChild(div);
  const c = new uPlot({ width: width(), height: 300, ...opts }, data, div);
  state.charts.push(c);
  return c;
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
    chart({ scales: { x: { time: false } }, axes: [{ label: d.axis === "time" ? "seconds" : "trial number" }, { label: "value" }],
      series: [{ label: d.axis === "time" ? "seconds" : "trial" }, pointsOnly("trial value", "#999"), { label: "best so far", stroke: "#1f5fa0", width: 2, paths: uPlot.paths.stepped({ align: 1 }), spanGaps: true }] },
      [xs, xs.map((x) => (at.has(x) ? at.get(x) : null)), stepAt(xs, d.best_x, d.best)]);
    return d.shown < d.total ? `showing ${d.shown} of ${d.total} values (sampled); the best-so-far line is exact` : "";
  },
  slices(d, param) {
    const s = d.slices.find((x) => x.address === param) || d.slices[0];
    if (!s) return "no complete trial";
    const cat = s.categories.length > 0;
    chart({ scales: { x: { time: false, distr: s.log ? 3 : 1 } },
      axes: [{ label: s.address, values: cat ? (u, ticks) => ticks.map((t) => (Number.isInteger(t) ? s.categories[t] || "" : "")) : s.log ? logTicks : undefined }, { label: "value" }],
      series: [{}, pointsOnly("value", "#1f5fa0")] }, [s.x, s.y]);
    return (s.shown < s.total ? `showing ${s.shown} of ${s.total} trials (sampled); ` : "") + `trials where ${s.address} is active`;
  },
  importance(d) {
    const rows = d.scores.map(([a, v]) => `<tr><td>${escape(a)}</td><td style="width:60%"><div class="bar" style="width:${Math.max(0, v) * 100}%"></div></td><td>${v.toFixed(3)}</td></tr>`);
    $("#plot").innerHTML = `<table class="bars">${rows.join("")}</table>`;
    return "main-effect share of the loss-rank variance (first-order Sobol index by the correlation ratio)";
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

async function loadPlot() {
  if (!state.study) return;
  const kind = $("#plot-kind").value;
  const select = $("#plot-param");
  const param = select.value || "";
  $("#plot-note").textContent = "computing…";
  try {
    const d = await api(`/api/studies/${state.study.id}/plots/${kind}?param=${encodeURIComponent(param)}`);
    const options = kind === "slices" ? d.slices.map((s) => s.address) : kind === "gp" ? d.options : kind === "convergence" ? ["number", "time"] : [];
    $("#param-label").hidden = options.length === 0;
    if (options.join() !== [...select.options].map((o) => o.value).join()) {
      select.innerHTML = options.map((o) => `<option>${escape(o)}</option>`).join("");
      if (options.includes(param)) select.value = param;
    }
    clearPlot();
    $("#plot-note").textContent = draw[kind](d, select.value) || "";
    $("#plot").dataset.kind = kind;
  } catch (e) {
    clearPlot();
    $("#plot-note").innerHTML = `<span class="error">${escape(e.message)}</span>`;
  }
}

// -------------------------------------------------------------------- live
async function poll() {
  if (state.study && state.version !== null) {
    try {
      const v = (await api(`/api/studies/${state.study.id}/version`)).version.join(",");
      if (v !== state.version) {
        state.version = v;
        await loadStudies();
        await Promise.all([loadTrials(), loadPlot()]);
        if (state.selected !== null) await showTrial(state.selected);
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
$("#plot-kind").onchange = () => { $("#plot-param").innerHTML = ""; loadPlot(); };
$("#plot-param").onchange = () => loadPlot();

loadStudies().then(() => {
  const first = state.studies[0];
  if (first) selectStudy(first.id);
  setTimeout(poll, state.poll);
});
