// study view: the τ²-bench family's part of a session page (study/view/static/family.js draws the
// page; this file registers what only the family knows in FAMILY_PAGES): its conversation
// (customer, agent, tools, the controller's turns, the end), the reward and its parts, its timeline
// lanes and marks, and its words in the matrix's legend. Loaded after family.js
// (study/view/page.py adds a <script> for each family's view.js, study.families.registry).
"use strict";

Object.assign(MARK_COLOUR, { customer: "#546e7a", conversation_end: "#000" });

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

// ----- the reward and its parts ------------------------------------------------------------------
function rewardParts(o) {
  if (o.protocol !== "tau2") return [];
  return [h("table", { id: "reward-parts" }, h("tr", {}, h("th", {}, "Part of τ²-bench's evaluation"), h("th", {}, "Value"), h("th", {}, "In the reward")),
    ...o.parts.map((p) => h("tr", { "data-part": p.name, class: p.in_basis && p.value !== null && p.value < 1 ? "bad-row" : null },
      h("td", {}, p.name), h("td", {}, num3(p.value)), h("td", {}, p.in_basis ? "yes (the reward's basis)" : "no"))))];
}

FAMILY_PAGES.tau2 = {
  label: "τ²-bench (tau2)",
  lanes: [["customer", "customer"], ["transition", "FSM moves"], ["denial", "denials"], ["stop", "stops"],
    ["conversation_end", "conversation end"], ["compaction", "compactions"]],
  outcomeHead: rewardParts,
  work: conversationSection,
  legend: { pass: "passed (τ²-bench)", fail: "failed", none: "not judged" },
};
