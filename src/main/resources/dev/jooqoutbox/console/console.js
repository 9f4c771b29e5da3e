// The jooq-outbox console. Everything the server sends is put on the page as text (textContent,
// never innerHTML): an error message or id that holds markup shows as that markup, inert.
'use strict';

const state = { actions: false, deadAfter: 0, deadFilter: new URLSearchParams() };

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function showError(message) {
  const p = document.getElementById('error');
  p.textContent = message;
  p.hidden = !message;
}

async function getJson(path) {
  const r = await fetch(path, { credentials: 'same-origin' });
  if (!r.ok) throw new Error(path + ': ' + r.status + ' ' + (await r.text()));
  return r.json();
}

async function post(path, body) {
  const r = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(path + ': ' + r.status + ' ' + (await r.text()));
  return r.json();
}

function age(millis) {
  if (millis === null || millis === undefined) return '-';
  const s = Math.floor(millis / 1000);
  if (s < 60) return s + 's';
  if (s < 3600) return Math.floor(s / 60) + 'm' + (s % 60 ? (s % 60) + 's' : '');
  return Math.floor(s / 3600) + 'h' + Math.floor((s % 3600) / 60) + 'm';
}

// A time as a person reads it: to the second, UTC. The API keeps the full precision (the
// databases store micro- or milliseconds); a page showing nanoseconds only adds noise.
function when(iso) {
  return iso == null ? '' : String(iso).replace(/\.\d+Z$/, 'Z');
}

function button(text, onClick) {
  const b = el('button', text, 'action');
  b.addEventListener('click', () => onClick().catch((e) => showError(e.message)));
  return b;
}

function row(cells) {
  const tr = el('tr');
  for (const c of cells) {
    if (c instanceof Node) {
      const td = el('td');
      td.appendChild(c);
      tr.appendChild(td);
    } else {
      tr.appendChild(el('td', c.text, c.cls));
    }
  }
  return tr;
}

async function overview() {
  const o = await getJson('api/overview');
  state.actions = o.actions;
  document.body.classList.toggle('read-only', !o.actions);
  document.getElementById('mode').textContent =
    (o.actions ? 'actions on' : 'read only') + (o.payloads ? ', payloads shown' : '');
  document.getElementById('every').textContent = o.sampleEverySeconds;
  document.getElementById('counts-every').textContent = o.sampleEverySeconds;
  document.getElementById('counts-at').textContent = when(o.countsAt);
  const body = document.querySelector('#topics tbody');
  body.replaceChildren();
  const names = new Set(Object.keys(o.topics).concat(Object.keys(o.paused)));
  for (const topic of [...names].sort()) {
    const s = o.topics[topic] || { pending: 0, leased: 0, unknown: 0, dead: 0, sentAwaitingPurge: 0,
      oldestPendingAgeMillis: null };
    const paused = topic in o.paused;
    const act = paused
      ? button('Resume', () => post('api/topics/resume', { topic }).then(overview))
      : button('Pause', () => post('api/topics/pause', { topic }).then(overview));
    const tr = row([{ text: topic }, { text: s.pending, cls: 'n' }, { text: s.leased, cls: 'n' },
      { text: s.unknown, cls: 'n' }, { text: s.dead, cls: 'n' },
      { text: s.sentAwaitingPurge, cls: 'n' }, { text: age(s.oldestPendingAgeMillis) },
      { text: paused ? 'paused since ' + when(o.paused[topic]) : '' }, act]);
    tr.dataset.topic = topic;
    body.appendChild(tr);
  }
  const t = o.total;
  body.appendChild(row([{ text: '(all topics)' }, { text: t.pending, cls: 'n' },
    { text: t.leased, cls: 'n' }, { text: t.unknown, cls: 'n' }, { text: t.dead, cls: 'n' },
    { text: t.sentAwaitingPurge, cls: 'n' }, { text: age(t.oldestPendingAgeMillis) },
    { text: '' }, { text: '' }]));
  chart(o.samples);
}

function chart(samples) {
  const svg = document.getElementById('chart');
  svg.replaceChildren();
  const rate = document.getElementById('rate');
  if (samples.length < 2) {
    rate.textContent = 'Not enough samples yet.';
    return;
  }
  const w = 720, h = 160;
  const t0 = Date.parse(samples[0].at), t1 = Date.parse(samples[samples.length - 1].at);
  const max = Math.max(1, ...samples.map((s) => Math.max(s.pending, s.dead)));
  for (const key of ['pending', 'dead']) {
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    line.setAttribute('class', key);
    line.setAttribute('points', samples.map((s) =>
      ((Date.parse(s.at) - t0) / Math.max(1, t1 - t0) * (w - 10) + 5).toFixed(1) + ',' +
      (h - 5 - s[key] / max * (h - 10)).toFixed(1)).join(' '));
    svg.appendChild(line);
  }
  const first = samples[0], last = samples[samples.length - 1];
  const delivered = last.sentAwaitingPurge - first.sentAwaitingPurge;
  rate.textContent = 'Pending now ' + last.pending + ' (peak ' + max + '); delivered about ' +
    (delivered >= 0 ? (delivered / ((t1 - t0) / 1000)).toFixed(1) + ' messages/s'
      : 'unknown (a purge ran)') + ' over the samples shown.';
}

