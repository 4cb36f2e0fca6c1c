// The exam editor's blanks of a cloze question: "Insert a blank at the
// cursor" adds a blank's fields and writes its [[id]] at the cursor of the
// question's text (which becomes Markdown); renaming a blank renames its
// marker; a blank shows the fields of its kind. Without this script the
// button adds the blank on the server, its marker at the end of the text.
(function () {
  'use strict';
  var form = document.querySelector('form.exam-form');
  if (!form || !document.querySelector('fieldset.blanks')) { return; }

  // A cloze question has no options and no answer key of its own: their
  // fields are hidden while empty.
  function hideUnused() {
    Array.prototype.forEach.call(document.querySelectorAll('fieldset.blanks'), function (box) {
      var q = box.getAttribute('data-q');
      var type = document.getElementById('q' + q + '-type');
      ['options', 'answer'].forEach(function (f) {
        var el = document.getElementById('q' + q + '-' + f);
        var label = document.querySelector('label[for="q' + q + '-' + f + '"]');
        var hide = !!type && type.value === 'cloze' && !!el && el.value === '';
        [el, label].forEach(function (x) { if (x) { x.style.display = hide ? 'none' : ''; } });
      });
    });
  }
  hideUnused();

  form.addEventListener('change', function (e) {
    var t = e.target;
    if (t.id && /^q\d+-type$/.test(t.id)) { hideUnused(); }
    if (t.classList.contains('blank-kind')) {
      t.closest('.blank-row').setAttribute('data-kind', t.value);
    } else if (t.classList.contains('blank-id')) {
      renameMarker(t);
    }
  });
  form.addEventListener('focusin', function (e) {
    if (e.target.classList.contains('blank-id')) { e.target.setAttribute('data-was', e.target.value); }
  });

  // renameMarker writes a renamed blank's new id into its marker.
  function renameMarker(input) {
    var box = input.closest('fieldset.blanks');
    var text = document.getElementById('q' + box.getAttribute('data-q') + '-text');
    var was = input.getAttribute('data-was'), now = input.value.trim();
    if (was && now && was !== now) {
      text.value = text.value.split('[[' + was + ']]').join('[[' + now + ']]');
    }
    input.setAttribute('data-was', now);
    var code = input.closest('.blank-row').querySelector('.blank-marker');
    if (code) { code.textContent = '[[' + now + ']]'; }
  }

  form.addEventListener('click', function (e) {
    var button = e.target.closest('button.insert-blank');
    if (!button) { return; }
    e.preventDefault();
    var box = button.closest('fieldset.blanks');
    var q = box.getAttribute('data-q');
    var text = document.getElementById('q' + q + '-text');
    var rows = box.querySelector('.blank-rows');
    var ids = Array.prototype.map.call(rows.querySelectorAll('.blank-id'), function (i) { return i.value.trim(); });
    var id = '';
    for (var k = ids.length + 1; !id; k++) {
      if (ids.indexOf('b' + k) < 0 && text.value.indexOf('[[b' + k + ']]') < 0) { id = 'b' + k; }
    }
    var m = String(rows.querySelectorAll('.blank-row').length);
    var row = box.querySelector('template.blank-template').content.cloneNode(true);
    Array.prototype.forEach.call(row.querySelectorAll('[id], [name], [for]'), function (el) {
      ['id', 'name', 'for'].forEach(function (a) {
        var v = el.getAttribute(a);
        if (v) { el.setAttribute(a, v.replace('__M__', m)); }
      });
    });
    row.querySelector('.blank-id').value = id;
    row.querySelector('.blank-marker').textContent = '[[' + id + ']]';
    rows.appendChild(row);
    var marker = '[[' + id + ']]';
    var at = typeof text.selectionStart === 'number' ? text.selectionStart : text.value.length;
    var end = typeof text.selectionEnd === 'number' ? text.selectionEnd : at;
    text.value = text.value.slice(0, at) + marker + text.value.slice(end);
    text.selectionStart = text.selectionEnd = at + marker.length;
    var format = document.getElementById('q' + q + '-format');
    if (format) { format.value = 'markdown'; }
    document.getElementById('q' + q + '-b' + m + '-answer').focus();
  });
}());
