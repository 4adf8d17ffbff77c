"""The session runner: the frozen conditions, texts, limits and models table (all read from
``preregistration/``), one real Claude Code session through ``claude-agent-sdk``
(``session.run_session``), voiding, the matrix with parallel workers, and the commands
``study run``, ``study run-all`` and ``study status``.

Module map:
    conditions  re-exports study.protocol.conditions (conditions.yaml)
    texts       first message, Sys copy, reminder and the continuation message
    limits      re-exports study.protocol.limits (limits.yaml)
    spending    the spending cap: list price of the streamed usage (the model never sees it)
    models      re-exports study.protocol.models (models.yaml)
    bridge      the per-session glue between the CLI's hooks, the tools, the FSM and the log
    session     SessionSpec, prepare and run_session: one real Claude Code session
    claim       one runner per session folder (O_EXCL file + flock, stale claims of dead runners)
    interrupt   SIGINT/SIGTERM end the running session as interrupted
    driver      the I/O of one session: the calls under the watchdog, the stream, the end
    wiring      a session's set-up: tool state, simulator, FSM, session_start, the MCP servers
    ending      what happens after a call ends: the ending rules, a pure function
    ledger      the session's cost: reported, streamed, estimated
    cli_options the CLI's environment and ClaudeAgentOptions
    launcher    the CLI's launcher (own process group, dies with the runner) and its stop
    sdk         the one module that uses claude-agent-sdk's private API
    voiding     which errors void a session; keeping voided attempts
    preflight   every input checked before anything is created (seeds, model, key, URL, limits, folder)
    transcript  one copy of Claude Code's transcript per session
    status      every session's status under a folder (``study status``)
    matrix      the model x condition x seed matrix in worker processes (``study run-all``)
    matrix_plan the matrix run-all was asked for, recorded for ``study status``
    shard       ``run-all --shard K/N``: a deterministic split of the matrix
    progress    what a session has done so far, read from its growing events.jsonl
    display     the live display of run and run-all
    summary     the end-of-run summary of run-all
    cost_text   re-exports study.protocol.cost_text (how a cost is printed)
    cli         the click commands

meta.json, events.jsonl and the session folder layout are ``study.session_io``'s.
"""
