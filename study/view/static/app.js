// study view: draws the documents of study/view/documents.py; computes no verdict of its own.
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
  return dir + kind + "-" + (p.page || 0) + ".js";
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

// ----- matrix ----------------------------------------------------------------------------------
function matrixPage(doc) {
  crumbs();
  const rows = doc.sessions.map((r) => {
    const tr = h("tr", { "data-name": r.name, onclick: () => { location.hash = sessionHref(r.name); } },
      h("td", {}, h("a", { href: sessionHref(r.name) }, r.model)), h("td", {}, r.condition), h("td", {}, r.seed),
      h("td", {}, r.status), h("td", {}, r.fc ?? "–"), h("td", {}, pct(r.compliance)),
      h("td", {}, r.decided === null ? "–" : `${r.decided}/${r.accounts}`), h("td", {}, r.cost),
      h("td", {}, marks(r)), h("td", {}, sliver(r.sliver, r.name)));
    tr.dataset.text = [r.name, r.model, r.condition, "seed " + r.seed, r.status, r.simulated ? "simulated" : "",
      r.voided ? "voided" : "", r.exploratory ? "exploratory" : ""].join(" ").toLowerCase();
    return tr;
  });
  const count = h("span", { id: "count" }, `${rows.length} sessions`);
  const filter = h("input", { id: "filter", type: "search", placeholder: "filter: model, condition, seed, status, simulated, voided…" });
  filter.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const tr of rows) {
      const hit = words.every((w) => tr.dataset.text.includes(w));
      tr.classList.toggle("hidden", !hit);
      shown += hit;
    }
    count.textContent = `${shown} of ${rows.length} sessions`;
  });
  const head = ["Model", "Condition", "Seed", "Status", "FC", "Compliance", "Decided", "Cost", "Marks", "Figure 1: accounts in batch order"];
  return [h("h2", {}, "Sessions"), simulatedBanner(doc.simulated), h("p", { class: "note" }, doc.root),
    filter, " ", count, legend(),
    h("table", { id: "matrix" }, h("thead", {}, h("tr", {}, ...head.map((x) => h("th", {}, x)))), h("tbody", {}, ...rows))];
}

// ----- session ---------------------------------------------------------------------------------
// A stop with no account left (the end of the batch) is grey; with accounts left, orange if the stop
// gate blocked it, red if the turn ended.
const LANES = [["stop", "stops"], ["resume", "resumes"], ["compaction", "compactions"], ["denial", "denials"],
  ["transition", "transitions"], ["token-remark", "token remark"]];
const MARK_COLOUR = { "stop-blocked": "#ef6c00", "stop-ended": "#c62828", resume: "#1565c0", compaction: "#6a1b9a",
  denial: "#c62828", transition: "#2e7d32", "transition-refused": "#c62828", "token-remark": "#f9a825" };

function timeline(doc) {
  const W = 1000, left = 110, lane = 18, H = LANES.length * lane + 24, span = Math.max(doc.duration_s || 1, 0.001);
  const x = (t) => left + ((t || 0) / span) * (W - left - 10);
  const svg = s("svg", { width: W, height: H, id: "timeline" });
  LANES.forEach(([key, label], i) => {
    svg.append(s("text", { x: 4, y: i * lane + 13, class: "lane-label" }, label));
    svg.append(s("line", { x1: left, x2: W - 10, y1: i * lane + 9, y2: i * lane + 9, stroke: "#eee" }));
  });
  for (const m of doc.markers) {
    const laneKey = m.kind.startsWith("stop") ? "stop" : m.kind.startsWith("transition") ? "transition" : m.kind;
    const i = LANES.findIndex(([k]) => k === laneKey);
    const mark = s("rect", { x: x(m.s) - 1.5, y: i * lane + 2, width: 3, height: 14, fill: m.left === 0 ? "#90a4ae" : MARK_COLOUR[m.kind] || "#333",
      class: "marker " + m.kind, "data-seq": m.seq, style: "cursor:pointer", onclick: () => { location.hash = seqHref(doc.name, m.seq); } },
    s("title", {}, `seq ${m.seq}, ${m.s}s: ${m.label}`));
    svg.append(mark);
  }
  svg.append(s("text", { x: left, y: H - 4 }, "0 s"), s("text", { x: W - 70, y: H - 4 }, `${span.toFixed(1)} s`));
  return svg;
}

