"""Public evidence in a Telecom conversation, read as data: calls and what they returned.

What a call shows is read from the call's name, its arguments and its result, the text tau2's
tools produce (fixed formats: ``Status Bar: 📶⁴ Excellent | 5G | ...``, ``Speed Test Result: 250.00
Mbps (Excellent)``, ``Your messaging app cannot send MMS messages.``, a line's JSON). It is
never read from what the agent or the customer wrote: a customer who says "excellent" has not
run a speed test, and an agent who writes "let's try disconnecting the VPN" has repaired nothing
until the customer's ``disconnect_vpn`` shows it. Used by the FSM's ledger (``telecom_rules.py``)
and the controller (``controller.py``); no task id, hidden state, expected action or reward. The
vocabulary is the tech support manual's (its device actions, its three tests, its faults).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The three tests the manual closes an issue by, and the device check that runs each.
SYMPTOM_CHECKS = {"service": ("check_status_bar", "check_network_status"), "mobile_data": ("run_speed_test",),
                  "mms": ("can_send_mms",)}
#: The faults the ledger keeps, in the manual's dependency order (service first, then data, then MMS).
FAULT_ORDER = ("airplane_mode", "sim_missing", "bill_overdue", "line_suspended", "apn_broken", "mobile_data_off",
               "data_exceeded", "data_saver", "network_mode", "vpn_poor", "apn_mms", "wifi_calling", "app_permission")
#: The customer's device tools that change something (tau2's user tools of type WRITE): a repair.
DEVICE_REPAIRS = ("toggle_airplane_mode", "reseat_sim_card", "toggle_data", "toggle_roaming", "toggle_data_saver_mode",
                  "set_network_mode_preference", "set_apn_settings", "reset_apn_settings", "toggle_wifi",
                  "toggle_wifi_calling", "connect_vpn", "disconnect_vpn", "grant_app_permission", "reboot_device",
                  "make_payment")
#: The agent's own tools that repair the line (a fresh test follows each).
AGENT_REPAIRS = ("enable_roaming", "disable_roaming", "refuel_data", "resume_line", "send_payment_request")
#: The agent's tools that change the line (a call on another line than the customer's is refused).
LINE_WRITES = ("suspend_line", "resume_line", "enable_roaming", "disable_roaming", "refuel_data")
#: The fresh test the controller asks for, per symptom check that has failed.
TEST_REQUEST = {"service": "check your status bar", "mobile_data": "run a speed test",
                "mms": "try to send an MMS (a picture message)"}
#: Marks the controller's own turn inside a tool's result.
CONTROLLER_MARK = "[The workflow's controller asked the customer for a fresh test:"
#: The policy's current date (main_policy.md: "The current time is 2025-02-25 12:08:00 EST").
TODAY = "2025-02-25"
_PHONE = re.compile(r"\b\d{3}-\d{3}-\d{4}\b")


def phone_of(text: str) -> str | None:
    """A phone number written in ``text`` (the customer's opening), as tau2's data writes them."""
    found = _PHONE.search(text or "")
    return found.group(0) if found else None


def as_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


# ----- the customer's device ---------------------------------------------------------------------


def status_bar(text: str) -> str | None:
    """The status bar a device result shows (every device repair's result ends with one)."""
    for line in (text or "").splitlines():
        if line.startswith("Status Bar:"):
            return line[len("Status Bar:"):].strip()
    return None


def _keyed(text: str) -> dict[str, str]:
    out = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip().lower()] = value.strip()
    return out


def device_observation(tool: str, args: dict[str, Any], result: str) -> dict[str, Any]:
    """What one device action of the customer's shows, from its result: ``checks`` (symptom ->
    (passed, shown)), ``faults`` (fault -> open?, with what showed it), ``irreversible`` (a
    condition the agent cannot fix), ``repair`` (the action changed the device)."""
    checks: dict[str, tuple[bool, str]] = {}
    faults: dict[str, tuple[bool, str]] = {}
    irreversible = None
    missing: list[str] = []
    result = result or ""
    bar = status_bar(result)
    if bar is not None:
        shown = f"Status Bar: {bar}"
        if "Airplane Mode" in bar:
            checks["service"] = (False, shown)
            faults["airplane_mode"] = (True, shown)
        else:
            faults["airplane_mode"] = (False, shown)
            has_signal = "📶" in bar and "No Signal" not in bar
            checks["service"] = (has_signal, shown)
            if has_signal:
                faults["mobile_data_off"] = ("Data Disabled" in bar, shown)
                if "Data Enabled" in bar:
                    faults["data_saver"] = ("Data Saver" in bar, shown)
                tech = re.search(r"\|\s*(2G|3G|4G|5G)\s*(\||$)", bar)
                if tech:
                    faults["network_mode"] = (tech.group(1) in ("2G", "3G"), shown)
    if tool == "check_network_status":
        keyed = _keyed(result)
        shown = result.strip().replace("\n", "; ")
        if "airplane mode" in keyed:
            faults["airplane_mode"] = (keyed["airplane mode"].upper() == "ON", shown)
        connection, signal = keyed.get("cellular connection", ""), keyed.get("cellular signal", "")
        if connection:
            checks["service"] = (connection == "connected" and signal not in ("", "none"), shown)
        sim = keyed.get("sim card status", "")
        if sim.startswith("locked"):
            irreversible = f"the SIM card is locked ({sim})"
        elif sim:
            faults["sim_missing"] = (sim == "missing", shown)
        if "mobile data enabled" in keyed:
            faults["mobile_data_off"] = (keyed["mobile data enabled"].lower() == "no", shown)
    elif tool == "check_sim_status":
        low = result.lower()
        if "locked with a pin" in low or "locked with a puk" in low:
            irreversible = f"the SIM card is locked ({result.strip()})"
        elif "no sim card" in low:
            faults["sim_missing"] = (True, result.strip())
        elif "active" in low:
            faults["sim_missing"] = (False, result.strip())
    elif tool == "run_speed_test":
        found = re.search(r"Speed Test Result:\s*([\d.]+)\s*Mbps\s*\(([^)]*)\)", result)
        if found:
            checks["mobile_data"] = (found.group(2).strip().lower() == "excellent", found.group(0))
        elif result.startswith("Speed test failed"):
            checks["mobile_data"] = (False, result.strip())
    elif tool == "can_send_mms":
        if "can send MMS" in result:
            checks["mms"] = (True, result.strip())
        elif "cannot send MMS" in result:
            checks["mms"] = (False, result.strip())
    elif tool == "check_data_restriction_status":
        if "Data Saver mode is ON" in result:
            faults["data_saver"] = (True, result.strip())
        elif "Data Saver mode is OFF" in result:
            faults["data_saver"] = (False, result.strip())
    elif tool == "check_vpn_status":
        connected = result.startswith("VPN is ON and connected")
        faults["vpn_poor"] = (connected and "'server_performance': 'poor'" in result, result.strip())
    elif tool == "disconnect_vpn":
        faults["vpn_poor"] = (False, result.strip().splitlines()[0] if result.strip() else "")
    elif tool == "check_network_mode_preference":
        found = re.search(r"Network Mode Preference:\s*(\S+)", result)
        if found:
            faults["network_mode"] = (found.group(1) in ("2g_only", "3g_only"), found.group(0))
    elif tool == "check_apn_settings":
        keyed = _keyed(result)
        name = keyed.get("current apn name", "")
        mmsc = next((v for k, v in keyed.items() if k.startswith("mmsc url")), "")
        shown = result.strip().splitlines()
        if name:
            faults["apn_broken"] = (name.lower() == "broken", shown[0])
        if mmsc:
            faults["apn_mms"] = (mmsc.lower() == "not set", shown[1] if len(shown) > 1 else mmsc)
    elif tool == "check_wifi_calling_status":
        if "currently turned ON" in result:
            faults["wifi_calling"] = (True, result.strip())
        elif "currently turned OFF" in result:
            faults["wifi_calling"] = (False, result.strip())
    elif tool == "toggle_wifi_calling":
        first = result.strip().splitlines()[0] if result.strip() else ""
        if "Wi-Fi Calling is now" in first:
            faults["wifi_calling"] = (first.endswith("ON."), first)
    elif tool == "check_app_permissions" and str(args.get("app_name") or "").lower() == "messaging":
        granted = re.search(r"has permission for:\s*(.*)\.", result)
        have = {p.strip() for p in granted.group(1).split(",")} if granted else set()
        if granted or "no permissions granted" in result:
            missing = sorted({"sms", "storage"} - have)
            faults["app_permission"] = (bool(missing), result.strip())
    elif tool == "reboot_device" and "Resetting APN settings" in result:
        faults["apn_broken"] = (False, "Resetting APN settings...")
        faults["apn_mms"] = (False, "Resetting APN settings...")
    elif tool == "make_payment" and result.startswith("Payment of"):
        faults["bill_overdue"] = (False, result.strip())
    return {"checks": checks, "faults": faults, "irreversible": irreversible, "repair": tool in DEVICE_REPAIRS,
            "permissions_missing": missing if tool == "check_app_permissions" and "app_permission" in faults else None}


def granted_permission(tool: str, args: dict[str, Any], result: str) -> str | None:
    """The messaging app's permission a successful ``grant_app_permission`` granted."""
    if tool == "grant_app_permission" and result.startswith("Success") and \
            str(args.get("app_name") or "").lower() == "messaging":
        return str(args.get("permission") or "").lower() or None
    return None


# ----- the agent's tools -------------------------------------------------------------------------


def line_facts(result: str, today: str = TODAY) -> dict[str, Any]:
    """From a line's details (``get_details_by_id``, ``resume_line``'s ``line``): its id, phone,
    whether it is suspended and whether its contract has ended (the policy's current date)."""
    data = as_json(result)
    if isinstance(data, dict) and isinstance(data.get("line"), dict):
        data = data["line"]
    if not isinstance(data, dict) or "line_id" not in data:
        return {}
    end = str(data.get("contract_end_date") or "")
    return {"line_id": data.get("line_id"), "phone": data.get("phone_number"),
            "suspended": str(data.get("status", "")).lower() == "suspended",
            "contract_ended": bool(end) and end[:10] < today}


def customer_facts(result: str) -> dict[str, Any]:
    """From a customer record (``get_customer_by_*``, ``get_details_by_id``): id, phone, lines."""
    data = as_json(result)
    if isinstance(data, list) and len(data) == 1:   # get_customer_by_name: one match
        data = data[0]
    if not isinstance(data, dict) or "customer_id" not in data:
        return {}
    return {"customer_id": data.get("customer_id"), "phone": data.get("phone_number"),
            "line_ids": [str(x) for x in data.get("line_ids") or []]}


def usage_exceeded(result: str) -> bool | None:
    """From ``get_data_usage``: whether the line used up its data (None: not a usage record)."""
    data = as_json(result)
    if not isinstance(data, dict) or "data_used_gb" not in data:
        return None
    try:
        return float(data["data_used_gb"]) >= float(data.get("data_limit_gb") or 0) + float(data.get("data_refueling_gb") or 0)
    except (TypeError, ValueError):
        return None


def overdue_bills(result: str) -> list[str] | None:
    """From ``get_bills_for_customer``: the overdue bills' ids (None: not a list of bills)."""
    data = as_json(result)
    if not isinstance(data, list) or not all(isinstance(b, dict) and "bill_id" in b for b in data):
        return None
    return [str(b["bill_id"]) for b in data if str(b.get("status", "")).lower() == "overdue"]
