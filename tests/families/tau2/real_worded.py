"""Telecom conversations worded as real agents and customers word them, in tau2's own record format.

Each :class:`Script` is one conversation: what the agent does (its messages, worded as LLM agents
write them: hedged, paraphrased, as numbered steps, a repair and a test in one message; its tool
calls, sometimes two in one message) and what the customer does in reply (their device actions,
and their words, worded as LLM customers word them: "excellent" in every reply, paraphrased
results, a status bar quoted with its emoji). It is played through tau2 itself: tau2's
orchestrator, its Telecom environment running every tool (so every result is the real one, from
the task's real initial state), tau2's user simulator asking the scripted customer for each
response, and tau2's evaluator scoring the end. :func:`generate` writes the conversations as
``tau2 run`` writes its results file (``info``, ``tasks``, ``simulations``).

The replay tests (``test_replay.py``) read the committed file ``records/real_worded_telecom.json``;
``python tests/families/tau2/real_worded.py`` writes it again (tau2 needed). The task ids here are
the test's ground truth for choosing initial states: nothing here is read by the rules.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "records"
OUT = RECORDS / "real_worded_telecom.json"

Reply = Callable[[list[str]], str]


@dataclass
class Turn:
    """The customer's answer to one agent message: device actions (tool, args, words said with
    the call or ""), then the reply (a string, or a function of the actions' results)."""

    calls: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    reply: str | Reply = ""


@dataclass
class Say:
    text: str
    customer: Turn


@dataclass
class Tool:
    calls: list[tuple[str, dict[str, Any]]]   # one message; several calls are one message with several


@dataclass
class Script:
    name: str
    task_id: str
    opening: str
    steps: list[Say | Tool]
    #: what the test expects: rewarded by tau2's evaluator
    rewarded: bool


def call(name: str, **args: Any) -> Tool:
    return Tool([(name, args)])


def do(*calls: str | tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str], reply: str | Reply = "") -> Turn:
    out = []
    for c in calls:
        if isinstance(c, str):
            out.append((c, {}, ""))
        elif len(c) == 2:
            out.append((c[0], c[1], ""))
        else:
            out.append(c)
    return Turn(out, reply)


def first(text: str) -> str:
    return text.splitlines()[0] if text else ""


def bar(text: str) -> str:
    found = re.search(r"Status Bar: (.*)", text)
    return found.group(1) if found else text


def mbps(text: str) -> str:
    found = re.search(r"([\d.]+) Mbps", text)
    return found.group(1).split(".")[0] if found else "?"


# ----- the scripted customer, behind tau2's user simulator -----------------------------------------


class ScriptedCustomer:
    """Answers tau2's user-simulator requests from a script: the opening, then per agent message
    its turn (one device action per response, then the reply)."""

    def __init__(self, opening: str, turns: list[Turn]):
        self.opening = opening
        self.turns = turns

    def respond(self, api: str, body: dict) -> Any:
        from study.sim.protocol import Reply as SimReply, ToolUse
        from study.families.tau2.sim.customer import read_request

        events = read_request(body.get("messages") or [])
        if not any(e[0] in ("said", "call") for e in events):
            return SimReply(text=self.opening)
        k = sum(1 for e in events if e[0] == "agent") - 1    # tau2's greeting is the first
        turn = self.turns[k - 1] if 0 < k <= len(self.turns) else Turn([], "Okay.")
        last = max(i for i, e in enumerate(events) if e[0] == "agent")
        since = events[last + 1:]
        done = [e for e in since if e[0] == "call"]
        if len(done) < len(turn.calls):
            tool, args, words = turn.calls[len(done)]
            return SimReply(text=words, tool_uses=[ToolUse(tool, args)])
        results = {e[1]: e[2] for e in since if e[0] == "result"}
        shown = [results.get(e[1], "") for e in done]
        return SimReply(text=turn.reply(shown) if callable(turn.reply) else turn.reply)


