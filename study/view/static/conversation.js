// study view: the session's transcript (Claude Code's or Codex CLI's), as a conversation (study/transcripts/)
// or as the raw records, one click apart. Loaded after core.js (static/index.html).
"use strict";

const ROLE_WORDS = { user: "user", assistant: "assistant", thinking: "thinking", call: "tool call",
  "stop-block": "Stop hook blocked the stop", compaction: "compaction" };

const LONG_TEXT = 800;

function pager(page, pages, words, show) {
  return h("div", { class: "pager" },
    h("button", { disabled: page === 0, onclick: () => show(page - 1) }, "‹ earlier"),
    h("button", { disabled: page >= pages - 1, onclick: () => show(page + 1) }, "later ›"), ` page ${page + 1} of ${pages} (${words})`);
}

function cutNote(x) { return x && x.cut ? ` (${x.cut} characters, cut)` : ""; }

function turnBox(t, toRaw) {
  const raw = h("a", { href: "#", class: "raw-link", title: "the record in the raw transcript",
    onclick: (ev) => { ev.preventDefault(); toRaw(t.n); } }, `line ${t.n}`);
  // a PostToolUse hook's note after a call (Codex CLI writes it as a developer message): the harness's, not the user's
  const words = t.hook ? "note of the PostToolUse hook (the harness's, after the call; not the user's)" : ROLE_WORDS[t.role] || t.role;
  const head = h("div", { class: "head" }, words, t.role === "call" ? " " + t.tool : "",
    t.denied ? h("span", { class: "tag bad" }, "denied by a hook") : t.error ? h("span", { class: "tag bad" }, "error") : "",
    h("span", { class: "when" }, " ", t.t || "", " · "), raw);
  const body = [];
  if (t.role === "call") {
    body.push(h("details", { class: "args" }, h("summary", {}, "arguments" + cutNote(t.args) + ": " + t.args.text.slice(0, 120)), h("pre", {}, t.args.text)));
    if (t.denied) body.push(h("div", { class: "bad denial" }, "Denied: " + t.result.text));
    else if (t.result) body.push(h("details", { class: "result" }, h("summary", {}, (t.error ? "error" : "result") + cutNote(t.result) + ": " + t.result.text.slice(0, 120)), h("pre", {}, t.result.text)));
    else body.push(h("div", { class: "note" }, "no result in the transcript"));
  } else if (t.role === "thinking" || (t.role === "compaction" && t.summary)) {
    body.push(h("details", {}, h("summary", {}, (t.summary ? "the summary the CLI continued from" : "thinking") + cutNote(t)), h("pre", {}, t.text)));
  } else if (t.text.length > LONG_TEXT) {       // a long prompt or answer: its start, the rest one click away
    body.push(h("details", { class: "long" }, h("summary", {}, t.text.slice(0, 300) + " …" + cutNote(t)), h("div", { class: "text" }, t.text)));
  } else body.push(h("div", { class: "text" }, t.text, cutNote(t)));
  return h("div", { class: "turn " + (t.hook ? "hook" : t.role), "data-n": t.n, "data-role": t.hook ? "hook" : t.role }, head, ...body);
}

// the session's transcript, or (context: a number) an ended context's of a run of fresh contexts
function transcriptSection(doc, context = null) {
  const suffix = context === null ? "" : "-c" + context;
  const where = context === null ? {} : { context };
  const box = h("div", { id: "transcript" + suffix, class: "transcript" });
  const problem = (tr) => {
    if (tr.omitted) return h("p", { class: "note" }, "This bundle was written without transcripts (--no-transcripts).");
    if (tr.refused) return h("p", { class: "error", id: "transcript-refused" }, tr.refused);
    if (!tr.total) return h("p", { class: "note" }, context === null ? "This session has no transcript.jsonl." : `This session keeps no transcript of context ${context}.`);
    return null;
  };
  const fail = (err) => box.replaceChildren(h("p", { class: "error" }, String(err)));
  const raw = (page, target) => load("transcript", { session: doc.name, page, ...where }).then((tr) => {
    const p = problem(tr);
    if (p) { box.replaceChildren(p); return; }
    const pages = Math.ceil(tr.total / tr.page_size);
    box.replaceChildren(h("button", { id: "show-conversation" + suffix, onclick: () => talk(0) }, "Show as a conversation"),
      pager(page, pages, `${tr.total} lines`, (q) => raw(q, null)),
      ...tr.entries.map((e) => h("div", { class: "event" + (e.n === target ? " target" : ""), id: "raw" + suffix + "-" + e.n },
        h("div", { class: "head" }, `#${e.n} ${e.type || ""} ${e.role || ""} ${e.t || ""}`),
        ...e.blocks.map((b) => h("details", {}, h("summary", {}, b.type + (b.cut ? ` (${b.cut} characters, cut)` : "") + ": " + b.text.slice(0, 100)), h("pre", {}, b.text))))));
    const t = document.getElementById("raw" + suffix + "-" + target);
    if (t) t.scrollIntoView({ block: "center" });
  }).catch(fail);
  const toRaw = (n) => raw(Math.floor(n / doc.transcript_page), n);
  const talk = (page) => load("conversation", { session: doc.name, page, ...where }).then((cv) => {
    const p = problem(cv);
    if (p) { box.replaceChildren(p); return; }
    const pages = Math.ceil(cv.total / cv.page_size);
    box.replaceChildren(h("button", { id: "show-raw" + suffix, onclick: () => raw(0, null) }, "Show the raw records"),
      pager(page, pages, `${cv.total} turns; ${cv.other_records} bookkeeping records of the CLI not shown`, talk),
      h("div", { class: "conversation" }, ...cv.turns.map((t) => turnBox(t, toRaw))));
  }).catch(fail);
  box.append(h("button", { id: "show-transcript" + suffix, onclick: () => talk(0) },
    `Load the ${doc.runtime_label || "Claude Code"} transcript` + (context === null ? "" : ` of context ${context}`)));
  return box;
}
