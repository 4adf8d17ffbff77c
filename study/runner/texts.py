"""The SOP-Bench family's frozen texts, where the runner's callers have always found them.

They are the family's (``study.families.sopbench.texts``): the runner itself asks a session's
``Work`` for its texts, whichever family it is.
"""

from study.families.sopbench.texts import (GENERATED, continuation_message, first_message, read_text, reminder_text,
                                           system_prompt_append)

__all__ = ["GENERATED", "continuation_message", "first_message", "read_text", "reminder_text", "system_prompt_append"]
