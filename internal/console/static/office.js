// The shop's back office: progressive enhancement only. On the point of
// sale, + and - buttons beside each quantity and the running total and
// change (the server counts the total again when the sale is made); on
// the receipt, the Print button (hidden without a script to run it).
(function () {
  'use strict';
  function rupiah(n) {
    return (n < 0 ? '-' : '') + 'Rp ' + Math.abs(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  }
  document.addEventListener('click', function (e) {
    var t = e.target;
    if (t && t.hasAttribute && t.hasAttribute('data-print')) { window.print(); }
  });
  document.querySelectorAll('[data-print][hidden]').forEach(function (b) { b.hidden = false; });
  var form = document.getElementById('pos');
  if (!form) { return; }
  var total = document.getElementById('pos-total');
  var change = document.getElementById('pos-change');
  var cash = document.getElementById('cash');
  var inputs = form.querySelectorAll('input[data-price]');
  function qty(input) {
    var n = parseInt(input.value, 10);
    return isNaN(n) || n < 0 ? 0 : n;
  }
  function update() {
    var sum = 0;
    inputs.forEach(function (i) { sum += qty(i) * parseInt(i.getAttribute('data-price'), 10); });
    total.textContent = rupiah(sum);
    var method = form.querySelector('input[name=method]:checked');
    var received = parseInt(cash.value, 10);
    change.textContent = method && method.value === 'CASH' && !isNaN(received) ? rupiah(received - sum) : '-';
  }
  inputs.forEach(function (input) {
    var box = document.createElement('div');
    box.className = 'qty';
    input.parentNode.insertBefore(box, input);
    var label = input.parentNode.querySelector('.pos-name').textContent;
    [['\u2212', -1], ['+', 1]].forEach(function (b, k) {
      var btn = document.createElement('button');
      btn.type = 'button';
      btn.textContent = b[0];
      btn.setAttribute('aria-label', (b[1] < 0 ? '\u2212 ' : '+ ') + label);
      btn.addEventListener('click', function () {
        input.value = Math.min(999, Math.max(0, qty(input) + b[1])) || '';
        update();
      });
      if (k === 0) { box.appendChild(btn); box.appendChild(input); } else { box.appendChild(btn); }
    });
  });
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  update();
})();
