"""A researcher's own study project: ``study new``, ``study task list/check``, a task's trial run.
Layer 10: may import the foundations and layers 1-9 (docs/architecture.md).

``study new --task T DIR`` makes one, ready to be frozen (``new.py``); ``study task list|check``
says which tasks it can study and checks one (``task_cli.py``), with a trial session of the
simulator's oracle in a scratch project (``trial.py``).
"""
