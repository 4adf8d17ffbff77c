// study view: the session page of another task family than SOP-Bench's (study/view/family_docs.py):
// a τ²-bench conversation (customer, agent, tools, the controller's turns, the end, the reward and
// its parts) or a workspace session's contexts (commands, edits, commits, the FSM's moves and
// refusals, stop-gate blocks, the protocol's outcome). Loaded after core.js and session.js.
"use strict";

const FAMILY_LANES = {
  tau2: [["customer", "customer"], ["transition", "FSM moves"], ["denial", "denials"], ["stop", "stops"],
    ["conversation_end", "conversation end"], ["compaction", "compactions"]],
  workspace: [["context", "contexts"], ["transition", "FSM checks"], ["denial", "denials"], ["commit", "commits"],
    ["stop", "stops"], ["resume", "resumes"], ["compaction", "compactions"]],
};
const VERDICT_WORDS = { pass: "passed", fail: "failed", none: "not judged / no outcome" };
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

// ----- the outcome -----------------------------------------------------------------------------
function outcomeSection(doc) {
  const o = doc.outcome;
  if (!o) return [h("h3", {}, "Outcome"), h("p", { class: "note", id: "outcome" }, "No outcome: the log holds no verdict of the family's evaluator (the session has not reached its end, or was voided).")];
  const out = [h("h3", {}, "Outcome"), h("p", { id: "outcome", class: "verdict-line" }, h("span", { class: "verdict " + o.class }, o.headline))];
  if (o.protocol === "tau2") {
    out.push(h("table", { id: "reward-parts" }, h("tr", {}, h("th", {}, "Part of τ²-bench's evaluation"), h("th", {}, "Value"), h("th", {}, "In the reward")),
      ...o.parts.map((p) => h("tr", { "data-part": p.name, class: p.in_basis && p.value !== null && p.value < 1 ? "bad-row" : null },
        h("td", {}, p.name), h("td", {}, num3(p.value)), h("td", {}, p.in_basis ? "yes (the reward's basis)" : "no")))));
  }
  out.push(kv(Object.fromEntries(o.facts)));
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

// ----- a τ²-bench conversation -------------------------------------------------------------------
const WHO = { customer: "Customer", agent: "Agent → customer (send_message_to_customer)", controller: "The workflow's controller → customer (written by the harness, not the agent)" };

function chatEntry(doc, e) {
  const link = seqLink(doc, e);
  if (e.role === "controller" && e.tool !== undefined) {   // a call the controller made itself (the scope step)
    return h("div", { class: "chat-call controller", "data-seq": e.seq, "data-role": "controller" },
      h("div", { class: "who" }, "The workflow's controller called ", h("code", {}, String(e.tool)), " (the harness, not the agent)",
        !e.ok ? h("span", { class: "tag bad" }, "error") : "", " ", link),
      folded("arguments", e.args, "args"),
      e.ok ? folded("result", e.result, "result") : reasonBox("Error: ", { text: e.error || "" }));
  }
  if (e.role === "customer" || e.role === "agent" || e.role === "controller") {
    const cls = ["msg", e.role];
    const tags = [];
    if (e.opening) tags.push(h("span", { class: "tag" }, "opening"));
    if (e.denied) { cls.push("denied"); tags.push(h("span", { class: "tag bad" }, "denied by the FSM: never reached the customer")); }
    else if (e.role === "agent" && !e.ok) { cls.push("denied"); tags.push(h("span", { class: "tag bad" }, "error: never reached the customer")); }
    return h("div", { class: cls.join(" "), "data-seq": e.seq, "data-role": e.role },
      h("div", { class: "who" }, WHO[e.role], ...tags, e.state ? h("span", { class: "state" }, " state " + e.state) : "", " ", link),
      h("div", { class: "text" }, e.text, cut(e)), e.error ? reasonBox(e.denied ? "Refused: " : "Error: ", { text: e.error }) : "");
  }
  if (e.role === "call") {
    const cls = ["chat-call"];
    if (e.denied) cls.push("denied");
    return h("div", { class: cls.join(" "), "data-seq": e.seq, "data-role": "call" },
      h("div", { class: "who" }, "Tool call ", h("code", {}, (e.server === "fsm" ? "fsm." : "") + e.tool), e.state ? h("span", { class: "state" }, " state " + e.state) : "",
        e.denied ? h("span", { class: "tag bad" }, "denied by the FSM") : !e.ok ? h("span", { class: "tag bad" }, "error") : "", " ", link),
      folded("arguments", e.args, "args"),
      e.ok ? folded("result", e.result, "result") : reasonBox(e.denied ? "Refused: " : "Error: ", { text: e.error || "" }));
  }
  if (e.role === "transition") {
    return h("div", { class: "move " + (e.ok ? "ok-move" : "refused"), "data-seq": e.seq, "data-role": "transition" },
      `FSM: ${e.from ?? "(none)"} → ${e.to}${e.ok ? "" : " refused"}`, e.reason ? h("span", { class: "why" }, ": " + e.reason) : "", " ", link);
  }
  if (e.role === "end") return h("div", { class: "chat-end", "data-seq": e.seq, "data-role": "end" }, `The conversation ended (τ²-bench: ${e.reason})`, " ", link);
  if (e.role === "note") return h("div", { class: "chat-note", "data-seq": e.seq, "data-role": "note" }, h("span", { class: "who" }, "The agent's own text (reaches no one): "), e.text, " ", link);
  if (e.role === "stop") return h("div", { class: "move " + (e.outcome === "blocked" ? "blocked" : "ok-move"), "data-seq": e.seq, "data-role": "stop" },
    e.outcome === "blocked" ? "The stop gate sent the agent back: " + (e.reason || "") : "The agent's turn ended", " ", link);
  return null;
}

function conversationSection(doc) {
  const box = h("div", { id: "chat", class: "chat" });
  const show = (page) => load("work", { session: doc.name, page }).then((w) => {
    box.replaceChildren(...(w.pages > 1 ? [pager(page, w.pages, `${w.pages} pages`, show)] : []), ...w.entries.map((e) => chatEntry(doc, e)));
  }).catch((err) => box.replaceChildren(h("p", { class: "error" }, String(err))));
  show(0);
  const t = doc.turns;
  return [h("h3", {}, "The conversation"), h("p", { class: "note" }, `${t.customer} messages of the customer, ${t.agent} of the agent, ${t.controller} turns of the workflow's controller, ${t.call} other tool calls; from the log (events.jsonl).`), box];
}

// ----- a workspace session's contexts -----------------------------------------------------------
function diffBlock(x, sign, cls) {
  const text = x && x.text ? x.text : "";
  return h("pre", { class: "diff " + cls }, text.split("\n").map((l) => sign + " " + l).join("\n") + cut(x));
}
function patchBlock(x) {
  return h("pre", { class: "diff patch" }, ...(x.text || "").split("\n").map((l) =>
    h("span", { class: l.startsWith("+") && !l.startsWith("+++") ? "add" : l.startsWith("-") && !l.startsWith("---") ? "del" : l.startsWith("***") ? "hunk" : null }, l + "\n")), cut(x));
}

// a refusal's or an error's words: the first 300 characters, the rest one click away
function reasonBox(head, x) {
  const text = x && x.text ? x.text : "";
  if (text.length <= 300) return h("div", { class: "denial-box" }, h("b", {}, head), text + cut(x));
  return h("details", { class: "denial-box" }, h("summary", {}, h("b", {}, head), text.slice(0, 300) + " …"), h("div", {}, text + cut(x)));
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
        h("div", { class: "head" }, e.outcome === "blocked" ? "The stop gate blocked the end of the turn" : "The turn ended", e.left !== null && e.left !== undefined ? ` (${e.left} of the run's units left)` : "", " ", link),
        e.reason && e.reason.text ? h("div", {}, e.reason.text) : "");
    case "text":
      return h("div", { class: "ws-item text", "data-seq": e.seq, "data-kind": "text" }, h("span", { class: "who" }, "the agent: "), e.text, cut(e), " ", link);
    case "end":
      return h("div", { class: "ws-item end", "data-seq": e.seq, "data-kind": "end" }, `The context ended: ${e.ended}`, " ", link);
    default:
      return h("div", { class: "ws-item", "data-seq": e.seq, "data-kind": e.kind }, e.kind, e.n ? " " + e.n : "", e.trigger ? ` (${e.trigger})` : "", " ", link);
  }
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

