"""The YAML loader's libyaml fast path (``study.protocol.yaml_lines``) gives exactly what the
Python reference loader gives: the same values and the same lines for every YAML file of the
package, and, for a text with any problem, the reference's error word for word."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from study.protocol import yaml_lines
from study.protocol.yaml_lines import LineList, LineMap, YamlError, load_yaml, load_yaml_with_lines

REPO = Path(__file__).resolve().parents[2]
FILES = sorted(p for folder in ("preregistration", "sopbench_tools/tasks/manifests", "study", "analysis")
               for p in (REPO / folder).rglob("*.yaml"))

pytestmark = pytest.mark.skipif(not yaml_lines._FAST, reason="PyYAML without libyaml: there is no fast path")


def _shape(value):
    """The value with every container's lines spelled out, to compare two loads exactly."""
    if isinstance(value, LineMap):
        return ("map", value.line, [(k, value.key_line(k), _shape(v)) for k, v in value.items()])
    if isinstance(value, LineList):
        return ("list", value.line, [(value.item_line(i), _shape(v)) for i, v in enumerate(value)])
    return (type(value).__name__, value)


def _reference(monkeypatch, load, text):
    with monkeypatch.context() as m:
        m.setattr(yaml_lines, "_FAST", False)
        return load(text)


def test_the_package_has_yaml_files_to_compare():
    assert len(FILES) >= 20 and any(p.name == "predictions.yaml" for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_yaml_file_loads_the_same_fast_and_by_the_reference(path, monkeypatch):
    text = path.read_text(encoding="utf-8")
    assert _shape(load_yaml_with_lines(text)) == _shape(_reference(monkeypatch, load_yaml_with_lines, text))
    assert load_yaml(text) == _reference(monkeypatch, load_yaml, text) == yaml.safe_load(text)


@pytest.mark.parametrize("text", [
    "a: b: c\n",                              # a syntax error: the reference's wording and line
    "x: 1\ny: [1, 2\n",
    "k: 1\nk: 2\n",                           # a duplicate key (with lines)
    "a: &x [*x]\n",                           # a recursive alias
    "- " * 70 + "x\n",                        # too deep
    "a: \x07\n",                              # a character PyYAML's reader refuses
])
def test_a_text_with_a_problem_gets_the_reference_error(text, monkeypatch):
    with pytest.raises(YamlError) as fast:
        load_yaml_with_lines(text)
    with pytest.raises(YamlError) as reference:
        _reference(monkeypatch, load_yaml_with_lines, text)
    assert (str(fast.value), fast.value.line) == (str(reference.value), reference.value.line)
