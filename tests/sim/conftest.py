"""Shared fixtures of the simulator tests: conversations in the exact shape the CLI sends them.

The shapes were recorded from Claude Code 2.1.332 on this machine (see study/sim/conversation.py).
"""

from __future__ import annotations

import json

import pytest

TOKENS_NOTE = "<system-reminder>\n<total_tokens>14998950 tokens left</total_tokens>\n</system-reminder>"


def assistant(*blocks):
    return {"role": "assistant", "content": list(blocks)}


def text(t):
    return {"type": "text", "text": t}


def use(id_, name, **args):
    return {"type": "tool_use", "id": id_, "name": name, "input": args}


def ok_result(id_, payload, *extras):
    content = [text(json.dumps(payload) + "\n")] + [text(e) for e in extras] + [text(TOKENS_NOTE)]
    return {"role": "user", "content": [{"tool_use_id": id_, "type": "tool_result", "content": content}]}


def error_result(id_, message):
    return {"role": "user", "content": [{"type": "tool_result", "content": f"{message}\n\n{TOKENS_NOTE}",
                                         "is_error": True, "tool_use_id": id_}]}


def user_text(t):
    return {"role": "user", "content": [text("<system-reminder>\nToday's date is 2026-11-30.\n</system-reminder>\n"), text(t)]}


def stop_feedback(reason):
    return {"role": "user", "content": [
        text(f'<system-reminder>\nStop:Callback hook blocking error from command: "callback": {reason}\n</system-reminder>\n'),
        text("<system-reminder>\nThe text below is the output of a hook ...\nStop hook feedback:\n"
             f"{reason}\n</system-reminder>"),
    ]}


class Conversation:
    """Builders for CLI-shaped messages (a namespace handed to tests as a fixture)."""

    assistant = staticmethod(assistant)
    text = staticmethod(text)
    use = staticmethod(use)
    ok_result = staticmethod(ok_result)
    error_result = staticmethod(error_result)
    user_text = staticmethod(user_text)
    stop_feedback = staticmethod(stop_feedback)


@pytest.fixture
def conv():
    return Conversation
