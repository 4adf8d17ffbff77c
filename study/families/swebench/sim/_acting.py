"""The simulator's generic acting machinery, the one place this family's agents import it from
(``study.sim.workspace`` today; ``study.sim.acting`` once the family registry of issue 48 lands).
"""

from study.sim.workspace import (ContextView, EditFile, EndTurn, McpCall, Outcome, Say, Shell,  # noqa: F401
                                 WorkspaceResponder, WriteFile)
