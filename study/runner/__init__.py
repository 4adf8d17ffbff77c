"""Runtime-neutral sessions and matrices: ``study run``, ``study run-all``, ``study status``.
Layer 9: may import the foundations and layers 1-8 (docs/architecture.md).

The session runner, the same for every agent runtime: the frozen conditions, texts, limits and
models table (all read from ``preregistration/``), one session driven through the runtime adapter
of its model (``session.run_session``), voiding, the matrix with parallel workers, and the
commands ``study run``, ``study run-all`` and ``study status``. No module here knows which agent
CLI runs: that is ``study.runtimes``' (one adapter per runtime).

Module map:
    prepared    SessionSpec (what to run) and Prepared (the spec resolved against the frozen files)
    session     prepare and run_session: one session, claimed, under the signal guard
    preflight   every input checked before anything is created (seeds, model, runtime, key, URL, limits, folder)
    texts       first message, Sys copy, reminder and the continuation message
    bridge      the per-session glue between the CLI's hooks, the tools, the FSM and the log
    wiring      a session's set-up: tool state, simulator, FSM, bridge, the runtime adapter, session_start
    driver      the I/O of one session: the adapter's calls under the watchdog, what the CLI reports, the end
    ending      what happens after a call ends: the ending rules, a pure function
    spending    the spending cap: list price of the streamed usage (the model never sees it)
    ledger      the session's cost: reported, streamed, estimated
    voiding     keeping voided attempts (which errors void is the adapter's ``classify_error``)
    claim       one runner per session folder (O_EXCL file + flock, stale claims of dead runners)
    interrupt   SIGINT/SIGTERM end the running session as interrupted
    status      every session's status under a folder (``study status``)
    status_cache  what status read from each finished session, kept while its files are unchanged
    status_command  the ``study status`` command (it imports nothing of the runner)
    matrix      the model x condition x seed matrix in worker processes (``study run-all``)
    matrix_plan the matrix run-all was asked for, recorded for ``study status``
    shard       ``run-all --shard K/N``: a deterministic split of the matrix
    progress    what a session has done so far, read from its growing events.jsonl
    display     the live display of run and run-all
    summary     the end-of-run summary of run-all
    cli         the click commands

meta.json, events.jsonl and the session folder layout are ``study.session_io``'s.
"""
