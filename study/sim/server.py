"""The simulator: a model API server on 127.0.0.1 that plays a scripted model, for either runtime.

``SimServer(policy, seed, truth_path, api=..., **options)`` serves, on a free port of 127.0.0.1,
the Anthropic Messages API (``POST /v1/messages``, for Claude Code: streaming server-sent events,
or one JSON body when the request does not stream) or the OpenAI Responses API (``POST
/v1/responses``, for Codex CLI: streaming events, ``responses.py``). Point the real Claude Code CLI
at it with ``ANTHROPIC_BASE_URL`` (``cli_env()`` gives the whole environment), Codex CLI with a
model provider whose ``base_url`` is ``base_url_for("openai-responses")``. The same policy and
ground truth serve both: each API's conversation is read into the same events
(``conversation.py``, ``responses_conversation.py``). Each Messages API request is one of three
kinds:

* the CLI's **compaction request** (its last user message asks for a detailed summary): the
  model answers ``<summary>`` holding its memory, so it can go on after the compaction;
* a **main-loop request** (beta header ``claude-code-20250219``, or tools offered): the policy
  reads the conversation (``conversation.read_conversation`` -> ``memory.remember``) and answers with
  text and/or one tool call (or, for a scripted policy, an API error, or an answer after a
  delay); the ledger notes what ran and writes the ground truth;
* any other **side request** (e.g. a title): a short text.

Every response carries its own message id and token usage (input and cached-input tokens
estimated from the request, output tokens from the answer), so the CLI's cost accounting works;
the CLI prices by the request's model id (``claude-haiku-4-5`` prices as Claude Haiku 4.5).
Forced compactions and faults are configured with :class:`study.sim.faults.ForcedEvents`.

A Responses API request is Codex's compaction request (no tools; its last input asks for a
checkpoint summary: answered with the model's memory as above) or a main-loop request. Codex
compacts on its own when the reported ``total_tokens`` reach about 90% of its configured context
window (the runner sets it to this server's ``context_window`` for simulated sessions), so a
forced compaction is a response whose reported usage fills the window; a request beyond the window
is answered as the Responses API does (HTTP 400 ``context_length_exceeded``), which Codex does
not compact from: the turn fails, a model outcome.

Usage::

    with SimServer("oracle", seed=1, truth_path=session_dir / "sim_truth.jsonl") as sim:
        env = sim.cli_env()      # ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ...
        ...run claude-agent-sdk query() with options.env = {**env, ...}
"""

from __future__ import annotations

import json
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .conversation import is_compaction_request, read_conversation, tool_names
from .faults import (AUTO_COMPACT_WINDOW, PROMPT_TOO_LONG, QUOTA_MESSAGE, SERVER_ERROR_MESSAGE,
                     USAGE_COMPACT_INPUT, ForcedEvents)
from .memory import remember, summary_text
from .policies import Policy, make_policy
from .responses import output_items
from .responses_conversation import is_compaction_request as is_codex_compaction, read_input, results as codex_results, tool_names as codex_tool_names
from .http import DEFAULT_MODEL_ID, Answer, Handler
from .protocol import CHARS_PER_TOKEN, IdMaker, Reply, Usage, content_blocks, estimate_tokens
from .truth import Ledger

__all__ = ["CONTEXT_WINDOW", "DEFAULT_MODEL_ID", "MAIN_LOOP_BETA", "POLL_S", "SimServer"]

MAIN_LOOP_BETA = "claude-code-20250219"
#: Prompts longer than this (estimated tokens) are refused as "prompt is too long", as the real
#: API refuses prompts beyond a model's window, so long simulated sessions compact as real ones
#: do. Smaller than Haiku's 200k so that a full 200-account session's list-price cost (about $15
#: with compactions every ~30 accounts; $24.6 at 200k) stays well under the $25 spending cap.
CONTEXT_WINDOW = 120_000
#: Seconds between the server thread's checks for a shutdown (how long ``stop`` waits at most).
POLL_S = 0.02


