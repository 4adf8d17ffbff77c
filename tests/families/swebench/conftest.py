"""Fixtures of the SWE-bench family's tests: docker with the local base image, and the task repo.

Tests that need docker skip where it is missing, with the one line that says what to install;
in CI (``CI`` set), where .ci/run starts docker and builds the base image, they fail instead, so
a CI run never passes by skipping them."""

from __future__ import annotations

import os

import pytest

from study.families.swebench import task_repo
from study.families.swebench.docker_env import docker_problem, harness_problem


def _need(problem: str | None) -> None:
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)


@pytest.fixture(scope="session")
def base_image() -> str:
    """The local base image's name, built first if missing (or waited for, while CI builds it)."""
    _need(docker_problem())
    from study.families.swebench import base_image as base

    return base.ensure_base_image()


@pytest.fixture(scope="session")
def swebench_task_repo(base_image, tmp_path_factory):
    """The study's task repo, written for the local base image."""
    _need(harness_problem())
    return task_repo.build_task_repo(tmp_path_factory.mktemp("task-repo"), base_image)


@pytest.fixture(scope="session")
def instance_image(swebench_task_repo) -> str:
    """The calendarkit instance's image (the repository at /testbed, FROM the local base)."""
    return task_repo.build_image(swebench_task_repo, "studyfixtures__calendarkit-12")