async function deadLetters(more) {
  if (!more) state.deadAfter = 0;
  const q = new URLSearchParams(state.deadFilter);
  if (state.deadAfter) q.set('after', state.deadAfter);
  q.set('limit', '50');
  const page = await getJson('api/dead-letters?' + q);
  const body = document.querySelector('#dead-letters tbody');
  if (!more) body.replaceChildren();
  for (const d of page.letters) {
    const box = el('input');
    box.type = 'checkbox';
    box.value = d.id;
    box.setAttribute('aria-label', 'select ' + d.id);
    body.appendChild(row([box, { text: d.id }, { text: d.aggregate }, { text: d.topic },
      { text: d.attempts, cls: 'n' }, { text: when(d.deadAt) }, { text: d.lastError, cls: 'error-text' }]));
  }
  state.deadAfter = page.after || 0;
  document.getElementById('dead-more').hidden = !page.after;
}

async function unknownOutcomes() {
  const u = await getJson('api/unknown');
  const b = u.blocked;
  document.getElementById('blocked').textContent = b.messages
    ? b.messages + ' messages of ' + b.aggregates + ' aggregates wait behind them (the oldest: ' +
      'aggregate ' + b.oldestAggregate + ', behind ' + b.oldestBlockerId + ')'
    : 'Nothing waits behind them.';
  const body = document.querySelector('#unknown-outcomes tbody');
  body.replaceChildren();
  for (const o of u.outcomes) {
    const actions = el('span');
    for (const r of ['SENT', 'RETRY', 'DEAD']) {
      actions.appendChild(button(r.toLowerCase(), () =>
        post('api/unknown/resolve', { id: o.id, resolution: r }).then(unknownOutcomes)));
    }
    body.appendChild(row([{ text: o.id }, { text: o.aggregate }, { text: o.topic },
      { text: when(o.since) }, { text: o.remoteRef }, { text: o.lastError, cls: 'error-text' }, actions]));
  }
}

async function message(id) {
  const dl = document.getElementById('message-state');
  dl.replaceChildren();
  const r = await fetch('api/message?id=' + encodeURIComponent(id), { credentials: 'same-origin' });
  if (r.status === 404) {
    dl.appendChild(el('dt', 'not found'));
    dl.appendChild(el('dd', id));
    return;
  }
  if (!r.ok) throw new Error(r.status + ' ' + (await r.text()));
  const m = await r.json();
  for (const [k, v] of Object.entries(m)) {
    dl.appendChild(el('dt', k));
    if (k === 'headers') {
      const entries = Object.entries(v);
      if (entries.length === 0) dl.appendChild(el('dd', '-'));
      for (const [name, value] of entries) dl.appendChild(el('dd', name + ': ' + value));
      continue;
    }
    dl.appendChild(el('dd', v === null ? '-' : v));
  }
}

const pages = { overview, dead: () => deadLetters(false), unknown: unknownOutcomes, message: async () => {} };

function show() {
  const name = (location.hash || '#overview').substring(1);
  const page = pages[name] ? name : 'overview';
  for (const p of Object.keys(pages)) document.getElementById(p).hidden = p !== page;
  showError('');
  pages[page]().catch((e) => showError(e.message));
}

function wire() {
  window.addEventListener('hashchange', show);
  document.getElementById('pause-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const topic = document.getElementById('pause-topic').value;
    post('api/topics/pause', { topic }).then(overview).catch((x) => showError(x.message));
  });
  document.getElementById('dead-filter').addEventListener('submit', (e) => {
    e.preventDefault();
    state.deadFilter = new URLSearchParams();
    for (const [k, v] of new FormData(e.target)) if (v) state.deadFilter.set(k, v);
    deadLetters(false).catch((x) => showError(x.message));
  });
  document.getElementById('dead-more').addEventListener('click',
    () => deadLetters(true).catch((x) => showError(x.message)));
  document.getElementById('dead-all').addEventListener('change', (e) => {
    for (const b of document.querySelectorAll('#dead-letters tbody input')) b.checked = e.target.checked;
  });
  document.getElementById('requeue-selected').addEventListener('click', () => {
    const ids = [...document.querySelectorAll('#dead-letters tbody input:checked')].map((b) => b.value);
    if (!ids.length) return showError('select dead letters first');
    post('api/dead-letters/requeue', { ids }).then(() => deadLetters(false))
      .catch((x) => showError(x.message));
  });
  document.getElementById('requeue-topic').addEventListener('click', () => {
    const topic = state.deadFilter.get('topic');
    if (!topic) return showError('filter by a topic first');
    post('api/dead-letters/requeue', { topic }).then(() => deadLetters(false))
      .catch((x) => showError(x.message));
  });
  document.getElementById('message-form').addEventListener('submit', (e) => {
    e.preventDefault();
    message(document.getElementById('message-id').value).catch((x) => showError(x.message));
  });
  show();
}

document.addEventListener('DOMContentLoaded', wire);
