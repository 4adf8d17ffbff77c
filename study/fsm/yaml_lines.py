"""Moved to :mod:`study.protocol.yaml_lines`, with the other readers of the preregistration's files;
re-exported here only for ``sopbench_tools.tasks.manifest``, which still imports it from here."""

from study.protocol.yaml_lines import (  # noqa: F401
    MAX_ALIASES,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_NODES,
    LineList,
    LineMap,
    YamlError,
    load_yaml,
    load_yaml_with_lines,
    read_yaml_text,
)
