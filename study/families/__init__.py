"""Task families beside SOP-Bench: what each gives an agent to do and how its work is scored.
Layer 4: may import the foundations and layers 1-3 (docs/architecture.md).

One subpackage per family; families never import each other. ``workspace``: the agent works in a
git workspace with the CLI's own tools, over one or several fresh contexts (the staged protocols
of the paper's Analysis 3: ``workspace.autoresearch``, ``workspace.month_end_close``;
docs/staged.md).
"""
