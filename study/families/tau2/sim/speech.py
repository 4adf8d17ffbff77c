"""How the simulated agents ask the customer for a device action, and how the simulated customer hears it.

One table for both sides, so that every request a simulated agent writes is one the simulated
customer performs. Each entry: the customer's user tool (tau2's Telecom user tools), its kind
(``repair``; ``test``: one of the three tests an issue is closed by; ``check``: a diagnosis), a
recogniser (a regular expression searched over the whole message: a message may ask for several
actions, in the order written), several phrasings (a request plain, hedged, as numbered steps, as
"let's ..."), and how its arguments are read from the message.

Phrasings are chosen by :func:`pick` with a seeded random generator, so a simulated run says the
same thing on every replay of its seed and different things across tasks and seeds: offline
runs exercise the FSM's rules with more than one way of saying a thing (the rules read calls and
their results, never these words; the simulator may read words, as the customer it plays does).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

_MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only")
_PERMISSIONS = ("sms", "storage", "phone", "camera", "contacts", "location", "microphone")
#: The controller's words for "the test of the problem you called about" (``controller.test_request``).
PROBLEM_TEST = re.compile(r"problem you called about|issue you (called|contacted us) about|your original (problem|issue)",
                          re.IGNORECASE)


def rng(*key: Any) -> random.Random:
    """A random generator seeded by ``key`` (stable across processes, unlike ``hash``)."""
    digest = hashlib.sha256("|".join(str(k) for k in key).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def pick(options: Sequence[str], *key: Any) -> str:
    return options[rng(*key).randrange(len(options))]


def _mode(text: str) -> dict[str, Any]:
    found = next((m for m in _MODES if m in text.lower()), "4g_5g_preferred")
    return {"mode": found}


def _permission(text: str) -> dict[str, Any]:
    low = text.lower()
    app = re.search(r"\b(\w+) app\b", low)
    permission = next((p for p in _PERMISSIONS if re.search(rf"\b{p}\b", low)), "sms")
    return {"app_name": app.group(1) if app else "messaging", "permission": permission}


def _app(text: str) -> dict[str, Any]:
    app = re.search(r"\b(\w+) app\b", text.lower())
    return {"app_name": app.group(1) if app else "messaging"}


def _none(text: str) -> dict[str, Any]:
    return {}


_GAP = r"[^.?!\n]{0,40}?"   # within one sentence


@dataclass(frozen=True)
class DeviceAction:
    tool: str
    kind: str                      # repair | test | check
    pattern: str                   # searched over the message (case-insensitive)
    phrases: tuple[str, ...]       # what a simulated agent says ({...} filled from the args)
    args: Callable[[str], dict[str, Any]] = _none

    def find(self, text: str) -> list[re.Match]:
        return list(re.finditer(self.pattern, text, re.IGNORECASE))

    def matches(self, text: str) -> bool:
        return bool(self.find(text))

    def request(self, variant: int = 0, **args: Any) -> str:
        fill = {**args, "mode_words": str(args.get("mode", "")).replace("_", " ")}
        return self.phrases[variant % len(self.phrases)].format(**fill)


#: Repairs first (a repair's phrase may name what a check names too: the repair wins there).
ACTIONS: tuple[DeviceAction, ...] = (
    DeviceAction("reset_apn_settings", "repair", rf"\breset{_GAP}\bapn\b|\bapn\b{_GAP}\b(reset|back to (the )?defaults?)\b",
                 ("Please reset your APN settings to their defaults.",
                  "Could you reset the APN settings? It's under Settings > Mobile network > Access Point Names > "
                  "Reset to default.",
                  "Let's put your APN settings back to default: please reset them.")),
    DeviceAction("grant_app_permission", "repair",
                 rf"\b(grant|allow|give|enable)\w*\b{_GAP}\bpermissions?\b|\bpermissions?\b{_GAP}\b(grant|allow)\w*\b",
                 ("Please grant the {app_name} app the {permission} permission.",
                  "Could you allow the {app_name} app the {permission} permission? Settings > Apps > {app_name} > "
                  "Permissions.",
                  "Let's give the {app_name} app the {permission} permission it needs.",
                  "1. Open Settings. 2. Go to Apps, then the {app_name} app. 3. Under Permissions, grant "
                  "{permission}."), _permission),
    DeviceAction("set_network_mode_preference", "repair",
                 rf"\b(set|change|switch)\w*\b{_GAP}\b(network mode|network type|preferred network)\b",
                 ("Please set your phone's preferred network mode to {mode}.",
                  "Your phone may be stuck on an older network. Could you change the preferred network mode to "
                  "{mode} ({mode_words})?",
                  "Let's switch the preferred network mode to {mode}: Settings > Mobile network > Preferred network "
                  "type."), _mode),
    DeviceAction("toggle_wifi_calling", "repair",
                 rf"\b(turn\w*|switch\w*|toggl\w*|disabl\w*)\b{_GAP}\bwi-?fi calling\b|\bwi-?fi calling\b{_GAP}\boff\b",
                 ("Please turn Wi-Fi Calling off.",
                  "Wi-Fi Calling sometimes conflicts with messaging. Could you switch Wi-Fi Calling off?",
                  "Let's try disabling Wi-Fi Calling.")),
    DeviceAction("toggle_data_saver_mode", "repair",
                 rf"\b(turn\w*|switch\w*|toggl\w*|disabl\w*)\b{_GAP}\bdata saver\b|\bdata saver\b{_GAP}\boff\b",
                 ("Please turn Data Saver mode off.",
                  "Data Saver can throttle your connection. Could you switch Data Saver off?",
                  "Let's disable Data Saver mode and see if that helps.",
                  "Please make sure Data Saver is off: Settings > Network > Data Saver.")),
    DeviceAction("toggle_roaming", "repair",
                 rf"\b(turn\w*|switch\w*|toggl\w*|enabl\w*)\b{_GAP}\bdata roaming\b|\bdata roaming\b{_GAP}\bon\b",
                 ("Please turn Data Roaming on in your phone's settings.",
                  "Let's resolve this by turning Data Roaming ON.",
                  "Since you're travelling, could you enable Data Roaming on the phone? It's under Settings > Mobile "
                  "network.",
                  "1. Open Settings. 2. Tap Mobile network. 3. Switch Data Roaming on.")),
    DeviceAction("toggle_data", "repair",
                 rf"\b(turn\w*|switch\w*|toggl\w*|enabl\w*)\b{_GAP}\bmobile data\b(?! is)|\bmobile data\b{_GAP}\b(back )?on\b",
                 ("Please turn Mobile Data on.",
                  "It looks like mobile data is switched off. Could you turn mobile data back on?",
                  "Let's enable mobile data: Settings > Network > Mobile data, and switch it on.")),
    DeviceAction("disconnect_vpn", "repair",
                 rf"\bdisconnect\w*\b{_GAP}\bvpn\b|\bvpn\b{_GAP}\b(off|disconnected)\b|\bturn\w*\b{_GAP}\bvpn\b{_GAP}\boff\b",
                 ("Please disconnect your VPN.",
                  "Let's try disconnecting the VPN.",
                  "A slow VPN server could be the culprit here; could you disconnect from the VPN for now?")),
    DeviceAction("toggle_airplane_mode", "repair",
                 rf"\b(turn\w*|switch\w*|toggl\w*|disabl\w*|flip\w*)\b{_GAP}\bairplane mode\b|"
                 rf"\b(make sure|ensure)\b{_GAP}\bairplane mode\b{_GAP}\boff\b|\bairplane mode\b{_GAP}\b(off|disabled)\b|"
                 r"\bairplane mode\b[^\n]{0,60}?\b(switch|turn|toggle)\w* it off\b",
                 ("Please turn Airplane Mode off.",
                  "It sounds like Airplane Mode might be on. Could you switch it off for me?",
                  "Let's start by turning off Airplane Mode.",
                  "1. Swipe down from the top of the screen. 2. Tap the airplane icon so that Airplane Mode is off.",
                  "Please make sure Airplane Mode is off.")),
    DeviceAction("reseat_sim_card", "repair",
                 r"\bre-?seat\w*\b|\bre-?insert\w*\b|\b(take|remove|pop)\w*\b[^.?!\n]{0,25}\bsim\b[^.?!\n]{0,30}\b(back|again)\b",
                 ("Please take your SIM card out and put it back in (reseat it).",
                  "Could you try reseating the SIM card? Remove it, wait a few seconds, and insert it again firmly.",
                  "Let's try removing and re-inserting the SIM card.")),
    DeviceAction("make_payment", "repair", r"\b(make|complete|accept)\w*\b[^.?!\n]{0,25}\bpayment\b|\bpay the (bill|payment request)\b",
                 ("I have sent you a payment request: please check it and make the payment.",
                  "A payment request for the overdue bill is on its way to you. Could you accept it and complete the "
                  "payment?",
                  "I've sent the payment request to your phone; once you see it, please make the payment.")),
    DeviceAction("reboot_device", "repair", r"\b(restart\w*|reboot\w*|power[- ]cycle\w*)\b",
                 ("Please restart your phone.",
                  "Could you reboot the phone so the changes take effect?",
                  "Let's restart the device: hold the power button and choose Restart.")),
    DeviceAction("check_apn_settings", "check", rf"\b(check|look at|what|see)\w*\b{_GAP}\bapn\b",
                 ("Please check your APN settings and tell me what they show.",
                  "Could you look at your APN settings and read me the APN name and MMSC URL?")),
    DeviceAction("check_app_permissions", "check", rf"\b(check|which|what|see)\w*\b{_GAP}\bpermissions?\b",
                 ("Please check which permissions the messaging app has.",
                  "Could you see what permissions the messaging app currently has?"), _app),
    DeviceAction("check_network_mode_preference", "check",
                 rf"\b(check|what|see)\w*\b{_GAP}\b(network mode|preferred network|network type)\b",
                 ("Please check your phone's preferred network mode.",
                  "What is your phone's preferred network type set to? Could you check?")),
    DeviceAction("check_wifi_calling_status", "check", rf"\b(check|whether|if|see)\w*\b{_GAP}\bwi-?fi calling\b",
                 ("Please check whether Wi-Fi Calling is on.", "Could you see if Wi-Fi Calling is enabled?")),
    DeviceAction("check_data_restriction_status", "check",
                 rf"\b(check|whether|if|see)\w*\b{_GAP}\b(data saver|data restriction)",
                 ("Please check whether Data Saver mode is on.", "Could you check if any data restriction like Data "
                  "Saver is active?")),
    DeviceAction("check_vpn_status", "check", rf"\b(check|whether|if|see)\w*\b{_GAP}\bvpn\b",
                 ("Please check whether a VPN is connected.", "Could you check if you're connected to a VPN?")),
    DeviceAction("check_sim_status", "check", r"\bsim (card )?status\b|\b(check|look at)\w*\b[^.?!\n]{0,20}\bsim\b",
                 ("Please check your SIM card status.", "Could you check the status of your SIM card?",
                  "Let's look at the SIM: please check its status.")),
    DeviceAction("check_network_status", "check", r"\bnetwork status\b|\bnetwork (connection )?settings status\b",
                 ("Please check your network status.",)),
    DeviceAction("run_speed_test", "test",
                 r"\bspeed test\b|\btest (your|the) (data |internet |connection )?speed\b|\bcheck (your|the) (data |internet )?speed\b",
                 ("Please run a speed test and tell me the result.",
                  "Please take a moment to test your data speed.",
                  "Could you run a quick speed test and read me what it says?",
                  "Now let's see if that helped: run a speed test, please.")),
    DeviceAction("can_send_mms", "test", r"\bmms\b|\bpicture message|\bmultimedia message",
                 ("Please try to send an MMS (a picture message) and tell me whether it works.",
                  "Could you try sending a picture message now?",
                  "Let's test it: send an MMS and tell me if it goes through.")),
    DeviceAction("check_status_bar", "test",
                 r"\bstatus bar\b|\bsignal (bars|indicator)\b",
                 ("Please check your status bar and tell me what it shows.",
                  "What does the status bar at the top of your screen show now?",
                  "Could you look at the signal bars at the top of the screen and tell me what you see?")),
)

BY_TOOL = {a.tool: a for a in ACTIONS}
#: The test that closes each issue type, by the tau2 Telecom environment assertion that checks it.
TEST_OF_ASSERTION = {"assert_internet_speed": "run_speed_test", "assert_mobile_data_status": "run_speed_test",
                     "assert_can_send_mms": "can_send_mms", "assert_service_status": "check_status_bar"}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def requested(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The device actions a message asks for, in the order written: (user tool, arguments). A
    phrase counts once, for the first entry of :data:`ACTIONS` that matches it (a repair before
    the check its words also name); parenthesised examples after the controller's "the problem
    you called about" are not requests."""
    if PROBLEM_TEST.search(text):
        text = re.sub(r"\([^)]*\)", "", text)
    found: list[tuple[int, int, str, dict[str, Any]]] = []
    taken: list[tuple[int, int]] = []
    for action in ACTIONS:
        for match in action.find(text):
            span = (match.start(), match.end())
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            if any(t == action.tool for _, _, t, _ in found) and action.kind != "repair":
                continue   # one check of a kind per message
            sentence = next((s for s in sentences(text) if match.group(0) in s), text)
            found.append((span[0], span[1], action.tool, action.args(sentence)))
            taken.append(span)
    found.sort()
    out: list[tuple[str, dict[str, Any]]] = []
    for _, _, tool, args in found:   # one request of a tool with the same arguments per message
        if (tool, args) not in out:
            out.append((tool, args))
    return out


def asks_problem_test(text: str) -> bool:
    """Whether the message asks the customer to test the problem they called about (the controller's words)."""
    return bool(PROBLEM_TEST.search(text))


def request_text(tool: str, args: dict[str, Any] | None = None, variant: int = 0) -> str:
    return BY_TOOL[tool].request(variant, **(args or {}))


def variants(tool: str) -> int:
    return len(BY_TOOL[tool].phrases)
