"""The frozen texts of ``preregistration/texts/``: where they are, and filling a template's
placeholders.

What the runner fills in (``study.runner.texts``: the first message, the Sys copy, the reminder,
the continuation message) and what an amendment of a text is checked against
(``study.prereg.amend_checks``: a template keeps its placeholders) are both this one ``fill``.
Placeholders are ``{name}``; only the names a template is known to use are replaced, so braces
in the SOP itself (``{enforcement_action}``) are left as they are.
"""

from __future__ import annotations

from pathlib import Path

from study.errors import StudyError
from study.paths import prereg_dir


class TextError(StudyError, ValueError):
    """A frozen text is missing or does not have the placeholders it must have."""


def texts_dir() -> Path:
    return prereg_dir() / "texts"


def fill(template: str, name: str, **values: str) -> str:
    """Replace each ``{key}`` of ``values`` in ``template``; every key must occur in it."""
    for key in values:
        if "{" + key + "}" not in template:
            raise TextError(f"frozen text {texts_dir() / name} lacks the placeholder {{{key}}}")
    # The SOP goes in last so that nothing inside it is ever taken for a placeholder.
    for key in sorted(values, key=lambda k: k == "sop"):
        template = template.replace("{" + key + "}", values[key])
    return template
