"""What the study's procedure is for a task (study/procedure/core.py): the preregistered task's
equals the frozen module constants; another task's comes from its manifest."""

from __future__ import annotations

from pathlib import Path

from sopbench_tools.dataset import gold_labels
from sopbench_tools.tasks import load_task
from study.sim.task_view import referral, sim_task
from study.procedure.core import (LABEL_JOIN, PREREGISTERED_TASK, gold_of, majority_label, procedure_of,
                                  referral_procedure, scoring_view)

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tasks" / "tiny_parcels.yaml"


def test_the_preregistered_tasks_procedure_is_the_frozen_constants():
    task = load_task(PREREGISTERED_TASK)
    assert procedure_of(task) == referral_procedure()
    assert gold_of(task) == gold_labels()
    assert majority_label(task) == "No Action" == referral().majority
    proc, gold = scoring_view(None)
    assert proc == referral_procedure() and gold == gold_labels()


def test_another_tasks_procedure_comes_from_its_manifest():
    task = load_task(TINY)
    proc = procedure_of(task)
    assert (proc.noun, proc.item_arg, proc.data_tools) == ("parcel", "parcel_id", ("check_weight", "read_label"))
    assert (proc.decision_args, proc.record_args) == (("hazard_class",), ("hazard_class",))
    assert proc.tool_order == (("read_label", ("check_weight",)),)
    assert proc.check_params()["item_noun"] == "parcel"
    assert gold_of(task)["P002"] == "Class B" and majority_label(task) == "Class A"


def test_a_record_that_names_no_decision_and_a_decision_over_several_columns():
    task = load_task("dangerous_goods")
    assert procedure_of(task).record_args == (None,)      # its record keeps only the hazard score
    proc = procedure_of(task)
    assert proc.record_label({"product_id": "P1", "hazard_score": 9}) is None
    several = proc.__class__(**{**proc.__dict__, "decision_args": ("a", "b")})
    assert several.decision_label({"a": "x", "b": "y"}) == f"x{LABEL_JOIN}y"


def test_the_simulators_view_calls_tools_with_their_inputs_in_the_sops_order():
    view = sim_task("video_annotation")
    order = view.data_tools
    for tool, before in view.proc.tool_order:
        if tool in order:
            assert all(order.index(b) < order.index(tool) for b in before if b in order)
    dg = sim_task("dangerous_goods")
    assert dg.call_args("calculate_sds_label_score", "P1_3191", {}) is None   # its label text not known yet
    assert dg.call_args("calculate_sds_label_score", "P1_3191", {"sds_label_text": "x"}) == {
        "product_id": "P1_3191", "sds_label_text": "x"}


def test_the_refusal_says_for_each_required_tool_why_its_calls_name_no_one_item():
    from sopbench_tools.tasks.attribution import unsupported_reason

    assert unsupported_reason(load_task("dangerous_goods")) is None
    assert unsupported_reason(load_task("content_flagging")) is None     # userid: unique per post
    assert unsupported_reason(load_task("order_fulfillment")) == (
        "the study attributes every call to one order by its order_id argument or by an item argument unique per "
        "order, but the required tool(s) check_inventory, validate_customer, calculate_shipping, "
        "make_fulfillment_decision take neither: check_inventory takes product_id, shared by several orders "
        "(10 values over 30), so a call names no one order; validate_customer takes customer_id, shared by several "
        "orders (10 values over 30), so a call names no one order; calculate_shipping takes no argument that names "
        "one order; make_fulfillment_decision takes no argument that names one order")
    assert unsupported_reason(load_task("email_intent")).startswith("upstream defect: toolspecs.json names five tools")


def test_a_required_tool_that_names_the_item_by_a_unique_argument_attributes_its_calls_through_it():
    task = load_task("content_flagging")
    proc = procedure_of(task)
    post = task.item_ids[5]
    assert proc.item_of("calculate_user_trust_score", {"userid": task.rows[post]["userid"]}) == post
    assert proc.item_of("calculateContentSeverityIndex", {"content_id": post}) == post
    assert proc.item_of("calculateContentSeverityIndex", {"userid": task.rows[post]["userid"]}) is None
    assert proc.item_of("calculate_user_trust_score", {"userid": "nobody"}) is None
    assert referral_procedure().item_of("investigate_account", {"account_id": "ACC100185"}) == "ACC100185"


def test_a_procedure_rebuilt_from_its_fields_after_use_is_equal():
    """Nothing a procedure computes is kept in the instance: one rebuilt from ``__dict__`` after
    its labels and item lookups were used is the same procedure."""
    proc = procedure_of(load_task("content_flagging"))
    proc.record_label({}), proc.item_of(None, {}), proc.decision_label({})
    assert proc.__class__(**proc.__dict__) == proc
