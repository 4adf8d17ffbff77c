"""CITATION.cff is valid Citation File Format 1.2.0 (the official schema, vendored with its
licence in citation_schema/), cites the package and, as references, the paper it reproduces
and SOP-Bench, and agrees with pyproject.toml."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).resolve().parent / "citation_schema" / "schema.json"


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_file_validates_against_the_cff_120_schema():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["$id"] == "https://citation-file-format.github.io/1.2.0/schema.json"
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(_cff()), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_the_validator_rejects_what_the_schema_forbids():
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    bad = {**_cff(), "cff-version": "1.2.0"}
    del bad["authors"]
    assert not validator.is_valid(bad)
    assert not validator.is_valid({**_cff(), "references": [{"type": "dataset", "title": "x",
                                                             "authors": [{"name": "y"}]}]})


def test_it_cites_the_package_the_paper_and_sop_bench():
    cff, project = _cff(), tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == project["version"] and cff["license"] == "MIT"
    titles = [r["title"] for r in cff["references"]]
    assert titles[0] == ("Keeping LLM Agents on Procedure: Executable Finite-State Control for "
                         "Long-Horizon Instruction Fidelity")
    assert [a["family-names"] for a in cff["references"][0]["authors"]] == [
        "Sun", "Li", "Chen", "Li", "Wang", "Qin", "Yin"]
    assert titles[1] == "SOP-Bench: Complex Industrial SOPs for Evaluating LLM Agents"
    data = cff["references"][2]
    assert data["license"] == "CC-BY-NC-4.0" and data["repository-code"] == "https://github.com/amazon-science/SOP-Bench"
