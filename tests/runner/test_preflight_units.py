"""The pieces behind ``preflight.py``: frozen orders, limit names and values, the endpoint probe,
and ``prepare()`` refusing what the CLI refuses (for callers that skip the CLI)."""

from __future__ import annotations

import shutil
import socket
from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from sopbench_tools.orders import (
    OrderError, computed_order, describe_seeds, frozen_order, frozen_seeds, order_for_seed, orders_dir,
)
from sopbench_tools.toolbox import ToolBox
from study.protocol import limits as limits_module
from study.protocol.limits import OVERRIDE_KEYS, Limits, LimitsError, load_limits
from study.runner.preflight import (
    PreflightError, check_api_key, check_base_url, probe_endpoint, validate_spec, validate_specs,
)
from study.runner.session import SessionSpec, prepare
from study.session_io.vocabulary import Limit


@pytest.fixture
def prereg_copy(tmp_path, monkeypatch):
    """A copy of preregistration/ as the project in use (STUDY_ROOT)."""
    from study.paths import prereg_dir

    root = tmp_path / "checkout"
    shutil.copytree(prereg_dir(), root / "preregistration")
    monkeypatch.setenv("STUDY_ROOT", str(root))
    return root / "preregistration"


# ----- orders ----------------------------------------------------------------------------------------

def test_every_planned_seed_has_a_frozen_order_equal_to_the_formula():
    assert frozen_seeds() == (1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15)
    for seed in frozen_seeds():
        assert frozen_order(seed) == computed_order(seed) == order_for_seed(seed)
    assert frozen_order(99) is None and order_for_seed(99) == computed_order(99)


def test_every_seed_the_predictions_name_is_planned():
    from sopbench_tools.orders import STUDY_SEEDS
    from study.paths import prereg_dir

    predictions = yaml.safe_load((prereg_dir() / "predictions.yaml").read_text())
    named = {s for model in predictions["models"].values() for s in model["seeds"]} | set(predictions["ablation"]["seeds"])
    assert named <= set(frozen_seeds()) == set(STUDY_SEEDS)


def test_a_session_follows_the_frozen_file_not_a_fresh_computation(prereg_copy):
    path = prereg_copy / "orders" / "seed-2.txt"
    ids = path.read_text().split()
    ids[0], ids[1] = ids[1], ids[0]
    path.write_text("\n".join(ids) + "\n")
    assert orders_dir() == prereg_copy / "orders"
    assert order_for_seed(2) == ids != computed_order(2)
    assert ToolBox.for_seed(2, 3).order == ids[:3]


def test_a_damaged_frozen_order_is_refused_before_anything_is_created(prereg_copy, tmp_path):
    path = prereg_copy / "orders" / "seed-3.txt"
    path.write_text("\n".join(path.read_text().split()[:-1]) + "\n")   # one account missing
    with pytest.raises(OrderError, match="not an order of the 200 accounts"):
        frozen_order(3)
    with pytest.raises(PreflightError, match="seed-3.txt is not an order"):
        validate_spec(SessionSpec(condition="Plain", seed=3, model="sim:oracle", manifest_sha256="x",
                                  out_root=tmp_path / "s"))
    assert not (tmp_path / "s").exists()


def test_a_replacement_seed_is_confirmatory_once_its_order_is_frozen(prereg_copy, tmp_path):
    spec = SessionSpec(condition="Plain", seed=10, model="sim:oracle", manifest_sha256="x", out_root=tmp_path / "s")
    with pytest.raises(PreflightError, match="seed 10 has no frozen order"):
        validate_spec(spec)
    (prereg_copy / "orders" / "seed-10.txt").write_text("\n".join(computed_order(10)) + "\n")  # study orders --seed 10
    assert not validate_spec(spec).exploratory and 10 in frozen_seeds()


def test_frozen_seeds_reads_only_seed_files(tmp_path):
    for name in ("seed-2.txt", "seed-10.txt", "seed-02.txt", "seed-x.txt", "seed-3.csv", "notes.txt"):
        (tmp_path / name).write_text("")
    assert frozen_seeds(tmp_path) == (2, 10)
    assert describe_seeds((1, 2, 3, 5, 13, 14)) == "1-3, 5, 13-14" and describe_seeds(()) == "none"


# ----- limits ------------------------------------------------------------------------------------------

