// study view: one account under two sessions side by side (#/c/<session A>/<session B>/<account>):
// the clauses compared, and the account's own calls aligned (same tool, same row). Loaded after core.js.
"use strict";

const compareHref = (a, b, account) => "#/c/" + enc(a) + "/" + enc(b) + "/" + enc(account);

// On the account page: every other session of the same seed, to compare this account with.
function comparePicker(doc) {
  const box = h("span", { id: "compare-picker" });
  Promise.all([load("matrix"), load("session", { session: doc.name })]).then(([m, self]) => {
    const others = m.sessions.filter((r) => r.name !== doc.name && r.seed === self.seed);
    if (!others.length) return;
    const pick = h("select", { id: "compare-with", onchange: (ev) => { if (ev.target.value) location.hash = compareHref(doc.name, ev.target.value, doc.account); } },
      h("option", { value: "" }, "compare with …"), ...others.map((r) => h("option", { value: r.name }, `${r.model} · ${r.condition} · seed ${r.seed}`)));
    box.append("Compare this account with the same seed under: ", pick);
  }).catch(() => {});
  return box;
}

function ownCalls(doc) {
  return doc.events.filter((e) => e.kind === "tool_call" && !e.other && !e.context);
}

// The two call lists aligned on a longest common subsequence of their tools: a call of the same
// tool shares a row, a call on one side only has a row of its own ([call, null] or [null, call]).
function align(left, right) {
  const key = (e) => (e.server === "fsm" ? "fsm." : "") + e.tool;
  const n = left.length, m = right.length;
  const L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--)
    L[i][j] = key(left[i]) === key(right[j]) ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && key(left[i]) === key(right[j])) out.push([left[i++], right[j++]]);
    else if (j >= m || (i < n && L[i + 1][j] >= L[i][j + 1])) out.push([left[i++], null]);
    else out.push([null, right[j++]]);
  }
  return out;
}

function callCell(e) {
  if (!e) return h("td", { class: "note" }, "–");
  const tags = [e.allowed === false ? h("span", { class: "tag bad" }, "denied") : null, e.ok === false && e.allowed !== false ? h("span", { class: "tag bad" }, "error") : null,
    e.state ? h("span", { class: "tag" }, "state " + e.state) : null];
  return h("td", { "data-seq": e.seq }, h("b", {}, (e.server === "fsm" ? "fsm." : "") + e.tool), ` seq ${e.seq} `, ...tags,
    e.args && Object.keys(e.args).length ? h("div", { class: "mono" }, JSON.stringify(e.args).slice(0, 200)) : "");
}

function comparePage([a, b]) {
  crumbs(h("a", { href: sessionHref(a.name) }, a.name), h("a", { href: sessionHref(b.name) }, b.name), a.account);
  const head = (d) => h("th", {}, h("a", { href: accountHref(d.name, d.account) }, d.name), h("div", {}, h("span", { class: "sw " + d.class }), CLASS_WORDS[d.class]));
  const out = [h("h2", {}, `Account ${a.account} under two sessions`), simulatedBanner(a.simulated || b.simulated)];
  const verdict = (d, k) => (d.clauses ? d.clauses[k] : null);
  const clauseRows = ["inv", "rec", "foc", "correct"].map((k) => {
    const x = verdict(a, k), y = verdict(b, k);
    const cell = (c) => (c ? h("td", { class: c.ok ? "ok" : "bad" }, (c.ok ? "✓ " : "✗ "), h("span", { class: "why" }, c.why)) : h("td", { class: "note" }, "no decision"));
    return h("tr", { "data-clause": k, class: x && y && x.ok !== y.ok ? "differs" : null }, h("td", {}, k), cell(x), cell(y));
  });
  const decision = (d) => h("td", {}, d.score ? `${JSON.stringify(d.score.action)} at seq ${d.score.decision_seq} (gold ${JSON.stringify(d.score.gold)})` : "no decision");
  out.push(h("table", { id: "compare-clauses", class: "compare" }, h("tr", {}, h("th", {}, "Clause"), head(a), head(b)), ...clauseRows,
    h("tr", {}, h("td", {}, "decision"), decision(a), decision(b))));
  const rows = align(ownCalls(a), ownCalls(b)).map(([x, y], i) => {
    const same = x && y && x.allowed !== false && y.allowed !== false && x.ok === y.ok;
    return h("tr", { class: same ? null : "differs", "data-i": i }, h("td", {}, i + 1), callCell(x), callCell(y));
  });
  const others = (d) => d.events.filter((e) => e.other).length;
  out.push(h("h3", {}, "The account's own calls (and the FSM's), aligned: the same tool in the same row"),
    h("p", { class: "note" }, `Rows that differ (a call on one side only, a denial, an error on one side) are marked. Calls for other accounts in between: ${others(a)} and ${others(b)}.`),
    h("table", { id: "compare-calls", class: "compare" }, h("tr", {}, h("th", {}, "#"), head(a), head(b)), ...rows));
  return out;
}
