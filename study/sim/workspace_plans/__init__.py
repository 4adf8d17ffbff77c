"""Scripted workspace agents for the staged protocols (docs/staged.md), and an executor for them.

The agents are policies over the workspace action vocabulary (``actions``: Shell, WriteFile,
EditFile, McpCall, Say, EndTurn; docs/simulator.md): ``autoresearch`` (an oracle and a drifter)
and ``month_end`` (an oracle and one that runs out of turns). ``executor`` runs such a policy
directly in a workspace folder, with a real FSM runtime and fresh contexts but no CLI, so the
protocols' tests run fast; the same policies drive the real CLIs through the simulator.
"""