def test_limit_names_come_from_the_vocabulary():
    assert not hasattr(limits_module, "LIMIT_NAMES")
    assert OVERRIDE_KEYS == tuple(f.name for f in fields(Limits)) == tuple(limit.field for limit in Limit)
    from study.paths import prereg_dir

    raw = yaml.safe_load((prereg_dir() / "limits.yaml").read_text())
    # every limit but those a session has only where its study's limits.yaml sets them (a staged
    # protocol's budget per run)
    assert {limit.yaml_key for limit in Limit if limit not in limits_module.WHERE_SET} == set(raw) - {"schema"}


@pytest.mark.parametrize("key, value, says", [
    ("turns", "2.5", "whole number"), ("stop_blocks", "0", "finite number > 0"), ("resumes", "true", "finite number > 0"),
    ("wall_time_hours", "{sonnet-4.6: 12}", "no entry for model"), ("no_decision_minutes", ".nan", "finite number > 0"),
])
def test_limits_yaml_values_are_checked(tmp_path, key, value, says):
    from study.paths import prereg_dir

    text = (prereg_dir() / "limits.yaml").read_text()
    raw = yaml.safe_load(text)
    raw[key] = yaml.safe_load(value)
    path = tmp_path / "limits.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(LimitsError, match=says):
        load_limits("haiku-4.5", path=path)


def test_overrides_are_checked_even_without_the_cli():
    for bad in ({"spending_usd": float("nan")}, {"spending_usd": -1}, {"turns": 0.5}, {"resumes": float("inf")}):
        with pytest.raises(LimitsError):
            load_limits("sim:oracle", bad)
    assert load_limits("sim:oracle", {"turns": 3.0, "no_decision_s": 0.5}).turns == 3


# ----- key, URL, probe -----------------------------------------------------------------------------------

def test_good_keys_and_urls_pass():
    check_api_key("sk-ant-api03-AbC_dEf-123", "ANTHROPIC_API_KEY")
    assert check_base_url("https://api.anthropic.com") == ("api.anthropic.com", 443)
    assert check_base_url("http://127.0.0.1:8080/relay/") == ("127.0.0.1", 8080)
    assert check_base_url("http://[::1]:9000") == ("::1", 9000)


def test_the_probe_passes_a_listening_endpoint_and_names_a_dead_one(monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        probe_endpoint(f"http://127.0.0.1:{port}")
    with pytest.raises(PreflightError, match=rf"^cannot reach http://127.0.0.1:{port}: "):
        probe_endpoint(f"http://127.0.0.1:{port}")
    with pytest.raises(PreflightError, match="does not resolve"):
        probe_endpoint("http://no-such-host.invalid:80", timeout=2)


def test_the_probe_goes_through_the_proxy_unless_no_proxy_covers_the_host(monkeypatch):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setenv("HTTP_PROXY", f"127.0.0.1:{server.getsockname()[1]}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        probe_endpoint("http://relay.invalid:8080")          # reached through the live proxy
        monkeypatch.setenv("NO_PROXY", "relay.invalid")
        with pytest.raises(PreflightError, match="does not resolve"):
            probe_endpoint("http://relay.invalid:8080", timeout=2)


# ----- prepare() and the matrix refuse the same -------------------------------------------------------------

def test_prepare_refuses_an_unplanned_confirmatory_seed_but_not_an_exploratory_session(tmp_path):
    def spec(**kw) -> SessionSpec:
        return SessionSpec(**{"condition": "Plain", "seed": 99, "model": "sim:oracle", "manifest_sha256": "x",
                              "out_root": tmp_path / "s", **kw})

    with pytest.raises(PreflightError, match="seed 99 has no frozen order"):
        prepare(spec())
    assert prepare(spec(accounts=3)).exploratory
    assert prepare(spec(limit_overrides={"turns": 5})).exploratory
    assert prepare(spec(manifest_sha256=None)).exploratory           # unchecked: exploratory
    assert prepare(spec(condition="FSM-bound")).exploratory          # an exploratory condition
    with pytest.raises(PreflightError, match="not a seed"):
        prepare(spec(seed=0, accounts=3))
    assert not (tmp_path / "s").exists()


def test_validate_specs_refuses_a_session_listed_twice(tmp_path):
    one = SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=tmp_path)
    with pytest.raises(PreflightError, match="listed twice"):
        validate_specs([one, SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=tmp_path)])
    assert len(validate_specs([one, SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=2,
                                                out_root=tmp_path)])) == 2


def test_the_out_root_check_creates_nothing(tmp_path):
    from study.runner.preflight import check_out_root

    check_out_root(tmp_path / "a" / "b" / "c")
    assert list(Path(tmp_path).iterdir()) == []
