/*
 * labagent proctor page (ES5 only: it must run on old browsers).
 * API: docs/api/labagent.md ("Proctor API").
 *
 * Element ids and classes (stable, for browser tests):
 *   #proctor-login-view, #proctor-login-form, #proctor-password,
 *   #proctor-login-submit, #proctor-login-error     sign-in
 *   #dashboard                                      shown once signed in
 *   #session-token, #token-rotates, #rotate-token   session token, its rotation, "Token baru"
 *   #seated, #max-students, #server-time            seats
 *   #sync-state                                     sync state and free disk space (dl; dd[data-field=<sync key> or disk])
 *   #students-table, #students-body                 students; one tr.student-row per attempt
 *                                                   (or per student without attempts) with
 *                                                   data-student-id and data-exam-id
 *     .reset-login[data-student-id]                 "Reset login" (asks to confirm; also lifts
 *                                                   the student's sign-in locks)
 *   #locks, #locks-list                             computers locked after too many wrong passwords
 *     .lift-lock[data-address]                      "Buka kunci"
 *     .extend-time[data-student-id][data-exam-id]   "Tambah waktu" (asks minutes and reason)
 *     .grant-play[data-student-id][data-exam-id]    "Tambah putar audio" (one more play of a listening item)
 *   #proctor-message                                result of the last action
 *   #poll-status                                    last refresh / connection problem
 */
