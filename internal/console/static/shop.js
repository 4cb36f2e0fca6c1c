// The shop's script (progressive enhancement of server-rendered pages):
// the sign-in's proof of work and polling, the order page's live status,
// the kitchen display's live cards and sound, the checkout's location.
// Texts come from the pages' data- attributes, in the page's language.
'use strict';

// postForm posts a form's fields (URL-encoded) and asks for JSON.
function postForm(form, action) {
  return fetch(action || form.action, {
    method: 'POST', credentials: 'same-origin',
    headers: {'Accept': 'application/json', 'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams(new FormData(form))
  });
}

// --- Sign-in: solve the proof of work (ALTCHA's SHA-256 scheme: find n
// in [0, maxnumber] with hex(sha256(salt + n)) == challenge), then post.
async function solve(c) {
  const enc = new TextEncoder();
  const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
  const batch = 500;
  for (let start = 0; start <= c.maxnumber; start += batch) {
    const tries = [];
    for (let n = start; n < start + batch && n <= c.maxnumber; n++) {
      tries.push(crypto.subtle.digest('SHA-256', enc.encode(c.salt + n)));
    }
    const sums = await Promise.all(tries);
    for (let i = 0; i < sums.length; i++) {
      if (hex(sums[i]) === c.challenge) {
        return btoa(JSON.stringify({algorithm: c.algorithm, challenge: c.challenge, number: start + i,
          salt: c.salt, signature: c.signature}));
      }
    }
  }
  throw new Error('no number solves the challenge');
}

function setupLogin(form) {
  const status = document.getElementById('login-status');
  const button = form.querySelector('button[type=submit]');
  let solved = false;
  form.addEventListener('submit', async (e) => {
    if (solved) { return; }
    e.preventDefault();
    if (!window.crypto || !crypto.subtle) { status.textContent = form.dataset.insecure; return; }
    button.disabled = true;
    status.textContent = form.dataset.solving;
    try {
      const r = await fetch(form.dataset.challenge, {headers: {'Accept': 'application/json'}, cache: 'no-store'});
      if (!r.ok) { throw new Error('challenge: ' + r.status); }
      document.getElementById('challenge').value = await solve(await r.json());
      solved = true;
      form.submit();
    } catch (err) {
      status.textContent = form.dataset.failed;
      button.disabled = false;
    }
  });
}

// --- Waiting for the verification message: poll the console (which
// polls the service and sets the session) every 2 seconds.
function setupWait(box) {
  const status = document.getElementById('wait-status');
  let left = parseInt(box.dataset.expires, 10) || 0;
  let done = false;
  const poll = async () => {
    if (done) { return; }
    try {
      const r = await fetch(box.dataset.poll, {method: 'POST', credentials: 'same-origin', headers: {'Accept': 'application/json'}});
      const a = await r.json();
      if (a.status === 'VERIFIED') { done = true; window.location.assign(a.next); return; }
      if (a.status !== 'PENDING') { done = true; status.textContent = a.message; status.className = 'error'; return; }
      if (a.expiresIn) { left = a.expiresIn; }
      if (a.message) { status.textContent = a.message; }
    } catch (err) { /* the network came and went: try again */ }
    setTimeout(poll, 2000);
  };
  setInterval(() => {
    if (done || left <= 0) { return; }
    left--;
    status.textContent = box.dataset.left.replace('{n}', left);
  }, 1000);
  setTimeout(poll, 2000);
  const standin = document.getElementById('standin');
  if (standin) {
    standin.addEventListener('submit', async (e) => {
      e.preventDefault();
      const out = document.getElementById('standin-status');
      try {
        const r = await postForm(standin);
        const a = await r.json();
        out.textContent = r.ok ? box.dataset.sent : (a.error || r.status);
        if (r.ok) { setTimeout(poll, 100); }
      } catch (err) { out.textContent = String(err); }
    });
  }
}

// --- An order's page: follow its status; reload when it moves (unless a
// receipt is being chosen, then say so).
function setupOrder(box) {
  const es = new EventSource(box.dataset.events);
  es.addEventListener('status', (e) => {
    if (e.data === box.dataset.status) { return; }
    const file = document.getElementById('proof');
    if (file && file.files.length) {
      document.getElementById('order-note').textContent = box.dataset.moved;
      return;
    }
    es.close();
    window.location.reload();
  });
}

// --- The kitchen display: live cards, a beep on a new order, moves
// posted without leaving the page.
let audio = null;

function beep() {
  if (!audio) { return; }
  const t = audio.currentTime;
  [0, 0.25].forEach((d) => {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = 'sine';
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, t + d);
    gain.gain.exponentialRampToValueAtTime(0.4, t + d + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + d + 0.2);
    osc.connect(gain).connect(audio.destination);
    osc.start(t + d);
    osc.stop(t + d + 0.22);
  });
}

function setupKitchen(box) {
  const status = document.getElementById('kitchen-status');
  const sound = document.getElementById('sound');
  const paid = () => new Set(Array.from(box.querySelectorAll('[data-status=PAID]'), (el) => el.dataset.id));
  let seen = paid();
  sound.hidden = false;
  sound.addEventListener('click', () => {
    if (audio) {
      audio.close();
      audio = null;
    } else {
      audio = new (window.AudioContext || window.webkitAudioContext)();
      beep();
    }
    sound.setAttribute('aria-pressed', audio ? 'true' : 'false');
    sound.textContent = audio ? sound.dataset.off : sound.dataset.on;
  });
  const es = new EventSource(box.dataset.events);
  es.addEventListener('cards', (e) => {
    box.innerHTML = e.data;
    const now = paid();
    const fresh = Array.from(now).filter((id) => !seen.has(id));
    seen = now;
    if (fresh.length) {
      const numbers = fresh.map((id) => box.querySelector('[data-id="' + id + '"] .ticket-no').textContent);
      status.textContent = status.dataset.new + ' ' + numbers.join(', ');
      beep();
    }
  });
  const live = status.textContent;
  es.addEventListener('open', () => { status.textContent = live; });
  es.addEventListener('error', () => { status.textContent = status.dataset.lost; });
  box.addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    form.querySelector('button').disabled = true;
    try {
      const r = await postForm(form);
      if (!r.ok) {
        status.textContent = (await r.json()).message;
        form.querySelector('button').disabled = false;
      }
    } catch (err) {
      status.textContent = status.dataset.lost;
      form.querySelector('button').disabled = false;
    }
  });
}

// --- Checkout: fill the location from the device, when it has one.
function setupLocate(button) {
  if (!navigator.geolocation) { return; }
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.geolocation.getCurrentPosition((p) => {
      document.getElementById('lat').value = p.coords.latitude.toFixed(6);
      document.getElementById('lng').value = p.coords.longitude.toFixed(6);
    }, () => { button.textContent = button.dataset.failed; }, {timeout: 10000});
  });
}

const setups = {'shop-login': setupLogin, 'shop-wait': setupWait, 'order-live': setupOrder,
  'kitchen-cards': setupKitchen, 'locate': setupLocate};
Object.keys(setups).forEach((id) => {
  const el = document.getElementById(id);
  if (el) { setups[id](el); }
});
