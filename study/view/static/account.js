// study view: the account page (#/s/<session>/a/<account>). Loaded after core.js (static/index.html); see core.js for the rules.
"use strict";

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
    h("p", {}, h("span", { class: "sw " + doc.class }), " ", CLASS_WORDS[doc.class]), h("p", {}, comparePicker(doc))];
  if (doc.score) {
    out.push(h("p", {}, `Decision ${JSON.stringify(doc.score.action)} at seq ${doc.score.decision_seq}; gold ${JSON.stringify(doc.score.gold)}.`,
      doc.routes.length ? ` Escape routes: ${doc.routes.join(", ")}.` : ""), clauseTable(doc));
  } else out.push(h("p", { class: "note" }, "No decision for this account."));
  out.push(h("h3", {}, "Calls, from the account's first call to its decision"));
  if (doc.hidden) out.push(h("p", { class: "note" }, `${doc.hidden} calls for other accounts in between are not listed (the breaking call is).`));
  out.push(h("div", { id: "calls" }, ...(doc.events.length ? doc.events.map((e) => callBox(doc, e)) : [h("p", { class: "note" }, "No call for this account.")])));
  return out;
}