function curve(points, span, title, fmt, colour) {
  const W = 480, H = 140, pad = 30;
  const maxX = Math.max(span || 0, ...points.map((p) => p[0]), 0.001), maxY = Math.max(...points.map((p) => p[1]), 0.000001);
  const pts = points.map(([a, b]) => `${pad + (a / maxX) * (W - pad - 10)},${H - pad + 10 - (b / maxY) * (H - pad - 10)}`).join(" ");
  return h("div", {}, h("div", {}, title),
    s("svg", { width: W, height: H, class: "curve" },
      s("polyline", { points: pts, fill: "none", stroke: colour, "stroke-width": 2 }),
      s("line", { x1: pad, x2: W - 10, y1: H - pad + 10, y2: H - pad + 10, stroke: "#999" }),
      s("text", { x: 2, y: 12 }, fmt(maxY)), s("text", { x: pad, y: H - 4 }, "0 s"), s("text", { x: W - 60, y: H - 4 }, `${maxX.toFixed(1)} s`)));
}

function kv(obj) {
  return h("table", { class: "kv" }, ...Object.entries(obj).map(([k, v]) =>
    h("tr", {}, h("th", {}, k), h("td", { class: "mono" }, v === null || v === undefined ? "–" : typeof v === "object" ? JSON.stringify(v) : String(v)))));
}

function routesTable(doc) {
  return h("table", { id: "routes" }, h("tr", {}, h("th", {}, "Escape route"), h("th", {}, "Value"), h("th", {}, "Where")),
    ...doc.routes.map((r) => h("tr", { "data-route": r.key }, h("td", {}, r.header),
      h("td", {}, r.value === null ? "never" : r.counted ? String(r.value) : `${r.value} decided at the first`),
      h("td", {}, ...r.occurrences.slice(0, 60).map((o) => [h("a", { href: o.account ? accountHref(doc.name, o.account) : seqHref(doc.name, o.seq) },
        o.account ? `${o.account} (seq ${o.seq})` : `seq ${o.seq}`), " "]),
      r.occurrences.length > 60 ? `… ${r.occurrences.length - 60} more` : ""))));
}

function eventSummary(e) {
  if (e.kind === "tool_call") return `${e.server === "fsm" ? "fsm." : ""}${e.tool} ${JSON.stringify(e.args)} ${e.allowed === false ? "DENIED: " + (e.error || "") : e.ok ? "" : "error: " + (e.error || "")}`;
  if (e.kind === "transition") return `${e.from} → ${e.to} ${e.ok ? "" : "refused"}: ${e.reason || ""}`;
  if (e.kind === "assistant_text") return e.text;
  if (e.kind === "stop") return `${e.outcome}, ${e.accounts_left} accounts left`;
  const { seq, t, kind, s: _s, cut, ...rest } = e;
  return JSON.stringify(rest);
}

