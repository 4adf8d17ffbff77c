"""Public evidence in a Telecom conversation: what the agent asks for, what the results show.

Pure functions over texts the agent sees (its own messages, the tools' results, the customer's
replies); no task id, hidden state, expected action or reward. Used by the FSM's rules
(``telecom_rules.py``) and the controller (``controller.py``). The vocabulary is the tech support
manual's (device actions, tests, the three issue types).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The symptom the customer calls about, recognised in their opening message.
SYMPTOMS = (("mms", r"\bmms\b|picture message|multimedia"),
            ("mobile_data", r"mobile data|internet|data (is )?(not working|slow)|\bslow\b|speed"),
            ("service", r"no service|no signal|can'?t (make|place) calls|service"))
#: The test that shows each symptom fixed, as a request the controller sends.
TEST_REQUEST = {"service": "Please check your status bar now and tell me exactly what it shows.",
                "mobile_data": "Please run a speed test now and tell me the result.",
                "mms": "Please try to send an MMS (a picture message) now and tell me whether it works."}
#: A sentence asks for a test.
TEST = re.compile(r"status bar|speed test|\bmms\b|picture message", re.IGNORECASE)
#: A sentence asks for a device repair (verb and object; one pattern per repair, the manual's order).
REPAIRS = (("airplane_mode", r"\b(turn|switch|toggle|disable)\b.*\bairplane mode\b"),
           ("sim", r"\bre-?seat\b|\b(re-?insert|take out)\b.*\bsim\b|\bsim\b.*\bback in\b"),
           ("payment", r"\bmake the payment\b|\bpay the\b"),
           ("apn", r"\breset\b.*\bapn\b"),
           ("mobile_data", r"\b(turn|switch|toggle|enable)\b.*\bmobile data\b"),
           ("device_roaming", r"\b(turn|switch|toggle|enable)\b.*\bdata roaming\b"),
           ("data_saver", r"\b(turn|switch|toggle|disable)\b.*\bdata saver\b"),
           ("network_mode", r"\b(set|change|switch)\b.*\bnetwork mode\b"),
           ("vpn", r"\bdisconnect\b.*\bvpn\b"),
           ("wifi_calling", r"\b(turn|switch|toggle|disable)\b.*\bwi-?fi calling\b"),
           ("app_permission", r"\bgrant\b.*\bpermission"),
           ("restart", r"\b(restart|reboot)\b"))
#: The agent's own tools that repair the line (a fresh test follows each).
AGENT_REPAIRS = ("enable_roaming", "disable_roaming", "refuel_data", "resume_line", "send_payment_request")
#: Marks the controller's own turn inside a tool's result.
CONTROLLER_MARK = "[The workflow's controller asked the customer for a fresh test:"
ENDED_MARKS = ("has ended the conversation", "conversation with the customer has ended")


def symptom_of(opening: str) -> str | None:
    for name, pattern in SYMPTOMS:
        if re.search(pattern, opening, re.IGNORECASE):
            return name
    return None


def phone_of(text: str) -> str | None:
    found = re.search(r"\b\d{3}-\d{3}-\d{4}\b", text)
    return found.group(0) if found else None


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def repairs_requested(message: str) -> list[str]:
    """The device repairs a message asks for, one per sentence, in order."""
    found = []
    for sentence in sentences(message):
        for name, pattern in REPAIRS:
            if re.search(pattern, sentence, re.IGNORECASE):
                found.append(name)
                break
    return found


def asks_for_test(message: str) -> bool:
    return any(TEST.search(s) and not any(re.search(p, s, re.IGNORECASE) for _, p in REPAIRS) for s in sentences(message))


def test_passed(symptom: str | None, text: str) -> bool:
    """Whether a test result (the customer's report) shows the symptom fixed."""
    low = text.lower()
    if symptom == "mobile_data":
        return "excellent" in low and "failed" not in low
    if symptom == "mms":
        return bool(re.search(r"can send mms|mms (was )?sent|sent successfully", low)) and "cannot" not in low
    if symptom == "service":
        return "status bar" in low and not any(w in low for w in ("no signal", "no service", "airplane mode", "no sim"))
    return False


def irreversible(text: str) -> str | None:
    """Public evidence of a condition the agent cannot fix (the manual: escalate)."""
    low = text.lower()
    if re.search(r"\blocked\b", low) and re.search(r"\bpin\b|\bpuk\b", low):
        return "the SIM card is locked with a PIN or PUK code"
    return None


def line_facts(result: str, today: str = "2025-02-25") -> dict[str, Any]:
    """From a ``get_details_by_id`` result: the line's id, phone, whether it is suspended and
    whether its contract has ended (the policy's current date), which the agent cannot lift."""
    try:
        data = json.loads(result)
    except ValueError:
        return {}
    if not isinstance(data, dict) or "line_id" not in data:
        return {}
    facts = {"line_id": data.get("line_id"), "phone": data.get("phone_number"),
             "suspended": str(data.get("status", "")).lower() == "suspended"}
    end = str(data.get("contract_end_date") or "")
    facts["contract_ended"] = bool(end) and end < today
    return facts


def has_ended(text: str) -> bool:
    return any(mark in text for mark in ENDED_MARKS)