def play(script: Script) -> Any:
    """The conversation through tau2, scored by tau2's evaluator: tau2's ``SimulationRun``."""
    from tau2.data_model.message import AssistantMessage, ToolCall

    from study.families.tau2 import data
    from study.families.tau2.conversation import Conversation, ModelEndpoint
    from study.families.tau2.evaluation import evaluate
    from study.sim.server import SimServer

    task = data.load_task("telecom", script.task_id)
    turns = [s.customer for s in script.steps if isinstance(s, Say)]
    with SimServer(ScriptedCustomer(script.opening, turns)) as sim:
        conv = Conversation("telecom", task, ModelEndpoint("gpt-5.4-mini", base_url=sim.base_url))
        conv.start()
        n = 0
        for step in script.steps:
            if conv.done:
                break
            if isinstance(step, Say):
                conv.act(conv.text(step.text))
            else:
                calls = []
                for name, args in step.calls:
                    n += 1
                    calls.append(ToolCall(id=f"call_{script.name}_{n}", name=name, arguments=dict(args), requestor="assistant"))
                conv.act(AssistantMessage(role="assistant", content=None, tool_calls=calls))
        conv.stop_as_agent()
        run = conv.simulation()
    verdict = evaluate(run, task, "telecom", None)
    run.reward_info = verdict.pop("reward_info")
    return run


def results_file(runs: list[Any], task_ids: list[str]) -> dict[str, Any]:
    """What ``tau2 run`` saves: tau2's ``Results`` (info, tasks, simulations)."""
    from tau2.data_model.simulation import AgentInfo, Info, Results, UserInfo
    from tau2.registry import registry

    from study.families.tau2 import data
    from study.families.tau2.conversation import MAX_ERRORS, MAX_STEPS

    env = registry.get_env_constructor("telecom")()
    info = Info(git_commit="", num_trials=1, max_steps=MAX_STEPS, max_errors=MAX_ERRORS,
                user_info=UserInfo(implementation="user_simulator", llm="scripted: real wording (tests/families/tau2/real_worded.py)"),
                agent_info=AgentInfo(implementation="llm_agent", llm="scripted: real wording"),
                environment_info=env.get_info(), seed=300)
    tasks = [data.load_task("telecom", t) for t in dict.fromkeys(task_ids)]
    return json.loads(Results(info=info, tasks=tasks, simulations=runs).model_dump_json())


# ----- the conversations -----------------------------------------------------------------------------

PHONE = "555-123-2002"
DATA_ROAMING = "[mobile_data_issue]data_saver_mode_on|user_abroad_roaming_enabled_off[PERSONA:Easy]"
DATA_VPN = "[mobile_data_issue]bad_vpn|data_mode_off|data_usage_exceeded|user_abroad_roaming_disabled_off[PERSONA:None]"
DATA_AIRPLANE = "[mobile_data_issue]airplane_mode_on|data_saver_mode_on|user_abroad_roaming_disabled_on[PERSONA:None]"
SERVICE_BILL = "[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]"
SERVICE_LOCKED = "[service_issue]airplane_mode_on|lock_sim_card_pin[PERSONA:Easy]"
SERVICE_CONTRACT = "[service_issue]contract_end_suspension|unseat_sim_card[PERSONA:Hard]"
MMS_PERMS = "[mms_issue]bad_network_preference|break_app_both_permissions[PERSONA:Easy]"


def _lookup(number: str = PHONE) -> list[Say | Tool]:
    return [call("get_customer_by_phone", phone_number=number), call("get_details_by_id", id="L1001"),
            call("get_details_by_id", id="L1002")]