function eventsSection(doc, targetSeq) {
  const box = h("div", { id: "events" });
  const pages = Math.max(1, Math.ceil(doc.events_total / doc.events_page));
  const show = (page) => load("events", { session: doc.name, page }).then((ev) => {
    const rows = ev.events.map((e) => h("tr", { id: "seq-" + e.seq, class: e.seq === targetSeq ? "target" : null },
      h("td", {}, e.seq), h("td", {}, e.s), h("td", {}, e.kind),
      h("td", {}, e.account && doc.strip.some((a) => a.account === e.account) ? h("a", { href: accountHref(doc.name, e.account) }, e.account) : e.account ?? ""),
      h("td", {}, e.state ?? ""),
      h("td", {}, h("pre", {}, eventSummary(e).slice(0, 600)))));
    box.replaceChildren(h("div", { class: "pager" },
      h("button", { disabled: page === 0, onclick: () => show(page - 1) }, "‹ earlier"),
      h("button", { disabled: page >= pages - 1, onclick: () => show(page + 1) }, "later ›"),
      ` page ${page + 1} of ${pages} (${doc.events_total} events)`),
    h("table", {}, h("tr", {}, ...["seq", "s", "kind", "account", "state", ""].map((x) => h("th", {}, x))), ...rows));
    const t = document.getElementById("seq-" + targetSeq);
    if (t) t.scrollIntoView({ block: "center" });
  }).catch((err) => box.replaceChildren(h("p", { class: "error" }, String(err))));
  if (targetSeq !== null) show(Math.floor(targetSeq / doc.events_page));
  else box.append(h("button", { id: "show-events", onclick: () => show(0) }, `Show the ${doc.events_total} events`));
  return box;
}

function transcriptSection(doc) {
  const box = h("div", { id: "transcript" });
  const show = (page) => load("transcript", { session: doc.name, page }).then((tr) => {
    if (tr.omitted) { box.replaceChildren(h("p", { class: "note" }, "This bundle was written without transcripts (--no-transcripts).")); return; }
    if (tr.refused) { box.replaceChildren(h("p", { class: "error", id: "transcript-refused" }, tr.refused)); return; }
    if (!tr.total) { box.replaceChildren(h("p", { class: "note" }, "This session has no transcript.jsonl.")); return; }
    const pages = Math.ceil(tr.total / tr.page_size);
    box.replaceChildren(h("div", { class: "pager" },
      h("button", { disabled: page === 0, onclick: () => show(page - 1) }, "‹ earlier"),
      h("button", { disabled: page >= pages - 1, onclick: () => show(page + 1) }, "later ›"), ` page ${page + 1} of ${pages} (${tr.total} lines)`),
    ...tr.entries.map((e) => h("div", { class: "event" }, h("div", { class: "head" }, `#${e.n} ${e.type || ""} ${e.role || ""} ${e.t || ""}`),
      ...e.blocks.map((b) => h("details", {}, h("summary", {}, b.type + (b.cut ? ` (${b.cut} characters, cut)` : "") + ": " + b.text.slice(0, 100)), h("pre", {}, b.text))))));
  }).catch((err) => box.replaceChildren(h("p", { class: "error" }, String(err))));
  box.append(h("button", { id: "show-transcript", onclick: () => show(0) }, "Load the Claude Code transcript"));
  return box;
}

function sessionPage(doc, targetSeq) {
  crumbs(h("a", { href: sessionHref(doc.name) }, doc.name));
  const out = [h("h2", {}, `${doc.model} · ${doc.condition} · seed ${doc.seed} `, ...marks(doc)), simulatedBanner(doc.simulated)];
  if (doc.error) {
    // a damaged session: what is wrong with it, then whatever of its records could be read
    out.push(h("div", { class: "damaged", id: "damaged" }, h("h3", {}, "These records break the log rules; the session is never scored"),
      h("ul", {}, ...(doc.problems.length ? doc.problems : [doc.error]).map((p) => h("li", { class: "mono" }, p)))));
    if (doc.meta) out.push(h("details", {}, h("summary", {}, "meta.json (as far as it could be read)"), h("pre", { id: "meta" }, JSON.stringify(doc.meta, null, 1))));
    if (doc.events_total) out.push(h("h3", {}, "Events that could be read"), eventsSection(doc, targetSeq));
    return out;
  }
  const m = doc.metrics;
  out.push(kv({ status: doc.status, decided: `${m.decided} of ${m.accounts}`, FC: m.fc, compliance: pct(m.compliance),
    correct: m.correct, cost: doc.cost, resumes: m.resumes, "void reason": m.void_reason }));
  out.push(h("h3", {}, "Accounts in batch order (click one)"), legend(),
    h("div", { id: "strip" }, ...doc.strip.map((a) => h("a", { href: accountHref(doc.name, a.account), class: a.class,
      "data-account": a.account, title: `${a.account}: ${CLASS_WORDS[a.class]}` }))));
  out.push(h("h3", {}, "Time axis (click a marker for its event)"), timeline(doc),
    h("div", { class: "charts" }, curve(doc.curves.cost, doc.duration_s, "Cost over time" + (doc.simulated ? " (simulated)" : ""), (y) => "$" + y.toFixed(2), "#1565c0"),
      curve(doc.curves.decided, doc.duration_s, "Decided accounts over time", (y) => String(y), "#2e7d32")));
  out.push(h("h3", {}, "Escape routes"), routesTable(doc));
  out.push(h("h3", {}, "Preregistration and versions"), kv(doc.prereg),
    h("details", {}, h("summary", {}, "meta.json"), h("pre", { id: "meta" }, JSON.stringify(doc.meta, null, 1))));
  if (doc.warnings.length) out.push(h("p", { class: "error" }, doc.warnings.join("; ")));
  out.push(h("h3", {}, "Events"), eventsSection(doc, targetSeq), h("h3", {}, "Transcript"), transcriptSection(doc));
  return out;
}

