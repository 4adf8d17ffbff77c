// study view: routing of the address (#...) to a page. Loaded after core.js (static/index.html); see core.js for the rules.
"use strict";

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
  } else if (parts[0] === "c" && parts[1] && parts[2] && parts[3]) {
    job = Promise.all([load("account", { session: parts[1], account: parts[3] }), load("account", { session: parts[2], account: parts[3] })]).then(comparePage);
  } else job = load("matrix").then(matrixPage);
  job.then((nodes) => {
    main.replaceChildren(...[nodes].flat().filter(Boolean));
    document.body.dataset.page = parts[0] === "c" ? "compare" : parts[0] === "s" ? (parts[2] === "a" ? "account" : "session") : "matrix";
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

