"""Reading one YAML file of the preregistration: a missing file or invalid YAML becomes the
reader's own error, with the file, the line and what to do in its message."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .yaml_lines import YamlError, load_yaml, load_yaml_with_lines, read_yaml_text

MISSING = "{path} is missing; restore it from the repository (git checkout -- {path})"
INVALID = "{path} is not valid YAML (line {line}): {message}"

#: Parsed documents by their text (and whether their lines are kept). A run-all's preflight and
#: dry run read the same few files of the preregistration once per session and condition (2,400
#: parses for a 200-session matrix); the file is still read every time, so a change is always
#: seen, and each caller gets its own copy. Only what parsed is kept; at most ``_PARSED_MAX``.
_PARSED: dict[tuple[bool, str], Any] = {}
_PARSED_MAX = 64


def read_yaml_file(path: Path, error: type[Exception], *, missing: str = MISSING, invalid: str = INVALID,
                   lines: bool = False) -> Any:
    """The parsed content of ``path`` (``lines``: as LineMap/LineList, which remember their lines);
    ``error`` with ``missing`` or ``invalid`` (templates with ``{path}``, ``{line}`` and
    ``{message}``) when the file is absent or not valid YAML."""
    try:
        text = read_yaml_text(path)
        key = (lines, text)
        if key not in _PARSED:
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()
            _PARSED[key] = (load_yaml_with_lines if lines else load_yaml)(text)
        return copy.deepcopy(_PARSED[key])
    except FileNotFoundError:
        raise error(missing.format(path=path)) from None
    except YamlError as exc:
        raise error(invalid.format(path=path, line=exc.line, message=exc.message)) from None
