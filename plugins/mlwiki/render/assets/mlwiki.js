/* mlwiki: parameter forms that fill every runner command on the page and live in the URL.
 * Works with Material's instant navigation (document$) and without it (DOMContentLoaded).
 * Shell quoting mirrors Python's shlex.quote; JSON spacing mirrors json.dumps. */
(function () {
  "use strict";

  function shellQuote(s) {
    if (s === "") return "''";
    if (/^[\w@%+=:,./-]+$/.test(s)) return s;
    return "'" + s.replace(/'/g, "'\"'\"'") + "'";
  }

  function pyJson(obj, keys) {
    return "{" + keys.map(function (k) {
      return JSON.stringify(k) + ": " + JSON.stringify(obj[k]);
    }).join(", ") + "}";
  }

  function typed(value, type) {
    if (type === "integer" && /^-?[0-9]+$/.test(value)) return parseInt(value, 10);
    if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
    return value;
  }

  function render(spec, form) {
    var values = {}, keys = [], required = spec.required || [];
    spec.params.forEach(function (name) {
      var el = form ? form.elements.namedItem(name) : null;
      var raw = el ? el.value : "";
      if (raw !== "") { values[name] = typed(raw, spec.types[name]); keys.push(name); }
      else if (required.indexOf(name) >= 0) { values[name] = "<" + name + ">"; keys.push(name); }
    });
    var cmd = spec.prefix + " " + shellQuote(pyJson(values, keys));
    return spec.suffix ? cmd + " " + spec.suffix : cmd;
  }

  // Python's re.fullmatch for the patterns the wiki uses (no lookbehind, no named groups).
  function fullMatch(pattern, value) {
    try { return new RegExp("^(?:" + pattern + ")$", "u").test(value); } catch (e) { return true; }
  }

  function check(el) {
    var pattern = el.getAttribute("data-pattern");
    var msg = el.form ? el.form.querySelector('[data-mlw-error="' + el.name + '"]') : null;
    var bad = el.value !== "" && pattern && !fullMatch(pattern, el.value);
    if (!bad && el.value !== "" && el.value.charAt(0) === "-") bad = true;
    el.setAttribute("aria-invalid", bad ? "true" : "false");
    if (msg) {
      msg.hidden = !bad;
      msg.textContent = bad ? "Does not match this parameter's rule (" + pattern + "); the runner will refuse it." : "";
    }
    return !bad;
  }

  function update(form, pushUrl) {
    Array.prototype.forEach.call(form.elements, function (el) { if (el.name && el.tagName === "INPUT") check(el); });
    document.querySelectorAll("code[data-mlw-cmd]").forEach(function (code) {
      var spec;
      try { spec = JSON.parse(code.getAttribute("data-mlw-cmd")); } catch (e) { return; }
      code.textContent = render(spec, form);
    });
    if (pushUrl) {
      var q = new URLSearchParams();
      Array.prototype.forEach.call(form.elements, function (el) {
        if (el.name && el.value !== "") q.set(el.name, el.value);
      });
      var url = location.pathname + (q.toString() ? "?" + q.toString() : "") + location.hash;
      history.replaceState(history.state, "", url);
    }
  }

  /* Windows from the evidence: the same grammar and arithmetic as mlwiki/core/window.py. */
  var UNITS = { ms: 0.001, s: 1, sec: 1, m: 60, min: 60, h: 3600, d: 86400 };
  function parseDuration(text, name) {
    var s = String(text).trim().toLowerCase().replace(/ /g, ""), rx = /(\d+(?:\.\d+)?)\s*(ms|sec|min|s|m|h|d)/g, pos = 0, total = 0, m;
    while ((m = rx.exec(s)) !== null && m.index === pos) { total += parseFloat(m[1]) * UNITS[m[2]]; pos = rx.lastIndex; }
    if (!s || pos !== s.length) throw new Error(name + " '" + text + "' is not a duration: write a number with a unit (ms, s, m, h, d), e.g. 600000ms, 30m, 1h30m");
    return Math.round(total * 1e6);  /* microseconds */
  }
  function parseTime(text) {
    var m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*(Z|[+-]\d{2}:?\d{2})$/i.exec(String(text).trim());
    if (!m) throw new Error("echo time '" + text + "' is not an RFC 3339 time with a zone, e.g. 2026-05-20T08:00:00Z");
    var ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    var check = new Date(ms);
    if (check.getUTCDate() !== +m[3] || check.getUTCMonth() !== +m[2] - 1 || +m[4] > 23 || +m[5] > 59 || +m[6] > 59) throw new Error("echo time '" + text + "' is not a valid time");
    var off = 0;
    if (m[8].toUpperCase() !== "Z") {
      var d = m[8].slice(1).replace(":", "");
      off = (m[8][0] === "+" ? 1 : -1) * (parseInt(d.slice(0, 2), 10) * 60 + parseInt(d.slice(2), 10)) * 60e6;
    }
    return ms * 1000 + parseInt(((m[7] || "0") + "000000").slice(0, 6), 10) - off;
  }
  function rfc3339(micro) {
    var ms = Math.floor(micro / 1000), us = micro - ms * 1000, t = new Date(ms);
    var frac = (t.getUTCMilliseconds() * 1000 + us);
    var base = t.toISOString().slice(0, 19);
    return base + (frac ? ("." + String(1000000 + frac).slice(1)).replace(/0+$/, "") : "") + "Z";
  }
  function evidenceWindow(evidence, timeout, margin) {
    var t = parseTime(evidence), wait = parseDuration(timeout, "timeout"), pad = parseDuration(margin || "10m", "margin");
    return [rfc3339(t - wait - pad), rfc3339(t + pad)];
  }

  function initWindow(form) {
    var box = form.querySelector("[data-mlw-window]");
    if (!box) return;
    function w(k) { return box.querySelector('[data-mlw-w="' + k + '"]'); }
    w("fill").addEventListener("click", function () {
      var msg = w("msg");
      try {
        var win = evidenceWindow(w("evidence").value, w("timeout").value, w("margin").value);
        form.elements.namedItem("start_time").value = win[0];
        form.elements.namedItem("end_time").value = win[1];
        msg.textContent = "start_time " + win[0] + ", end_time " + win[1];
        update(form, true);
      } catch (e) { msg.textContent = e.message; }
    });
  }

  function init() {
    var form = document.querySelector("form[data-mlw-form]");
    if (!form || form.getAttribute("data-mlw-ready")) return;
    form.setAttribute("data-mlw-ready", "1");
    var q = new URLSearchParams(location.search);
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && q.has(el.name)) el.value = q.get(el.name);
    });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    initWindow(form);
    form.addEventListener("input", function () { update(form, true); });
    form.addEventListener("change", function () { update(form, true); });
    update(form, false);
  }

  window.mlwiki = { shellQuote: shellQuote, pyJson: pyJson, render: render, fullMatch: fullMatch, evidenceWindow: evidenceWindow };
  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
