"""The exploratory condition FSM-propose: FSM plus the proposal tool, and nothing changes for the
preregistered conditions (their factors, as logged in session_start, have no ``proposals``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from study.paths import prereg_dir
from study.protocol.conditions import ConditionError, load_conditions


@pytest.fixture
def raw() -> dict:
    """The project's conditions.yaml as plain data, to change and load from a copy."""
    return yaml.safe_load((prereg_dir() / "conditions.yaml").read_text())


def _load(tmp_path: Path, raw: dict):
    (tmp_path / "conditions.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_conditions(tmp_path / "conditions.yaml")


def test_fsm_propose_is_fsm_with_proposals_and_outside_the_preregistered_set():
    loaded = load_conditions()
    propose, fsm = loaded.get("FSM-propose"), loaded.get("FSM")
    assert "FSM-propose" in loaded.exploratory and "FSM-propose" not in loaded.conditions
    assert propose.exploratory and propose.proposals and not fsm.proposals
    assert propose.as_dict() == {**fsm.as_dict(), "name": "FSM-propose", "exploratory": True, "proposals": True}


def test_no_preregistered_condition_logs_a_proposals_factor():
    for condition in load_conditions().conditions.values():
        assert "proposals" not in condition.as_dict()
        assert not condition.proposals


def test_a_preregistered_condition_cannot_offer_proposals(tmp_path, raw):
    raw["conditions"]["FSM"]["proposals"] = True
    with pytest.raises(ConditionError, match=r"'FSM'.*unknown factors \['proposals'\]"):
        _load(tmp_path, raw)


def test_proposals_need_a_workflow(tmp_path, raw):
    raw["exploratory_conditions"]["Plain-propose"] = {**raw["conditions"]["Plain"], "proposals": True}
    with pytest.raises(ConditionError, match="proposals needs a workflow"):
        _load(tmp_path, raw)
