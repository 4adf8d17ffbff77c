#!/usr/bin/env python3
"""A ``docker buildx`` CLI plugin that runs ``docker build``: the one buildx call SWE-bench makes.

Installed by ``scripts/docker-up`` as ``~/.docker/cli-plugins/docker-buildx`` when no real buildx
answers (Debian bookworm packages none, and no other registry is reachable here). Written by hand
because nothing maintained does this: it is a plugin of a dozen lines of translation.

The official harness (``swebench`` 5.0.2, ``swebench/image_builder/docker_build.py``) builds every
image with exactly::

    docker buildx build --platform=P --tag=T --file=F --progress=plain --load [--no-cache] CTX

and calls buildx nowhere else. This plugin runs that as ``docker build`` with the classic builder
(``DOCKER_BUILDKIT=0``), which every docker client since 17 has, whatever its version (the
newer 28.x client on this machine refuses a BuildKit build without a real buildx, and Debian's
20.10 client would need the daemon's BuildKit): ``--load`` is dropped (the classic builder always
stores the image in the daemon), ``--progress`` is dropped (the classic builder prints plain
steps), and ``--force-rm`` is added (a failed step leaves no container behind, as with
BuildKit). Any other option, or a buildx subcommand other than ``build`` and ``version``, is refused
with one line naming it, so a harness that starts calling buildx differently fails loudly
instead of building something else.

The docker CLI runs a plugin as ``docker-buildx docker-cli-plugin-metadata`` (its description)
and ``docker-buildx buildx ARGS...`` (a call): see the CLI's ``cli-plugins/manager``.
"""

from __future__ import annotations

import json
import os
import sys

#: Written into the metadata and checked by scripts/docker-up, so an outdated copy is replaced.
SHIM_VERSION = "study-shim-2"

#: buildx build options the classic builder takes as they are (with or without "=value").
PASSED = {"--platform", "--tag", "-t", "--file", "-f", "--no-cache", "--build-arg", "--target",
          "--label", "--pull", "--quiet", "-q", "--network"}
#: options that take no value
FLAGS = {"--no-cache", "--pull", "--quiet", "-q", "--load"}
#: buildx options with no meaning for the classic builder, dropped
DROPPED = {"--load", "--progress"}


def translate(args: list[str]) -> list[str]:
    """``buildx build`` arguments (after ``build``) as ``docker build`` arguments; ValueError on
    anything this shim does not know."""
    out: list[str] = []
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            i += 1
            continue
        name, has_value, _ = arg.partition("=")
        if name not in PASSED | DROPPED:
            raise ValueError(f"docker-buildx (study shim): unsupported option {name}")
        takes_value = name not in FLAGS
        if takes_value and not has_value:
            if i + 1 >= len(args):
                raise ValueError(f"docker-buildx (study shim): {name} needs a value")
            arg = f"{name}={args[i + 1]}"
            i += 1
        if name not in DROPPED:
            out.append(arg)
        i += 1
    if len(positional) != 1:
        raise ValueError(f"docker-buildx (study shim): expected one build context, got {positional}")
    return out + positional


def main(argv: list[str]) -> int:
    if argv[:1] == ["docker-cli-plugin-metadata"]:
        print(json.dumps({"SchemaVersion": "0.1.0", "Vendor": "sop-fidelity-study",
                          "Version": SHIM_VERSION,
                          "ShortDescription": "buildx build as the classic docker build (study shim)"}))
        return 0
    if argv[:1] == ["buildx"]:
        argv = argv[1:]
    if argv[:1] == ["version"]:
        print(f"github.com/docker/buildx {SHIM_VERSION} (docker build shim)")
        return 0
    if argv[:1] != ["build"]:
        print(f"docker-buildx (study shim): only 'buildx build' is supported, got {argv[:1]}", file=sys.stderr)
        return 2
    try:
        build_args = translate(argv[1:])
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    env = dict(os.environ, DOCKER_BUILDKIT="0")
    # The docker CLI that ran this plugin is on PATH as `docker` (both clients here find it there).
    # --force-rm: the classic builder keeps a failed step's container otherwise (BuildKit keeps none)
    os.execvpe("docker", ["docker", "build", "--force-rm", *build_args], env)
    return 127   # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
