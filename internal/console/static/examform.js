// The exam editor's question filter: the questions whose category, id or
// text holds what is typed stay shown, the others are hidden (never
// removed: a save still carries them). Without this script every question
// shows.
(function () {
  'use strict';
  var box = document.getElementById('question-filter');
  var input = document.getElementById('qfilter');
  if (!box || !input) { return; }
  box.hidden = false;
  var status = document.getElementById('qfilter-status');
  input.addEventListener('input', function () {
    var want = input.value.trim().toLowerCase();
    var shown = 0;
    var all = document.querySelectorAll('fieldset.question');
    Array.prototype.forEach.call(all, function (fs) {
      var hay = ['category', 'id', 'text'].map(function (f) {
        var el = fs.querySelector('[name$=".' + f + '"]');
        return el ? el.value : '';
      }).join(' ').toLowerCase();
      fs.hidden = want !== '' && hay.indexOf(want) < 0;
      if (!fs.hidden) { shown++; }
    });
    status.textContent = want === '' ? '' : input.dataset.shown.replace('%s', shown + '/' + all.length);
  });
})();

// The exam editor's media upload: the file is sent as it is (the portal
// reads its type from its bytes), then ![description](media:SHA256) is
// inserted at the cursor of the chosen question's or stimulus's text, which becomes
// Markdown. Without this script the editor works; media then come through
// the API.
(function () {
  'use strict';
  var box = document.getElementById('media-insert');
  if (!box || !window.fetch) { return; }
  box.hidden = false;
  var status = document.getElementById('media-status');
  var say = function (msg) { status.textContent = msg; };
  var fill = function (tpl, v) { return tpl.replace('%s', v); };

  document.getElementById('media-upload').addEventListener('click', function () {
    var file = document.getElementById('media-file').files[0];
    var alt = document.getElementById('media-alt').value.replace(/[\[\]\n\r]/g, ' ').trim();
    var target = document.getElementById('media-target').value;
    if (!file) { say(box.dataset.needFile); return; }
    if (!alt) { say(box.dataset.needAlt); return; }
    var text = document.getElementById(target + '-text');
    var format = document.getElementById(target + '-format');
    var where = document.getElementById('media-target');
    where = where.options[where.selectedIndex].text;
    if (!text) { return; }
    var button = this;
    button.disabled = true;
    fetch(box.dataset.upload + '?name=' + encodeURIComponent(file.name), {
      method: 'POST', body: file, credentials: 'same-origin',
      headers: { 'X-CSRF-Token': box.dataset.csrf, 'Content-Type': 'application/octet-stream' }
    }).then(function (resp) {
      return resp.json().then(function (body) { return { ok: resp.ok, body: body }; });
    }).then(function (r) {
      button.disabled = false;
      if (!r.ok) { say(fill(box.dataset.failed, r.body.error || r.body.code || '?')); return; }
      // An audio's description is the teacher's unless marked "describe"
      // (docs/exam-content.md): then screen readers get it, never the screen.
      var describe = r.body.kind === 'audio' && document.getElementById('media-describe').checked;
      var snippet = '![' + alt + '](' + r.body.reference + (describe ? ' "describe"' : '') + ')';
      var at = text.selectionStart || text.value.length;
      var before = text.value.slice(0, at), after = text.value.slice(at);
      if (before && !/\n$/.test(before)) { snippet = '\n\n' + snippet; }
      if (after && !/^\n/.test(after)) { snippet += '\n\n'; }
      text.value = before + snippet + after;
      if (format) { format.value = 'markdown'; }
      document.getElementById('media-alt').value = '';
      document.getElementById('media-describe').checked = false;
      document.getElementById('media-file').value = '';
      say(fill(box.dataset.done, where));
    })['catch'](function (err) {
      button.disabled = false;
      say(fill(box.dataset.failed, String(err)));
    });
  });
}());
