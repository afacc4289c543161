// Herald dashboard: the report page's live refresh (progress, counts, chart) while a send runs,
// compose's live preview, and the copy buttons (Settings). Plain script, no build step, no
// library: it polls live.json once a second and stops when the send is final. Everything else
// works without JavaScript (the preview is then drawn by the server on the review step, and a
// value to copy is on the page to select).
(function () {
  'use strict';
  // A button[data-copy] copies the text of the element it names, and says so in its status line.
  function select(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button[data-copy]') : null;
    if (!button) return;
    var source = document.getElementById(button.dataset.copy);
    var status = document.getElementById(button.dataset.copy + '-copied');
    if (!source) return;
    var said = function (ok) { if (status) status.textContent = ok ? 'Copied.' : 'Selected: copy it with your keyboard.'; };
    var fallback = function () {
      select(source);
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      said(ok);
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(source.textContent).then(function () { said(true); }, fallback);
    else fallback();
  });
})();

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
    var image = preview.querySelector('[data-preview="image"]');
    if (image && field('image')) image.hidden = !field('image').value;
    var button = preview.querySelector('[data-preview="button_text"]');
    if (button && field('button_text')) { button.textContent = field('button_text').value; button.hidden = !field('button_text').value; }
    var silentBox = field('content_available'); // compose's; a template has no delivery of its own
    var silent = !!(silentBox && silentBox.checked);
    preview.querySelector('.banner').hidden = silent;
    preview.querySelector('.silent-note').hidden = !silent;
    updateAndroid(silent);
  }
  // The Android card (api/dashboard/pages/android-preview.ts): the same texts, the small icon's
  // name, the accent colour as the icon's fill (AARRGGBB → #RRGGBB, Android's grey when it is not
  // one), the big picture named, and which platform the choice leaves out.
  var android = document.getElementById('android-preview');
  function updateAndroid(silent) {
    var platforms = field('platforms') ? field('platforms').value : '';
    var leftOut = preview.querySelector('[data-preview="left-out"]');
    if (leftOut) leftOut.hidden = platforms !== 'android';
    if (!android) return;
    android.querySelector('[data-preview="left-out"]').hidden = platforms !== 'ios';
    ['heading', 'content'].forEach(function (k) {
      android.querySelector('[data-preview="' + k + '"]').textContent = field(k + '_0').value;
    });
    var icon = field('small_icon');
    if (icon) android.querySelector('[data-preview="small_icon"]').textContent = icon.value || 'default icon';
    var color = field('android_accent_color');
    if (color) {
      var hex = /^[0-9A-Fa-f]{8}$/.test(color.value) ? '#' + color.value.slice(2).toUpperCase() : '#5F6368';
      android.querySelector('[data-preview="accent"]').setAttribute('fill', hex);
    }
    var image = field('image');
    if (image) {
      android.querySelector('[data-preview="image"]').hidden = !image.value;
      android.querySelector('[data-preview="image_url"]').textContent = image.value;
    }
    var button = field('button_text');
    if (button) {
      var b = android.querySelector('[data-preview="button_text"]');
      b.textContent = button.value;
      b.hidden = !button.value;
    }
    // Data-only on Android only when there is no text at all (the payload builder's isBackground).
    var texts = Array.prototype.some.call(form.elements, function (el) { return /^content_\d{1,3}$/.test(el.name) && el.value; });
    var dataOnly = silent && !texts;
    android.querySelector('.android-card').hidden = dataOnly;
    android.querySelector('.silent-note').hidden = !dataOnly;
  }
  form.addEventListener('input', update);
  form.addEventListener('change', update);

  // The audience estimate, asked again (at most every 400 ms) as the audience fields change
  // (api/dashboard/form/audience-fields.ts ESTIMATE_INPUTS: the target, its fields, the segments left
  // out, and the platform choice).
  var estimate = document.getElementById('live-estimate');
  var isTarget = function (name) { return /^(target|segment|segment_\d{1,3}|tag_key|tag_relation|tag_value|filters|ids|exclude_\d{1,3}|platforms)$/.test(name); };
  var timer = null;
  var asked = 0;
  function ask() {
    var query = new URLSearchParams();
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || !isTarget(el.name) || (el.type === 'checkbox' && !el.checked)) return;
      query.set(el.name, el.value);
    });
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
    if (!isTarget(event.target.name)) return;
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
    // So is the per-platform table: api/dashboard/pages/report-platforms.ts.
    var platforms = document.getElementById('platforms-box');
    if (platforms && data.platforms) platforms.innerHTML = data.platforms;
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
