"""What the study makes of a task: the procedure it holds agents to (steps, record, decision),
the texts it shows them and the escape routes off it.

What a task *is* and *serves* (its data, tools, manifests and MCP server) is ``sopbench_tools``'.
"""
