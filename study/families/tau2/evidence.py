"""The τ²-bench family's ``evidence`` part: a session's verdict re-derived from its evidence
(issue 50), never read from its ``outcome`` event. ``study.session_io.verdicts`` asks it, for every
reader alike (status, audit, tables, score, view, export), and compares.

``rederive(session_dir, events, study) -> (fields | None, problems)``:

- the task is the study's frozen order's at the session's position (``session_start.seed``; the
  study's ``order`` file in ``preregistration/studies/<study>/``), never the log's task id; the
  domain is the study's; the log's ``order`` and ``domain`` must name them;
- the conversation is ``tau2_run.json``, τ²-bench's own ``SimulationRun`` of it, read as the logs
  are (``safe_files``: a regular file inside the session folder, within ``EVIDENCE_CAP``; a link,
  a FIFO, a device is never read), for the task (its ``task_id``), on the data the log says the
  session ran on (this install's ``data_sha256``), and the log's conversation: every customer text
  of the log is the trajectory's, in order, and every call the agent made through tau2 (a logged
  ``tool_call`` of server ``tau2``, admitted and successful) is the trajectory's, in order;
- the reward is tau2's evaluator's on that trajectory and task (``evaluation.evaluate``), the
  judge's verdicts of a judged task's natural-language assertions being those the file recorded
  (``RecordedJudge``: offline, no judge is asked again); the file's own recorded reward must be it;
- the turns are counted from the trajectory: the agent's (every assistant message), the harness's
  (tau2's greeting, and each assistant message that is none of the agent's logged calls: the
  controller's scope lookups before the agent's first call, its fresh tests after repairs; the
  closing ``###STOP###`` of an agent's stop is neither), the customer's device actions.

A session with no conversation to score (it never started, or a voided one: nothing was scored at
its end) gives None, and then must hold neither an outcome nor a ``tau2_run.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: τ²-bench's own record of the conversation, beside the log.
RUN_FILE = "tau2_run.json"
#: Fields an outcome may record that are not re-derived (and that no table counts): the text of
#: an orchestrator's failure.
INFORMATIONAL = ("error",)
SEND = "send_message_to_customer"
SERVER = "tau2"
AGENT_STOP = "###STOP###"


def rederive(session_dir: Path, events: list[dict[str, Any]], study: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The outcome's fields as the session's evidence gives them, or the problems that stop it."""
    from study.protocol.evidence_study import log_ends, read_family_study
    from study.session_io.vocabulary import status_voids

    from .availability import tau2_problem
    from .family import Tau2StudyError, domain_of, order_of

    session_dir = Path(session_dir)
    start, end = log_ends(events)
    read, problems = read_family_study(study, "tau2", lambda d: (domain_of(d), order_of(d)), errors=(Tau2StudyError,),
                                       whose="τ²-bench's: the session's family is not its study's", unknown="task")
    if problems:
        return None, problems
    domain, order = read
    seed = start.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 1 <= seed <= len(order):
        return None, [f"its position {seed!r} is not one of study {study}'s frozen order (1-{len(order)}), so it has "
                      "no task"]
    task_id = order[seed - 1]
    problems = []
    if start.get("order") != [task_id]:
        problems.append(f"its log names task {_short(start.get('order'))}, but position {seed} of study {study}'s frozen "
                        f"order is {task_id!r}")
    if start.get("domain") != domain:
        problems.append(f"its log names domain {start.get('domain')!r}, study {study}'s is {domain!r}")
    if problems:
        return None, problems
    run_file = session_dir / RUN_FILE
    started = any(e.get("kind") == "customer_message" for e in events)
    voided = end is not None and status_voids(end.get("status"))
    if not started or voided:
        if run_file.exists() or run_file.is_symlink():
            why = "was voided" if voided else "never started a conversation"
            return None, [f"the session {why}, so nothing was scored, yet its folder holds a {RUN_FILE}"]
        return None, []
    if (problem := tau2_problem()) is not None:
        return None, [f"its reward cannot be re-derived here: {problem}"]
    simulation, problem = _read_run(run_file, session_dir)
    if problem is not None:
        return None, [problem]
    return _score(simulation, events, start, domain, task_id)