class SimServer:
    """A scripted model server for one session. A context manager; ``base_url`` once started.

    ``policy``: a policy name (``study.sim.policies.POLICIES``) or a policy object
    (``study.sim.policies.Policy``: ``reply(memory, tools)``, optionally ``see_request(body)``;
    or a ``study.sim.policies.Responder``: ``respond(api, body)``, which reads every request but a
    compaction itself: another family's scripted model, whose conversation is not a SOP batch);
    ``seed``: the policy's seed; ``truth_path``: where to write ``sim_truth.jsonl`` (None: no
    file). Options: ``compact_after``, ``compact_mode``, ``fault``, ``fault_at`` (see
    ``faults.py``), ``context_window`` (estimated prompt tokens above which a request is refused
    as too long, default 120,000), ``request_log`` (a path: every request body is appended as JSON, for
    debugging), ``port`` (0 = a free one), ``task`` (the name of the task played; None: the referral
    study, ``study.sim.task_view``); any other keyword is a policy parameter (``k`` for
    early-stop, ``group`` for group routes, ``p_max`` for drifting).
    """

    def __init__(self, policy: str | Policy, seed: int = 0, truth_path: Path | None = None, *,
                 compact_after: int | None = None, compact_mode: str = "http400",
                 fault: str | None = None, fault_at: int = 1,
                 context_window: int = CONTEXT_WINDOW, request_log: Path | None = None, port: int = 0,
                 task: str | None = None, api: str = "anthropic-messages", **policy_params: Any):
        from study.paths import project_root

        from .task_view import sim_task

        #: the model API the runtime's CLI speaks (``anthropic-messages`` or ``openai-responses``)
        self.api = api
        self.policy: Policy = make_policy(policy, seed, **policy_params) if isinstance(policy, str) else policy
        #: the task the model plays (``task``: its name; None: the referral study)
        self.task = sim_task(task, str(project_root()))
        self.forced = ForcedEvents(compact_after, compact_mode, fault, fault_at)
        self.ledger = Ledger(truth_path, self.task)
        self.context_window = int(context_window)
        self.request_log = Path(request_log) if request_log else None
        self._ids = IdMaker(format(seed % 1000, "03d"))
        self._lock = threading.Lock()
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.requests = 0  # every POST
        self.main_requests = 0  # main-loop requests
        self.compactions_forced = 0
        self.summaries = 0  # compaction requests answered
        self.busy_s = 0.0  # time spent answering (reading the conversation, the policy, bookkeeping)

    # ----- life cycle --------------------------------------------------------------------------

    def start(self) -> SimServer:
        handler = type("SimHandler", (Handler,), {"sim": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        self._httpd.daemon_threads = True
        # serve_forever notices shutdown() once per poll interval: at the default 0.5 s every session
        # on the simulator ended about 0.4 s later than it had to (a fifth of a small test session)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": POLL_S},
                                        name="sim-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; the truth file gets a last line with the server's own counts."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
            self.ledger.write("server", requests=self.requests, main_requests=self.main_requests,
                              busy_s=round(self.busy_s, 3))

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the simulator is not running: use `with SimServer(...) as sim:` or call start()")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_url_for(self, api: str | None = None) -> str:
        """The base URL a CLI speaking ``api`` is given: the server's own for the Messages API
        (the CLI appends ``/v1/messages``), with ``/v1`` for the Responses API (the CLI appends
        ``/responses``)."""
        return self.base_url if (api or self.api) == "anthropic-messages" else f"{self.base_url}/v1"

    def cli_env(self) -> dict[str, str]:
        """The environment that points the Claude Code CLI at this server (no real key needed)."""
        env = {
            "ANTHROPIC_BASE_URL": self.base_url,
            "ANTHROPIC_API_KEY": "sim-no-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        if self.forced.compact_after is not None and self.forced.compact_mode == "usage":
            env["CLAUDE_CODE_AUTO_COMPACT_WINDOW"] = str(AUTO_COMPACT_WINDOW)
        return env

    # ----- answering ---------------------------------------------------------------------------

    def answer(self, body: dict, headers: dict[str, str], size: int | None = None) -> Answer:
        """The answer to one ``POST /v1/messages`` (thread-safe: one request at a time).
        ``size``: the request's length in bytes, if known (saves estimating the prompt's tokens)."""
        with self._lock:
            started = time.perf_counter()
            try:
                return self._answer(body, headers, size)
            finally:
                self.busy_s += time.perf_counter() - started

    def answer_responses(self, body: dict, size: int | None = None) -> Answer:
        """The answer to one ``POST /v1/responses`` (Codex CLI; thread-safe like ``answer``)."""
        with self._lock:
            started = time.perf_counter()
            try:
                return self._answer_responses(body, size)
            finally:
                self.busy_s += time.perf_counter() - started

    def _answer_responses(self, body: dict, size: int | None) -> Answer:
        self.requests += 1
        if self.request_log is not None:
            with open(self.request_log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"n": self.requests, "api": "responses", "body": body}) + "\n")
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        task = self.task
        if self._responds and not is_codex_compaction(body):
            return self._respond("openai-responses", body, size)
        if is_codex_compaction(body) and self._summarizes:
            self.summaries += 1
            return self._reply_responses(Reply(text=self.policy.summarize("openai-responses", body)), body, size)
        if is_codex_compaction(body):
            self.summaries += 1
            self.ledger.observe_results(codex_results(items))
            self.ledger.write("compaction", decided=len(self.ledger.decided), summary_request=self.summaries)
            memory = remember(read_input(items, task.item_arg, task.proc), task)
            return self._reply_responses(Reply(text=summary_text(memory)), body, size)
        self.main_requests += 1
        fault = self.forced.fault_now(self.main_requests)
        if fault is not None:
            self.ledger.write("fault", fault=fault, main_request=self.main_requests)
            if fault == "http500":
                return Answer(status=500, error=SERVER_ERROR_MESSAGE)
            if fault == "quota":
                return Answer(status=429, error=QUOTA_MESSAGE, error_type="insufficient_quota", code="insufficient_quota")
            return Answer(drop=True)
        self.ledger.observe_results(codex_results(items))
        prompt_tokens = self._prompt_tokens(body, size)
        if prompt_tokens > self.context_window:
            self.ledger.write("context_full", prompt_tokens=prompt_tokens, decided=len(self.ledger.decided))
            return Answer(status=400, error=f"Your input exceeds the context window of this model "
                                             f"({prompt_tokens} tokens > {self.context_window}).",
                           code="context_length_exceeded")
        compact_now = (self.forced.compact_after is not None and self.compactions_forced == 0
                       and len(self.ledger.decided) >= self.forced.compact_after)
        if compact_now:   # a response whose reported usage fills the window: Codex compacts before its next request
            self.compactions_forced += 1
            self.ledger.write("forced_compaction", mode="usage", decided=len(self.ledger.decided))
        see_request = getattr(self.policy, "see_request", None)
        if see_request is not None:
            see_request(body)
        memory = remember(read_input(items, task.item_arg, task.proc), task)
        reply = self.policy.reply(memory, codex_tool_names(body))
        if reply.error is not None:
            return Answer(status=reply.error.status, error=reply.error.message, error_type=reply.error.type,
                           delay_s=reply.delay_s)
        answer = self._reply_responses(reply, body, size, fill=compact_now)
        if reply.text:
            self.ledger.said(reply.text)
        if not reply.tool_uses:
            self.ledger.turn_ended(reply.text)
        return answer

    def _reply_responses(self, reply: Reply, body: dict, size: int | None, fill: bool = False) -> Answer:
        """The reply's output items (each call with its id, noted in the ledger) and its usage: the
        prompt's estimated tokens, of which all but the last input item count as cached; with
        ``fill`` the reported prompt fills the context window (a forced compaction)."""
        items = output_items(reply, self._ids, self.requests)
        self.ledger.asked_calls([(i["call_id"], f"{i['namespace']}__{i['name']}" if i.get("namespace") else i["name"],
                                  json.loads(i["arguments"])) for i in items if i["type"] == "function_call"])
        total = self._prompt_tokens(body, size)
        inputs = body.get("input") or []
        new = estimate_tokens(inputs[-1:]) if inputs else 1
        if fill:
            new, total = self.context_window, self.context_window
        usage = reply.usage or Usage(input_tokens=min(new, total), output_tokens=estimate_tokens(items),
                                     cache_read_input_tokens=max(0, total - new))
        return Answer(reply=reply, blocks=items, usage=usage, delay_s=reply.delay_s)

    def _answer(self, body: dict, headers: dict[str, str], size: int | None) -> Answer:
        self.requests += 1
        if self.request_log is not None:
            with open(self.request_log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"n": self.requests, "beta": headers.get("anthropic-beta", ""), "body": body}) + "\n")
        messages = body.get("messages") or []
        if self._responds and not is_compaction_request(body):
            return self._respond("anthropic-messages", body, size)
        if is_compaction_request(body) and self._summarizes:
            self.summaries += 1
            return self._reply(Reply(text=self.policy.summarize("anthropic-messages", body)), body, size)
        if is_compaction_request(body):
            self.summaries += 1
            self.ledger.observe(messages)
            self.ledger.write("compaction", decided=len(self.ledger.decided), summary_request=self.summaries)
            return self._reply(Reply(text=summary_text(remember(read_conversation(messages, self.task.item_arg, self.task.proc), self.task))), body, size)
        if MAIN_LOOP_BETA not in headers.get("anthropic-beta", "") and not body.get("tools"):
            return self._reply(Reply(text="Simulated batch session"), body, size)
        return self._main_loop(body, messages, size)

    def _main_loop(self, body: dict, messages: list[dict], size: int | None) -> Answer:
        self.main_requests += 1
        fault = self.forced.fault_now(self.main_requests)
        if fault is not None:
            self.ledger.write("fault", fault=fault, main_request=self.main_requests)
            if fault == "http500":
                return Answer(status=500, error=SERVER_ERROR_MESSAGE)
            if fault == "quota":
                return Answer(status=429, error=QUOTA_MESSAGE)
            return Answer(drop=True)
        self.ledger.observe(messages)
        prompt_tokens = self._prompt_tokens(body, size)
        if prompt_tokens > self.context_window:
            # what the real API does: the CLI then compacts and sends the request again
            self.ledger.write("context_full", prompt_tokens=prompt_tokens, decided=len(self.ledger.decided))
            return Answer(status=400, error=f"prompt is too long: {prompt_tokens} tokens > {self.context_window} maximum")
        compact_now = (self.forced.compact_after is not None and self.compactions_forced == 0
                       and len(self.ledger.decided) >= self.forced.compact_after)
        if compact_now:
            self.compactions_forced += 1
            self.ledger.write("forced_compaction", mode=self.forced.compact_mode, decided=len(self.ledger.decided))
            if self.forced.compact_mode == "http400":
                return Answer(status=400, error=PROMPT_TOO_LONG)
        see_request = getattr(self.policy, "see_request", None)
        if see_request is not None:
            see_request(body)
        reply = self.policy.reply(remember(read_conversation(messages, self.task.item_arg, self.task.proc), self.task), tool_names(body))
        if reply.error is not None:
            return Answer(status=reply.error.status, error=reply.error.message, error_type=reply.error.type,
                           delay_s=reply.delay_s)
        answer = self._reply(reply, body, size, input_tokens=USAGE_COMPACT_INPUT if compact_now else None)
        if reply.text:
            self.ledger.said(reply.text)
        if not reply.tool_uses:
            self.ledger.turn_ended(reply.text)
        return answer

    @property
    def _responds(self) -> bool:
        """The policy answers raw requests itself (``Responder``): another family's scripted model."""
        return callable(getattr(self.policy, "respond", None))

    @property
    def _summarizes(self) -> bool:
        """A ``Responder`` that writes its own compaction summary (``summarize(api, body) -> str``)."""
        return self._responds and callable(getattr(self.policy, "summarize", None))

    def _respond(self, api: str, body: dict, size: int | None) -> Answer:
        """A ``Responder`` policy's answer to any request but a compaction: it reads the request
        itself (its own family's conversation), the server only puts its reply on the wire."""
        self.main_requests += 1
        reply = self.policy.respond(api, body)
        if reply.error is not None:
            return Answer(status=reply.error.status, error=reply.error.message, error_type=reply.error.type,
                           delay_s=reply.delay_s)
        if api == "openai-responses":
            return self._reply_responses(reply, body, size)
        return self._reply(reply, body, size)

    @staticmethod
    def _prompt_tokens(body: dict, size: int | None) -> int:
        """The prompt's estimated tokens (from the request's size when the handler knows it)."""
        if size is not None:
            return max(1, size // CHARS_PER_TOKEN)
        return estimate_tokens([body.get("system"), body.get("tools"), body.get("messages")])

    def _reply(self, reply: Reply, body: dict, size: int | None, input_tokens: int | None = None) -> Answer:
        """Give the reply's tool calls their ids, note them in the ledger and add usage."""
        blocks = content_blocks(reply, self._ids)
        self.ledger.asked(blocks)
        messages = body.get("messages") or []
        total = self._prompt_tokens(body, size)
        new = estimate_tokens(messages[-1:]) if messages else 1
        if input_tokens is not None:
            new, total = input_tokens, input_tokens
        usage = reply.usage or Usage(input_tokens=min(new, total), output_tokens=estimate_tokens(blocks),
                                     cache_read_input_tokens=max(0, total - new))
        return Answer(reply=reply, blocks=blocks, usage=usage, delay_s=reply.delay_s)
