"""The SWE-bench family (the paper's Analysis 1): one SWE-bench instance per session, the agent's
commands in the instance's container, its final patch graded by the official harness.

Nothing here is imported at import time: the readers and the runner ask for the family's parts
by their modules (docs/swebench.md), and nothing imports ``swebench`` (the optional extra) until
it grades; :func:`docker_env.harness_problem` says in one line how to install it,
:func:`docker_env.docker_problem` what to do when docker is missing. The parts, by role:

* ``family.py``: ``FAMILY``, what the runner asks (a study's sessions, each one's ``Work``);
* ``reading.py``, ``tables.py`` (Tables 3 and 9), ``evidence.py`` (the verdict re-derived), ``sim/``
  (the simulated agents), ``cli.py`` (``study swebench build``) with ``scaffold.py``;
* ``sources.py`` (the package's own instances or SWE-bench Verified), ``verified.py`` and ``data/``
  (Verified's vendored metadata), ``measures.py`` (the graded patch, the process measures),
  ``selection.py`` (Easy-100 and Hard-100);
* the infrastructure: ``docker_buildx_shim.py``, ``base_image.py``, ``task_repo.py`` and
  ``instances/``, ``grading.py`` with ``harness_entry.py``, ``container.py``, ``docker_env.py``;
  ``workflow.yaml`` and ``prompts/`` (SWEDebug and the two first messages, which the studies copy).
"""
