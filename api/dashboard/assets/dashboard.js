// Herald dashboard: the report page's live refresh (progress, counts, chart) while a send runs.
// Plain script, no build step, no library: it polls live.json once a second and stops when the
// send is final. Everything else in the dashboard works without JavaScript.
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
    status.textContent = r.canceled ? r.status + ' (canceled)' : r.status;
    status.className = 'status status-' + (r.canceled ? 'canceled' : r.status);
    var bar = document.getElementById('progress');
    bar.value = data.progress;
    bar.textContent = data.progress + '%';
    set('progress-text', data.progress + '%');
    set('total', fmt(r.total_recipients));
    set('sent', fmt(r.sent)); set('sent-rate', pct(r.sent, r.total_recipients));
    set('failed', fmt(r.failed)); set('failed-rate', pct(r.failed, r.total_recipients));
    set('clicked', fmt(r.clicked)); set('clicked-rate', pct(r.clicked, r.sent));
    set('skipped', fmt(r.skipped));
    set('message-text', r.message);
    document.getElementById('chart-line').setAttribute('points', data.points);
    set('duration', data.duration);
    set('chart-note', data.timeline.length ? data.timeline.length + ' seconds with deliveries' : 'No delivery yet.');
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
