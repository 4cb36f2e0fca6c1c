/*
 * labagent student page (ES5 only: it must run on old browsers).
 * API: docs/api/labagent.md ("Student API").
 *
 * Element ids and classes (stable, for browser tests):
 *   #login-view                 sign-in section
 *   #login-form                 sign-in form: #username, #password, #token, #login-submit
 *   #login-error                sign-in error message (envelope "error")
 *   #list-view                  exam list section
 *   #exam-list                  list of exams; each is .exam-item[data-exam-id][data-state]
 *     .start-exam               "Mulai" (open) / "Lanjutkan" (in_progress) button in an .exam-item
 *   #list-notice                notice on the list ("Waktu habis", ...)
 *   #finish-result              result after finishing ("Terjawab 12 dari 40 soal")
 *   #list-error                 error loading the list or starting an exam
 *   #exam-view                  exam section
 *   #exam-title, #timer         exam title, countdown (remaining time, from the server)
 *   #question-number            "Soal 3 dari 40"
 *   #question-text              the current question's text
 *   #stimulus-pane[data-stimulus-id]  the stimulus the current question goes with (#stimulus-title,
 *                               #stimulus-text), beside the question from 1024 px (scrolling on its
 *                               own), above it below; body.with-stimulus while it shows;
 *     #stimulus-more            "Bacaan berlanjut" at the pane's foot while part of the passage is
 *                               below its fold (.has-more on the pane); it opens the passage in full
 *                               (.expanded)
 *   #answer-area                holds the answer controls:
 *     fieldset.options          a choice question's options:
 *     label.option[data-option-id]  an option, holding its native input.option-input (radio,
 *                               checkbox for multiple_choice: the arrow keys move within a radio
 *                               group, one Tab stop); .selected when chosen;
 *                               true_false uses data-option-id "true" / "false"
 *     #answer-text              textarea for short_answer / essay
 *     input.grid-choice[data-grid-statement][data-grid-column]  a statement grid's cell (a native
 *                               radio, one group per statement)
 *     .match-response[data-match-response]  a matching question's response; .used when
 *                               taken by a premise (each response used once; its option
 *                               in the other premises' selects is then disabled)
 *     select.match-select[data-match-premise]  a premise's choice of response
 *   .play-button                a listening item's play button (in #question-text): "Putar" and the
 *                               plays left; aria-disabled (never disabled: it keeps the focus) while
 *                               the audio plays and when no play is left
 *   #save-status                "Menyimpan..." / "Tersimpan" (only once the server acknowledged
 *                               the current question's latest answer) / error text
 *   #nav-grid                   number grid; .nav-item[data-number] with classes
 *                               .answered .flagged .current .unsaved
 *   #prev-question, #next-question, #flag-toggle (aria-pressed, .on when flagged)
 *   #review-button, #review-panel, #review-list (.review-item[data-number]), #review-back
 *   #finish-button              opens #finish-dialog (a modal <dialog>: the focus moves in, Tab stays
 *                               inside, Escape closes it, the focus returns to #finish-button);
 *                               #finish-confirm, #finish-cancel, #finish-error
 *   #logout                     sign out
 *   #exam-error, #global-message  other messages
 */
