"""What the study makes of a task: its procedure, the texts the agent sees, the escape routes.
Layer 4: may import the foundations and layers 1-3 (docs/architecture.md).

The procedure it holds agents to (steps, record, decision) is ``core``, the texts it shows them
``texts``, the escape routes off it ``escape_routes``.

What a task *is* and *serves* (its data, tools, manifests and MCP server) is ``sopbench_tools``'.
"""