// ----- account ---------------------------------------------------------------------------------
function clauseTable(doc) {
  const seqLink = (seq) => (seq === null || seq === undefined ? "" : h("a", { href: "#", "data-seq": seq, onclick: (ev) => { ev.preventDefault(); focusSeq(doc, seq); } }, `seq ${seq}`));
  const c = doc.clauses;
  const links = {
    inv: c.inv.calls.map((x) => (x.seq === null ? h("span", { class: "bad" }, x.tool + " missing ") : [x.tool + " ", seqLink(x.seq), " "])),
    rec: [seqLink(c.rec.record_seq)],
    foc: c.foc.breaking ? ["breaking call: ", seqLink(c.foc.breaking.seq), ` (${c.foc.breaking.account})`] : [],
    correct: [],
  };
  return h("table", { id: "clauses" }, h("tr", {}, h("th", {}, "Clause"), h("th", {}, ""), h("th", {}, "Evidence"), h("th", {}, "Calls")),
    ...["inv", "rec", "foc", "correct"].map((k) => h("tr", { "data-clause": k }, h("td", {}, k),
      h("td", { class: c[k].ok ? "ok" : "bad" }, c[k].ok ? "✓" : "✗"), h("td", {}, c[k].why), h("td", {}, ...links[k]))));
}

function focusSeq(doc, seq) {
  const el = document.getElementById("call-" + seq);
  if (!el) { location.hash = seqHref(doc.name, seq); return; }
  document.querySelectorAll(".event.target").forEach((x) => x.classList.remove("target"));
  el.classList.add("target");
  el.scrollIntoView({ block: "center" });
}

function callBox(doc, e) {
  const tags = [];
  const cls = ["event"];
  if (e.other) { cls.push("other"); tags.push(h("span", { class: "tag" }, "other account " + e.account)); }
  if (e.seq === doc.breaking_seq) { cls.push("breaking"); tags.push(h("span", { class: "tag bad" }, "breaks focus")); }
  if (e.kind === "tool_call" && e.allowed === false) { cls.push("denied"); tags.push(h("span", { class: "tag bad" }, "denied")); }
  if (e.seq === doc.record_seq) { cls.push("record"); tags.push(h("span", { class: "tag" }, "the record")); }
  if (doc.score && e.seq === doc.score.decision_seq) { cls.push("decision"); tags.push(h("span", { class: "tag" }, "the decision")); }
  if (e.context) tags.push(h("span", { class: "tag" }, "context"));
  const head = h("div", { class: "head" }, `seq ${e.seq} · ${e.s}s · `,
    e.kind === "tool_call" ? `${e.server === "fsm" ? "fsm." : ""}${e.tool}` : e.kind, e.state ? h("span", { class: "tag" }, "state " + e.state) : "", ...tags);
  const body = [];
  if (e.kind === "tool_call") {
    body.push(h("pre", {}, JSON.stringify(e.args, null, 1)));
    if (e.allowed === false) body.push(h("div", { class: "bad" }, "Denied: " + (e.error || "")));
    else if (e.error) body.push(h("div", { class: "bad" }, "Error: " + e.error));
    if (e.result) body.push(h("details", {}, h("summary", {}, "result" + (e.cut && e.cut.result ? ` (${e.cut.result} characters, cut)` : "")), h("pre", {}, e.result)));
  } else if (e.kind === "assistant_text") {
    cls.push("assistant");
    body.push(e.text);
  } else {
    body.push(h("div", {}, eventSummary(e)));
  }
  return h("div", { class: cls.join(" "), id: "call-" + e.seq, "data-seq": e.seq }, head, ...body);
}

