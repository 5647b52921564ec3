// The controller's dashboard (docs/dashboard.md): one page, six views chosen by the URL's
// hash, each drawn from the JSON under /api/ and drawn again every few seconds.
//   #/                      campaigns
//   #/c/NAME[/nodes/N]      one campaign: figures, plots over time, a page of its nodes
//   #/c/NAME/crashes[/N]    its crashes, a page at a time
//   #/c/NAME/crash/SIG      one crash: report, reproducer, the command to run it
//   #/c/NAME/nights         its nightly reports: coverage and crashes night by night
//   #/c/NAME/night/NIGHT    one night's report
// <body data-ready="1" data-view="HASH"> once the view of HASH and its plots are drawn (the
// browser tests wait for it). Renders run one after the other, never two at once.
'use strict';

const POLL_MS = 5000;
const view = document.getElementById('view');
const crumbs = document.getElementById('crumbs');
const updated = document.getElementById('updated');
let charts = [];
let timer = null;
let pageCursors = [''];  // the crashes pager: the cursor of each page seen
let nodeCursors = [''];  // the node table's pager, the same way, for the campaign
let nodeCursorsOf = '';  // whose cursors they are
const NODE_ROWS = 100;
let rendering = Promise.resolve();

// A ?token= link sets the cookie the API checks, and leaves the address bar.
(function takeToken() {
  const match = location.search.match(/[?&]token=([^&]*)/);
  const token = match ? decodeURIComponent(match[1]) : '';
  if (token) {
    document.cookie = 'pollen_token=' + encodeURIComponent(token) + '; path=/; SameSite=Strict';
    history.replaceState(null, '', location.pathname + location.hash);
  }
})();