(function () {
  'use strict';

  var POLL_MS = 5000;

  // ---------- small helpers ----------

  function $(id) { return document.getElementById(id); }

  function hasClass(el, c) { return (' ' + el.className + ' ').indexOf(' ' + c + ' ') >= 0; }
  function addClass(el, c) { if (!hasClass(el, c)) { el.className = (el.className ? el.className + ' ' : '') + c; } }
  function removeClass(el, c) {
    el.className = (' ' + el.className + ' ').replace(' ' + c + ' ', ' ').replace(/^\s+|\s+$/g, '');
  }
  function show(el, on) { if (on) { removeClass(el, 'hidden'); } else { addClass(el, 'hidden'); } }
  function setText(el, text) { el.textContent = text === null || text === undefined ? '' : String(text); }
  function clear(el) { while (el.firstChild) { el.removeChild(el.firstChild); } }
  function make(tag, cls, text) {
    var el = document.createElement(tag);
    if (cls) { el.className = cls; }
    if (text !== undefined && text !== null) { el.textContent = String(text); }
    return el;
  }
  function message(el, text) { setText(el, text || ''); show(el, !!text); }
  function on(el, ev, fn) { el.addEventListener(ev, fn, false); }

  function parseTime(s) {
    var m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|([+-])(\d\d):(\d\d))$/i.exec(s || '');
    if (!m || +m[1] < 1971) { return null; }
    var t = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    if (m[9]) { t -= (m[9] === '-' ? -1 : 1) * (+m[10] * 60 + +m[11]) * 60000; }
    return new Date(t);
  }

  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'Mei', 'Jun', 'Jul', 'Agu', 'Sep', 'Okt', 'Nov', 'Des'];
  function pad(n) { return n < 10 ? '0' + n : String(n); }
  function fmtClock(d) { return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()); }
  function fmtDate(d) { return d.getDate() + ' ' + MONTHS[d.getMonth()] + ' ' + d.getFullYear(); }

  // Server times are in portal time; offset maps the browser's clock onto it.
  var offset = 0;
  function now() { return new Date().getTime() + offset; }

  // ago describes a past time relative to the server's clock.
  function ago(d) {
    var s = Math.round((now() - d.getTime()) / 1000);
    if (s < 60) { return 'baru saja'; }
    if (s < 3600) { return Math.floor(s / 60) + ' mnt lalu'; }
    if (s < 86400) { return Math.floor(s / 3600) + ' jam lalu'; }
    return Math.floor(s / 86400) + ' hari lalu';
  }

  // fmtTime shows a server time in the browser's time zone; the date is
  // added when it is not today.
  function fmtTime(s, withAgo) {
    var d = parseTime(s);
    if (!d) { return '\u2014'; }
    var out = fmtClock(d);
    if (fmtDate(d) !== fmtDate(new Date(now()))) { out = fmtDate(d) + ' ' + out; }
    if (withAgo) { out += ' (' + ago(d) + ')'; }
    return out;
  }

  // ---------- API ----------

  // Messages shown for the server's error codes; unknown codes show the
  // server's own (English) message.
  var MESSAGES = {
    INVALID_CREDENTIALS: 'Password pengawas salah.',
    TOO_MANY_ATTEMPTS: 'Terlalu banyak percobaan yang salah. Tunggu beberapa menit.',
    EXAM_FINISHED: 'Siswa sudah menyelesaikan ujian ini; waktunya tidak dapat ditambah.',
    NOT_FOUND: 'Siswa tidak sedang masuk, atau belum memulai ujian ini.'
  };

  function api(method, path, body, cb) {
    LabAPI.request(method, path, body, {
      messages: MESSAGES,
      loginPath: '/api/proctor/login',
      onUnauthorized: function () { signedOut(signedIn ? 'Sesi pengawas berakhir. Silakan masuk lagi.' : ''); }
    }, cb);
  }

  // ---------- sign-in ----------

  var signedIn = false;
  var pollTimer = null;
  var polling = 0; // sequence number of the state request in flight, 0 when none
  var pollSeq = 0;
  var last = null; // last state

  function signedOut(msg) {
    signedIn = false;
    polling = 0;
    $('rotate-token').disabled = false;
    if (pollTimer) { window.clearTimeout(pollTimer); pollTimer = null; }
    show($('loading'), false);
    show($('dashboard'), false);
    show($('proctor-login-view'), true);
    setText($('poll-status'), '');
    message($('proctor-login-error'), msg || '');
  }

  on($('proctor-login-form'), 'submit', function (e) {
    e.preventDefault();
    var p = $('proctor-password').value;
    if (!p) {
      message($('proctor-login-error'), 'Isi password pengawas.');
      return;
    }
    var btn = $('proctor-login-submit');
    btn.disabled = true;
    message($('proctor-login-error'), '');
    api('POST', '/api/proctor/login', { password: p }, function (err) {
      btn.disabled = false;
      if (err) {
        message($('proctor-login-error'), err.message);
        return;
      }
      $('proctor-password').value = '';
      poll();
    });
  });

  // ---------- polling ----------

  function schedule(ms) {
    if (pollTimer) { window.clearTimeout(pollTimer); }
    pollTimer = window.setTimeout(poll, ms);
  }

  function poll() {
    if (polling) { return; }
    var seq = ++pollSeq;
    polling = seq;
    api('GET', '/api/proctor/state', null, function (err, st) {
      if (polling !== seq) { return; } // given up on (see below) or signed out
      polling = 0;
      if (err) {
        if (!signedIn) { signedOut(err.message); return; }
        setText($('poll-status'), 'Gagal memuat: ' + err.message + ' Mencoba lagi\u2026');
        schedule(POLL_MS);
        return;
      }
      var first = !signedIn;
      signedIn = true;
      show($('loading'), false);
      show($('proctor-login-view'), false);
      show($('dashboard'), true);
      render(st);
      if (first) { message($('proctor-message'), ''); }
      schedule(POLL_MS);
    });
    // A request that never completes (old browsers without xhr.timeout) must
    // not stop polling.
    window.setTimeout(function () {
      if (polling === seq) { polling = 0; schedule(0); }
    }, 25000);
  }

  // ---------- rendering ----------

  function render(st) {
    last = st;
    var t = parseTime(st.server_time);
    if (t) { offset = t.getTime() - new Date().getTime(); }
    setText($('poll-status'), 'Diperbarui ' + fmtClock(new Date(now())));
    setText($('server-time'), 'Jam server: ' + fmtTime(st.server_time, false));
    renderToken(st.token || {});
    setText($('seated'), st.seated || 0);
    setText($('max-students'), st.max_students || 0);
    renderSync(st.sync || {}, st.disk);
    renderStudents(st);
    renderLocks(st.locks || []);
  }

  // renderLocks lists the computers locked as a whole (a username locked on
  // one computer shows on the student's row instead).
  function renderLocks(locks) {
    var list = $('locks-list');
    clear(list);
    var n = 0;
    for (var i = 0; i < locks.length; i++) {
      if (locks[i].username) { continue; }
      var li = make('li', 'lock-row', 'Komputer ' + locks[i].address + ' terkunci s/d ' + fmtTime(locks[i].until, false) + ' ');
      var b = make('button', 'btn btn-small btn-light lift-lock', 'Buka kunci');
      b.type = 'button';
      b.setAttribute('data-address', locks[i].address);
      li.appendChild(b);
      list.appendChild(li);
      n++;
    }
    show($('locks'), n > 0);
  }

  on($('locks-list'), 'click', function (e) {
    var b = e.target;
    if (!b || b.tagName !== 'BUTTON' || b.disabled) { return; }
    var addr = b.getAttribute('data-address');
    b.disabled = true;
    api('POST', '/api/proctor/locks/lift', { address: addr }, function (err) {
      b.disabled = false;
      if (err) { message($('proctor-message'), 'Buka kunci gagal: ' + err.message); return; }
      message($('proctor-message'), 'Komputer ' + addr + ' sudah dibuka. Siswa bisa masuk lagi.');
      poll();
    });
  });

  function renderToken(tok) {
    setText($('session-token'), tok.value || '------');
    var d = parseTime(tok.rotates_at);
    if (!d) { setText($('token-rotates'), ''); return; }
    var min = Math.max(0, Math.ceil((d.getTime() - now()) / 60000));
    setText($('token-rotates'), 'Berganti otomatis pukul ' + fmtClock(d) + ' (' + min + ' menit lagi). ' +
      'Token sebelumnya masih berlaku satu periode lagi.');
  }

  var SYNC = { online: 'Terhubung', syncing: 'Sedang sinkronisasi', offline: 'Tidak terhubung (offline)' };

  // CONTACT names the kinds of exchange with the portal (last_contact_kind).
  var CONTACT = {
    handshake: 'jabat tangan', pull: 'periksa paket soal', heartbeat: 'laporan status', push: 'kirim jawaban',
    media: 'unduh media', content: 'unduh soal'
  };

  // lastContact describes the last exchange with the portal that succeeded,
  // "12:03:15 (kirim jawaban, baru saja)", and whether it is stale: older
  // than three heartbeat intervals.
  function lastContact(s) {
    var d = parseTime(s.last_contact_at);
    if (!d) { return { text: '', stale: false }; }
    var kind = CONTACT[s.last_contact_kind] || s.last_contact_kind || '';
    var every = (s.heartbeat_interval_seconds > 0 ? s.heartbeat_interval_seconds : 60) * 1000;
    return { text: fmtTime(s.last_contact_at, false) + ' (' + (kind ? kind + ', ' : '') + ago(d) + ')', stale: now() - d.getTime() > 3 * every };
  }

  // renderSync shows the sync state s and the free space disk (may be absent).
  function renderSync(s, disk) {
    var dl = $('sync-state');
    clear(dl);
    function row(key, label, value, bad) {
      dl.appendChild(make('dt', '', label));
      var dd = make('dd', bad ? 'bad' : '', value === '' || value === null || value === undefined ? '\u2014' : value);
      dd.setAttribute('data-field', key);
      dl.appendChild(dd);
    }
    row('state', 'Status', SYNC[s.state] || s.state, s.state === 'offline');
    var contact = lastContact(s);
    row('last_contact_at', 'Kontak terakhir', contact.text, contact.stale);
    row('last_handshake_at', 'Jabat tangan terakhir', fmtTime(s.last_handshake_at, true), false);
    var skew = typeof s.clock_skew_ms === 'number' ? s.clock_skew_ms : null;
    var skewText = skew === null ? '' : (Math.abs(skew) < 1000 ? skew + ' ms' : (skew / 1000).toFixed(1) + ' detik');
    row('clock_skew_ms', 'Selisih jam', skewText, skew !== null && Math.abs(skew) > 60000);
    row('package_version', 'Versi paket soal', s.package_version, !s.package_version);
    row('pending_answers', 'Jawaban belum terkirim', typeof s.pending_answers === 'number' ? s.pending_answers : '', false);
    row('last_push_at', 'Kirim terakhir', fmtTime(s.last_push_at, true), false);
    row('last_error', 'Galat terakhir', s.last_error, !!s.last_error);
    var lic = parseTime(s.license_expires_at);
    var soon = lic && lic.getTime() - now() < 7 * 86400000;
    row('license_expires_at', 'Lisensi berlaku sampai', lic ? fmtDate(lic) : '', !!soon);
    if (disk) {
      var gb = (disk.free_bytes / 1e9).toFixed(1) + ' GB';
      row('disk', 'Ruang disk server', disk.low ? gb + ' \u2014 hampir penuh: kosongkan ruang, atau jawaban tidak dapat disimpan' : gb, !!disk.low);
    }
  }

  function examTitles(st) {
    var m = {};
    var xs = st.exams || [];
    for (var i = 0; i < xs.length; i++) { m[String(xs[i].id)] = xs[i].title || String(xs[i].id); }
    return m;
  }

  function renderStudents(st) {
    var body = $('students-body');
    clear(body);
    var titles = examTitles(st);
    var ss = st.students || [];
    if (!ss.length) {
      var tr0 = make('tr');
      var td0 = make('td', 'muted', 'Belum ada siswa yang masuk.');
      td0.colSpan = 10;
      tr0.appendChild(td0);
      body.appendChild(tr0);
      return;
    }
    for (var i = 0; i < ss.length; i++) {
      var s = ss[i];
      var atts = s.attempts && s.attempts.length ? s.attempts : [null];
      for (var j = 0; j < atts.length; j++) {
        body.appendChild(studentRow(s, atts[j], j === 0, titles));
      }
    }
  }

  function cell(tr, text, cls, label) {
    var td = make('td', cls || '', text);
    td.setAttribute('data-label', label);
    tr.appendChild(td);
    return td;
  }

  function studentRow(s, a, first, titles) {
    var tr = make('tr', 'student-row' + (first ? ' first' : ' more'));
    tr.setAttribute('data-student-id', String(s.id));
    tr.setAttribute('data-exam-id', a ? String(a.exam_id) : '');
    cell(tr, first ? s.username : '', 'nowrap', 'Username');
    cell(tr, first ? s.nama : '', '', 'Nama');
    cell(tr, first ? s.kelas : '', '', 'Kelas');
    if (first && s.locked_until) {
      cell(tr, 'Terkunci s/d ' + fmtTime(s.locked_until, false), 'warn locked', 'Masuk');
    } else {
      cell(tr, first ? (s.signed_in ? 'Ya' : 'Tidak') : '', s.signed_in ? 'ok' : 'muted', 'Masuk');
    }
    cell(tr, first ? fmtTime(s.last_seen, true) : '', '', 'Terakhir aktif');
    if (a) {
      cell(tr, titles[String(a.exam_id)] || a.exam_id, '', 'Ujian');
      cell(tr, (a.answered || 0) + ' / ' + (a.total || 0), 'nowrap', 'Progres');
      cell(tr, a.finished ? 'Ya' : 'Belum', a.finished ? 'ok' : '', 'Selesai');
      var dl = fmtTime(a.deadline, false);
      if (a.extended_minutes) { dl += ' (+' + a.extended_minutes + ' mnt)'; }
      cell(tr, dl, 'nowrap', 'Batas waktu');
    } else {
      cell(tr, '\u2014', 'muted', 'Ujian');
      cell(tr, '', '', 'Progres');
      cell(tr, '', '', 'Selesai');
      cell(tr, '', '', 'Batas waktu');
    }
    var td = cell(tr, '', 'actions', 'Aksi');
    if (first) {
      var r = make('button', 'btn btn-small btn-light reset-login', 'Reset login');
      r.type = 'button';
      r.setAttribute('data-student-id', String(s.id));
      td.appendChild(r);
    }
    if (a) {
      var x = make('button', 'btn btn-small btn-light extend-time', 'Tambah waktu');
      x.type = 'button';
      x.setAttribute('data-student-id', String(s.id));
      x.setAttribute('data-exam-id', String(a.exam_id));
      td.appendChild(x);
      if (listening(a.exam_id).length) {
        var p = make('button', 'btn btn-small btn-light grant-play', 'Tambah putar audio');
        p.type = 'button';
        p.setAttribute('data-student-id', String(s.id));
        p.setAttribute('data-exam-id', String(a.exam_id));
        td.appendChild(p);
      }
    }
    return tr;
  }

  // ---------- actions ----------

  function findStudent(id) {
    var ss = (last && last.students) || [];
    for (var i = 0; i < ss.length; i++) {
      if (String(ss[i].id) === id) { return ss[i]; }
    }
    return null;
  }

  function who(s, id) {
    if (!s) { return id; }
    return (s.nama || s.username) + (s.kelas ? ' (' + s.kelas + ')' : '');
  }

  on($('rotate-token'), 'click', function () {
    var b = $('rotate-token');
    b.disabled = true;
    api('POST', '/api/proctor/token/rotate', null, function (err, tok) {
      b.disabled = false;
      if (err) { message($('proctor-message'), 'Token baru gagal dibuat: ' + err.message); return; }
      renderToken(tok);
      message($('proctor-message'), 'Token baru: ' + (tok.value || '') + '. Token lama masih berlaku satu periode lagi.');
    });
  });

  on($('students-body'), 'click', function (e) {
    var b = e.target;
    while (b && b.nodeType === 1 && b.tagName !== 'BUTTON') { b = b.parentNode; }
    if (!b || b.nodeType !== 1 || b.disabled) { return; }
    var id = b.getAttribute('data-student-id');
    var s = findStudent(id);
    if (hasClass(b, 'reset-login')) { resetLogin(b, id, s); }
    if (hasClass(b, 'extend-time')) { extendTime(b, id, s, b.getAttribute('data-exam-id')); }
    if (hasClass(b, 'grant-play')) { grantPlay(b, id, s, b.getAttribute('data-exam-id')); }
  });

  // listening returns the questions of an exam whose audio has a play limit.
  function listening(examId) {
    var es = (last && last.exams) || [];
    for (var i = 0; i < es.length; i++) {
      if (String(es[i].id) === String(examId)) { return es[i].listening || []; }
    }
    return [];
  }

  function grantPlay(b, id, s, examId) {
    var items = listening(examId);
    var pick = 0;
    if (items.length > 1) {
      var lines = [];
      for (var i = 0; i < items.length; i++) { lines.push((i + 1) + ') ' + items[i].id + ': ' + items[i].label); }
      var n = window.prompt('Tambah satu kali putar audio untuk ' + who(s, id) + '.\n\nSoal yang mana?\n' +
        lines.join('\n'), '1');
      if (n === null) { return; }
      pick = parseInt(n, 10) - 1;
      if (!/^\s*\d+\s*$/.test(n) || pick < 0 || pick >= items.length) {
        message($('proctor-message'), 'Pilih nomor 1 sampai ' + items.length + '.');
        return;
      }
    } else if (!window.confirm('Tambah satu kali putar audio soal ' + items[0].id + ' untuk ' + who(s, id) + '?')) {
      return;
    }
    b.disabled = true;
    api('POST', '/api/proctor/students/' + encodeURIComponent(id) + '/plays',
      { exam_id: examId, question_id: items[pick].id }, function (err, p) {
        b.disabled = false;
        if (err) { message($('proctor-message'), 'Tambah putar gagal: ' + err.message); return; }
        message($('proctor-message'), who(s, id) + ' dapat memutar audio soal ' + items[pick].id + ' ' +
          p.left + ' kali lagi.');
      });
  }

  function resetLogin(b, id, s) {
    if (!window.confirm('Reset login ' + who(s, id) + '?\n\nSesi siswa ini diakhiri sehingga ia bisa masuk ' +
        'lagi dari perangkat lain. Jawaban dan waktunya tetap tersimpan.')) {
      return;
    }
    b.disabled = true;
    api('POST', '/api/proctor/students/' + encodeURIComponent(id) + '/reset', null, function (err) {
      b.disabled = false;
      if (err) { message($('proctor-message'), 'Reset login gagal: ' + err.message); return; }
      message($('proctor-message'), 'Login ' + who(s, id) + ' sudah direset (kunci juga dibuka). Siswa bisa masuk lagi.');
      poll();
    });
  }

  function extendTime(b, id, s, examId) {
    var title = (last && examTitles(last)[examId]) || examId;
    var m = window.prompt('Tambah waktu untuk ' + who(s, id) + ', ujian ' + title + '.\n\nBerapa menit? (1\u2013240)', '10');
    if (m === null) { return; }
    var minutes = parseInt(m, 10);
    if (!/^\s*\d+\s*$/.test(m) || minutes < 1 || minutes > 240) {
      message($('proctor-message'), 'Jumlah menit harus angka 1 sampai 240.');
      return;
    }
    var reason = window.prompt('Alasan penambahan waktu (dicatat):', '');
    if (reason === null) { return; }
    reason = reason.replace(/^\s+|\s+$/g, '');
    if (!reason) {
      message($('proctor-message'), 'Alasan harus diisi.');
      return;
    }
    b.disabled = true;
    api('POST', '/api/proctor/students/' + encodeURIComponent(id) + '/extend',
      { exam_id: examId, minutes: minutes, reason: reason }, function (err, a) {
        b.disabled = false;
        if (err) { message($('proctor-message'), 'Tambah waktu gagal: ' + err.message); return; }
        var msg = 'Waktu ' + who(s, id) + ' ditambah ' + minutes + ' menit.';
        if (a && a.deadline) { msg += ' Batas waktu baru: ' + fmtTime(a.deadline, false) + '.'; }
        message($('proctor-message'), msg);
        poll();
      });
  }

  // ---------- start ----------

  poll();
}());