// ----- the page ------------------------------------------------------------------------------------
function familySession(doc, targetSeq) {
  const out = [];
  const ended = doc.meta && doc.meta.duration_s !== undefined ? doc.meta.duration_s : doc.duration_s;
  const facts = { status: doc.status, study: doc.study, family: doc.family === "tau2" ? "τ²-bench (tau2)" : doc.family,
    verdict: doc.verdict, cost: doc.cost, "duration (s)": ended, "void reason": doc.meta && doc.meta.void_reason };
  if (doc.contexts) facts.contexts = String(doc.contexts.length);
  out.push(kv(facts), attemptsNote(doc), ...outcomeSection(doc));
  out.push(h("h3", {}, "Time axis (click a marker for its event)"), timeline(doc, FAMILY_LANES[doc.family] || LANES),
    h("div", { class: "charts" }, curve(doc.curves.cost, doc.duration_s, "Cost over time" + (doc.simulated ? " (simulated)" : ""), (y) => "$" + y.toFixed(2), "#1565c0")));
  if (doc.family === "tau2") out.push(...conversationSection(doc));
  else if (doc.contexts) out.push(...contextsSection(doc));
  out.push(h("h3", {}, "Preregistration and versions"), kv(doc.prereg),
    h("details", {}, h("summary", {}, "meta.json"), h("pre", { id: "meta" }, JSON.stringify(doc.meta, null, 1))));
  out.push(h("h3", {}, "Events"), searchSection(doc), eventsSection(doc, targetSeq), h("h3", {}, "Transcript"),
    doc.contexts && doc.contexts.length > 1 ? h("p", { class: "note" }, "The last context's transcript (transcript.jsonl); each earlier context's is in its section above.") : "",
    transcriptSection(doc));
  return out;
}
