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

  function init() {
    var form = document.querySelector("form[data-mlw-form]");
    if (!form || form.getAttribute("data-mlw-ready")) return;
    form.setAttribute("data-mlw-ready", "1");
    var q = new URLSearchParams(location.search);
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && q.has(el.name)) el.value = q.get(el.name);
    });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    form.addEventListener("input", function () { update(form, true); });
    form.addEventListener("change", function () { update(form, true); });
    update(form, false);
  }

  window.mlwiki = { shellQuote: shellQuote, pyJson: pyJson, render: render, fullMatch: fullMatch };
  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
