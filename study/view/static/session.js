// study view: the session page (#/s/<session>). Loaded after core.js (static/index.html); see core.js for the rules.
"use strict";

// ----- session ---------------------------------------------------------------------------------
// A stop with no account left (the end of the batch) is grey; with accounts left, orange if the stop
// gate blocked it, red if the turn ended.
const LANES = [["stop", "stops"], ["resume", "resumes"], ["compaction", "compactions"], ["denial", "denials"],
  ["transition", "transitions"], ["proposal", "proposals"], ["api_retry", "API retries"], ["token-remark", "token remark"]];
const MARK_COLOUR = { "stop-blocked": "#ef6c00", "stop-ended": "#c62828", resume: "#1565c0", compaction: "#6a1b9a",
  denial: "#c62828", transition: "#2e7d32", "transition-refused": "#c62828", "token-remark": "#f9a825",
  proposal: "#00838f", api_retry: "#757575", context: "#37474f", commit: "#6a1b9a" };   // a family's own: its view.js

function timeline(doc, lanes = LANES) {
  const W = 1000, left = 110, lane = 18, H = lanes.length * lane + 24, span = Math.max(doc.duration_s || 1, 0.001);
  const x = (t) => left + ((t || 0) / span) * (W - left - 10);
  const svg = s("svg", { width: W, height: H, id: "timeline" });
  lanes.forEach(([key, label], i) => {
    svg.append(s("text", { x: 4, y: i * lane + 13, class: "lane-label" }, label));
    svg.append(s("line", { x1: left, x2: W - 10, y1: i * lane + 9, y2: i * lane + 9, stroke: "#eee" }));
  });
  for (const m of doc.markers) {
    const laneKey = m.kind.startsWith("stop") ? "stop" : m.kind.startsWith("transition") ? "transition" : m.kind;
    const i = lanes.findIndex(([k]) => k === laneKey);
    if (i < 0) continue;
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

// A stop's units left: the main study's accounts; another family's in its words (doc.units: one, many,
// done; none for a session that decides none).
function stopLeft(e, units) {
  if (!units) return `, ${e.accounts_left} accounts left`;
  return units.done === null ? "" : `, ${e.accounts_left} ${e.accounts_left === 1 ? units.one : units.many} left`;
}

function eventSummary(e, units) {
  if (e.kind === "tool_call") return `${e.server === "fsm" ? "fsm." : ""}${e.tool} ${JSON.stringify(e.args)} ${e.allowed === false ? "DENIED: " + (e.error || "") : e.ok ? "" : "error: " + (e.error || "")}`;
  if (e.kind === "transition") return `${e.from} → ${e.to} ${e.ok ? "" : "refused"}: ${e.reason || ""}`;
  if (e.kind === "assistant_text") return e.text;
  if (e.kind === "stop") return `${e.outcome}${stopLeft(e, units)}`;
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
      h("td", {}, h("pre", {}, eventSummary(e, doc.units).slice(0, 600)))));
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

function sessionPage(doc, targetSeq) {
  crumbs(h("a", { href: sessionHref(doc.name) }, doc.name));
  const out = [h("h2", {}, `${doc.model} · ${doc.condition} · seed ${doc.seed} `, ...marks(doc)), simulatedBanner(doc.simulated)];
  if (MODE === "server" && doc.status === "running") {
    out.push(h("p", { class: "note", id: "refreshing" }, `This session is running: the page is drawn again when its records change (checked every ${REFRESH_MS / 1000} s).`));
    refreshLater(() => load("session", { session: doc.name }).then((next) => {
      if (JSON.stringify(next) === JSON.stringify(doc)) return false;
      route();
      return true;
    }));
  }
  if (doc.error) {
    // a damaged session: what is wrong with it, then whatever of its records could be read
    out.push(h("div", { class: "damaged", id: "damaged" }, h("h3", {}, "These records break the log rules; the session is never scored"),
      h("ul", {}, ...(doc.problems.length ? doc.problems : [doc.error]).map((p) => h("li", { class: "mono" }, p)))));
    if (doc.meta) out.push(h("details", {}, h("summary", {}, "meta.json (as far as it could be read)"), h("pre", { id: "meta" }, JSON.stringify(doc.meta, null, 1))));
    if (doc.events_total) out.push(h("h3", {}, "Events that could be read"), eventsSection(doc, targetSeq));
    return out;
  }
  if (doc.family && doc.family !== "sopbench") return out.concat(familySession(doc, targetSeq));   // family.js
  const m = doc.metrics;
  out.push(kv({ status: doc.status, decided: `${m.decided} of ${m.accounts}`, FC: m.fc, compliance: pct(m.compliance),
    correct: m.correct, cost: doc.cost, resumes: m.resumes, "void reason": m.void_reason }));
  out.push(attemptsNote(doc));
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
  out.push(h("h3", {}, "Events"), searchSection(doc), eventsSection(doc, targetSeq), h("h3", {}, "Transcript"), transcriptSection(doc));
  return out;
}


// Earlier attempts of this session (moved aside by --rerun-voided), or the session this one is an attempt of.
function attemptsNote(doc) {
  const m = /^(.*)\/(attempt-[^/]+)$/.exec(doc.name);
  if (m) return h("p", { class: "note", id: "attempt-of" }, `This is ${m[2]}, an earlier attempt of `, h("a", { href: sessionHref(m[1]) }, m[1]), ".");
  if (!doc.attempts.length) return null;
  return h("p", { id: "attempts" }, "Earlier attempts of this session: ", ...doc.attempts.map((a) => [h("a", { href: sessionHref(a) }, a.split("/").pop()), " "]));
}

// Text search over every event of the session (all pages are loaded on the first search).
function searchSection(doc) {
  const box = h("div", { id: "search-hits" });
  const input = h("input", { id: "event-search", type: "search", placeholder: "search the events: words that must all appear (tool, account, text…)" });
  let all = null;
  const pages = Math.max(1, Math.ceil(doc.events_total / doc.events_page));
  const everything = () => all || (all = Promise.all([...Array(pages).keys()].map((page) => load("events", { session: doc.name, page })))
    .then((docs) => docs.flatMap((d) => d.events).map((e) => [e, JSON.stringify(e).toLowerCase()])));
  const run = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) { box.replaceChildren(); return; }
    everything().then((events) => {
      if (input.value.toLowerCase().split(/\s+/).filter(Boolean).join(" ") !== words.join(" ")) return;   // typed on meanwhile
      const hits = events.filter(([, text]) => words.every((w) => text.includes(w)));
      box.replaceChildren(h("p", { class: "note", id: "search-count" }, `${hits.length} of ${events.length} events hold “${words.join(" ")}”` + (hits.length > 200 ? "; the first 200:" : "")),
        h("table", { class: "search-hits" }, ...hits.slice(0, 200).map(([e]) => h("tr", { "data-seq": e.seq },
          h("td", {}, h("a", { href: seqHref(doc.name, e.seq) }, `seq ${e.seq}`)), h("td", {}, e.kind), h("td", {}, e.account ?? ""),
          h("td", {}, h("pre", {}, eventSummary(e, doc.units).slice(0, 300)))))));
    }).catch((err) => box.replaceChildren(h("p", { class: "error" }, String(err))));
  };
  let timer = null;
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 250); });
  return h("div", {}, input, box);
}
