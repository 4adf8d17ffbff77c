"""A simulated agent the study's protocol or domain does not have is refused before anything is
created (issue 49, item 10).

A family's simulator may hold agents of several protocols or domains (the workspace family's
AutoResearch and month-end close agents; τ²-bench's Telecom agents and the service desk's of Airline
and Retail). Before, the preflight checked a ``sim:`` model against every agent of the family, so
``study run-all --study month-end-close --models sim:drifter`` (an AutoResearch agent) created both
sessions and voided them as infrastructure failures ("runtime crash: ValueError: no simulated agent
'drifter' for protocol month-end-close"). Now the preflight asks the family's ``sim`` part (through
the registry) which agents sessions of this study can have: exit 2, one line naming them, nothing
created; ``study run`` the same.
"""

from __future__ import annotations

import pytest

from .test_preflight import frozen, refused  # noqa: F401  (the autouse fixture: the preregistration check passes)


@pytest.mark.parametrize("command, args, named", [
    ("run-all", ["--study", "month-end-close", "--models", "sim:drifter", "--conditions", "Plain,FSM", "--seeds", "1"],
     ("oracle", "careful-oracle", "out-of-turns", "adversarial")),
    ("run", ["--study", "month-end-close", "--model", "sim:drifter", "--condition", "FSM", "--seed", "1"],
     ("oracle", "careful-oracle", "out-of-turns", "adversarial")),
    ("run-all", ["--study", "autoresearch", "--models", "sim:out-of-turns", "--seeds", "1"],
     ("oracle", "drifter", "adversarial")),
    ("run", ["--study", "tau2-airline", "--model", "sim:goal-abandoner", "--condition", "Control", "--seed", "1"],
     ("oracle", "adversarial")),
])
def test_an_agent_of_another_protocol_or_domain_is_refused_naming_the_studys_agents(tmp_path, command, args, named):
    line = refused(tmp_path, *args, command=command)
    policy = next(a for a in args if a.startswith("sim:")).split(":", 1)[1]
    assert f"unknown simulator policy {policy!r}" in line, line
    listed = line.split("its policies: ", 1)[1]
    assert [p.strip() for p in listed.split(",")] == list(named), line


def test_an_agent_the_studys_protocol_has_passes_the_check(tmp_path):
    from study.runner.preflight import validate_spec
    from study.runner.session import SessionSpec

    for study, policy in (("month-end-close", "careful-oracle"), ("autoresearch", "drifter"), ("tau2-airline", "oracle"),
                          ("tau2-telecom", "goal-abandoner")):
        condition = "FSM"
        checked = validate_spec(SessionSpec(condition=condition, seed=1, model=f"sim:{policy}", study=study,
                                            out_root=tmp_path / "s"))
        assert checked.model.policy == policy
    assert not (tmp_path / "s").exists()
