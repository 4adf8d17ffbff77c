"""What the study makes of a task: the procedure it holds agents to (steps, record, decision),
the texts it shows them, the escape routes off it, and a trial run of a task on the simulator.

What a task *is* and *serves* (its data, tools, manifests and MCP server) is ``sopbench_tools``'.
"""
