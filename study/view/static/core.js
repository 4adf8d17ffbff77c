// study view: draws the documents of study/view/documents.py; computes no verdict of its own.
// core.js: loading documents (server or bundle), building elements, the marks shared by pages;
// matrix.js, session.js, conversation.js, account.js, compare.js and family.js (another task
// family's session) draw the pages, app.js routes.
// Plain JavaScript without a framework or a build step (nothing to vendor, nothing fetched from
// the network). Pages: #/ (matrix), #/s/<session> (session), #/s/<session>/a/<account>
// (account), #/s/<session>/seq/<n> (session, its event list at seq n).
"use strict";

const MODE = window.VIEW_MODE;
const VIEW = (window.VIEW = window.VIEW || { store: {} });
VIEW.put = (file, data) => { VIEW.store[file] = data; };

// The same spelling as study/view/paths.py file_key.
function fileKey(name) {
  const hex = (c) => "~" + c.codePointAt(0).toString(16).padStart(4, "0");
  if (/^\.+$/.test(name)) return [...name].map(hex).join("");
  return name.replace(/[^A-Za-z0-9_.-]/gu, hex);
}

function bundleFile(kind, p) {
  if (kind === "matrix") return "data/matrix.js";
  const dir = "data/" + fileKey(p.session) + "/";
  if (kind === "session") return dir + "session.js";
  if (kind === "account") return dir + "account-" + fileKey(p.account) + ".js";
  // an ended context's transcript of a run of fresh contexts: <kind>-c<n>-<page>.js
  return dir + kind + "-" + (p.context !== undefined ? "c" + p.context + "-" : "") + (p.page || 0) + ".js";
}

// Server: fetch api/<kind>. Bundle: browsers refuse fetch() of file:// URLs, so each document
// is a script that calls VIEW.put(<its file>, <document>).
function load(kind, params = {}) {
  if (MODE === "server") {
    return fetch("api/" + kind + "?" + new URLSearchParams(params)).then((r) =>
      r.json().then((j) => { if (!r.ok) throw new Error(j.error || String(r.status)); return j; }));
  }
  const file = bundleFile(kind, params);
  if (VIEW.store[file]) return Promise.resolve(VIEW.store[file]);
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = file;
    s.onload = () => (VIEW.store[file] ? resolve(VIEW.store[file]) : reject(new Error("no data in " + file)));
    s.onerror = () => reject(new Error("not in this bundle: " + file));
    document.head.appendChild(s);
  });
}

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}
const SVG = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (k.startsWith("on")) el.addEventListener(k.slice(2), v); else el.setAttribute(k, v);
  for (const c of children) el.append(c);
  return el;
}

const enc = encodeURIComponent;
const sessionHref = (name) => "#/s/" + enc(name);
const accountHref = (name, account) => sessionHref(name) + "/a/" + enc(account);
const seqHref = (name, seq) => sessionHref(name) + "/seq/" + seq;
const pct = (x) => (x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%");
const CLASS_WORDS = { fc: "FC (compliant and correct)", wrong: "compliant but wrong", noncompliant: "not compliant", undecided: "undecided" };

function marks(row) {
  return [row.simulated && h("span", { class: "mark simulated" }, "SIMULATED"),
    row.voided && h("span", { class: "mark voided" }, "voided"),
    row.exploratory && h("span", { class: "mark exploratory" }, "exploratory"),
    row.error && h("span", { class: "mark voided" }, "invalid log")];
}
function simulatedBanner(on) {
  return on ? h("div", { class: "simulated-banner", id: "simulated" },
    "SIMULATED: made by the offline simulator (a scripted model); its numbers are never results.") : null;
}
function legend() {
  return h("div", { class: "legend" }, ...Object.entries(CLASS_WORDS).map(([c, w]) => [h("span", { class: "sw " + c }), w]));
}
function sliver(classes, title) {
  // cells of a short batch are told apart by a white rule; a 200-account sliver is drawn solid, as in Figure 1
  return h("div", { class: "sliver" + (classes.length <= 60 ? " ruled" : ""), title }, ...classes.map((c) => h("span", { class: c })));
}
function crumbs(...parts) {
  const el = document.getElementById("crumbs");
  el.replaceChildren(...parts.flatMap((p) => [" › ", p]));
}

