"""Draw a workflow as a Mermaid state diagram (``study fsm show FILE``)."""

from __future__ import annotations

from .workflow import NamedCheck, ShellCheck, Workflow


def to_mermaid(wf: Workflow) -> str:
    """``stateDiagram-v2`` text: states with their permitted tools, guarded transitions, exit."""
    lines = ["stateDiagram-v2", f"    %% workflow {wf.name}"]
    for name, state in wf.states.items():
        tools = state.permissions.permitted_tools(wf.tools)
        conditional = [r.describe() for r in state.permissions.allow if r.args]
        shown = ", ".join(tools) if tools else "no tools"
        lines.append(f"    {name} : permits {shown}")
        for rule in conditional:
            lines.append(f"    {name} : only {rule}")
    lines.append(f"    [*] --> {wf.initial}")
    for (source, target), transition in wf.transitions.items():
        label = ", ".join(_check_label(c) for c in transition.hard) or "no guard"
        if transition.soft is not None:
            label += " + review"
        if transition.automatic:
            label += " (automatic, quiet)" if transition.quiet else " (automatic)"
        lines.append(f"    {source} --> {target} : {label}")
    lines.append(f"    {wf.exit} --> [*] : exit")
    for name in sorted(wf.pause):
        lines.append(f"    note right of {name} : pause state (the turn may end here)")
    return "\n".join(lines) + "\n"


def _check_label(check: NamedCheck | ShellCheck) -> str:
    if isinstance(check, NamedCheck):
        return check.name
    return "sh: " + check.command.replace(":", " ").split()[0]
