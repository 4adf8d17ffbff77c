"""Reading one YAML file of the preregistration: a missing file or invalid YAML becomes the
reader's own error, with the file, the line and what to do in its message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .yaml_lines import YamlError, load_yaml, load_yaml_with_lines, read_yaml_text

MISSING = "{path} is missing; restore it from the repository (git checkout -- {path})"
INVALID = "{path} is not valid YAML (line {line}): {message}"


def read_yaml_file(path: Path, error: type[Exception], *, missing: str = MISSING, invalid: str = INVALID,
                   lines: bool = False) -> Any:
    """The parsed content of ``path`` (``lines``: as LineMap/LineList, which remember their lines);
    ``error`` with ``missing`` or ``invalid`` (templates with ``{path}``, ``{line}`` and
    ``{message}``) when the file is absent or not valid YAML."""
    try:
        return (load_yaml_with_lines if lines else load_yaml)(read_yaml_text(path))
    except FileNotFoundError:
        raise error(missing.format(path=path)) from None
    except YamlError as exc:
        raise error(invalid.format(path=path, line=exc.line, message=exc.message)) from None
