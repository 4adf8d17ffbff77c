// study view: the session page of another task family than SOP-Bench's (study/view/family_docs.py):
// the facts, the family's verdict and every figure of its outcome, the time axis, the family's work
// (a conversation, a run's contexts), the events and the transcript. What only a family knows is
// its own script's (study/families/<family>/view.js, loaded after this one: study/view/page.py),
// registered in FAMILY_PAGES[family]:
//   label        the family's name on the page (default: its registry name)
//   lanes        the time axis's lanes (default: session.js's)
//   outcomeHead  (outcome) -> elements under the verdict line, before the facts
//   outcomeTail  (outcome) -> elements after the facts
//   work         (doc) -> the sections of the family's work
//   legend       { pass, fail, none }: its words in the matrix's legend (matrix.js)
// Loaded after core.js and session.js.
"use strict";

const FAMILY_PAGES = {};
const num3 = (x) => (x === null || x === undefined ? "–" : String(Math.round(x * 1e6) / 1e6));

function seqLink(doc, e) {
  if (e.seq === null || e.seq === undefined) return "";
  return h("a", { class: "seq", href: seqHref(doc.name, e.seq), title: "this event in the log" }, `seq ${e.seq}` + (e.s !== null && e.s !== undefined ? ` · ${e.s} s` : ""));
}
function cut(x) { return x && x.cut ? ` (${x.cut} characters, cut)` : ""; }
function folded(label, x, cls) {
  if (!x || !x.text) return h("div", { class: "note" }, label + ": (empty)");
  return h("details", { class: cls || null }, h("summary", {}, label + cut(x) + ": " + x.text.slice(0, 140)), h("pre", {}, x.text));
}

// a refusal's or an error's words: the first 300 characters, the rest one click away
function reasonBox(head, x) {
  const text = x && x.text ? x.text : "";
  if (text.length <= 300) return h("div", { class: "denial-box" }, h("b", {}, head), text + cut(x));
  return h("details", { class: "denial-box" }, h("summary", {}, h("b", {}, head), text.slice(0, 300) + " …"), h("div", {}, text + cut(x)));
}

// ----- the outcome -----------------------------------------------------------------------------
function outcomeSection(doc, part) {
  const o = doc.outcome;
  if (!o) return [h("h3", {}, "Outcome"), h("p", { class: "note", id: "outcome" }, "No outcome: the log holds no verdict of the family's evaluator (the session has not reached its end, or was voided).")];
  const out = [h("h3", {}, "Outcome"), h("p", { id: "outcome", class: "verdict-line" }, h("span", { class: "verdict " + o.class }, o.headline))];
  if (part.outcomeHead) out.push(...part.outcomeHead(o));
  out.push(kv(Object.fromEntries(o.facts)));
  if (part.outcomeTail) out.push(...part.outcomeTail(o));
  return out;
}

// ----- the page ------------------------------------------------------------------------------------
function familySession(doc, targetSeq) {
  const part = FAMILY_PAGES[doc.family] || {};
  const out = [];
  const ended = doc.meta && doc.meta.duration_s !== undefined ? doc.meta.duration_s : doc.duration_s;
  const facts = { status: doc.status, study: doc.study, family: part.label || doc.family,
    verdict: doc.verdict, cost: doc.cost, "duration (s)": ended, "void reason": doc.meta && doc.meta.void_reason };
  if (doc.contexts) facts.contexts = String(doc.contexts.length);
  out.push(kv(facts), attemptsNote(doc), ...outcomeSection(doc, part));
  out.push(h("h3", {}, "Time axis (click a marker for its event)"), timeline(doc, part.lanes || LANES),
    h("div", { class: "charts" }, curve(doc.curves.cost, doc.duration_s, "Cost over time" + (doc.simulated ? " (simulated)" : ""), (y) => "$" + y.toFixed(2), "#1565c0")));
  if (part.work) out.push(...part.work(doc));
  out.push(h("h3", {}, "Preregistration and versions"), kv(doc.prereg),
    h("details", {}, h("summary", {}, "meta.json"), h("pre", { id: "meta" }, JSON.stringify(doc.meta, null, 1))));
  out.push(h("h3", {}, "Events"), searchSection(doc), eventsSection(doc, targetSeq), h("h3", {}, "Transcript"),
    doc.contexts && doc.contexts.length > 1 ? h("p", { class: "note" }, "The last context's transcript (transcript.jsonl); each earlier context's is in its section above.") : "",
    transcriptSection(doc));
  return out;
}
