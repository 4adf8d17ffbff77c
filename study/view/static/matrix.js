// study view: the matrix page (#/): every session as a row in the plan's order (model, condition,
// seed), sortable by any column, filtered by words; the per-condition means with the tables' 95%
// CIs; served, it refreshes itself while sessions run. Sessions of more than one task get a Task
// column in both tables, grouped by task (the documents' order). Loaded after core.js (static/index.html).
"use strict";

const REFRESH_MS = 5000;
// column: [header, sort key of a row (null: not sortable)]
const TASK_COLUMN = ["Task", (r) => r.order];
// another task family's session (r.family other than "sopbench") shows its family's verdict in the
// FC column and its units (the task, each ledger row, each period) in the strip's place
const isFamily = (r) => r.family && r.family !== "sopbench";
const COLUMNS = [["Model", (r) => r.order], ["Condition", (r) => r.order], ["Seed", (r) => r.seed], ["Status", (r) => r.status],
  ["FC", (r) => (isFamily(r) ? r.verdict : r.fc)], ["Compliance", (r) => r.compliance], ["Decided", (r) => r.decided], ["Cost", (r) => r.cost_usd],
  ["Marks", null], ["Figure 1: accounts in batch order", null]];

function compareValues(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;          // missing values last, either way
  if (b === null || b === undefined) return -1;
  return typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));
}

function ci(x, fmt) { return x ? ` [${fmt(x[0])}, ${fmt(x[1])}]` : ""; }
const num = (x) => (x === null || x === undefined ? "–" : x.toFixed(2));

// the task column is shown when the sessions are of more than one task
const severalTasks = (doc) => (doc.tasks || []).length > 1;

function groupsTable(doc) {
  const task = severalTasks(doc);
  const family = doc.groups.some((g) => g.verdicts !== undefined);
  return h("table", { id: "groups" }, h("tr", {}, ...[...(task ? ["Task"] : []), "Model", "Condition", "Sessions", "Scored",
    "FC (mean [95% CI])" + (family ? " / the family's verdicts" : ""), "Compliance (mean [95% CI])"].map((x) => h("th", {}, x))),
    ...doc.groups.map((g) => h("tr", { "data-group": (task ? g.task + " " : "") + g.model + " " + g.condition }, ...(task ? [h("td", { class: "task" }, g.task)] : []),
      h("td", {}, g.model, g.simulated ? h("span", { class: "mark simulated" }, "SIMULATED") : ""),
      h("td", {}, g.condition), h("td", {}, g.sessions), h("td", {}, g.scored),
      ...(g.verdicts !== undefined ? [h("td", { colspan: 2, class: "verdicts" }, g.verdicts)]
        : [h("td", {}, num(g.fc_mean) + ci(g.fc_ci, num)), h("td", {}, pct(g.compliance_mean) + ci(g.compliance_ci, pct))]))));
}

// a family session's units (its task; each ledger row; each period), each cell titled with its verdict
function cells(list, title) {
  return h("div", { class: "sliver cells" + (list.length <= 60 ? " ruled" : ""), title },
    ...list.map((c) => h("span", { class: "cell-" + c.class, title: c.title })));
}

// each class in every family's words (its view.js's legend, in the order the families' scripts load)
function familyLegend() {
  const words = (c) => Object.values(FAMILY_PAGES).filter((p) => p.legend).map((p) => p.legend[c]).join(", ");
  return h("div", { class: "legend", id: "family-legend" }, "Other task families: ",
    ...["pass", "fail", "none"].map((c) => [h("span", { class: "sw cell-" + c }), words(c)]));
}

function matrixRow(r, task) {
  const attempts = r.attempts.length ? h("div", { class: "attempts" }, "earlier: ",
    ...r.attempts.map((a) => [h("a", { href: sessionHref(a), onclick: (ev) => ev.stopPropagation() }, a.split("/").pop()), " "])) : "";
  const tr = h("tr", { "data-name": r.name, onclick: () => { location.hash = sessionHref(r.name); } },
    ...(task ? [h("td", { class: "task" }, r.task)] : []), h("td", {}, h("a", { href: sessionHref(r.name) }, r.model)), h("td", {}, r.condition), h("td", {}, r.seed),
    h("td", {}, r.status, attempts), h("td", { class: "fc-cell" }, isFamily(r) ? h("span", { class: "verdict " + r.verdict_class, title: r.study + ": the family's verdict" }, r.verdict) : r.fc ?? "–"),
    h("td", {}, pct(r.compliance)),
    h("td", {}, r.decided === null ? "–" : `${r.decided}/${r.accounts}`), h("td", {}, r.cost),
    h("td", {}, marks(r)), h("td", {}, isFamily(r) ? cells(r.cells, r.name) : sliver(r.sliver, r.name)));
  tr.dataset.text = [r.name, r.task, r.model, r.condition, "seed " + r.seed, r.status, r.verdict || "", r.simulated ? "simulated" : "",
    r.voided ? "voided" : "", r.exploratory ? "exploratory" : ""].join(" ").toLowerCase();
  tr.row = r;
  return tr;
}

