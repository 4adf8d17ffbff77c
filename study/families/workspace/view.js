// study view: the workspace family's part of a session page (study/view/static/family.js draws the
// page; this file registers what only the family knows in FAMILY_PAGES): a run's contexts
// (commands, edits, commits, the FSM's moves and refusals, stop-gate blocks), the protocol's
// outcome (AutoResearch's ledger rows, the month-end close's periods), its timeline lanes and its
// words in the matrix's legend. Loaded after family.js (study/view/page.py adds a <script> for each
// family's view.js, study.families.registry).
"use strict";

// ----- the protocol's outcome ------------------------------------------------------------------
function protocolTables(o) {
  const out = [];
  if (o.rows) {
    out.push(h("table", { id: "ledger-rows" }, h("tr", {}, ...["Trial", "Stage", "Decision", "Metric", "Valid", "Rule broken, problems"].map((x) => h("th", {}, x))),
      ...o.rows.map((r) => h("tr", { class: r.valid ? null : "bad-row", "data-trial": r.trial }, h("td", {}, r.trial), h("td", {}, r.stage), h("td", {}, r.decision),
        h("td", {}, num3(r.metric)), h("td", { class: r.valid ? "ok" : "bad" }, r.valid ? "✓" : "✗"),
        h("td", {}, r.rule ? h("b", {}, r.rule) : "", r.problems.length ? h("ul", {}, ...r.problems.map((p) => h("li", {}, p))) : "")))));
  }
  if (o.periods) {
    out.push(h("table", { id: "periods" }, h("tr", {}, ...["Period", "Started", "Fields right", "Correct", "Problem"].map((x) => h("th", {}, x))),
      ...o.periods.map((p) => h("tr", { class: p.correct ? null : "bad-row", "data-period": p.period }, h("td", {}, p.period), h("td", {}, p.started ? "yes" : "no (–)"),
        h("td", {}, p.right === null ? "–" : `${p.right}/11`), h("td", { class: p.correct ? "ok" : "bad" }, p.correct ? "✓" : "✗"), h("td", {}, p.problem || "")))));
  }
  return out;
}

// ----- a run's contexts ------------------------------------------------------------------------------
function diffBlock(x, sign, cls) {
  const text = x && x.text ? x.text : "";
  return h("pre", { class: "diff " + cls }, text.split("\n").map((l) => sign + " " + l).join("\n") + cut(x));
}
function patchBlock(x) {
  return h("pre", { class: "diff patch" }, ...(x.text || "").split("\n").map((l) =>
    h("span", { class: l.startsWith("+") && !l.startsWith("+++") ? "add" : l.startsWith("-") && !l.startsWith("---") ? "del" : l.startsWith("***") ? "hunk" : null }, l + "\n")), cut(x));
}

function wsItem(doc, e) {
  const link = seqLink(doc, e);
  const state = e.state ? h("span", { class: "state" }, " state " + e.state) : "";
  const cls = ["ws-item", e.kind];
  const refusal = e.denied ? reasonBox("Refused by the FSM's gate: ", e.error) : e.ok === false ? reasonBox("Error: ", e.error) : "";
  if (e.denied) cls.push("denied");
  const box = (head, ...body) => h("div", { class: cls.join(" "), "data-seq": e.seq, "data-kind": e.kind }, h("div", { class: "head" }, ...head, state, " ", link), ...body, refusal);
  switch (e.kind) {
    case "command":
      return box([h("code", { class: "cmd" }, "$ " + e.command)], e.ok ? folded("output", e.output, "output") : "");
    case "edit":
      return box(["edit ", h("code", {}, e.path || "(no path)"), e.paths.length > 1 ? ` (${e.paths.length} files: ${e.paths.join(", ")})` : ""],
        ...(e.changes || []).flatMap((c) => [diffBlock(c.old, "-", "old"), diffBlock(c.new, "+", "new")]), e.patch ? patchBlock(e.patch) : "");
    case "write":
      return box(["write ", h("code", {}, e.path || "(no path)")], folded("content", e.content, "content"));
    case "read":
      return box(["read ", h("code", {}, e.path || "(no path)")], e.ok ? folded("content", e.result) : "");
    case "search":
      return box([`${e.tool} `, h("code", {}, e.pattern || ""), e.path ? " in " + e.path : ""], e.ok ? folded("result", e.result) : "");
    case "call": {
      const short = e.args && !e.args.cut && e.args.text.length <= 120;
      return box(["tool call ", h("code", {}, (e.server === "fsm" ? "fsm." : e.server ? e.server + "." : "") + e.tool), short ? h("code", { class: "args" }, " " + e.args.text) : ""],
        short ? "" : folded("arguments", e.args), e.ok ? folded("result", e.result) : "");
    }
    case "commit":
      return h("div", { class: "ws-item commit", "data-seq": e.seq, "data-kind": "commit" }, h("div", { class: "head" }, "commit ", h("code", {}, (e.sha || "").slice(0, 10)), " ", e.subject.text, " ", link),
        h("div", { class: "note" }, e.files.length ? "files: " + e.files.join(", ") : "no file changed", e.parents.length ? ` · parent ${e.parents.map((p) => p.slice(0, 10)).join(", ")}` : ""));
    case "transition":
      return h("div", { class: "ws-item move " + (e.ok ? "ok-move" : "refused"), "data-seq": e.seq, "data-kind": "transition" },
        h("div", { class: "head" }, `FSM: ${e.from ?? "(none)"} → ${e.to}`, e.ok ? "" : h("span", { class: "tag bad" }, "refused"), " ", link),
        e.reason && e.reason.text ? (e.ok ? h("div", { class: "note" }, e.reason.text) : h("pre", { class: "check" }, e.reason.text + cut(e.reason))) : "");
    case "stop":
      return h("div", { class: "ws-item stop " + (e.outcome === "blocked" ? "blocked" : ""), "data-seq": e.seq, "data-kind": "stop" },
        h("div", { class: "head" }, e.outcome === "blocked" ? "The stop gate blocked the end of the turn" : "The turn ended", unitsLeft(doc, e.left), " ", link),
        e.reason && e.reason.text ? h("div", {}, e.reason.text) : "");
    case "text":
      return h("div", { class: "ws-item text", "data-seq": e.seq, "data-kind": "text" }, h("span", { class: "who" }, "the agent: "), e.text, cut(e), " ", link);
    case "end":
      return h("div", { class: "ws-item end", "data-seq": e.seq, "data-kind": "end" }, `The context ended: ${e.ended}`, " ", link);
    default:
      return h("div", { class: "ws-item", "data-seq": e.seq, "data-kind": e.kind }, e.kind, e.n ? " " + e.n : "", e.trigger ? ` (${e.trigger})` : "", " ", link);
  }
}