function esc(v) {
  return String(v).replace(
      /[&<>"']/g,
      (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;'})[c]);
}

function num(v) {
  return Number(v || 0).toLocaleString('en-US');
}

function bytes(v) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let x = Number(v || 0), i = 0;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return (i === 0 ? x : x.toFixed(1)) + ' ' + units[i];
}

function when(ms) {
  if (!ms) return '–';
  return new Date(Number(ms)).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

function age(ms) {
  const s = Math.round(Number(ms || 0) / 1000);
  if (s < 120) return s + ' s';
  if (s < 7200) return Math.round(s / 60) + ' min';
  return Math.round(s / 3600) + ' h';
}

async function api(path) {
  const res = await fetch('/api/' + path, {credentials: 'same-origin'});
  if (!res.ok) {
    let message = res.status + ' ' + res.statusText;
    try {
      message = (await res.json()).error || message;
    } catch (e) { /* not JSON */
    }
    throw new Error(message);
  }
  return res.json();
}

// data-ready-ms: when the view was drawn, in ms since the page's navigation started (what
// bench/dashboard_load.mjs reports).
function ready(done, hash) {
  if (done) document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = done ? '1' : '0';
  if (done) document.body.dataset.view = hash;
}

function setCrumbs(parts) {
  crumbs.innerHTML =
      parts.map(([label, href]) => href ? `<a href="${esc(href)}">${esc(label)}</a>` : esc(label))
          .join(' / ');
}

function clearCharts() {
  for (const c of charts) c.destroy();
  charts = [];
}

const COLORS = ['#b7791f', '#2563eb', '#15803d', '#b91c1c'];

// A chart of `type` with one series per [label, values]; y from zero unless `fromZero` is false.
function seriesChart(canvas, type, labels, series, fromZero = true) {
  charts.push(new Chart(canvas, {
    type,
    data: {
      labels,
      datasets: series.map(([label, data], i) => ({
                             label,
                             data,
                             borderColor: COLORS[i % COLORS.length],
                             backgroundColor: COLORS[i % COLORS.length],
                             pointRadius: labels.length > 60 ? 0 : 2,
                             borderWidth: 2,
                             tension: 0,
                           })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {y: {beginAtZero: fromZero}},
      plugins: {legend: {position: 'bottom'}},
    },
  }));
}

// A line chart of samples over time, one line per [label, field].
function lineChart(canvas, samples, lines) {
  // HH:MM, or HH:MM:SS when the samples span less than ten minutes.
  const span = samples.length ? samples[samples.length - 1].unix_ms - samples[0].unix_ms : 0;
  const end = span < 600000 ? 19 : 16;
  const labels = samples.map((s) => new Date(s.unix_ms).toISOString().slice(11, end));
  seriesChart(
      canvas, 'line', labels, lines.map(([label, field]) => [label, samples.map((s) => s[field])]));
}

function barChart(canvas, labels, values, label) {
  charts.push(new Chart(canvas, {
    type: 'bar',
    data: {labels, datasets: [{label, data: values, backgroundColor: '#b7791f'}]},
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {y: {beginAtZero: true}},
      plugins: {legend: {display: false}},
    },
  }));
}

async function campaignsView() {
  setCrumbs([['campaigns']]);
  const data = await api('campaigns');
  clearCharts();
  const figures = new Map((data.figures || []).map((f) => [f.name, f]));
  const rows = data.campaigns
                   .map((c) => {
                     const f = figures.get(c.name) || {};
                     const href = '#/c/' + encodeURIComponent(c.name);
                     return `<tr><td><a href="${href}">${esc(c.name)}</a>${
                         c.stopped ? ' <span class="muted">(stopped)</span>' : ''}</td>
      <td>${esc(c.target)}</td><td class="muted">${esc(String(c.build_id).slice(0, 12))}</td>
      <td class="num">${num(f.nodes_alive)}</td><td class="num">${num(f.nodes_lost)}</td>
      <td class="num">${num(f.execs_per_second)}</td><td class="num">${num(f.executions)}</td>
      <td class="num">${num(f.edges)}</td><td class="num">${num(f.features)}</td>
      <td class="num">${num(f.corpus_entries)}</td>
      <td class="num"><a href="${href}/crashes">${num(f.crashes)}</a></td></tr>`;
                   })
                   .join('');
  view.innerHTML = `<h1>Campaigns</h1>
    <table id="campaigns"><thead><tr><th>campaign</th><th>target</th><th>build</th>
    <th class="num">alive</th><th class="num">lost</th><th class="num">exec/s</th>
    <th class="num">executions</th><th class="num">edges</th><th class="num">features</th>
    <th class="num">corpus</th><th class="num">crashes</th></tr></thead>
    <tbody>${
      rows ||
      '<tr><td colspan="11" class="muted">No campaign yet: start a node with --controller.</td></tr>'}</tbody></table>`;
}

async function campaignView(name, page) {
  const enc = encodeURIComponent(name);
  setCrumbs([['campaigns', '#/'], [name]]);
  if (nodeCursorsOf !== name) {
    nodeCursors = [''];
    nodeCursorsOf = name;
  }
  if (!(page >= 0 && page < nodeCursors.length)) {  // a page whose cursor this tab never saw
    location.hash = '#/c/' + enc;
    return;
  }
  const after = nodeCursors[page];
  const query =
      '?nodes_limit=' + NODE_ROWS + (after ? '&nodes_after=' + encodeURIComponent(after) : '');
  const [data, history] =
      await Promise.all([api('campaigns/' + enc + query), api('campaigns/' + enc + '/samples')]);
  clearCharts();
  if (data.nodes_next) nodeCursors[page + 1] = data.nodes_next;
  const f = (data.campaigns || [])[0] || {};
  const c = data.campaign || {};
  const card = (k, v) =>
      `<div class="card"><div class="v">${v}</div><div class="k">${esc(k)}</div></div>`;
  const nodes = data.nodes || [];
  const rows = nodes
                   .map(
                       (n) => `<tr><td>${esc(n.node_id)}</td><td>${esc(n.host)}</td>
    <td class="muted">${esc(String(n.build_id).slice(0, 12))}</td><td class="num">${
                           num(n.workers)}</td>
    <td class="${esc(n.state)}">${esc(n.state)}</td><td class="num">${
                           age(n.last_heartbeat_age_ms)}</td>
    <td class="num">${num(n.stats.execs_per_second)}</td><td class="num">${
                           num(n.stats.executions)}</td>
    <td class="num">${num(n.stats.edges)}</td><td class="num">${num(n.stats.corpus_entries)}</td>
    <td class="num">${num(n.stats.crashes)}</td><td class="num">${
                           bytes(n.stats.rss_bytes)}</td></tr>`)
                   .join('');
  view.innerHTML = `<h1>${esc(name)}${f.stopped ? ' <span class="muted">(stopped)</span>' : ''}</h1>
    <p class="muted">target ${esc(c.target || '?')}, build ${esc(f.build_id || '?')}, created ${
      when(c.created_unix_ms)}</p>
    <div class="cards">${card('exec/s', num(f.execs_per_second))}${
      card('executions', num(f.executions))}
      ${card('edges', num(f.edges))}${card('features', num(f.features))}
      ${card('merged corpus', num(f.corpus_entries))}
      ${card('crashes', `<a href="#/c/${enc}/crashes">${num(f.crashes)}</a>`)}
      ${card('nodes alive', num(f.nodes_alive))}${card('nodes lost', num(f.nodes_lost))}</div>
    <h2>Over time <span class="muted">(a sample every ${
      num((history.every_ms || 60000) / 1000)} s)</span></h2>
    <div class="charts"><div class="chart"><canvas id="chart-coverage"></canvas></div>
      <div class="chart"><canvas id="chart-corpus"></canvas></div>
      <div class="chart"><canvas id="chart-speed"></canvas></div>
      <div class="chart"><canvas id="chart-nodes"></canvas></div></div>
    <p><a href="#/c/${enc}/nights">Nightly reports</a></p>
    <h2>Nodes <span class="muted">${num(data.nodes_skipped + (nodes.length ? 1 : 0))}–${
      num(data.nodes_skipped + nodes.length)} of ${num(data.nodes_total)}${
      data.truncated ? ', the first ones the controller lists' : ''}</span></h2>
    <table id="nodes"><thead><tr><th>node</th><th>host</th><th>build</th><th class="num">workers</th>
    <th>state</th><th class="num">heard</th><th class="num">exec/s</th><th class="num">executions</th>
    <th class="num">edges</th><th class="num">corpus</th><th class="num">crashes</th><th class="num">RSS</th></tr></thead>
    <tbody>${rows || '<tr><td colspan="12" class="muted">No node.</td></tr>'}</tbody></table>
    <div class="pager">${page > 0 ? `<a href="#/c/${enc}/nodes/${page - 1}">← previous</a>` : ''}${
      data.nodes_next ? `<a href="#/c/${enc}/nodes/${page + 1}">next →</a>` : ''}</div>`;
  const samples = history.samples || [];
  lineChart(
      document.getElementById('chart-coverage'), samples,
      [['edges', 'edges'], ['features', 'features']]);
  lineChart(
      document.getElementById('chart-corpus'), samples,
      [['merged corpus', 'corpus_entries'], ['crashes', 'crashes']]);
  lineChart(document.getElementById('chart-speed'), samples, [['exec/s', 'execs_per_second']]);
  // The page's nodes not lost, with their last figure (a node that left keeps the one it ended on).
  const shown = nodes.filter((n) => n.state !== 'lost');
  barChart(
      document.getElementById('chart-nodes'), shown.map((n) => n.node_id),
      shown.map((n) => n.stats.execs_per_second), 'exec/s per node');
}

// What the nightly's newest ledger says of a crash: open (not found fixed) or fixed.
function nightlyWord(n) {
  if (!n) return '<span class="muted">–</span>';
  if (n.state === 'fixed') {
    return `<span class="ok">fixed</span> in ${esc(String(n.fixed_build || '?').slice(0, 12))}${
        n.fixed_night ? ' (' + esc(n.fixed_night) + ')' : ''}`;
  }
  return `<span class="failed">open</span>${n.first_night ? ' since ' + esc(n.first_night) : ''}`;
}

async function crashesView(name, page) {
  const enc = encodeURIComponent(name);
  setCrumbs([['campaigns', '#/'], [name, '#/c/' + enc], ['crashes']]);
  if (!(page >= 0 && page < pageCursors.length)) {  // a page whose cursor this tab never saw
    location.hash = '#/c/' + enc + '/crashes';
    return;
  }
  const after = pageCursors[page];
  const data = await api(
      'campaigns/' + enc + '/crashes' + (after ? '?after=' + encodeURIComponent(after) : ''));
  clearCharts();
  if (data.next) pageCursors[page + 1] = data.next;
  const rows = data.crashes
                   .map((c) => `<tr>
    <td><a href="#/c/${enc}/crash/${encodeURIComponent(c.signature)}">${esc(c.signature)}</a></td>
    <td>${esc(c.kind)}</td><td class="num">${num(c.count)}</td><td class="num">${num(c.nodes)}</td>
    <td class="num">${bytes(c.input_size)}</td><td>${c.minimized ? 'yes' : 'no'}</td>
    <td>${when(c.first_seen_unix_ms)}</td><td>${when(c.last_seen_unix_ms)}</td>
    <td class="nightly">${nightlyWord(c.nightly)}</td></tr>`)
                   .join('');
  const prev = page > 0 ? `<a href="#/c/${enc}/crashes/${page - 1}">← previous</a>` : '';
  const next = data.next ? `<a href="#/c/${enc}/crashes/${page + 1}">next →</a>` : '';
  view.innerHTML = `<h1>Crashes of ${esc(name)}</h1>
    <table id="crashes"><thead><tr><th>signature</th><th>kind</th><th class="num">count</th>
    <th class="num">nodes</th><th class="num">reproducer</th><th>minimized</th><th>first seen</th>
    <th>last seen</th><th>nightly</th></tr></thead>
    <tbody>${rows || '<tr><td colspan="9" class="muted">No crash.</td></tr>'}</tbody></table>
    <div class="pager">${prev}${next}</div>`;
}

async function crashView(name, signature) {
  const enc = encodeURIComponent(name), sig = encodeURIComponent(signature);
  setCrumbs([
    ['campaigns', '#/'], [name, '#/c/' + enc], ['crashes', '#/c/' + enc + '/crashes'], [signature]
  ]);
  const c = await api('campaigns/' + enc + '/crashes/' + sig);
  clearCharts();
  view.innerHTML = `<h1>${esc(c.kind)} <span class="muted">${esc(c.signature)}</span></h1>
    <div class="cards"><div class="card"><div class="v" id="crash-count">${
      num(c.count)}</div><div class="k">times</div></div>
      <div class="card"><div class="v">${num(c.nodes)}</div><div class="k">nodes</div></div>
      <div class="card"><div class="v">${bytes(c.input_size)}</div><div class="k">reproducer${
      c.minimized ? ', minimized' : ''}</div></div></div>
    <p>First seen ${when(c.first_seen_unix_ms)}, last seen ${when(c.last_seen_unix_ms)}.
      Nightly${
      c.nightly ? ' (night of ' + esc(c.nightly.night) + ')' : ''}: <span id="crash-nightly">${
      c.nightly ? nightlyWord(c.nightly) : 'not checked by a nightly run'}</span>.</p>
    <p><a id="reproducer" href="/api/campaigns/${enc}/crashes/${sig}/reproducer" download="crash-${
      esc(c.signature)}">Download the reproducer</a>
      · run it: <code class="cmd">${esc(c.repro)}</code></p>
    <h2>Report</h2><pre id="report">${esc(c.report)}</pre>`;
}

function percent(c) {
  return c && typeof c.percent === 'number' ? c.percent.toFixed(1) + ' %' : '–';
}

// A figure that may be missing (a report without it): '–', not 0.
function maybe(v) {
  return typeof v === 'number' ? num(v) : '–';
}

async function nightsView(name) {
  const enc = encodeURIComponent(name);
  setCrumbs([['campaigns', '#/'], [name, '#/c/' + enc], ['nights']]);
  const data = await api('campaigns/' + enc + '/nights');
  clearCharts();
  const nights = data.nights || [];
  const cov = (n, kind) => (n.coverage && n.coverage[kind]) || {};
  const rows = nights.slice()
                   .reverse()
                   .map((n) => `<tr>
    <td><a href="#/c/${enc}/night/${encodeURIComponent(n.night)}">${esc(n.night)}</a></td>
    <td class="${esc(n.verdict || 'verdict-unknown')}">${esc(n.verdict || n.error || '?')}</td>
    <td class="muted">${esc(String(n.build_id || '').slice(0, 12))}</td>
    <td class="num">${num(n.new_crashes)}</td><td class="num">${num(n.regressed_crashes)}</td>
    <td class="num">${num(n.fixed_crashes)}</td><td class="num">${num(n.open_crashes)}</td>
    <td class="num">${num(n.executions)}</td>
    <td class="num">${maybe(cov(n, 'branches').covered)} (${percent(cov(n, 'branches'))})</td>
    <td class="num">${maybe(cov(n, 'lines').covered)} (${percent(cov(n, 'lines'))})</td></tr>`)
                   .join('');
  view.innerHTML = `<h1>Nightly reports of ${esc(name)}</h1>
    <div class="charts"><div class="chart"><canvas id="chart-nights-coverage"></canvas></div>
      <div class="chart"><canvas id="chart-nights-crashes"></canvas></div></div>
    <table id="nights"><thead><tr><th>night</th><th>verdict</th><th>build</th>
    <th class="num">new</th><th class="num">came back</th><th class="num">fixed</th>
    <th class="num">open</th><th class="num">executions</th><th class="num">branches</th>
    <th class="num">lines</th></tr></thead>
    <tbody>${
      rows ||
      '<tr><td colspan="10" class="muted">No night yet: pollen nightly stores its reports here.</td></tr>'}</tbody></table>`;
  const labels = nights.map((n) => n.night);
  seriesChart(
      document.getElementById('chart-nights-coverage'), 'line', labels,
      [
        ['branches covered', nights.map((n) => cov(n, 'branches').covered || null)],
        ['lines covered', nights.map((n) => cov(n, 'lines').covered || null)],
      ],
      false);
  seriesChart(document.getElementById('chart-nights-crashes'), 'bar', labels, [
    ['new', nights.map((n) => (n.new_crashes || 0) + (n.regressed_crashes || 0))],
    ['fixed', nights.map((n) => n.fixed_crashes || 0)],
  ]);
}

async function nightView(name, night) {
  const enc = encodeURIComponent(name);
  setCrumbs(
      [['campaigns', '#/'], [name, '#/c/' + enc], ['nights', '#/c/' + enc + '/nights'], [night]]);
  const data = await api('campaigns/' + enc + '/nights/' + encodeURIComponent(night));
  clearCharts();
  const s = data.summary || {};
  const card = (k, v) =>
      `<div class="card"><div class="v">${v}</div><div class="k">${esc(k)}</div></div>`;
  const cov = (kind) => (s.coverage && s.coverage[kind]) || {};
  view.innerHTML = `<h1>Night of ${esc(night)} <span class="${
      esc(s.verdict || 'verdict-unknown')}">${esc(s.verdict || s.error || '')}</span></h1>
    <div class="cards">${card('new crashes', num(s.new_crashes))}${
      card('came back', num(s.regressed_crashes))}${card('fixed', num(s.fixed_crashes))}${
      card('open', num(s.open_crashes))}${card('branches', percent(cov('branches')))}${
      card('lines', percent(cov('lines')))}</div>
    <p class="muted">files: ${(data.files || []).map(esc).join(', ')}</p>
    <pre id="night-report">${esc(data.report_md || '')}</pre>`;
}

async function render() {
  const hash = location.hash || '#/';
  ready(false, hash);
  try {
    const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
    if (parts[0] === 'c' && parts[1] && parts[2] === 'crash' && parts[3])
      await crashView(parts[1], parts[3]);
    else if (parts[0] === 'c' && parts[1] && parts[2] === 'crashes')
      await crashesView(parts[1], Number(parts[3] || 0));
    else if (parts[0] === 'c' && parts[1] && parts[2] === 'nights')
      await nightsView(parts[1]);
    else if (parts[0] === 'c' && parts[1] && parts[2] === 'night' && parts[3])
      await nightView(parts[1], parts[3]);
    else if (parts[0] === 'c' && parts[1])
      await campaignView(parts[1], parts[2] === 'nodes' ? Number(parts[3] || 0) : 0);
    else
      await campaignsView();
    updated.textContent = 'updated ' + new Date().toISOString().slice(11, 19) + ' UTC';
  } catch (e) {
    clearCharts();
    view.innerHTML = `<p class="error">${esc(e.message)}</p>`;
  }
  ready(true, hash);
}

// Renders after the one running, if any, and draws again every POLL_MS.
function queueRender() {
  rendering = rendering.then(render, render).then(() => {
    clearTimeout(timer);
    timer = setTimeout(queueRender, POLL_MS);
  });
  return rendering;
}

window.addEventListener('hashchange', () => {
  if (!location.hash.includes('/crashes')) pageCursors = [''];
  queueRender();
});
queueRender();
