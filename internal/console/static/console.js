// The console's one script: progressive enhancement only; every page works
// without it.
document.addEventListener('click', function (e) {
  if (e.target && e.target.hasAttribute('data-print')) { window.print(); }
});
