"""SOP-Bench tasks, what a task is and serves: the vendored task folders (CC BY-NC 4.0; see
``data/SOURCE.md``), their manifests, and the tools an agent sees, served over MCP.

What the study makes of a task (its procedure, texts and escape routes) is ``study.procedure``'s.
"""
