// Herald dashboard: the report page's live refresh (progress, counts, chart) while a send runs,
// and compose's live preview. Plain script, no build step, no library: it polls live.json once a
// second and stops when the send is final. Everything else works without JavaScript (the preview
// is then drawn by the server on the review step).
(function () {
  'use strict';
  var form = document.querySelector('form.compose:not(.review)');
  var preview = document.getElementById('preview');
  if (!form || !preview) return;
  var field = function (name) { return form.elements.namedItem(name); };
  function update() {
    ['heading', 'subtitle', 'content'].forEach(function (k) {
      var el = preview.querySelector('[data-preview="' + k + '"]');
      if (el) el.textContent = field(k + '_0').value;
    });
    var silent = field('content_available').checked;
    preview.querySelector('.banner').hidden = silent;
    preview.querySelector('.silent-note').hidden = !silent;
  }
  form.addEventListener('input', update);
  form.addEventListener('change', update);

  // The audience estimate, asked again (at most every 400 ms) as the audience fields change.
  var estimate = document.getElementById('live-estimate');
  var targetFields = ['target', 'segment', 'tag_key', 'tag_relation', 'tag_value', 'ids'];
  var timer = null;
  var asked = 0;
  function ask() {
    var query = new URLSearchParams();
    targetFields.forEach(function (k) { query.set(k, field(k).value); });
    var mine = ++asked;
    fetch('/dashboard/compose/estimate.json?' + query.toString(), { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (res) { return res.json(); })
      .then(function (data) {
        if (mine !== asked) return; // an older answer arriving late
        estimate.textContent = data.errors ? data.errors.join(' ')
          : 'Estimate: ' + Number(data.estimate).toLocaleString('en-US') + ' device' + (data.estimate === 1 ? '' : 's') + ' now.';
      })
      .catch(function () { /* the review step still shows it */ });
  }
  function later(event) {
    if (targetFields.indexOf(event.target.name) < 0) return;
    clearTimeout(timer);
    timer = setTimeout(ask, 400);
  }
  if (estimate) {
    form.addEventListener('input', later);
    form.addEventListener('change', later);
    ask();
  }
})();

(function () {
  'use strict';
  var report = document.getElementById('report');
  if (!report || !report.dataset.live) return;
  var url = report.dataset.live;
  var fmt = function (n) { return Number(n).toLocaleString('en-US'); };
  var pct = function (part, whole) { return whole > 0 ? ((part / whole) * 100).toFixed(1) + '%' : '\u2014'; };
  var set = function (id, text) { var el = document.getElementById(id); if (el) el.textContent = text; };

  function render(data) {
    var r = data.report;
    var status = document.getElementById('status');
    status.textContent = data.statusWord;
    status.className = data.statusClass;
    var bar = document.getElementById('progress');
    bar.value = data.progress;
    bar.textContent = data.progress + '%';
    set('progress-text', data.progressText);
    set('total', fmt(r.total_recipients));
    set('sent', fmt(r.sent)); set('sent-rate', pct(r.sent, r.total_recipients));
    set('failed', fmt(r.failed)); set('failed-rate', pct(r.failed, r.total_recipients));
    set('clicked', fmt(r.clicked)); set('clicked-rate', pct(r.clicked, r.sent));
    set('skipped', fmt(r.skipped));
    set('message-text', r.message);
    // A Live Activity update's per-token pushes, counted as they go (pages/report.ts wentOut).
    if (data.wentOut) { set('broadcast', data.wentOut.broadcast); set('broadcast-tokens', data.wentOut.tokens); }
    // The chart's markup is drawn (and escaped) by the server: api/dashboard/pages/chart.ts.
    document.getElementById('chart-box').innerHTML = data.chart;
    set('duration', data.duration);
    if (data.final) {
      var cancel = document.getElementById('cancel-form');
      if (cancel) cancel.remove();
    }
  }

  function poll() {
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (res) { if (!res.ok) throw new Error(String(res.status)); return res.json(); })
      .then(function (data) { render(data); if (!data.final) setTimeout(poll, 1000); })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 1000);
})();