function matrixPage(doc) {
  crumbs();
  const sort = { column: null, down: false };
  const task = severalTasks(doc);
  const columns = task ? [TASK_COLUMN, ...COLUMNS] : COLUMNS;
  const rows = doc.sessions.map((r) => matrixRow(r, task));
  const body = h("tbody", {}, ...rows);
  const count = h("span", { id: "count" }, `${rows.length} sessions`);
  const filter = h("input", { id: "filter", type: "search", placeholder: (task ? "filter: task, " : "filter: ") + "model, condition, seed, status, simulated, voided…" });
  const apply = () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const tr of rows) {
      const hit = words.every((w) => tr.dataset.text.includes(w));
      tr.classList.toggle("hidden", !hit);
      shown += hit;
    }
    count.textContent = words.length ? `${shown} of ${rows.length} sessions` : `${rows.length} sessions`;
  };
  filter.addEventListener("input", apply);
  const family = doc.sessions.some(isFamily);
  const shown = (label) => (family && label === "FC" ? "FC / verdict" : family && label.startsWith("Figure 1") ? "Figure 1 / the family's units" : label);
  const heads = columns.map(([label, key], i) => h("th", key ? { class: "sortable", "data-column": label,
    title: "sort by " + label.toLowerCase() + " (again: reverse)", onclick: () => sortBy(i) } : {}, shown(label)));
  function sortBy(i) {
    sort.down = sort.column === i ? !sort.down : false;
    sort.column = i;
    const key = columns[i][1];
    const sorted = [...rows].sort((a, b) => (sort.down ? -1 : 1) * compareValues(key(a.row), key(b.row)) || a.row.order - b.row.order);
    body.replaceChildren(...sorted);
    heads.forEach((th, j) => th.setAttribute("aria-sort", j === i ? (sort.down ? "descending" : "ascending") : "none"));
  }
  const out = [h("h2", {}, "Sessions"), simulatedBanner(doc.simulated), h("p", { class: "note" }, doc.root, task ? ` · ${doc.tasks.length} tasks; rows by task, then in the plan's order (model, condition, seed); click a column to sort` : " · rows in the plan's order (model, condition, seed); click a column to sort"),
    filter, " ", count, legend(), doc.sessions.some(isFamily) ? familyLegend() : "",
    h("table", { id: "matrix" }, h("thead", {}, h("tr", {}, ...heads)), body),
    h("h3", {}, (task ? "Per task and condition" : "Per condition") + ": mean with the tables' percentile bootstrap 95% CI (10,000 resamples) over the scored, unvoided sessions"), groupsTable(doc)];
  if (MODE === "server" && doc.running) {
    out.splice(2, 0, h("p", { class: "note", id: "refreshing" }, `${doc.running} session(s) running: this page refreshes every ${REFRESH_MS / 1000} s.`));
    refreshLater(() => load("matrix").then((next) => {
      if (JSON.stringify(next) === JSON.stringify(doc)) return false;
      const keep = { filter: filter.value, sort: { ...sort } };
      const nodes = matrixPage(next);
      document.getElementById("main").replaceChildren(...nodes.filter(Boolean));
      const f = document.getElementById("filter");
      f.value = keep.filter;
      f.dispatchEvent(new Event("input"));
      if (keep.sort.column !== null) {
        const th = document.querySelectorAll("#matrix th")[keep.sort.column];
        th.click();
        if (keep.sort.down) th.click();
      }
      return true;
    }));
  }
  return out;
}

// Run ``job`` every REFRESH_MS while the page stays where it is; it says whether it redrew
// (a redraw schedules its own next refresh).
function refreshLater(job) {
  const where = location.hash;
  const tick = () => {
    if (location.hash !== where) return;
    job().then((redrawn) => { if (!redrawn) setTimeout(tick, REFRESH_MS); }).catch(() => setTimeout(tick, REFRESH_MS));
  };
  setTimeout(tick, REFRESH_MS);
}
