/*
 * Shared by the student and proctor pages (ES5 only: old browsers).
 *
 * LabAPI.request(method, path, body, opts, cb) sends one JSON request to
 * labagent and calls cb(err, data): err is null on 2xx, else
 * {status, code, message} with message taken from opts.messages for the
 * API's error code (Indonesian), else the server's message. A 401 on any
 * path but opts.loginPath calls opts.onUnauthorized instead of cb.
 */
var LabAPI = (function () {
  'use strict';

  function request(method, path, body, opts, cb) {
    var xhr = new XMLHttpRequest();
    var url = path;
    if (method === 'GET') { url += (url.indexOf('?') < 0 ? '?' : '&') + '_=' + new Date().getTime(); }
    if (method !== 'GET' && (body === null || body === undefined)) { body = {}; }
    var done = false;
    xhr.open(method, url, true);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('Cache-Control', 'no-cache');
    if (method !== 'GET') { xhr.setRequestHeader('Content-Type', 'application/json'); }
    try { xhr.timeout = 20000; } catch (e) { /* old browsers */ }
    xhr.onreadystatechange = function () {
      if (xhr.readyState !== 4 || done) { return; }
      done = true;
      var status = xhr.status;
      if (status >= 12000) { status = 0; } // IE network errors
      var data = null;
      try { data = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch (e) { data = null; }
      if (status >= 200 && status < 300) { cb(null, data || {}); return; }
      var err = { status: status, code: '', message: '' };
      if (data && typeof data === 'object') {
        err.code = data.code || '';
        err.message = opts.messages[err.code] || data.error || '';
      }
      if (!err.message) {
        err.message = status === 0 ? 'Tidak terhubung ke server.' : 'Terjadi kesalahan (' + status + ').';
      }
      if (status === 401 && path !== opts.loginPath) {
        opts.onUnauthorized();
        return;
      }
      cb(err, data);
    };
    xhr.send(method === 'GET' ? null : JSON.stringify(body));
  }

  return { request: request };
}());
