"""How the simulated agent asks the customer for a device action, and how the customer hears it.

One table for both sides, so that a request the simulated agent writes is the request the
simulated customer performs. Each entry: the customer's user tool (tau2's Telecom user tools),
its kind (``repair``, ``test``: one of the three tests an issue is closed by, ``check``: a
diagnosis), the words a request is recognised by (a regular expression over one sentence), the
sentence the simulated agent writes, and how arguments are read from the sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

_MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only")
_PERMISSIONS = ("sms", "storage", "phone", "camera", "contacts", "location", "microphone")


def _mode(sentence: str) -> dict[str, Any]:
    found = next((m for m in _MODES if m in sentence.lower()), "4g_5g_preferred")
    return {"mode": found}


def _permission(sentence: str) -> dict[str, Any]:
    low = sentence.lower()
    app = re.search(r"\b(\w+) app\b", low)
    permission = next((p for p in _PERMISSIONS if re.search(rf"\b{p}\b", low)), "sms")
    return {"app_name": app.group(1) if app else "messaging", "permission": permission}


def _app(sentence: str) -> dict[str, Any]:
    app = re.search(r"\b(\w+) app\b", sentence.lower())
    return {"app_name": app.group(1) if app else "messaging"}


def _none(sentence: str) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class DeviceAction:
    tool: str
    kind: str                      # repair | test | check
    pattern: str                   # recognised in one sentence (case-insensitive)
    phrase: str                    # what the simulated agent says ({...} filled from the args)
    args: Callable[[str], dict[str, Any]] = _none

    def matches(self, sentence: str) -> bool:
        return re.search(self.pattern, sentence, re.IGNORECASE) is not None

    def request(self, **args: Any) -> str:
        return self.phrase.format(**args)


#: In the order a sentence is tried (the more specific first).
ACTIONS: tuple[DeviceAction, ...] = (
    DeviceAction("reset_apn_settings", "repair", r"\breset\b.*\bapn\b|\bapn\b.*\breset\b",
                 "Please reset your APN settings to their defaults."),
    DeviceAction("check_apn_settings", "check", r"\bapn\b", "Please check your APN settings and tell me what they show."),
    DeviceAction("grant_app_permission", "repair", r"\bgrant\b.*\bpermission", 
                 "Please grant the {app_name} app the {permission} permission.", _permission),
    DeviceAction("check_app_permissions", "check", r"\bpermissions?\b",
                 "Please check which permissions the messaging app has.", _app),
    DeviceAction("set_network_mode_preference", "repair", r"\b(set|change|switch)\b.*\bnetwork mode\b",
                 "Please set your phone's preferred network mode to {mode}.", _mode),
    DeviceAction("check_network_mode_preference", "check", r"\bnetwork mode\b",
                 "Please check your phone's preferred network mode."),
    DeviceAction("toggle_wifi_calling", "repair", r"\b(turn|switch|toggle|disable|enable)\b.*\bwi-?fi calling\b",
                 "Please turn Wi-Fi Calling off."),
    DeviceAction("check_wifi_calling_status", "check", r"\bwi-?fi calling\b", "Please check whether Wi-Fi Calling is on."),
    DeviceAction("toggle_data_saver_mode", "repair", r"\b(turn|switch|toggle|disable)\b.*\bdata saver\b",
                 "Please turn Data Saver mode off."),
    DeviceAction("check_data_restriction_status", "check", r"\bdata saver\b|\bdata restriction", 
                 "Please check whether Data Saver mode is on."),
    DeviceAction("toggle_roaming", "repair", r"\b(turn|switch|toggle|enable)\b.*\bdata roaming\b",
                 "Please turn Data Roaming on in your phone's settings."),
    DeviceAction("toggle_data", "repair", r"\b(turn|switch|toggle|enable)\b.*\bmobile data\b",
                 "Please turn Mobile Data on."),
    DeviceAction("disconnect_vpn", "repair", r"\bdisconnect\b.*\bvpn\b", "Please disconnect your VPN."),
    DeviceAction("check_vpn_status", "check", r"\bvpn\b", "Please check whether a VPN is connected."),
    DeviceAction("toggle_airplane_mode", "repair", r"\b(turn|switch|toggle|disable)\b.*\bairplane mode\b",
                 "Please turn Airplane Mode off."),
    DeviceAction("reseat_sim_card", "repair", r"\bre-?seat\b|\btake (out )?(your )?sim\b.*\bback\b",
                 "Please take your SIM card out and put it back in (reseat it)."),
    DeviceAction("check_sim_status", "check", r"\bsim (card )?status\b", "Please check your SIM card status."),
    DeviceAction("make_payment", "repair", r"\bmake the payment\b|\bpay the (bill|payment request)\b",
                 "I have sent you a payment request: please check it and make the payment."),
    DeviceAction("reboot_device", "repair", r"\b(restart|reboot)\b", "Please restart your phone."),
    DeviceAction("run_speed_test", "test", r"\bspeed test\b", "Please run a speed test and tell me the result."),
    DeviceAction("can_send_mms", "test", r"\bmms\b|\bpicture message", 
                 "Please try to send an MMS (a picture message) and tell me whether it works."),
    DeviceAction("check_status_bar", "test", r"\bstatus bar\b", "Please check your status bar and tell me what it shows."),
    DeviceAction("check_network_status", "check", r"\bnetwork status\b", "Please check your network status."),
)

BY_TOOL = {a.tool: a for a in ACTIONS}
#: The test that closes each issue type, by the tau2 Telecom environment assertion that checks it.
TEST_OF_ASSERTION = {"assert_internet_speed": "run_speed_test", "assert_mobile_data_status": "run_speed_test",
                     "assert_can_send_mms": "can_send_mms", "assert_service_status": "check_status_bar"}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def requested(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The device actions a message asks for, in order: (user tool, arguments)."""
    found = []
    for sentence in sentences(text):
        for action in ACTIONS:
            if action.matches(sentence):
                found.append((action.tool, action.args(sentence)))
                break
    return found


def request_text(tool: str, args: dict[str, Any] | None = None) -> str:
    return BY_TOOL[tool].request(**(args or {}))
