"""Task families: what a session works on (SOP-Bench batches, a τ²-bench conversation, a workspace).
Layer 6: may import the foundations and layers 1-5 (docs/architecture.md).

Each family is a subpackage that gives the runner a ``Work`` object per session (the seam:
docs/architecture.md); families never import one another. ``tau2``: one τ²-bench conversation
per session (the paper's Analysis 2).
"""
