"""``python -m sopbench_tools [--task T] [--seed N] [--accounts N] [--state-dir DIR]``: the MCP server over
stdio, the same as ``study tools serve``."""

from .cli import serve

if __name__ == "__main__":
    serve(prog_name="python -m sopbench_tools")
