"""The agent runtimes a preregistration may name, and the model API each one speaks.

A model alias of ``models.yaml`` names its runtime; a session records it in ``session_start`` and
``meta.json`` (a log that names none was written by Claude Code, the only runtime before there were
two). Only names and words live here, so that reading commands (tables, status, the viewer) can
label a model row "model on runtime" without importing an adapter; the adapters themselves are
``study.runtimes``'.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The model APIs: Anthropic's Messages API and OpenAI's Responses API.
ANTHROPIC_MESSAGES = "anthropic-messages"
OPENAI_RESPONSES = "openai-responses"


@dataclass(frozen=True)
class RuntimeName:
    """A runtime as the preregistration and the tables name it."""

    name: str           # as written in models.yaml, session_start and meta.json
    label: str          # as tables, status and the viewer show it
    api: str            # the model API its CLI speaks
    base_url_env: str   # the environment variable that points its CLI at another endpoint


CLAUDE_CODE = RuntimeName("claude-code", "Claude Code", ANTHROPIC_MESSAGES, "ANTHROPIC_BASE_URL")
CODEX = RuntimeName("codex", "Codex CLI", OPENAI_RESPONSES, "OPENAI_BASE_URL")

#: Every runtime, by name.
RUNTIMES: dict[str, RuntimeName] = {r.name: r for r in (CLAUDE_CODE, CODEX)}
#: The runtime of a session whose log names none, and of a model entry that names none.
DEFAULT_RUNTIME = CLAUDE_CODE.name


def runtime_named(name: str | None) -> RuntimeName:
    """The runtime called ``name`` (None: the default); KeyError names the known ones."""
    key = DEFAULT_RUNTIME if name is None else name
    try:
        return RUNTIMES[key]
    except KeyError:
        raise KeyError(f"unknown runtime {key!r}; the runtimes are {', '.join(RUNTIMES)}") from None


def runtime_label(name: str | None) -> str:
    """``codex`` -> ``Codex CLI``; an unknown name is shown as it is."""
    found = RUNTIMES.get(DEFAULT_RUNTIME if name is None else name)
    return found.label if found is not None else str(name)


def model_on_runtime(model: str, runtime: str | None) -> str:
    """How tables, status and the viewer name ``model``'s sessions on ``runtime``: the model's own
    name on Claude Code (the paper's runtime, as the plan names it), ``sim:oracle on Codex CLI`` or
    ``gpt-5.4-mini on Codex CLI`` on another, so each model on each runtime is a row of its own."""
    if runtime is None or runtime == DEFAULT_RUNTIME:
        return model
    return f"{model} on {runtime_label(runtime)}"