function accountPage(doc) {
  crumbs(h("a", { href: sessionHref(doc.name) }, doc.name), h("a", { href: accountHref(doc.name, doc.account) }, doc.account));
  const out = [h("h2", {}, `Account ${doc.account} (position ${doc.position + 1} of the batch)`), simulatedBanner(doc.simulated),
    h("p", {}, h("span", { class: "sw " + doc.class }), " ", CLASS_WORDS[doc.class])];
  if (doc.score) {
    out.push(h("p", {}, `Decision ${JSON.stringify(doc.score.action)} at seq ${doc.score.decision_seq}; gold ${JSON.stringify(doc.score.gold)}.`,
      doc.routes.length ? ` Escape routes: ${doc.routes.join(", ")}.` : ""), clauseTable(doc));
  } else out.push(h("p", { class: "note" }, "No decision for this account."));
  out.push(h("h3", {}, "Calls, from the account's first call to its decision"));
  if (doc.hidden) out.push(h("p", { class: "note" }, `${doc.hidden} calls for other accounts in between are not listed (the breaking call is).`));
  out.push(h("div", { id: "calls" }, ...(doc.events.length ? doc.events.map((e) => callBox(doc, e)) : [h("p", { class: "note" }, "No call for this account.")])));
  return out;
}

// ----- routing -----------------------------------------------------------------------------------
function route() {
  const main = document.getElementById("main");
  const hash = location.hash.replace(/^#\/?/, "");
  let parts;
  try {
    parts = hash.split("/").map(decodeURIComponent);
  } catch (err) {          // a malformed address (a cut %-escape): say so, never throw
    crumbs();
    main.replaceChildren(h("p", { class: "error", id: "bad-address" }, "This address is malformed (" + err.message + "): ",
      h("span", { class: "mono" }, location.hash.slice(0, 200))), h("p", {}, h("a", { href: "#/" }, "Back to the sessions")));
    return;
  }
  let job;
  if (parts[0] === "s" && parts[1]) {
    const name = parts[1];
    if (parts[2] === "a" && parts[3]) job = load("account", { session: name, account: parts[3] }).then(accountPage);
    else job = load("session", { session: name }).then((d) => sessionPage(d, parts[2] === "seq" ? Number(parts[3]) : null));
  } else job = load("matrix").then(matrixPage);
  job.then((nodes) => {
    main.replaceChildren(...[nodes].flat().filter(Boolean));
    document.body.dataset.page = parts[0] === "s" ? (parts[2] === "a" ? "account" : "session") : "matrix";
    const t = document.querySelector("#events tr.target");
    if (t) t.scrollIntoView({ block: "center" });
    else if (document.body.dataset.page !== "session") window.scrollTo(0, 0);
    if (document.body.dataset.page === "account") {
      const b = document.querySelector(".event.breaking");
      if (b) b.scrollIntoView({ block: "center" });
    }
  }).catch((err) => main.replaceChildren(h("p", { class: "error" }, String(err.message || err))));
}
window.addEventListener("hashchange", route);
route();
