"""The SWE-bench family's infrastructure (the paper's Analysis 1): docker, images, the official
harness, the study's own task repo, grading, the session container, task sets, workflow, prompts.

Not yet wired into the family seam (``study/families/__init__.py``'s registry, a ``Family`` and its
``Work``): these are the self-contained parts it will use (docs/swebench.md). Nothing here imports
``swebench`` (the optional extra) at import time; :func:`docker_env.harness_problem` says in one
line how to install it, :func:`docker_env.docker_problem` what to do when docker is missing.

* ``docker_buildx_shim.py``: ``docker buildx build`` as ``docker build`` (installed by
  ``scripts/docker-up``), the one buildx call the harness makes.
* ``base_image.py``: the local base image from Debian's packages, named by its recipe's hash,
  built once per machine (``scripts/swebench-base-image``; standard library only).
* ``task_repo.py``: the study's own instances (``instances/``), made deterministically from text,
  written as the harness's task repo; the agent's workspace at the base commit.
* ``grading.py`` (with ``harness_entry.py``): a session's diff graded by the official harness on a
  fresh image: resolved, unresolved, or infrastructure failure; the logs kept for an audit.
* ``container.py``: a session's container (the instance image, the workspace at its own path, no
  network) and the shell a CLI is given so that its commands run there.
* ``selection.py``: Easy-100 and Hard-100 over SWE-bench Verified's metadata.
* ``workflow_template.yaml``, ``prompts/``, ``prompts.py``: the SWEDebug workflow and the two
  first messages (drafts).
"""
