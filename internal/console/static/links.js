// The marketers' pages' script: progressive enhancement only; every page
// works without it. It adds copy buttons to short links and draws the QR
// designer's preview as the design changes (POST /console/links/qr/preview:
// the design rendered, stored nowhere).
(function () {
  document.querySelectorAll('button.copybtn').forEach(function (b) {
    if (!navigator.clipboard) { return; }
    b.hidden = false;
    b.addEventListener('click', function () {
      navigator.clipboard.writeText(b.getAttribute('data-copy')).then(function () {
        b.setAttribute('aria-pressed', 'true');
      });
    });
  });

  var form = document.getElementById('qr-form');
  var img = document.getElementById('qr-preview');
  var problem = document.getElementById('qr-problem');
  if (!form || !img || !problem) { return; }
  var timer = 0;
  var url = '';
  function refresh() {
    fetch('/console/links/qr/preview', { method: 'POST', body: new FormData(form), credentials: 'same-origin' })
      .then(function (r) {
        if (!r.ok) { return r.text().then(function (t) { throw new Error(t); }); }
        return r.blob();
      })
      .then(function (b) {
        if (url) { URL.revokeObjectURL(url); }
        url = URL.createObjectURL(b);
        img.src = url;
        img.hidden = false;
        problem.hidden = true;
      })
      .catch(function (e) {
        problem.textContent = e.message;
        problem.hidden = false;
      });
  }
  function later() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 300);
  }
  form.addEventListener('input', later);
  form.addEventListener('change', later);
})();