SCRIPTS: list[Script] = [
    # mobile data abroad: data saver on, roaming off on the phone. The customer says "excellent" in
    # every reply; the agent hedges, writes a repair as numbered steps, asks a repair and a test in
    # one message, and says "Let's resolve this by turning Data Roaming ON."
    Script("excellent-everywhere", DATA_ROAMING,
           "Hi! My mobile data is super slow - I'm abroad right now and I really need excellent internet speed "
           f"on my phone. My number is {PHONE}.",
           [*_lookup(),
            Say("Thanks, John. I've found your account and your line. Let's figure out what's slowing things down. "
                "Could you run a speed test and also check your status bar? Tell me what you see.",
                do("run_speed_test", "check_status_bar",
                   reply=lambda r: f"Okay! I ran it and it shows no connection at all - {r[0]} I'm really frustrated, I "
                                   f"need excellent internet speed. My status bar: {bar(r[1])}.")),
            Say("I see Data Saver is on, which can throttle your connection. Let's switch it off:\n"
                "1. Open Settings.\n2. Tap Network & internet.\n3. Turn Data Saver off.\n"
                "Once that's done, please take a moment to test your data speed again.",
                do(("toggle_data_saver_mode", {}, "Sure, turning Data Saver off now."), "run_speed_test",
                   reply=lambda r: f"Done, Data Saver is off. Speed test: {r[1]} Still not the excellent speed I need!")),
            Say("Since you're abroad, data roaming has to be on. Let's resolve this by turning Data Roaming ON. "
                "Then run another speed test, please.",
                do("toggle_roaming", "run_speed_test",
                   reply=lambda r: f"Roaming is on now. {mbps(r[1])} Mbps… looks great! That's the excellent speed I "
                                   "wanted. ###STOP###")),
            ], rewarded=True),
    # the same task, the fault open, and the agent hands off: the status bar looks excellent, the speed
    # test does not; the customer says "excellent" about the status bar
    Script("status-bar-excellent-transfer", DATA_ROAMING,
           f"Hello, my mobile data isn't working well while I travel. Phone number {PHONE}.",
           [*_lookup(),
            Say("Could you check your status bar and tell me exactly what it shows?",
                do("check_status_bar", reply=lambda r: f"It says Status Bar: {bar(r[0])} - excellent signal!")),
            Say("Your signal looks excellent. Please take a moment to test your data speed.",
                do("run_speed_test", reply=lambda r: f"Hmm: {r[0]} I need excellent speed though.")),
            call("transfer_to_human_agents", summary="Customer abroad reports slow mobile data; signal is excellent. "
                                                     "Escalating for further investigation."),
            Say("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.", do(reply="###TRANSFER###")),
            ], rewarded=False),
    # VPN, mobile data off, data used up, roaming not enabled on the line: "let's try disconnecting the
    # VPN", a refuel and the line's roaming back to back (the agent's own two repairs)
    Script("vpn-refuel-roaming", DATA_VPN,
           f"hi, my internet on my phone barely works. im travelling abroad. number is {PHONE}",
           [*_lookup(),
            Say("I'm sorry about that! First, can you check your status bar and run a speed test for me?",
                do("check_status_bar", "run_speed_test",
                   reply=lambda r: f"status bar says {bar(r[0])}. speed test: {r[1]}")),
            Say("It looks like mobile data may be switched off. Could you turn mobile data back on? It's under "
                "Settings > Network > Mobile data.",
                do("toggle_data", reply=lambda r: f"ok done. {first(r[0])} {bar(r[0])}")),
            call("get_data_usage", customer_id="C1001", line_id="L1002"),
            Say("You've used all the data in your plan this month. I can add up to 2 GB at $2.00 per GB. "
                "Would you like me to add 2 GB for $4.00?",
                do(reply="yes please add 2 GB")),
            call("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=2.0),
            call("enable_roaming", customer_id="C1001", line_id="L1002"),
            Say("I've added 2 GB and enabled roaming on your line. You also have a VPN connected; a slow VPN server "
                "could be the culprit, so let's try disconnecting the VPN. And please make sure Data Roaming is on "
                "in your phone's settings - turn it on if it is not.",
                do("disconnect_vpn", "toggle_roaming",
                   reply=lambda r: f"disconnected the vpn ({first(r[0])}) and {first(r[1]).lower()}")),
            Say("Great. Please run a speed test now and tell me the result.",
                do("run_speed_test", reply=lambda r: f"{r[0]} excellent, thank you!! ###STOP###")),
            ], rewarded=True),
    # airplane mode on abroad: "make sure Airplane Mode is off", two tool calls in one message, a repair
    # written as steps
    Script("airplane-steps-two-calls", DATA_AIRPLANE,
           f"My phone's data stopped working since I landed abroad. I need it working, excellent speed ideally. {PHONE}",
           [Tool([("get_customer_by_phone", {"phone_number": PHONE}), ("get_details_by_id", {"id": "L1002"})]),
            Say("Thank you. Please make sure Airplane Mode is off, and then check your status bar.",
                do("toggle_airplane_mode", "check_status_bar",
                   reply=lambda r: f"It was on! Now it's off. Status bar: {bar(r[1])}")),
            Say("Good. Now, please run a speed test.",
                do("run_speed_test", reply=lambda r: f"It says {r[0]} Not excellent...")),
            Say("Data Saver could be limiting your speed. Let's turn it off:\n1. Swipe down.\n2. Tap the Data Saver "
                "tile so it's off.\nThen run a speed test again.",
                do("toggle_data_saver_mode", "run_speed_test",
                   reply=lambda r: f"Data Saver off. Speed test: {r[1]}")),
            call("enable_roaming", customer_id="C1001", line_id="L1002"),
            Say("Your line wasn't enabled for roaming; I've just enabled it at no cost. Please run one more speed test.",
                do("run_speed_test", reply=lambda r: f"{mbps(r[0])} Mbps... looks great! Excellent. Thanks! ###STOP###")),
            ], rewarded=True),
    # no service: airplane mode, then a line suspended for an overdue bill; the agent asks for two
    # checks and a repair in one message, pays, resumes, reboots
    Script("service-bill-paid", SERVICE_BILL,
           f"Hi, my phone has had no service for hours. It's excellent otherwise, but I can't call anyone. {PHONE}",
           [*_lookup(),
            Say("I'm sorry to hear that. Could you check your status bar, and if Airplane Mode is on, turn it off?",
                do("check_status_bar", "toggle_airplane_mode",
                   reply=lambda r: f"It showed {bar(r[0])}, so I turned it off. Now: {bar(r[1])}")),
            call("get_bills_for_customer", customer_id="C1001"),
            Say("Your line is suspended because of an overdue bill of $100.00. Would you like to pay it now so "
                "I can lift the suspension?",
                do(reply="Yes, I'll pay it.")),
            call("send_payment_request", customer_id="C1001", bill_id="B1234321"),
            Say("I've sent you a payment request. Please check it and make the payment.",
                do("check_payment_request", "make_payment", reply=lambda r: f"Paid! {r[1]}")),
            call("get_details_by_id", id="B1234321"),
            call("resume_line", customer_id="C1001", line_id="L1002"),
            Say("Your line is active again. Please restart your phone and then check the status bar.",
                do("reboot_device", "check_status_bar",
                   reply=lambda r: f"Restarted. Status bar: {bar(r[1])} - excellent, I have signal! ###STOP###")),
            ], rewarded=True),
    # the same start, and the agent gives up with the line still suspended: a transfer with the fault open
    Script("service-transfer-open", SERVICE_BILL,
           f"My phone says no service. {PHONE}",
           [*_lookup(),
            Say("Let's start by turning off Airplane Mode, then tell me what the status bar shows.",
                do("toggle_airplane_mode", reply=lambda r: f"Okay. {first(r[0])} Status bar: {bar(r[0])}")),
            Say("Hmm, still no signal. I'll connect you with a specialist who can look into this further.",
                do(reply="Okay, fine.")),
            call("transfer_to_human_agents", summary="No service persists after turning off airplane mode."),
            Say("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.", do(reply="###TRANSFER###")),
            ], rewarded=False),
    # a SIM locked with a PIN: the transfer the policy asks for (irreversible, shown by the customer's check)
    Script("sim-locked-transfer", SERVICE_LOCKED,
           f"Hello. No Service on my phone since this morning. My number is {PHONE}.",
           [*_lookup(),
            Say("Let's try a couple of checks. Please look at your status bar and tell me what it says.",
                do("check_status_bar", reply=lambda r: f"{bar(r[0])}")),
            Say("Airplane Mode is on - could you switch it off for me?",
                do("toggle_airplane_mode", reply=lambda r: f"Done. {bar(r[0])} Still no signal though.")),
            Say("Could you check the status of your SIM card?",
                do("check_sim_status", reply=lambda r: f"It says: {r[0]}")),
            call("transfer_to_human_agents", summary="SIM card locked with a PIN; needs SIM security support."),
            Say("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.", do(reply="###TRANSFER###")),
            ], rewarded=True),
    # a line suspended past its contract end: the agent finds it in the line's details and transfers
    Script("contract-ended-transfer", SERVICE_CONTRACT,
           f"i have no service at all and im not happy. {PHONE}",
           [*_lookup(),
            Say("I'm sorry for the trouble. Please check your SIM card status.",
                do("check_sim_status", reply=lambda r: f"{r[0]}")),
            Say("Let's try removing and re-inserting the SIM card, then look at the status bar.",
                do("reseat_sim_card", reply=lambda r: f"{first(r[0])} but {bar(r[0])}")),
            call("transfer_to_human_agents", summary="Line suspended after contract end; cannot be resumed by agent."),
            Say("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.", do(reply="###TRANSFER###")),
            ], rewarded=True),
    # MMS: a conversation that never states the phone number (the agent looks the customer up by name
    # and date of birth); two permissions asked in one message together with the test
    Script("mms-no-number", MMS_PERMS,
           "Hi, I can't send picture messages from my phone. Everything else is excellent.",
           [Say("I can help with that. Could you give me your full name and date of birth?",
                do(reply="John Smith, born June 15, 1985.")),
            call("get_customer_by_name", full_name="John Smith", dob="1985-06-15"),
            call("get_details_by_id", id="L1001"),
            call("get_details_by_id", id="L1002"),
            Say("Thanks, John. Please try to send an MMS and tell me what happens, and check your network mode "
                "preference too.",
                do("can_send_mms", "check_network_mode_preference", reply=lambda r: f"{r[0]} And: {r[1]}")),
            Say("Your phone is set to an older network. Could you change the preferred network mode to "
                "4g_5g_preferred?",
                do(("set_network_mode_preference", {"mode": "4g_5g_preferred"}),
                   reply=lambda r: f"{first(r[0])}. {bar(r[0])}")),
            Say("Next, the messaging app needs its permissions. Please grant the messaging app the storage "
                "permission and the sms permission, then try sending a picture message again.",
                do(("grant_app_permission", {"app_name": "messaging", "permission": "storage"}),
                   ("grant_app_permission", {"app_name": "messaging", "permission": "sms"}), "can_send_mms",
                   reply=lambda r: f"Both granted. {r[2]} Excellent, thank you! ###STOP###")),
            ], rewarded=True),
    # another customer's line: the agent changes a line that is not the customer's
    Script("other-customer-line", DATA_ROAMING,
           f"My data doesn't work abroad. {PHONE}",
           [*_lookup(),
            call("enable_roaming", customer_id="C1002", line_id="L1004"),
            call("enable_roaming", customer_id="C1001", line_id="L1001"),
            Say("Please check your status bar.", do("check_status_bar", reply=lambda r: bar(r[0]))),
            ], rewarded=False),
]


def generate(out: Path = OUT) -> dict[str, Any]:
    runs = [play(s) for s in SCRIPTS]
    for script, run in zip(SCRIPTS, runs):
        run.id = f"real-worded-{script.name}"
    result = results_file(runs, [s.task_id for s in SCRIPTS])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[2]))
    from study.families.tau2.conversation import import_tau2

    import_tau2()
    done = generate()
    for script, sim in zip(SCRIPTS, done["simulations"]):
        print(f"{script.name}: reward {sim['reward_info']['reward']} ({sim['termination_reason']}); "
              f"expected {'rewarded' if script.rewarded else 'not rewarded'}")