(function () {
  'use strict';

  var SAVE_RETRY_MS = 3000;
  var TEXT_DEBOUNCE_MS = 800;
  var EXAM_REFRESH_MS = 30000;
  var LIST_REFRESH_MS = 30000;
  var CUR_KEY = 'labagent.current';
  var PENDING_KEY = 'labagent.pending';

  // ---------- small helpers ----------

  function $(id) { return document.getElementById(id); }

  function hasClass(el, c) { return (' ' + el.className + ' ').indexOf(' ' + c + ' ') >= 0; }
  function addClass(el, c) { if (!hasClass(el, c)) { el.className = (el.className ? el.className + ' ' : '') + c; } }
  function removeClass(el, c) {
    el.className = (' ' + el.className + ' ').replace(' ' + c + ' ', ' ').replace(/^\s+|\s+$/g, '');
  }
  function setClass(el, c, on) { if (on) { addClass(el, c); } else { removeClass(el, c); } }
  function show(el, on) { setClass(el, 'hidden', !on); }

  function setText(el, text) { el.textContent = text === null || text === undefined ? '' : String(text); }

  function clear(el) { while (el.firstChild) { el.removeChild(el.firstChild); } }

  function make(tag, cls, text) {
    var el = document.createElement(tag);
    if (cls) { el.className = cls; }
    if (text !== undefined && text !== null) { el.textContent = String(text); }
    return el;
  }

  // setContent shows a question's or an option's text: its HTML when the
  // question is of a rich format (rendered and sanitised by the portal,
  // checked against the same allow-list again by this lab server), else its
  // text as text.
  function setContent(el, item) {
    if (item.html) {
      el.innerHTML = item.html;
      el.className += ' rich';
      describeAudio(el);
    } else {
      setText(el, item.text);
    }
  }

  // describeAudio applies the teacher's choice for each audio's description
  // (docs/exam-content.md, "Images and audio"): one marked for assistive
  // technology (data-description) describes the player, visually hidden,
  // through aria-describedby; any other stays the teacher's (an older
  // package's aria-label included) and is neither shown nor announced.
  var audioDescs = 0;
  function describeAudio(el) {
    var players = el.getElementsByTagName('audio');
    for (var i = 0; i < players.length; i++) {
      var audio = players[i];
      audio.removeAttribute('aria-label');
      var text = audio.getAttribute('data-description');
      if (!text) { continue; }
      var desc = make('span', 'sr-only', text);
      desc.id = 'audio-desc-' + (++audioDescs);
      audio.parentNode.insertBefore(desc, audio.nextSibling);
      audio.setAttribute('aria-describedby', desc.id);
    }
  }

  // ---------- focus and keyboard ----------

  // tabbables lists the controls in box that Tab reaches, in order (a
  // dialog's buttons and fields; a radio group would count once per radio).
  function tabbables(box) {
    var all = box.querySelectorAll('button, input, select, textarea, [tabindex]');
    var out = [];
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.disabled || el.getAttribute('tabindex') === '-1' || !(el.offsetWidth || el.offsetHeight)) { continue; }
      out.push(el);
    }
    return out;
  }

  // trapTab keeps Tab and Shift+Tab inside box (a modal dialog), wrapping
  // from its last element to its first and back.
  function trapTab(box, e) {
    if (e.keyCode !== 9) { return; }
    var els = tabbables(box);
    if (!els.length) { e.preventDefault(); return; }
    var first = els[0], last = els[els.length - 1], at = document.activeElement;
    var inside = box.contains(at);
    if (e.shiftKey && (at === first || !inside)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (at === last || !inside)) {
      e.preventDefault();
      first.focus();
    }
  }

  // openDialog shows the dialog d as a modal (the native <dialog>'s
  // showModal where there is one: the page behind is inert, Escape closes
  // it): focus moves to its first button and Tab stays inside; closing it
  // (closeDialog, Escape) gives focus back to opener.
  function openDialog(d, opener) {
    d.returnTo = opener || null;
    show(d, true);
    if (d.showModal && !d.open) {
      d.showModal();
    } else {
      d.setAttribute('open', '');
    }
    var els = tabbables(d);
    if (els.length) { els[0].focus(); }
  }

  // closeDialog hides d; with restore, focus goes back to its opener.
  function closeDialog(d, restore) {
    if (d.close && d.open) { d.close(); }
    d.removeAttribute('open');
    show(d, false);
    var opener = d.returnTo;
    d.returnTo = null;
    if (restore && opener && opener.focus) { opener.focus(); }
  }

  // wireDialog makes Escape (and the native dialog's cancel) close d, and
  // keeps Tab inside it while it is open.
  function wireDialog(d) {
    on(d, 'cancel', function (e) { e.preventDefault(); closeDialog(d, true); });
    on(d, 'keydown', function (e) {
      if (e.keyCode === 27) { e.preventDefault(); closeDialog(d, true); return; }
      trapTab(d, e);
    });
  }

  function message(el, text) { setText(el, text || ''); show(el, !!text); }

  // closest walks up from el to the first element with attribute attr.
  function closest(el, attr) {
    while (el && el.nodeType === 1) {
      if (el.getAttribute(attr) !== null) { return el; }
      el = el.parentNode;
    }
    return null;
  }

  function on(el, ev, fn) { el.addEventListener(ev, fn, false); }

  // store is a guarded sessionStorage/localStorage (private mode, old browsers).
  function store(kind) {
    try {
      var s = window[kind];
      var probe = '__labagent__';
      s.setItem(probe, '1');
      s.removeItem(probe);
      return s;
    } catch (e) {
      return null;
    }
  }
  var local = store('localStorage');
  var session = store('sessionStorage') || local;

  function load(s, key) {
    if (!s) { return null; }
    try { return JSON.parse(s.getItem(key)); } catch (e) { return null; }
  }
  function save(s, key, value) {
    if (!s) { return; }
    try {
      if (value === null) { s.removeItem(key); } else { s.setItem(key, JSON.stringify(value)); }
    } catch (e) { /* quota, private mode */ }
  }

  // parseTime reads an RFC 3339 time (any number of fractional digits).
  function parseTime(s) {
    var m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|([+-])(\d\d):(\d\d))$/i.exec(s || '');
    if (!m || +m[1] < 1971) { return null; }
    var t = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    if (m[9]) { t -= (m[9] === '-' ? -1 : 1) * (+m[10] * 60 + +m[11]) * 60000; }
    return new Date(t);
  }

  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'Mei', 'Jun', 'Jul', 'Agu', 'Sep', 'Okt', 'Nov', 'Des'];
  function pad(n) { return n < 10 ? '0' + n : String(n); }
  function fmtClock(d) { return pad(d.getHours()) + ':' + pad(d.getMinutes()); }
  function fmtDate(d) { return d.getDate() + ' ' + MONTHS[d.getMonth()] + ' ' + d.getFullYear(); }
  function fmtWindow(a, b) {
    var s = parseTime(a), e = parseTime(b);
    if (!s || !e) { return ''; }
    var out = fmtDate(s) + ' ' + fmtClock(s) + ' \u2013 ';
    if (fmtDate(s) !== fmtDate(e)) { out += fmtDate(e) + ' '; }
    return out + fmtClock(e);
  }
  function fmtDuration(sec) {
    if (sec < 0) { sec = 0; }
    var h = Math.floor(sec / 3600), m = Math.floor(sec % 3600 / 60), s = sec % 60;
    return (h > 0 ? h + ':' + pad(m) : pad(m)) + ':' + pad(s);
  }

  // ---------- API ----------

  // api calls the labagent API; cb(err, data). err is null on 2xx, else
  // {status, code, message} from the error envelope (status 0: no connection).
  // Messages shown for the server's error codes (the API's own messages are
  // in English, for developers); unknown codes show the server's message.
  var MESSAGES = {
    INVALID_CREDENTIALS: 'Username atau password ujian salah.',
    INVALID_SESSION_TOKEN: 'Token sesi salah. Minta token terbaru kepada pengawas.',
    ALREADY_SIGNED_IN: 'Anda sudah masuk di perangkat lain. Minta pengawas mereset login Anda.',
    LAB_FULL: 'Semua kursi di lab ini sudah terisi. Tunggu sampai ada siswa yang selesai.',
    TOO_MANY_ATTEMPTS: 'Terlalu banyak percobaan yang salah. Tunggu beberapa menit atau hubungi pengawas.',
    NO_PACKAGE: 'Soal ujian belum tersedia di server ini. Hubungi pengawas.',
    EXAM_NOT_OPEN: 'Ujian ini belum dibuka atau sudah ditutup.',
    TIME_UP: 'Waktu ujian sudah habis.',
    EXAM_FINISHED: 'Anda sudah menyelesaikan ujian ini.',
    NOT_STARTED: 'Mulai ujian terlebih dahulu.',
    INVALID_ANSWER: 'Jawaban tidak valid.',
    BODY_TOO_LARGE: 'Jawaban terlalu panjang.',
    DISK_FULL: 'Disk server lab penuh, jawaban belum tersimpan. Beri tahu pengawas.'
  };

  // A 401 anywhere (except sign-in) returns to the sign-in form.
  function api(method, path, body, cb) {
    LabAPI.request(method, path, body, {
      messages: MESSAGES,
      loginPath: '/api/student/login',
      onUnauthorized: function () { signedOut(student ? 'Sesi berakhir. Silakan masuk lagi.' : ''); }
    }, cb);
  }

  function examPath(id, rest) {
    return '/api/student/exams/' + encodeURIComponent(id) + (rest || '');
  }

  // ---------- state ----------

  var student = null;     // {id, username, nama, kelas}
  var listTimer = null;
  var exam = null;        // open exam: see openExam
  var gen = 0;            // bumped whenever an exam is opened or closed: stale callbacks check it

  function views(name) {
    show($('loading'), false);
    show($('login-view'), name === 'login');
    show($('list-view'), name === 'list');
    show($('exam-view'), name === 'exam');
    show($('logout'), name !== 'login');
  }

  // ---------- sign-in ----------

  function signedOut(msg) {
    closeExam();
    stopListRefresh();
    student = null;
    setText($('student-name'), '');
    views('login');
    message($('login-error'), msg || '');
    $('password').value = '';
    $('login-submit').disabled = false;
  }

  on($('login-form'), 'submit', function (e) {
    e.preventDefault();
    var u = $('username').value.replace(/^\s+|\s+$/g, '');
    var p = $('password').value;
    var t = $('token').value.replace(/^\s+|\s+$/g, '');
    if (!u || !p.replace(/\s+/g, '') || !t) {
      message($('login-error'), 'Isi nama pengguna, password ujian, dan token.');
      return;
    }
    var btn = $('login-submit');
    btn.disabled = true;
    setText(btn, 'Memproses\u2026');
    message($('login-error'), '');
    api('POST', '/api/student/login', { username: u, password: p, token: t }, function (err) {
      btn.disabled = false;
      setText(btn, 'Masuk');
      if (err) {
        message($('login-error'), err.message);
        return;
      }
      $('password').value = '';
      $('token').value = '';
      loadMe(true);
    });
  });

  // ---------- text size ----------

  var SIZE_KEY = 'labagent.text-size';
  function setTextSize(n) {
    var page = document.getElementsByTagName('main')[0];
    page.className = page.className.replace(/ ?text-size-\d/g, '') + (n > 0 ? ' text-size-' + n : '');
    var bs = document.querySelectorAll('[data-text-size]');
    for (var i = 0; i < bs.length; i++) {
      bs[i].setAttribute('aria-pressed', String(+bs[i].getAttribute('data-text-size') === n));
    }
    if (local) { try { local.setItem(SIZE_KEY, String(n)); } catch (e) { /* full or private */ } }
    updateScrollCue();
  }
  on(document.querySelector('.text-size'), 'click', function (e) {
    var b = closest(e.target, 'data-text-size');
    if (b) { setTextSize(+b.getAttribute('data-text-size')); }
  });
  setTextSize(Math.min(Math.max(+((local && local.getItem(SIZE_KEY)) || 0) || 0, 0), 2));

  on($('logout'), 'click', function () {
    if (exam && unsavedCount(true) > 0 &&
        !window.confirm('Ada jawaban yang belum tersimpan. Tetap keluar?')) {
      return;
    }
    save(local, CUR_KEY, null);
    save(session, PENDING_KEY, null);
    api('POST', '/api/student/logout', null, function () { /* signed out below either way */ });
    signedOut('');
  });

  // ---------- exam list ----------

  var STATES = {
    upcoming: 'Belum dibuka',
    open: 'Dibuka',
    in_progress: 'Sedang dikerjakan',
    finished: 'Selesai',
    closed: 'Ditutup'
  };

  // loadMe fetches the student and their exams; with restore it reopens the
  // exam remembered in storage when it is still in progress.
  function loadMe(restore) {
    api('GET', '/api/student/me', null, function (err, data) {
      if (err) {
        if (!student) { // first load failed: show the sign-in form with the error
          views('login');
          message($('login-error'), err.message);
        } else {
          message($('list-error'), err.message);
        }
        return;
      }
      student = data.student || {};
      var who = student.nama || student.username || '';
      setText($('student-name'), student.kelas ? who + ' (' + student.kelas + ')' : who);
      var exams = data.exams || [];
      renderList(exams);
      if (restore) {
        var cur = load(local, CUR_KEY);
        if (cur && cur.u === student.username) {
          for (var i = 0; i < exams.length; i++) {
            if (String(exams[i].id) === String(cur.exam) && exams[i].state === 'in_progress') {
              openExam(exams[i].id, cur.n);
              return;
            }
          }
          save(local, CUR_KEY, null);
        }
      }
      if (!exam) { showList(); }
    });
  }

  function showList() {
    views('list');
    stopListRefresh();
    listTimer = window.setInterval(function () {
      if (!exam && student) { loadMe(false); }
    }, LIST_REFRESH_MS);
  }

  function stopListRefresh() {
    if (listTimer) { window.clearInterval(listTimer); listTimer = null; }
  }

  function renderList(exams) {
    var ul = $('exam-list');
    clear(ul);
    if (!exams.length) {
      ul.appendChild(make('li', 'exam-empty', 'Belum ada ujian untuk kamu hari ini.'));
      return;
    }
    for (var i = 0; i < exams.length; i++) {
      var x = exams[i];
      var li = make('li', 'exam-item card state-' + x.state);
      li.setAttribute('data-exam-id', String(x.id));
      li.setAttribute('data-state', x.state || '');
      li.appendChild(make('h2', 'exam-item-title', x.title));
      if (x.subject) { li.appendChild(make('p', 'exam-subject', x.subject)); }
      var win = fmtWindow(x.starts_at, x.ends_at);
      if (win) { li.appendChild(make('p', 'exam-meta', 'Jadwal: ' + win)); }
      li.appendChild(make('p', 'exam-meta',
        'Durasi ' + (x.duration_minutes || 0) + ' menit \u00b7 ' + (x.question_count || 0) + ' soal'));
      li.appendChild(make('p', 'exam-state', STATES[x.state] || x.state));
      if (x.state === 'in_progress' || x.state === 'finished') {
        var line = 'Terjawab ' + (x.answered || 0) + ' dari ' + (x.question_count || 0) + ' soal';
        if (x.state === 'in_progress') { line += ' \u00b7 Sisa waktu ' + fmtDuration(x.remaining_seconds || 0); }
        li.appendChild(make('p', 'exam-meta', line));
      }
      if (x.state === 'open' || x.state === 'in_progress') {
        var b = make('button', 'btn btn-primary btn-block start-exam', x.state === 'open' ? 'Mulai' : 'Lanjutkan');
        b.type = 'button';
        b.setAttribute('data-exam-id', String(x.id));
        li.appendChild(b);
      }
      ul.appendChild(li);
    }
  }

  on($('exam-list'), 'click', function (e) {
    var b = closest(e.target, 'data-exam-id');
    if (!b || !hasClass(b, 'start-exam') || b.disabled) { return; }
    b.disabled = true;
    setText(b, 'Membuka\u2026');
    message($('list-notice'), '');
    message($('finish-result'), '');
    message($('list-error'), '');
    openExam(b.getAttribute('data-exam-id'), 0);
  });

  on($('refresh-list'), 'click', function () {
    message($('list-error'), '');
    loadMe(false);
  });

  // ---------- exam ----------

  // openExam starts (or resumes) the attempt, loads it and shows question
  // number n (or the first one).
  function openExam(id, n) {
    var g = ++gen;
    api('POST', examPath(id, '/start'), null, function (err) {
      if (g !== gen) { return; }
      if (err) { examOpenFailed(err); return; }
      api('GET', examPath(id), null, function (err2, a) {
        if (g !== gen) { return; }
        if (err2) { examOpenFailed(err2); return; }
        if (a.finished) {
          save(local, CUR_KEY, null);
          showList();
          message($('list-notice'), 'Ujian ini sudah selesai.');
          loadMe(false);
          return;
        }
        startExam(id, a, n);
      });
    });
  }

  function examOpenFailed(err) {
    save(local, CUR_KEY, null);
    showList();
    loadMe(false);
    message($('list-error'), err.message);
  }

  function startExam(id, a, n) {
    stopListRefresh();
    var qs = a.questions || [];
    exam = {
      id: id,
      attempt: a,
      questions: qs,
      stimuli: {},        // stimulus id -> stimulus
      index: 0,
      saves: {},          // question id -> save state (see saveAnswer)
      endAt: 0,
      tick: null,
      refresh: null,
      checking: false,
      ended: false,
      flagBusy: false
    };
    var sts = a.stimuli || [];
    for (var k = 0; k < sts.length; k++) { exam.stimuli[sts[k].id] = sts[k]; }
    for (var i = 0; i < qs.length; i++) {
      if (qs[i].answer === null || qs[i].answer === undefined) { qs[i].answer = ''; }
      if (n && qs[i].number === n) { exam.index = i; }
    }
    var title = a.exam ? a.exam.title : '';
    setText($('exam-title'), title);
    message($('exam-error'), '');
    closeDialog($('finish-dialog'), false);
    showReview(false);
    buildNav();
    syncTimer(a.remaining_seconds);
    exam.tick = window.setInterval(tick, 500);
    exam.refresh = window.setInterval(refreshAttempt, EXAM_REFRESH_MS);
    views('exam');
    resendPending();
    showQuestion(exam.index);
    tick();
  }

  // closeExam stops the exam's timers and retries; callbacks still in flight
  // are ignored through gen.
  function closeExam() {
    gen++;
    if (!exam) { return; }
    exam.ended = true;
    window.clearInterval(exam.tick);
    window.clearInterval(exam.refresh);
    for (var qid in exam.saves) {
      if (exam.saves.hasOwnProperty(qid)) {
        var s = exam.saves[qid];
        if (s.retry) { window.clearTimeout(s.retry); }
        if (s.debounce) { window.clearTimeout(s.debounce); }
      }
    }
    exam = null;
    closeDialog($('finish-dialog'), false);
    showStimulus(null);
  }

  function current() { return exam.questions[exam.index]; }

  function remember() {
    if (!exam || !student) { return; }
    var q = current();
    save(local, CUR_KEY, { u: student.username, exam: String(exam.id), n: q ? q.number : 0 });
  }

  // ---------- timer ----------

  function syncTimer(remaining) {
    if (!exam || typeof remaining !== 'number') { return; }
    exam.endAt = new Date().getTime() + remaining * 1000;
  }

  function tick() {
    if (!exam || exam.ended) { return; }
    var left = Math.ceil((exam.endAt - new Date().getTime()) / 1000);
    if (left < 0) { left = 0; }
    var el = $('timer');
    setText(el, fmtDuration(left));
    setClass(el, 'timer-warn', left <= 300);
    if (left === 0 && !exam.checking) {
      // Confirm with the server first: the proctor may have added time.
      exam.checking = true;
      refreshAttempt(true);
    }
  }

  // refreshAttempt re-reads the attempt for its remaining time and state.
  function refreshAttempt(atZero) {
    if (!exam) { return; }
    var g = gen;
    api('GET', examPath(exam.id), null, function (err, a) {
      if (g !== gen || !exam) { return; }
      exam.checking = false;
      if (err) {
        if (err.code === 'TIME_UP' || err.code === 'EXAM_FINISHED' || atZero === true) { timeUp(); }
        return;
      }
      var known = typeof a.remaining_seconds === 'number';
      if (a.finished || (known && a.remaining_seconds <= 0) || (!known && atZero === true)) {
        timeUp();
        return;
      }
      syncTimer(a.remaining_seconds);
    });
  }

  function timeUp() {
    if (!exam) { return; }
    save(local, CUR_KEY, null);
    save(session, PENDING_KEY, null);
    closeExam();
    setText($('timer'), '00:00');
    showList();
    message($('list-notice'), 'Waktu habis. Ujian sudah selesai dan jawaban yang tersimpan sudah dikumpulkan.');
    loadMe(false);
  }

  // ---------- questions ----------

  function buildNav() {
    var grid = $('nav-grid');
    clear(grid);
    for (var i = 0; i < exam.questions.length; i++) {
      var b = make('button', 'nav-item', exam.questions[i].number);
      b.type = 'button';
      b.setAttribute('data-number', String(exam.questions[i].number));
      b.setAttribute('data-index', String(i));
      grid.appendChild(b);
    }
  }

  function updateNav() {
    if (!exam) { return; }
    var items = $('nav-grid').childNodes;
    for (var i = 0; i < items.length; i++) {
      var q = exam.questions[i];
      if (!q) { continue; }
      var el = items[i];
      setClass(el, 'answered', q.answer !== '');
      setClass(el, 'flagged', !!q.flagged);
      setClass(el, 'current', i === exam.index);
      setClass(el, 'unsaved', isUnsaved(q.id));
      setClass(el, 'partial', clozePartial(q));
      var label = 'Soal ' + q.number + (clozePartial(q) ? ', sebagian dijawab' : q.answer !== '' ? ', sudah dijawab' : ', belum dijawab') +
        (q.flagged ? ', ragu-ragu' : '');
      el.setAttribute('aria-label', label);
    }
  }

  on($('nav-grid'), 'click', function (e) {
    var b = closest(e.target, 'data-index');
    if (b && exam) {
      showReview(false);
      showQuestion(+b.getAttribute('data-index'));
    }
  });

  function showQuestion(i) {
    if (!exam || !exam.questions.length) {
      setText($('question-number'), 'Tidak ada soal.');
      return;
    }
    flushText();
    if (i < 0) { i = 0; }
    if (i >= exam.questions.length) { i = exam.questions.length - 1; }
    exam.index = i;
    var q = current();
    setText($('question-number'), 'Soal ' + q.number + ' dari ' + exam.questions.length);
    var qt = $('question-text');
    qt.className = 'q-text';
    setContent(qt, q);
    if (q.plays) { limitAudio(qt, q); }
    renderAnswer(q);
    $('prev-question').disabled = i === 0;
    setText($('next-question'), i === exam.questions.length - 1 ? 'Periksa \u203a' : 'Berikutnya \u203a');
    updateFlag();
    updateNav();
    updateSaveStatus();
    remember();
    if (showStimulus(q) === 'kept' && window.innerWidth < 1024) {
      // The same stimulus, above the question on a phone: go to the
      // question, leaving the stimulus as the student left it.
      $('question-panel').scrollIntoView();
    } else if (window.scrollTo) {
      window.scrollTo(0, 0);
    }
  }

  // showStimulus shows the stimulus q goes with (none: hides the pane).
  // The pane keeps the stimulus of the previous question, where it was
  // scrolled to, when q shares it ('kept'); another is shown from its top.
  function showStimulus(q) {
    var pane = $('stimulus-pane');
    var st = q && q.stimulus ? exam.stimuli[q.stimulus] : null;
    setClass(document.body, 'with-stimulus', !!st);
    show(pane, !!st);
    if (!st) {
      pane.removeAttribute('data-stimulus-id');
      updateScrollCue();
      return 'none';
    }
    if (pane.getAttribute('data-stimulus-id') === String(st.id)) { return 'kept'; }
    pane.setAttribute('data-stimulus-id', String(st.id));
    setText($('stimulus-title'), st.title || 'Bacaan');
    var text = $('stimulus-text');
    text.className = 'stimulus-text';
    setContent(text, st);
    removeClass(pane, 'expanded');
    pane.scrollTop = 0;
    updateScrollCue();
    return 'shown';
  }

  // updateScrollCue shows "Bacaan berlanjut" at the foot of the stimulus
  // pane while part of the passage is below its fold (the pane scrolls on
  // its own, a phone shows half a screen of it); the cue opens the passage
  // in full.
  function updateScrollCue() {
    var pane = $('stimulus-pane');
    var cue = $('stimulus-more');
    var more = !hasClass(pane, 'hidden') && pane.scrollHeight - pane.scrollTop - pane.clientHeight > 4;
    if (more === !hasClass(cue, 'hidden')) { return; }
    show(cue, more);
    setClass(pane, 'has-more', more);
  }
  on($('stimulus-pane'), 'scroll', updateScrollCue);
  on(window, 'resize', updateScrollCue);
  // An image in the passage changes its height when it loads (load does
  // not bubble: listen in the capture phase).
  $('stimulus-pane').addEventListener('load', updateScrollCue, true);
  on($('stimulus-more'), 'click', function () {
    var pane = $('stimulus-pane');
    addClass(pane, 'expanded');
    updateScrollCue();
    pane.focus();
  });

  // limitAudio replaces the players of a listening item (an audio with a
  // play limit) by a play button: the lab server counts each play, and
  // serves the audio only during a play it counted.
  function limitAudio(area, q) {
    var players = area.getElementsByTagName('audio');
    for (var i = 0; i < players.length; i++) {
      var audio = players[i];
      var src = audio.getAttribute('src');
      audio.removeAttribute('src');
      audio.removeAttribute('controls');
      audio.setAttribute('preload', 'none');
      var box = make('div', 'play-box');
      var button = make('button', 'btn play-button');
      button.type = 'button';
      var note = make('span', 'play-note');
      note.setAttribute('aria-live', 'polite');
      box.appendChild(button);
      box.appendChild(note);
      audio.parentNode.insertBefore(box, audio.nextSibling);
      wirePlay(q, audio, src, button, note);
    }
  }

  // wirePlay makes button play audio within q's limit. The button says what
  // it does and how many plays are left, never what the audio holds (its
  // description, when the teacher marked it for assistive technology,
  // describes the button); while the audio plays or when no play is left it
  // is aria-disabled, not disabled, so that it keeps the keyboard's focus.
  function wirePlay(q, audio, src, button, note) {
    var g = gen;
    var playing = false;
    var desc = audio.getAttribute('aria-describedby');
    if (desc) { button.setAttribute('aria-describedby', desc); }
    function paint() {
      setText(button, playing ? 'Sedang diputar\u2026' : q.plays.left <= 0 ? 'Sudah diputar' :
        '\u25b6 Putar (sisa ' + q.plays.left + ')');
      button.setAttribute('aria-disabled', playing || q.plays.left <= 0 ? 'true' : 'false');
      setText(note, q.plays.left > 0 ?
        'Sisa ' + q.plays.left + ' dari ' + q.plays.limit + ' kali putar.' :
        'Audio ini sudah diputar ' + q.plays.used + ' kali (batasnya ' + q.plays.limit + '). Minta pengawas jika perlu satu kali lagi.');
    }
    on(audio, 'ended', function () { playing = false; paint(); });
    on(audio, 'error', function () {
      if (!playing) { return; }
      playing = false;
      paint();
      setText(note, 'Audio tidak dapat diputar. Beri tahu pengawas.');
    });
    on(button, 'click', function () {
      if (playing || q.plays.left <= 0 || button.getAttribute('aria-disabled') === 'true') { return; }
      button.setAttribute('aria-disabled', 'true');
      api('POST', examPath(exam.id, '/plays/' + encodeURIComponent(q.id)), null, function (err, p) {
        if (g !== gen) { return; }
        if (err) {
          if (err.code === 'NO_PLAYS_LEFT') { q.plays.left = 0; }
          paint();
          setText(note, err.message || 'Audio tidak dapat diputar.');
          return;
        }
        q.plays = p;
        playing = true;
        paint();
        audio.setAttribute('src', src + '?play=' + p.used);
        var started = audio.play();
        if (started && started['catch']) {
          started['catch'](function () { playing = false; paint(); });
        }
      });
    });
    paint();
  }

  function optionsOf(q) {
    if (q.type === 'true_false') {
      return [{ id: 'true', text: 'Benar' }, { id: 'false', text: 'Salah' }];
    }
    return q.options || [];
  }

  function renderAnswer(q) {
    var area = $('answer-area');
    clear(area);
    if (q.type === 'short_answer' || q.type === 'essay') {
      var ta = make('textarea', 'answer-text' + (q.type === 'essay' ? ' answer-essay' : ''));
      ta.id = 'answer-text';
      ta.maxLength = 10000;
      ta.rows = q.type === 'essay' ? 10 : 3;
      ta.setAttribute('placeholder', 'Ketik jawaban di sini');
      ta.setAttribute('aria-label', 'Jawaban');
      ta.value = q.answer;
      ta.setAttribute('data-question-id', q.id);
      area.appendChild(ta);
      return;
    }
    if (q.type === 'statement_grid') {
      renderGrid(area, q);
      return;
    }
    if (q.type === 'matching') {
      renderMatching(area, q);
      return;
    }
    if (q.type === 'numeric') {
      renderNumeric(area, q);
      return;
    }
    if (q.type === 'cloze') {
      renderCloze(area, q);
      return;
    }
    if (q.type !== 'single_choice' && q.type !== 'multiple_choice' && q.type !== 'true_false') {
      area.appendChild(make('p', 'msg msg-error', 'Jenis soal tidak dikenal. Beri tahu pengawas.'));
      return;
    }
    // Native radio buttons (checkboxes for multiple_choice) in a fieldset
    // named by the question: one Tab stop per group, the arrow keys move
    // and choose, as the browser does for any radio group.
    var multi = q.type === 'multiple_choice';
    var group = make('fieldset', 'options');
    group.appendChild(make('legend', 'sr-only', multi ? 'Pilih semua jawaban yang benar' : 'Pilih satu jawaban'));
    if (multi) { group.appendChild(make('p', 'hint', 'Pilih semua jawaban yang benar.')); }
    var opts = optionsOf(q);
    for (var i = 0; i < opts.length; i++) {
      var o = opts[i];
      var b = make('label', 'option' + (multi ? ' option-multi' : ''));
      b.setAttribute('data-option-id', String(o.id));
      b.appendChild(choiceInput(multi ? 'checkbox' : 'radio', 'q-' + q.id, String(o.id), 'option-input'));
      var mark = q.type === 'true_false' ? '' : letter(i);
      b.appendChild(make('span', 'option-mark', mark));
      var ot = make('span', 'option-text');
      setContent(ot, o);
      b.appendChild(ot);
      group.appendChild(b);
    }
    area.appendChild(group);
    paintOptions(q);
  }

  // choiceInput is a native radio button or checkbox of the group name.
  function choiceInput(type, name, value, cls) {
    var input = make('input', cls);
    input.type = type;
    input.name = name;
    input.value = value;
    return input;
  }

  // A statement grid (pilihan ganda kompleks): one row per statement, one
  // button per column; the answer is "statement=column" pairs joined by ",".
  function renderGrid(area, q) {
    area.appendChild(make('p', 'hint', 'Pilih satu jawaban untuk setiap pernyataan.'));
    var table = make('table', 'grid');
    var head = make('tr');
    head.appendChild(make('th', 'grid-statement', 'Pernyataan'));
    var cols = q.columns || [];
    for (var c = 0; c < cols.length; c++) {
      var th = make('th', 'grid-column');
      setContent(th, cols[c]);
      head.appendChild(th);
    }
    var thead = make('thead');
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = make('tbody');
    var st = q.statements || [];
    for (var i = 0; i < st.length; i++) {
      var tr = make('tr');
      tr.setAttribute('role', 'radiogroup');
      var label = make('td', 'grid-statement');
      label.id = 'grid-s-' + i;
      setContent(label, st[i]);
      tr.setAttribute('aria-labelledby', label.id);
      tr.appendChild(label);
      for (var j = 0; j < cols.length; j++) {
        var td = make('td', 'grid-cell');
        var b = choiceInput('radio', 'grid-' + q.id + '-' + i, String(cols[j].id), 'grid-choice');
        b.setAttribute('data-grid-statement', String(st[i].id));
        b.setAttribute('data-grid-column', String(cols[j].id));
        b.setAttribute('aria-label', cols[j].text);
        td.appendChild(b);
        tr.appendChild(td);
      }
      tbody.appendChild(tr);
    }
    table.appendChild(tbody);
    area.appendChild(table);
    paintGrid(q);
  }

  // pairAnswer reads the answer of a question answered in pairs (a grid, a
  // matching question) into row id -> choice id.
  function pairAnswer(q) {
    var out = {};
    var parts = q.answer === '' ? [] : q.answer.split(',');
    for (var i = 0; i < parts.length; i++) {
      var kv = parts[i].split('=');
      if (kv.length === 2) { out[kv[0]] = kv[1]; }
    }
    return out;
  }

  // pairsValue is the answer of given (row id -> choice id) as the server
  // stores it: "row=choice" pairs in the rows' order, joined by ",".
  function pairsValue(rows, given) {
    var pairs = [];
    for (var k = 0; k < rows.length; k++) {
      if (given[rows[k].id]) { pairs.push(rows[k].id + '=' + given[rows[k].id]); }
    }
    return pairs.join(',');
  }

  function paintGrid(q) {
    var given = pairAnswer(q);
    var cells = $('answer-area').getElementsByTagName('input');
    for (var i = 0; i < cells.length; i++) {
      var sel = given[cells[i].getAttribute('data-grid-statement')] === cells[i].getAttribute('data-grid-column');
      setClass(cells[i], 'selected', sel);
      cells[i].checked = sel;
    }
  }

  // A matching question (menjodohkan): the responses as a lettered list,
  // then each premise with a <select> of the responses; the answer is
  // "premise=response" pairs joined by ",". Unless the question lets a
  // response be reused, a response another premise has is marked used and
  // cannot be chosen (its option is disabled, so the arrow keys pass it)
  // until that premise lets it go. Typing a response's letter chooses it.
  function renderMatching(area, q) {
    area.appendChild(make('p', 'hint', q.reuse_responses ?
      'Pasangkan setiap pernyataan dengan satu jawaban. Satu jawaban boleh dipakai lebih dari sekali.' :
      'Pasangkan setiap pernyataan dengan satu jawaban. Setiap jawaban hanya boleh dipakai sekali.'));
    var rs = q.responses || [];
    var list = make('ul', 'match-responses');
    list.setAttribute('aria-label', 'Pilihan jawaban');
    for (var j = 0; j < rs.length; j++) {
      var li = make('li', 'match-response');
      li.setAttribute('data-match-response', String(rs[j].id));
      li.appendChild(make('span', 'option-mark', letter(j)));
      var body = make('span', 'match-response-text');
      setContent(body, rs[j]);
      li.appendChild(body);
      li.appendChild(make('span', 'match-used'));
      list.appendChild(li);
    }
    area.appendChild(list);
    var ps = q.premises || [];
    for (var i = 0; i < ps.length; i++) {
      var row = make('div', 'match-row');
      var label = make('div', 'match-premise');
      label.id = 'match-p-' + i;
      label.appendChild(make('span', 'match-number', (i + 1) + '.'));
      var text = make('span', 'match-premise-text');
      setContent(text, ps[i]);
      label.appendChild(text);
      row.appendChild(label);
      var sel = make('select', 'match-select');
      sel.setAttribute('data-match-premise', String(ps[i].id));
      sel.setAttribute('aria-labelledby', label.id);
      sel.appendChild(make('option', '', '\u2014 Pilih jawaban \u2014'));
      sel.options[0].value = '';
      for (var k = 0; k < rs.length; k++) {
        var o = make('option');
        o.value = String(rs[k].id);
        o.setAttribute('data-label', letter(k) + '. ' + plainText(rs[k]));
        sel.appendChild(o);
      }
      row.appendChild(sel);
      area.appendChild(row);
    }
    paintMatching(q);
  }

  function letter(i) { return String.fromCharCode(65 + i % 26); }

  // plainText is an item's text as text: its HTML's text read in an inert
  // document (nothing in it loads or runs), for an <option>, which shows
  // no markup.
  function plainText(item) {
    if (!item.html || !document.implementation || !document.implementation.createHTMLDocument) {
      return item.text;
    }
    var doc = document.implementation.createHTMLDocument('');
    doc.body.innerHTML = item.html;
    var t = (doc.body.textContent || '').replace(/\s+/g, ' ').replace(/^\s+|\s+$/g, '');
    return t.length > 80 ? t.substring(0, 79) + '\u2026' : t;
  }

  // paintMatching shows q's answer in its selects and marks the responses
  // in use (where each response may be used once).
  function paintMatching(q) {
    var given = pairAnswer(q);
    var usedBy = {};
    var ps = q.premises || [];
    for (var i = 0; i < ps.length; i++) {
      var r = given[ps[i].id];
      if (r) { usedBy[r] = (usedBy[r] ? usedBy[r] + ', ' : '') + (i + 1); }
    }
    var once = !q.reuse_responses;
    var sels = $('answer-area').getElementsByTagName('select');
    for (var s = 0; s < sels.length; s++) {
      var mine = given[sels[s].getAttribute('data-match-premise')] || '';
      sels[s].value = mine;
      for (var k = 1; k < sels[s].options.length; k++) {
        var o = sels[s].options[k];
        var taken = once && !!usedBy[o.value] && o.value !== mine;
        o.disabled = taken;
        setText(o, o.getAttribute('data-label') + (taken ? ' (sudah dipakai untuk ' + usedBy[o.value] + ')' : ''));
      }
    }
    var items = $('answer-area').getElementsByTagName('li');
    for (var j = 0; j < items.length; j++) {
      var id = items[j].getAttribute('data-match-response');
      if (id === null) { continue; } // a list item of a response's text
      var used = once && !!usedBy[id];
      setClass(items[j], 'used', used);
      setText(items[j].lastChild, used ? 'dipakai untuk ' + usedBy[id] : '');
    }
  }

  function selectedSet(q) {
    var set = {};
    if (q.answer === '') { return set; }
    var parts = q.type === 'multiple_choice' ? q.answer.split(',') : [q.answer];
    for (var i = 0; i < parts.length; i++) { set[parts[i]] = true; }
    return set;
  }

  function paintOptions(q) {
    var set = selectedSet(q);
    var opts = $('answer-area').getElementsByTagName('label');
    for (var i = 0; i < opts.length; i++) {
      var sel = !!set[opts[i].getAttribute('data-option-id')];
      setClass(opts[i], 'selected', sel);
      opts[i].getElementsByTagName('input')[0].checked = sel;
    }
  }

  // ---------- numeric and cloze questions ----------

  // A numeric question (isian angka): one field for a number, saved as the
  // text answers are (it is the #answer-text field). inputmode="decimal"
  // gives a phone's number keyboard, with both separators.
  function renderNumeric(area, q) {
    var hint = make('p', 'hint', 'Tulis angkanya saja, tanpa satuan. Tanda desimal boleh koma atau titik: 2,5 sama dengan 2.5.');
    hint.id = 'numeric-hint';
    area.appendChild(hint);
    var input = numberField(q, 'answer-number');
    input.id = 'answer-text';
    input.setAttribute('placeholder', 'Contoh: 2,5');
    input.setAttribute('aria-label', 'Jawaban (angka)');
    input.setAttribute('aria-describedby', 'numeric-hint');
    input.value = q.answer;
    area.appendChild(input);
  }

  // numberField is a text field for a number: the number keyboard of a
  // phone, nothing corrected or completed.
  function numberField(q, cls) {
    var input = make('input', cls);
    input.type = 'text';
    input.maxLength = 64;
    input.setAttribute('inputmode', 'decimal');
    input.setAttribute('autocomplete', 'off');
    input.setAttribute('autocorrect', 'off');
    input.setAttribute('autocapitalize', 'off');
    input.setAttribute('spellcheck', 'false');
    input.setAttribute('data-question-id', String(q.id));
    return input;
  }

  // A cloze question (isian rumpang): each blank's field takes the place
  // of its <span data-blank> in the question's text, in the text's order
  // (so Tab goes from blank to blank): a text field, a number field or a
  // list of the blank's options (shown as text: an <option> shows no
  // markup). The answer is a JSON object of blank id to what was given,
  // the empty blanks left out.
  function renderCloze(area, q) {
    var blanks = q.blanks || [];
    area.appendChild(make('p', 'hint', blanks.length > 1 ?
      'Isi setiap bagian yang kosong di dalam teks. Tekan Tab untuk pindah ke isian berikutnya.' :
      'Isi bagian yang kosong di dalam teks.'));
    var given = clozeAnswer(q);
    var spans = {};
    var found = $('question-text').getElementsByTagName('span');
    for (var i = 0; i < found.length; i++) {
      var id = found[i].getAttribute('data-blank');
      if (id !== null && !spans[id]) { spans[id] = found[i]; }
    }
    for (var k = 0; k < blanks.length; k++) {
      var b = blanks[k];
      var field = blankField(q, b, k, blanks.length);
      field.value = given[b.id] || '';
      var span = spans[b.id];
      if (span) {
        span.appendChild(field);
      } else {
        area.appendChild(field); // not marked in the text: after it
      }
    }
  }

  // blankField is the field of blank b, the k-th of n.
  function blankField(q, b, k, n) {
    var label = 'Isian ' + (k + 1) + ' dari ' + n;
    var field;
    if (b.kind === 'choice') {
      field = make('select', 'blank-field blank-choice');
      field.appendChild(make('option', '', '\u2014 pilih \u2014'));
      field.options[0].value = '';
      var opts = b.options || [];
      for (var j = 0; j < opts.length; j++) {
        var o = make('option', '', plainText(opts[j]));
        o.value = String(opts[j].id);
        field.appendChild(o);
      }
      field.setAttribute('data-question-id', String(q.id));
    } else if (b.kind === 'number') {
      field = numberField(q, 'blank-field blank-number');
      label += ' (angka)';
    } else {
      field = make('input', 'blank-field blank-text');
      field.type = 'text';
      field.maxLength = 200;
      field.setAttribute('autocomplete', 'off');
      field.setAttribute('autocapitalize', 'off');
      field.setAttribute('spellcheck', 'false');
      field.setAttribute('data-question-id', String(q.id));
    }
    field.setAttribute('data-blank-id', String(b.id));
    field.setAttribute('aria-label', label);
    return field;
  }

  // clozeAnswer reads a cloze question's answer: blank id -> what was given.
  function clozeAnswer(q) {
    if (!q.answer) { return {}; }
    try {
      var v = JSON.parse(q.answer);
      return v && typeof v === 'object' ? v : {};
    } catch (err) {
      return {};
    }
  }

  // clozePartial reports whether q is a cloze question answered in part.
  function clozePartial(q) {
    if (q.type !== 'cloze' || q.answer === '') { return false; }
    var given = clozeAnswer(q), blanks = q.blanks || [];
    for (var i = 0; i < blanks.length; i++) {
      if (!given[blanks[i].id]) { return true; }
    }
    return false;
  }

  // A blank's text: saved 800 ms after the last keystroke, a choice at once,
  // any blank when it loses the focus.
  on($('question-text'), 'input', function (e) {
    if (!exam || !e.target.getAttribute || e.target.getAttribute('data-blank-id') === null) { return; }
    if (e.target.tagName === 'SELECT') { flushCloze(); return; }
    var s = saveState(current().id);
    if (s.debounce) { window.clearTimeout(s.debounce); }
    var g = gen;
    s.debounce = window.setTimeout(function () {
      s.debounce = null;
      if (g === gen) { flushCloze(); }
    }, TEXT_DEBOUNCE_MS);
    updateSaveStatus();
    updateNav();
  });
  function blankChanged(e) {
    if (exam && e.target.getAttribute && e.target.getAttribute('data-blank-id') !== null) { flushCloze(); }
  }
  on($('question-text'), 'change', blankChanged);
  $('question-text').addEventListener('blur', blankChanged, true);

  // flushCloze saves the blanks shown now if they changed.
  function flushCloze() {
    if (!exam) { return; }
    var fields = [], all = $('question-text').getElementsByTagName('*');
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute('data-blank-id') !== null) { fields.push(all[i]); }
    }
    var extra = $('answer-area').getElementsByTagName('*');
    for (var x = 0; x < extra.length; x++) {
      if (extra[x].getAttribute('data-blank-id') !== null) { fields.push(extra[x]); }
    }
    if (!fields.length) { return; }
    var q = null, qid = fields[0].getAttribute('data-question-id');
    for (var j = 0; j < exam.questions.length; j++) {
      if (String(exam.questions[j].id) === qid) { q = exam.questions[j]; }
    }
    if (!q) { return; }
    var s = exam.saves[q.id];
    if (s && s.debounce) { window.clearTimeout(s.debounce); s.debounce = null; }
    var given = {};
    for (var k = 0; k < fields.length; k++) {
      given[fields[k].getAttribute('data-blank-id')] = fields[k].value.replace(/\u0000/g, '').replace(/^\s+|\s+$/g, '');
    }
    var out = {}, any = false, blanks = q.blanks || [];
    for (var b = 0; b < blanks.length; b++) {
      var v = given[blanks[b].id];
      if (v) { out[blanks[b].id] = v; any = true; }
    }
    setAnswer(q, any ? JSON.stringify(out) : '');
  }

  // A choice (a click, Space, an arrow key in a radio group) changes a
  // native radio button or checkbox.
  on($('answer-area'), 'change', function (e) {
    if (e.target.type !== 'radio' && e.target.type !== 'checkbox') { return; }
    var g = closest(e.target, 'data-grid-statement');
    if (g && exam) {
      var gq = current();
      var given = pairAnswer(gq);
      given[g.getAttribute('data-grid-statement')] = g.getAttribute('data-grid-column');
      setAnswer(gq, pairsValue(gq.statements || [], given));
      paintGrid(gq);
      return;
    }
    var b = closest(e.target, 'data-option-id');
    if (!b || !exam) { return; }
    var q = current();
    var id = b.getAttribute('data-option-id');
    var value = id;
    if (q.type === 'multiple_choice') {
      var set = selectedSet(q);
      set[id] = e.target.checked;
      var ids = [];
      var opts = optionsOf(q);
      for (var i = 0; i < opts.length; i++) {
        if (set[String(opts[i].id)]) { ids.push(String(opts[i].id)); }
      }
      value = ids.join(',');
    }
    setAnswer(q, value);
    paintOptions(q);
  });

  // Text answers: saved 800 ms after the last keystroke, and at once on change/blur.
  on($('answer-area'), 'input', function (e) {
    if (!exam || e.target.id !== 'answer-text') { return; }
    var q = current();
    var s = saveState(q.id);
    if (s.debounce) { window.clearTimeout(s.debounce); }
    var g = gen;
    s.debounce = window.setTimeout(function () {
      s.debounce = null;
      if (g === gen) { flushText(); }
    }, TEXT_DEBOUNCE_MS);
    updateSaveStatus();
    updateNav();
  });

  function textChanged(e) {
    if (exam && e.target.id === 'answer-text') { flushText(); }
  }
  on($('answer-area'), 'change', textChanged);
  // blur does not bubble: listen in the capture phase.
  $('answer-area').addEventListener('blur', textChanged, true);

  // A matching question's premise got a response (or none).
  on($('answer-area'), 'change', function (e) {
    var pid = e.target.getAttribute && e.target.getAttribute('data-match-premise');
    if (!pid || !exam) { return; }
    var q = current();
    var given = pairAnswer(q);
    var rid = e.target.value;
    if (rid && !q.reuse_responses) {
      for (var other in given) {
        if (given.hasOwnProperty(other) && other !== pid && given[other] === rid) {
          paintMatching(q); // taken (its option is disabled): keep the answer
          return;
        }
      }
    }
    given[pid] = rid;
    setAnswer(q, pairsValue(q.premises || [], given));
    paintMatching(q);
  });

  // flushText saves the textarea's value now if it changed.
  function flushText() {
    flushCloze();
    var ta = $('answer-text');
    if (!ta || !exam) { return; }
    var q = null;
    var qid = ta.getAttribute('data-question-id');
    for (var i = 0; i < exam.questions.length; i++) {
      if (String(exam.questions[i].id) === qid) { q = exam.questions[i]; }
    }
    if (!q) { return; }
    var s = exam.saves[q.id];
    if (s && s.debounce) { window.clearTimeout(s.debounce); s.debounce = null; }
    setAnswer(q, ta.value);
  }

  // ---------- saving answers ----------
  //
  // Each question has a save state {want, acked, inflight, error, retry,
  // debounce}. want is the student's latest answer; "Tersimpan" shows only
  // when the server acknowledged exactly that value. A failed save is retried
  // every SAVE_RETRY_MS with the latest value until the server takes it.

  function saveState(qid) {
    var s = exam.saves[qid];
    if (!s) {
      s = { want: null, acked: null, inflight: false, error: '', fatal: false, retry: null, debounce: null };
      exam.saves[qid] = s;
    }
    return s;
  }

  function isUnsaved(qid) {
    var s = exam && exam.saves[qid];
    return !!s && (!!s.debounce || (s.want !== null && s.want !== s.acked));
  }

  // unsavedCount counts answers not acknowledged yet; without withRejected it
  // skips those the server refused (400, 404, ...), which no retry can save.
  function unsavedCount(withRejected) {
    var n = 0;
    if (!exam) { return 0; }
    for (var qid in exam.saves) {
      if (exam.saves.hasOwnProperty(qid) && isUnsaved(qid) && (withRejected || !exam.saves[qid].fatal)) { n++; }
    }
    return n;
  }

  // setAnswer records the student's latest answer to q and saves it.
  // q.answer always holds the latest answer (saved or not).
  function setAnswer(q, value) {
    var s = saveState(q.id);
    if (value === q.answer) { return; }
    q.answer = value;
    s.want = value;
    s.error = '';
    s.fatal = false;
    storePending();
    if (!s.inflight) { sendSave(q); }
    updateSaveStatus();
    updateNav();
  }

  function sendSave(q) {
    var s = saveState(q.id);
    if (s.retry) { window.clearTimeout(s.retry); s.retry = null; }
    var value = s.want;
    var g = gen;
    var id = exam.id;
    s.inflight = true;
    api('PUT', examPath(id, '/answers/' + encodeURIComponent(q.id)), { answer: value }, function (err, data) {
      if (g !== gen || !exam) { return; }
      s.inflight = false;
      if (!err) {
        s.acked = value;
        s.error = '';
        syncTimer(data.remaining_seconds);
        if (s.want !== value) {
          sendSave(q); // the student changed it meanwhile: save the latest
        } else {
          storePending();
        }
      } else if (err.code === 'TIME_UP' || err.code === 'EXAM_FINISHED') {
        timeUp();
        return;
      } else if (err.status === 0 || err.status >= 500 || err.status === 429 || err.status === 408) {
        s.error = 'Gagal menyimpan: ' + err.message + ' Mencoba lagi\u2026';
        s.retry = window.setTimeout(function () {
          s.retry = null;
          if (g === gen && exam && !s.inflight && s.want !== s.acked) { sendSave(q); }
        }, SAVE_RETRY_MS);
      } else {
        // Rejected (invalid answer, too long, ...): retrying would not help.
        s.error = 'Jawaban tidak tersimpan: ' + err.message;
        s.fatal = true;
      }
      updateSaveStatus();
      updateNav();
    });
  }

  function updateSaveStatus() {
    if (!exam) { return; }
    var el = $('save-status');
    var q = current();
    if (!q) { setText(el, ''); return; }
    var s = exam.saves[q.id];
    var text = '', cls = 'save-status';
    if (s && s.error && s.want !== s.acked) {
      text = s.error;
      cls += ' save-error';
    } else if (s && (s.debounce || s.inflight || (s.want !== null && s.want !== s.acked))) {
      text = 'Menyimpan\u2026';
      cls += ' save-busy';
    } else if (q.answer !== '') {
      text = 'Tersimpan';
      cls += ' save-ok';
    } else if (s && s.acked !== null) {
      text = 'Jawaban dihapus \u00b7 Tersimpan';
      cls += ' save-ok';
    } else {
      text = 'Belum dijawab';
    }
    el.className = cls;
    setText(el, text);
  }

  // storePending keeps unacknowledged answers in sessionStorage so that a
  // reload sends them again.
  function storePending() {
    if (!exam || !student) { return; }
    var answers = {}, any = false;
    for (var qid in exam.saves) {
      if (exam.saves.hasOwnProperty(qid)) {
        var s = exam.saves[qid];
        if (s.want !== null && s.want !== s.acked && !s.fatal) { answers[qid] = s.want; any = true; }
      }
    }
    save(session, PENDING_KEY, any ? { u: student.username, exam: String(exam.id), answers: answers } : null);
  }

  function resendPending() {
    var p = load(session, PENDING_KEY);
    save(session, PENDING_KEY, null);
    if (!p || !student || p.u !== student.username || p.exam !== String(exam.id) || !p.answers) { return; }
    for (var i = 0; i < exam.questions.length; i++) {
      var q = exam.questions[i];
      var v = p.answers[String(q.id)];
      if (typeof v === 'string' && v !== q.answer) { setAnswer(q, v); }
    }
  }

  window.onbeforeunload = function () {
    if (exam) { flushText(); }
    if (exam && unsavedCount(true) > 0) { return 'Ada jawaban yang belum tersimpan.'; }
  };

  // ---------- flag, navigation, review ----------

  function updateFlag() {
    var b = $('flag-toggle');
    var q = exam && current();
    var f = !!(q && q.flagged);
    setClass(b, 'on', f);
    b.setAttribute('aria-pressed', f ? 'true' : 'false');
    b.disabled = !q || exam.flagBusy;
  }

  on($('flag-toggle'), 'click', function () {
    if (!exam || exam.flagBusy) { return; }
    var q = current();
    var want = !q.flagged;
    var g = gen;
    exam.flagBusy = true;
    updateFlag();
    api('PUT', examPath(exam.id, '/flags/' + encodeURIComponent(q.id)), { flagged: want }, function (err, data) {
      if (g !== gen || !exam) { return; }
      exam.flagBusy = false;
      if (err) {
        if (err.code === 'TIME_UP' || err.code === 'EXAM_FINISHED') { timeUp(); return; }
        message($('exam-error'), 'Tanda ragu-ragu gagal disimpan: ' + err.message);
      } else {
        message($('exam-error'), '');
        q.flagged = typeof data.flagged === 'boolean' ? data.flagged : want;
      }
      updateFlag();
      updateNav();
    });
  });

  on($('prev-question'), 'click', function () { if (exam) { showQuestion(exam.index - 1); } });
  on($('next-question'), 'click', function () {
    if (!exam) { return; }
    if (exam.index >= exam.questions.length - 1) { flushText(); showReview(true); return; }
    showQuestion(exam.index + 1);
  });

  function counts() {
    var c = { answered: 0, flagged: 0, total: exam.questions.length };
    for (var i = 0; i < exam.questions.length; i++) {
      if (exam.questions[i].answer !== '') { c.answered++; }
      if (exam.questions[i].flagged) { c.flagged++; }
    }
    return c;
  }

  function showReview(visible) {
    show($('review-panel'), visible);
    show($('question-panel'), !visible);
    if (exam) { showStimulus(visible ? null : current()); }
    if (!visible || !exam) { return; }
    var c = counts();
    setText($('review-summary'), 'Terjawab ' + c.answered + ' dari ' + c.total + ' soal \u00b7 Ragu-ragu ' +
      c.flagged + ' \u00b7 Belum dijawab ' + (c.total - c.answered));
    var ul = $('review-list');
    clear(ul);
    for (var i = 0; i < exam.questions.length; i++) {
      var q = exam.questions[i];
      var li = make('li');
      var b = make('button', 'review-item' + (q.answer !== '' ? ' answered' : '') + (q.flagged ? ' flagged' : ''));
      b.type = 'button';
      b.setAttribute('data-number', String(q.number));
      b.setAttribute('data-index', String(i));
      b.appendChild(make('span', 'review-no', q.number));
      var state = clozePartial(q) ? 'Sebagian dijawab' : q.answer !== '' ? 'Sudah dijawab' : 'Belum dijawab';
      if (q.flagged) { state += ' \u00b7 Ragu-ragu'; }
      if (isUnsaved(q.id)) { state += ' \u00b7 Belum tersimpan'; }
      b.appendChild(make('span', 'review-state', state));
      li.appendChild(b);
      ul.appendChild(li);
    }
    if (window.scrollTo) { window.scrollTo(0, 0); }
  }

  on($('review-button'), 'click', function () { if (exam) { flushText(); showReview(true); } });
  on($('review-back'), 'click', function () { if (exam) { showReview(false); showQuestion(exam.index); } });
  on($('review-list'), 'click', function (e) {
    var b = closest(e.target, 'data-index');
    if (b && exam) { showReview(false); showQuestion(+b.getAttribute('data-index')); }
  });

  // ---------- finish ----------

  on($('finish-button'), 'click', function () {
    if (!exam) { return; }
    flushText();
    var c = counts();
    setText($('finish-summary'), 'Terjawab ' + c.answered + ' dari ' + c.total + ' soal. Ragu-ragu: ' +
      c.flagged + '. Belum dijawab: ' + (c.total - c.answered) + '.');
    message($('finish-error'), '');
    $('finish-confirm').disabled = false;
    openDialog($('finish-dialog'), $('finish-button'));
  });

  wireDialog($('finish-dialog'));
  on($('finish-cancel'), 'click', function () { closeDialog($('finish-dialog'), true); });

  on($('finish-confirm'), 'click', function () {
    if (!exam) { return; }
    flushText();
    if (unsavedCount() > 0) {
      // Send what is waiting now; finishing would lose it.
      for (var qid in exam.saves) {
        if (exam.saves.hasOwnProperty(qid)) {
          var s = exam.saves[qid];
          if (s.retry && !s.inflight) {
            for (var i = 0; i < exam.questions.length; i++) {
              if (String(exam.questions[i].id) === qid) { sendSave(exam.questions[i]); }
            }
          }
        }
      }
      message($('finish-error'), 'Masih ada jawaban yang belum tersimpan. Tunggu sampai semua tersimpan, lalu coba lagi.');
      return;
    }
    var btn = $('finish-confirm');
    btn.disabled = true;
    var g = gen;
    api('POST', examPath(exam.id, '/finish'), null, function (err, data) {
      if (g !== gen || !exam) { return; }
      btn.disabled = false;
      if (err) {
        if (err.code === 'TIME_UP' || err.code === 'EXAM_FINISHED') { timeUp(); return; }
        message($('finish-error'), err.message);
        return;
      }
      save(local, CUR_KEY, null);
      save(session, PENDING_KEY, null);
      closeExam();
      showList();
      message($('list-notice'), '');
      message($('finish-result'), 'Ujian selesai. Terjawab ' + (data.answered || 0) + ' dari ' +
        (data.total || 0) + ' soal.');
      loadMe(false);
    });
  });

  // ---------- start ----------

  api('GET', '/api/student/info', null, function (err, info) {
    if (err || !info) { return; }
    if (info.school_name) {
      setText($('school-name'), info.school_name);
      document.title = 'Ujian \u2013 ' + info.school_name;
    }
    if (info.package_ready === false) {
      message($('global-message'), 'Soal ujian belum tersedia di server ini. Hubungi pengawas.');
    }
  });
  loadMe(true);
}());
