// GET /embed.js: the script site owners add with one tag to send their own forms'
// submissions here with the visitor's source. Usage and rules: docs/api/lead-capture.md.
//
//   <script src="https://APP/embed.js" defer></script>
//   <form data-lead-form="FORM_ID"> ...inputs named by field key... </form>
//
// What it does, in order:
// - On the first page of a visit it records the utm_* values of that page's URL, the
//   referrer and the page's address (first touch) in sessionStorage; later pages of
//   the same visit reuse them.
// - It points every `form[data-lead-form]` at the submit endpoint (action + method)
//   and adds hidden formId / utm_* / referrerUrl / landingPageUrl fields and a
//   honeypot, so that even a plain post (fetch failing, the site calling submit())
//   arrives complete.
// - On submit it posts the form's FormData by fetch with Accept: application/json (a
//   CORS "simple" request: no preflight), then shows the success message
//   (data-success-message, or data-redirect-url to go to a page) or the errors next
//   to the fields. If fetch itself fails it falls back to the plain post.
// - It fires `leadcapture:success` / `leadcapture:error` events on the form.
import { DEFAULT_SUCCESS_MESSAGE } from "~/models/form-schema";
import { HONEYPOT_FIELD, UTM_KEYS } from "~/models/lead-capture.server";

// Plain ES5 on purpose: it runs on any site, in any browser a visitor brings.
const SCRIPT = `(function () {
  "use strict";
  if (window.__leadCaptureEmbed) return;
  window.__leadCaptureEmbed = true;

  var UTM = ${JSON.stringify(UTM_KEYS)};
  var HONEYPOT = ${JSON.stringify(HONEYPOT_FIELD)};
  var DEFAULT_SUCCESS = ${JSON.stringify(DEFAULT_SUCCESS_MESSAGE)};
  var STORE = "leadCapture.firstTouch";

  var src = document.currentScript && document.currentScript.src;
  if (!src) {
    var scripts = document.querySelectorAll('script[src*="/embed.js"]');
    src = scripts.length ? scripts[scripts.length - 1].src : location.href;
  }
  var submitUrl = new URL("/api/leads/submit", src).toString();

  function isHttpUrl(value) { return /^https?:\\/\\//i.test(value || ""); }

  function firstTouch() {
    try {
      var saved = JSON.parse(sessionStorage.getItem(STORE) || "null");
      if (saved && typeof saved === "object") return saved;
    } catch (e) {}
    var params = new URLSearchParams(location.search);
    var touch = {
      landingPageUrl: location.href.slice(0, 2048),
      referrerUrl: isHttpUrl(document.referrer) ? document.referrer.slice(0, 2048) : ""
    };
    for (var i = 0; i < UTM.length; i++) {
      var value = params.get(UTM[i]);
      if (value) touch[UTM[i]] = value.slice(0, 200);
    }
    try { sessionStorage.setItem(STORE, JSON.stringify(touch)); } catch (e) {}
    return touch;
  }
  var touch = firstTouch();

  function escapeName(name) {
    return window.CSS && CSS.escape ? CSS.escape(name) : String(name).replace(/["\\\\]/g, "\\\\$&");
  }

  function setHidden(form, name, value) {
    var input = form.querySelector('input[data-lead-capture][name="' + escapeName(name) + '"]');
    if (!value) { if (input) input.parentNode.removeChild(input); return; }
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.setAttribute("data-lead-capture", "");
      form.appendChild(input);
    }
    input.value = value;
  }

  function prepare(form) {
    form.setAttribute("action", submitUrl);
    form.setAttribute("method", "post");
    setHidden(form, "formId", form.getAttribute("data-lead-form"));
    for (var i = 0; i < UTM.length; i++) setHidden(form, UTM[i], touch[UTM[i]]);
    setHidden(form, "referrerUrl", touch.referrerUrl);
    setHidden(form, "landingPageUrl", touch.landingPageUrl);
    if (!form.querySelector('[name="' + HONEYPOT + '"]')) {
      var trap = document.createElement("div");
      trap.setAttribute("aria-hidden", "true");
      trap.style.cssText = "position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden";
      trap.innerHTML = '<label>Leave this field empty <input type="text" name="' + HONEYPOT + '" tabindex="-1" autocomplete="off"></label>';
      form.appendChild(trap);
    }
  }

  function prepareAll() {
    var forms = document.querySelectorAll("form[data-lead-form]");
    for (var i = 0; i < forms.length; i++) prepare(forms[i]);
  }

  function clearMessages(form) {
    var old = form.querySelectorAll("[data-lead-capture-message]");
    for (var i = 0; i < old.length; i++) old[i].parentNode.removeChild(old[i]);
    var invalid = form.querySelectorAll("[aria-invalid][data-lead-capture-invalid]");
    for (var j = 0; j < invalid.length; j++) {
      invalid[j].removeAttribute("aria-invalid");
      invalid[j].removeAttribute("data-lead-capture-invalid");
    }
  }

  function message(text, role) {
    var p = document.createElement("p");
    p.className = role === "status" ? "lead-capture-success" : "lead-capture-error";
    p.setAttribute("role", role);
    p.setAttribute("data-lead-capture-message", "");
    if (role !== "status") p.style.color = "#b42318";
    p.textContent = text;
    return p;
  }

  function setBusy(form, busy) {
    var buttons = form.querySelectorAll('button, input[type="submit"]');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = busy;
    if (busy) form.setAttribute("data-lead-busy", ""); else form.removeAttribute("data-lead-busy");
  }

  function emit(form, name, detail) {
    var event;
    try { event = new CustomEvent(name, { bubbles: true, detail: detail }); } catch (e) { return; }
    form.dispatchEvent(event);
  }

  function showResult(form, status, payload) {
    setBusy(form, false);
    if (status === 200 || status === 201) {
      emit(form, "leadcapture:success", payload);
      var redirect = form.getAttribute("data-redirect-url");
      if (redirect) { location.assign(redirect); return; }
      form.reset();
      form.parentNode.insertBefore(message(form.getAttribute("data-success-message") || DEFAULT_SUCCESS, "status"), form);
      form.hidden = true;
      return;
    }
    var error = (payload && payload.error) || {};
    var details = error.details || [];
    var general = [];
    for (var i = 0; i < details.length; i++) {
      var path = details[i].path || "";
      var key = path.indexOf("data.") === 0 ? path.slice(5) : null;
      var fields = key ? form.querySelectorAll('[name="' + escapeName(key) + '"]') : [];
      if (fields.length === 0) { general.push(details[i].message); continue; }
      var last = fields[fields.length - 1];
      fields[0].setAttribute("aria-invalid", "true");
      fields[0].setAttribute("data-lead-capture-invalid", "");
      var note = message(details[i].message, "note");
      var anchor = last.closest("label") && form.contains(last.closest("label")) ? last.closest("label") : last;
      anchor.parentNode.insertBefore(note, anchor.nextSibling);
    }
    var summary = error.message || "The form could not be sent. Please try again.";
    if (general.length) summary += " " + general.join(" ");
    form.insertBefore(message(summary, "alert"), form.firstChild);
    emit(form, "leadcapture:error", payload);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || form.tagName !== "FORM" || !form.hasAttribute("data-lead-form")) return;
    if (event.defaultPrevented || !window.fetch || !window.FormData) return;
    prepare(form);
    event.preventDefault();
    if (form.hasAttribute("data-lead-busy")) return;
    clearMessages(form);
    var body = new FormData(form);
    setBusy(form, true);
    fetch(submitUrl, {
      method: "POST",
      body: body,
      headers: { Accept: "application/json" },
      credentials: "omit",
      mode: "cors"
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (payload) {
        showResult(form, response.status, payload);
      });
    }, function () {
      // No answer we can read (offline, or this site is not allowed): the plain post
      // still works and shows the visitor the outcome.
      setBusy(form, false);
      HTMLFormElement.prototype.submit.call(form);
    });
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", prepareAll);
  else prepareAll();
})();
`;

export function loader() {
  return new Response(SCRIPT, {
    headers: {
      "Content-Type": "application/javascript; charset=utf-8",
      // Short, so a fix reaches every site within minutes.
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
      "Access-Control-Allow-Origin": "*",
    },
  });
}
