// The grading page's keys (docs/console.md, "Grading essays"): the points
// field has the focus; digits type the points, Tab goes to the comment,
// Enter saves and opens the next answer to grade (the form does that
// without this script). This script adds: J or the down arrow for the next
// answer, K or the up arrow for the previous one (anywhere but in the
// comment), Escape in the comment back to the points, and a digit typed
// elsewhere on the page goes to the points.
(function () {
  var points = document.getElementById('points');
  var comment = document.getElementById('comment');
  if (!points) { return; }
  function go(id) {
    var a = document.getElementById(id);
    if (a) { window.location.href = a.href; }
  }
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    var t = e.target;
    if (t === comment) {
      if (e.key === 'Escape') { e.preventDefault(); points.focus(); points.select(); }
      return;
    }
    if (e.key === 'j' || e.key === 'J' || e.key === 'ArrowDown') { e.preventDefault(); go('next'); return; }
    if (e.key === 'k' || e.key === 'K' || e.key === 'ArrowUp') { e.preventDefault(); go('prev'); return; }
    if (t !== points && /^[0-9.,]$/.test(e.key) && !(t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
      e.preventDefault();
      points.focus();
      points.value = e.key;
    }
  });
  points.focus();
  points.select();
})();