// A stop's units left, in the family's words (doc.units: the run's contexts or periods; nothing for a
// session that decides none).
function unitsLeft(doc, left) {
  const u = doc.units || { one: "unit", many: "units", done: "done" };
  return left === null || left === undefined || u.done === null ? "" : ` (${left} ${left === 1 ? u.one : u.many} left)`;
}

function countWords(c) {
  const parts = [[c.calls, "call"], [c.commands, "command"], [c.edits, "edit or write", "edits and writes"], [c.denied, "refused by the gate", "refused by the gate"],
    [c.commits, "commit"], [c.moves, "FSM move"], [c.refused_moves, "refused move"], [c.blocks, "stop-gate block"]];
  return parts.filter(([n]) => n).map(([n, one, many]) => `${n} ${n === 1 ? one : many || one + "s"}`).join(", ") || "nothing done";
}

function contextsSection(doc) {
  const many = doc.contexts.length > 12 || doc.contexts.reduce((a, c) => a + c.items, 0) > 600;
  const sections = doc.contexts.map((c, i) => {
    const body = h("div", { class: "ws-items" });
    const trouble = c.counts.denied || c.counts.refused_moves || c.counts.blocks;
    const det = h("details", { class: "context", id: "context-" + (c.n ?? i), "data-context": c.n ?? "" },
      h("summary", {}, h("b", {}, c.n === null ? "The session" : `Context ${c.n}`), c.unit && c.unit !== `context ${c.n}` ? ` · ${c.unit}` : "", c.state ? ` · began in ${c.state}` : "",
        ` · ${c.ended ? "ended: " + c.ended : "running"} · `, h("span", { class: trouble ? "bad-soft" : "" }, countWords(c.counts))), body);
    let loaded = false;
    const fill = () => {
      if (loaded) return;
      loaded = true;
      Promise.all(c.pages.map((page) => load("work", { session: doc.name, page })))
        .then((ws) => body.replaceChildren(...ws.flatMap((w) => w.entries).map((e) => wsItem(doc, e))))
        .catch((err) => body.replaceChildren(h("p", { class: "error" }, String(err))));
    };
    det.addEventListener("toggle", () => { if (det.open) fill(); });
    // what the agent saw: this context's own transcript (the last context's is the session's, below)
    if ((doc.context_transcripts || []).includes(c.n)) det.append(transcriptSection(doc, c.n));
    if (!many) { det.open = true; fill(); }
    return det;
  });
  return [h("h3", {}, `Contexts (${doc.contexts.length}): each a fresh CLI session sharing only the workspace's files and the FSM's state`),
    h("p", { class: "note" }, "From the log (events.jsonl): each built-in call as a command or an edit, the gate's refusals in red with its reason, the commits, the FSM's moves (a refused one in red with its check's message) and the stop gate's blocks."), ...sections];
}

FAMILY_PAGES.workspace = {
  lanes: [["context", "contexts"], ["transition", "FSM checks"], ["denial", "denials"], ["commit", "commits"],
    ["stop", "stops"], ["resume", "resumes"], ["compaction", "compactions"]],
  outcomeTail: protocolTables,
  work: (doc) => (doc.contexts ? contextsSection(doc) : []),
  legend: { pass: "a valid ledger row, a correct period", fail: "an invalid row, a wrong period", none: "a missing row, a period not started" },
};
