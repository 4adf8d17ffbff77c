"""Docker for the family: the buildx shim's translation of the harness's one buildx call (and its
refusal of anything else), the base image's name from its recipe and the Debian mirror from the
apt sources, and scripts/docker-up on a machine where docker runs (idempotent, quiet, buildx
answering)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from study.families.swebench import base_image as base
from study.families.swebench.docker_buildx_shim import main as shim_main
from study.families.swebench.docker_buildx_shim import translate

ROOT = Path(__file__).resolve().parents[3]


def test_the_shim_translates_the_harness_s_buildx_call():
    harness = ["--platform=linux/amd64", "--tag=swebench/sweb.eval.x86_64.a_1776_b-1:latest", "--file=/logs/Dockerfile",
               "--progress=plain", "--load", "--no-cache", "/tasks/a__b-1"]
    assert translate(harness) == ["--platform=linux/amd64", "--tag=swebench/sweb.eval.x86_64.a_1776_b-1:latest",
                                  "--file=/logs/Dockerfile", "--no-cache", "/tasks/a__b-1"]
    assert translate(["-t", "x:1", "--load", "ctx"]) == ["-t=x:1", "ctx"]


@pytest.mark.parametrize("args,said", [(["--push", "ctx"], "unsupported option --push"),
                                       (["--tag=x", "a", "b"], "one build context"),
                                       (["--tag"], "--tag needs a value")])
def test_the_shim_refuses_what_it_does_not_know(args, said):
    with pytest.raises(ValueError, match=said):
        translate(args)


def test_the_shim_answers_the_cli_s_metadata_and_refuses_other_subcommands(capsys):
    assert shim_main(["docker-cli-plugin-metadata"]) == 0
    assert '"SchemaVersion": "0.1.0"' in capsys.readouterr().out
    assert shim_main(["buildx", "bake"]) == 2


def test_the_base_image_is_named_by_its_recipe():
    name = base.image_name()
    assert name.startswith("localhost/sweb-study-base:") and len(name.rsplit(":", 1)[1]) == 12
    changed = dict(base.RECIPE, include=[*base.RECIPE["include"], "curl"])
    assert base.image_name(changed) != name and base.image_name(dict(base.RECIPE)) == name
    done = subprocess.run([str(ROOT / "scripts" / "swebench-base-image"), "--name"], capture_output=True, text=True)
    assert done.stdout.strip() == name


def test_the_mirror_comes_from_the_apt_sources(tmp_path, monkeypatch):
    monkeypatch.delenv(base.MIRROR_ENV, raising=False)
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n")
    assert base.debian_mirror(tmp_path) == "http://mirror.example/debian"
    (tmp_path / "sources.list.d" / "debian.sources").unlink()
    (tmp_path / "sources.list").write_text("deb [arch=amd64] http://old.example/debian bookworm main\n")
    assert base.debian_mirror(tmp_path) == "http://old.example/debian"
    monkeypatch.setenv(base.MIRROR_ENV, "http://chosen.example/debian")
    assert base.debian_mirror(tmp_path) == "http://chosen.example/debian"


def test_docker_up_is_idempotent_and_leaves_buildx_answering(base_image):
    first = subprocess.run([str(ROOT / "scripts" / "docker-up")], capture_output=True, text=True, timeout=120)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    assert subprocess.run(["docker", "buildx", "version"], capture_output=True).returncode == 0
    assert subprocess.run(["docker", "image", "inspect", base_image], capture_output=True).returncode == 0
