"""``propose_workflow_change``: the agent proposes a change to its workflow; nothing changes.

The tool takes a complete new workflow ``text`` or a list of structured ``edits``
(:mod:`study.fsm.edits`), with the ``reason`` and the ``evidence`` (the calls or denials that
prompted it). :class:`ProposalDesk` builds the complete proposed text, runs the loader's checks on
it (unreachable states, dead ends, unknown tools, ..., each with its line in the proposed text),
appends the proposal to the ledger beside the frames (:mod:`study.fsm.ledger`) and returns its id
and whether it passed. The running workflow is never touched: a person accepts a proposal with
``study fsm accept`` (:mod:`study.fsm.review_cli`), which runs :func:`build_text` and
:func:`check_text` again.

Served only where asked for: ``study fsm serve --proposals`` (stdio) and the runner's exploratory
condition FSM-propose (``proposals: true``); the other conditions' FSM tools are unchanged.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from study.protocol.yaml_lines import YamlError, load_yaml

from .edits import EditError, apply_edits
from .ledger import Ledger
from .outcomes import FsmRefusal
from .runtime import FsmRuntime
from .tool_api import FsmToolSpec
from .versions import sha256_text, utc_stamp
from .workflow import Workflow, WorkflowError

PROPOSE_TOOL = "propose_workflow_change"
#: The longest proposal (its arguments as JSON) and proposed text (characters).
MAX_TEXT = 200_000
#: How many of the frame's latest history events a proposal keeps as context.
CONTEXT_EVENTS = 5

PROPOSE_SPEC = FsmToolSpec(
    PROPOSE_TOOL,
    "Propose a change to the workflow (it does NOT change the running workflow: a person reviews it). Give either "
    "`text` (the complete new workflow YAML) or `edits` (a list of {op: add_state|alter_state|set_instructions|"
    "add_transition|alter_transition|set_guard|remove_transition|alter_workflow, ...}), the `reason`, and the "
    "`evidence` (the calls or denials that prompted it). Returns the proposal's id and whether the proposed "
    "workflow passes the checks; each problem names its line in the proposed text, so you can correct it.",
    {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "description": "Why the workflow should change"},
            "evidence": {"type": "array", "items": {"type": "string"},
                         "description": "The calls or denials that prompted the change, one per item"},
            "text": {"type": "string", "description": "The complete new workflow YAML (or give edits)"},
            "edits": {"type": "array", "items": {"type": "object"},
                      "description": "Structured edits, e.g. {op: set_instructions, state: S_x, instructions: ...}"},
            "workflow": {"type": "string", "description": "Which workflow (default: the active one)"},
        },
        "required": ["reason", "evidence"],
    },
)

#: on_event("proposal", fields) after each proposal: id, workflow, state, valid, problems, reason.
ProposalSink = Callable[[str, dict[str, Any]], None]


def build_text(current: str, change: Mapping[str, Any]) -> str:
    """The complete proposed text of ``change`` (``{"text": ...}`` or ``{"edits": [...]}``) over
    the ``current`` text; EditError if the edits cannot be applied."""
    if "edits" in change:
        return apply_edits(current, change["edits"])
    return str(change["text"])


def check_text(text: str, current: Workflow, file: str) -> list[dict[str, Any]]:
    """The problems of the proposed ``text`` as ``{line, message, source}`` ([]: it passes).
    Besides the loader's checks: the name and ``check_modules`` must stay as they are (the
    modules are compared before loading, so no module an agent named is imported)."""
    lines = text.splitlines()

    def problem(line: int | None, message: str) -> dict[str, Any]:
        source = lines[line - 1].strip() if line and 0 < line <= len(lines) else None
        return {"line": line, "message": message, "source": source}

    try:
        doc = load_yaml(text)
    except YamlError:
        doc = None  # the loader reports it, with its line
    if isinstance(doc, dict):
        if (doc.get("check_modules") or []) != list(_current_modules(current)):
            return [problem(None, "a proposal cannot change 'check_modules' (new Python checks are the maintainer's "
                                  f"to add); keep {list(_current_modules(current))}")]
    try:
        proposed = Workflow.from_text(text, file=file)
    except WorkflowError as exc:
        return [problem(p.line, p.message) for p in exc.problems]
    if proposed.name != current.name:
        return [problem(1, f"a proposal cannot rename the workflow: keep 'workflow: {current.name}'")]
    return []


def _current_modules(current: Workflow) -> tuple[str, ...]:
    try:
        doc = load_yaml(Path(current.file).read_text(encoding="utf-8"))
    except (OSError, YamlError):
        return ()
    return tuple(doc.get("check_modules") or []) if isinstance(doc, dict) else ()


def render_problems(problems: list[dict[str, Any]]) -> str:
    out = []
    for p in problems:
        where = f"line {p['line']}" if p.get("line") else "the proposal"
        source = f" ({p['source']})" if p.get("source") else ""
        out.append(f"{where}{source}: {p['message']}")
    return "\n".join(out)


class ProposalDesk:
    """Takes one agent's proposals: ``rt`` (where the agent is), ``files`` (workflow name -> its
    file, the current version), the ledger in ``frames_dir``, ``session`` (a label for the
    session the proposals come from)."""

    tool = PROPOSE_TOOL

    def __init__(self, rt: FsmRuntime, files: Mapping[str, Path], frames_dir: Path, *,
                 session: str | None = None, agent: str = "main"):
        self.rt = rt
        self.files = {name: Path(path).resolve() for name, path in files.items()}
        self.ledger = Ledger(frames_dir)
        self.session = session or f"serve-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}"
        self.agent = agent

    def propose(self, args: Any) -> dict[str, Any]:
        """Record one proposal; FsmRefusal for input that is not a proposal at all."""
        if not isinstance(args, dict):
            raise FsmRefusal("the arguments must be a JSON object with reason, evidence and text or edits")
        reason, evidence = args.get("reason"), args.get("evidence")
        if not isinstance(reason, str) or not reason.strip():
            raise FsmRefusal("argument 'reason' is required: say why the workflow should change")
        if not isinstance(evidence, list) or not evidence or not all(isinstance(e, str) and e for e in evidence):
            raise FsmRefusal("argument 'evidence' is required: a non-empty list of the calls or denials (as text) that prompted the change")
        if len(json.dumps(args, default=str)) > MAX_TEXT:
            raise FsmRefusal(f"the proposal is longer than {MAX_TEXT} characters; propose a smaller change")
        if ("text" in args) == ("edits" in args):
            raise FsmRefusal("give exactly one of 'text' (the complete new workflow) or 'edits' (a list of structured edits)")
        if "text" in args and (not isinstance(args["text"], str) or not args["text"].strip()):
            raise FsmRefusal("'text' must be the complete workflow YAML")
        name = self._workflow_name(args.get("workflow"))
        path = self.files[name]
        current_text = path.read_text(encoding="utf-8")
        current = Workflow.from_text(current_text, file=str(path))
        change = {"text": args["text"]} if "text" in args else {"edits": args["edits"]}
        try:
            text = build_text(current_text, change)
        except EditError as exc:
            text, problems = current_text, [{"line": None, "message": str(exc), "source": None}]
        else:
            if len(text) > MAX_TEXT:
                raise FsmRefusal(f"the proposed workflow would be longer than {MAX_TEXT} characters; propose a smaller change")
            problems = check_text(text, current, f"proposed {path.name}")
        frame = self._frame(name)
        with self.ledger.locked():
            record = {
                "kind": "proposal", "id": self.ledger.next_id(), "at": utc_stamp(), "session": self.session,
                "agent": self.agent, "workflow": name, "workflow_file": str(path),
                "base_sha256": sha256_text(current_text), "frame_sha256": frame.get("workflow_sha256"),
                "state": frame.get("state"), "history_length": len(frame.get("history", [])),
                "context": frame.get("history", [])[-CONTEXT_EVENTS:], "reason": reason, "evidence": evidence,
                "change": change, "text": text, "sha256": sha256_text(text), "valid": not problems, "problems": problems,
            }
            self.ledger.append(record)
        return record

    def _workflow_name(self, given: Any) -> str:
        if given is not None:
            if given not in self.files:
                raise FsmRefusal(f"unknown workflow {given!r}; proposals can be made for: {', '.join(sorted(self.files))}")
            return str(given)
        active = self.rt.status()
        if active.get("active") and active["workflow"] in self.files:
            return active["workflow"]
        if len(self.files) == 1:
            return next(iter(self.files))
        raise FsmRefusal(f"no workflow is active: name one with 'workflow' ({', '.join(sorted(self.files))})")

    def _frame(self, name: str) -> dict[str, Any]:
        """The innermost frame of workflow ``name`` ({} if none is active)."""
        return next((f for f in reversed(self.rt.frames()) if f["workflow"] == name), {})


def call_propose(desk: ProposalDesk, args: Any, on_event: ProposalSink | None = None) -> tuple[bool, str]:
    """Run the tool; (is_error, text). A proposal that fails the checks is recorded and returned
    as an error result listing its problems; input that is no proposal is refused unrecorded."""
    try:
        record = desk.propose(args)
    except (FsmRefusal, OSError, WorkflowError) as exc:
        return True, str(exc)
    if on_event is not None:
        on_event("proposal", {"id": record["id"], "workflow": record["workflow"], "state": record["state"],
                              "valid": record["valid"], "problems": len(record["problems"]), "reason": record["reason"]})
    if record["valid"]:
        return False, json.dumps({"id": record["id"], "valid": True, "problems": [],
                                  "message": f"Proposal {record['id']} recorded and passes the checks. The running workflow "
                                             "is unchanged; a person reviews it (study fsm accept/reject)."})
    return True, (f"Proposal {record['id']} recorded, but the proposed workflow fails the checks (it cannot be accepted "
                  f"as it is; propose a corrected version):\n{render_problems(record['problems'])}")