def _read_run(run_file: Path, session_dir: Path) -> tuple[Any, str | None]:
    from study.session_io.safe_files import EVIDENCE_CAP, read_capped

    from .conversation import import_tau2

    try:
        data = read_capped(run_file, within=session_dir, max_bytes=EVIDENCE_CAP)
    except FileNotFoundError:
        return None, (f"{RUN_FILE} is missing: the conversation its outcome scores is gone, so the reward cannot be "
                      "re-derived; restore the session folder from its archive")
    except OSError as exc:
        return None, f"{RUN_FILE} is not read: {exc.strerror or exc}"
    import_tau2()
    from pydantic import ValidationError
    from tau2.data_model.simulation import SimulationRun

    try:
        return SimulationRun.model_validate_json(data), None
    except (ValidationError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"{RUN_FILE} is not τ²-bench's record of a conversation ({first})"


def _score(simulation: Any, events: list[dict[str, Any]], start: dict[str, Any], domain: str,
           task_id: str) -> tuple[dict[str, Any] | None, list[str]]:
    from .data import data_record, load_task
    from .evaluation import RecordedJudge, evaluate

    if simulation.task_id != task_id:
        return None, [f"{RUN_FILE} is the conversation of task {simulation.task_id!r}, not of the session's "
                      f"{task_id!r}"]
    record = data_record(domain)
    if start.get("data_sha256") != record["data_sha256"]:
        return None, [f"it ran on τ²-bench data {_short(start.get('data_sha256'))}, this install has "
                      f"{record['data_sha256'][:16]}…: its reward cannot be re-derived here"]
    if record["tau2_version"] != start.get("tau2_version"):
        return None, [f"it ran on tau2 {start.get('tau2_version')!r}, this install has {record['tau2_version']}: its "
                      "reward cannot be re-derived here"]
    messages = list(simulation.messages)
    problems = _same_conversation(messages, events)
    if problems:
        return None, problems
    task = load_task(domain, task_id)
    recorded = simulation.reward_info
    judge = None
    if start.get("judge_model") is not None and recorded is not None and recorded.nl_assertions:
        judge = RecordedJudge(recorded.nl_assertions)
    try:
        verdict = evaluate(simulation, task, domain, judge)
    except ValueError as exc:
        return None, [f"{RUN_FILE}'s recorded judge verdicts cannot be used: {exc}"]
    verdict.pop("reward_info", None)
    if verdict["judged"]:
        if recorded is None or abs(float(recorded.reward) - float(verdict["reward"])) > 1e-9:
            said = "no reward" if recorded is None else f"reward {recorded.reward:g}"
            return None, [f"{RUN_FILE} records {said}, but τ²-bench's evaluator re-scoring its conversation gives "
                          f"{verdict['reward']:g}: the file was changed after the run"]
    elif recorded is not None:
        return None, [f"{RUN_FILE} records reward {recorded.reward:g} for a task no judge scored"]
    reason = str(getattr(simulation.termination_reason, "value", simulation.termination_reason))
    turns = _turns(messages, events, reason)
    fields = {**verdict, **turns, "task_id": task_id, "domain": domain, "seed": simulation.seed,
              "termination_reason": reason, "tau2_version": start.get("tau2_version"),
              "data_sha256": record["data_sha256"], "customer_model": start.get("customer_model"),
              "judge_model": start.get("judge_model")}
    if reason == "agent_error" and any(e.get("kind") == "outcome" and e.get("termination_reason") == "error"
                                       for e in events):
        fields["termination_reason"] = "error"     # the orchestrator failed: the work logs it so
    return fields, []


def _role(message: Any) -> str | None:
    return getattr(message, "role", None)


def _customer_texts(messages: list[Any]) -> list[str]:
    return [m.content for m in messages if _role(m) == "user" and m.content and not m.is_tool_call()]


def _agent_calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's calls that went to tau2 (logged, admitted by the gate)."""
    return [e for e in events if e.get("kind") == "tool_call" and e.get("server") == SERVER and e.get("allowed") is True]


def _is_call(message: Any, call: dict[str, Any]) -> bool:
    """Whether the trajectory's assistant ``message`` is the logged ``call``."""
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    if call.get("tool") == SEND:
        return not message.is_tool_call() and message.content == args.get("message")
    made = message.tool_calls or []
    return len(made) == 1 and made[0].name == call.get("tool") and made[0].arguments == args


def _same_conversation(messages: list[Any], events: list[dict[str, Any]]) -> list[str]:
    """The log's conversation is the trajectory's: its customer texts, and the agent's successful
    calls, each in order (a swapped or edited tau2_run.json is another conversation)."""
    said = [e.get("text") for e in events if e.get("kind") == "customer_message"]
    texts = _customer_texts(messages)
    if said != texts:
        where = next((i for i, (a, b) in enumerate(zip(said, texts)) if a != b), min(len(said), len(texts)))
        return [f"{RUN_FILE} is not this session's conversation: the log's customer said {len(said)} thing(s), its "
                f"trajectory {len(texts)}; they part at the {where + 1}. of them"]
    assistant = [m for m in messages if _role(m) == "assistant"]
    position = 0
    for call in (c for c in _agent_calls(events) if c.get("ok") is True):
        while position < len(assistant) and not _is_call(assistant[position], call):
            position += 1
        if position == len(assistant):
            return [f"{RUN_FILE} is not this session's conversation: the agent's {call.get('tool')} at seq "
                    f"{call.get('seq')} is not in its trajectory (in order)"]
        position += 1
    return []


def _turns(messages: list[Any], events: list[dict[str, Any]], reason: str) -> dict[str, int]:
    """The turns ``Tau2Work.counts`` logs, counted from the trajectory (module docstring): every
    assistant message is an agent turn; of those after tau2's greeting, the ones the agent's logged
    calls do not account for (the most the trajectory's order allows: a longest common
    subsequence) are the controller's, but the closing stop of an agent's stop; the controller's
    before the agent's first call are its scope step's lookups."""
    assistant = [m for m in messages if _role(m) == "assistant"]
    rest = assistant[1:]
    calls = _agent_calls(events)
    if (reason == "agent_stop" and rest and not rest[-1].is_tool_call() and rest[-1].content == AGENT_STOP
            and not any(c.get("tool") == SEND and (c.get("args") or {}).get("message") == AGENT_STOP for c in calls)):
        rest = rest[:-1]      # the closing stop of an agent's stop: neither the agent's call nor the controller's
    matched = _matched(rest, calls)
    first = min(matched, default=len(rest))
    controller = len(rest) - len(matched)
    device = sum(len(m.tool_calls or []) for m in messages if _role(m) == "user")
    return {"agent_turns": len(assistant), "controller_turns": controller, "controller_lookups": first,
            "scripted_turns": controller + 1, "customer_device_actions": device}


def _matched(messages: list[Any], calls: list[dict[str, Any]]) -> set[int]:
    """The positions of ``messages`` a longest in-order matching with ``calls`` pairs with a call."""
    n, m = len(messages), len(calls)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            best[i][j] = max(best[i + 1][j], best[i][j + 1],
                             best[i + 1][j + 1] + 1 if _is_call(messages[i], calls[j]) else 0)
    out, i, j = set(), 0, 0
    while i < n and j < m:
        if _is_call(messages[i], calls[j]) and best[i][j] == best[i + 1][j + 1] + 1:
            out.add(i)
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["INFORMATIONAL", "RUN_FILE", "rederive"]
