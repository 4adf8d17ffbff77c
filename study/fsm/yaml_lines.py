"""Load YAML while keeping the line of every mapping key and list item.

The workflow validator must say *where* a problem is. PyYAML's ``safe_load`` forgets line
numbers and silently keeps the last of two equal keys, so this module composes the node tree
itself and builds plain Python values whose containers remember their lines:

- :class:`LineMap` is a ``dict`` with ``.line`` (where the mapping starts) and
  ``.key_line(key)`` (where a key is written);
- :class:`LineList` is a ``list`` with ``.line`` and ``.item_line(i)``.

Line numbers are 1-based, as editors show them. A duplicate key raises :class:`YamlError`
naming both lines.
"""

from __future__ import annotations

from typing import Any

import yaml


class YamlError(ValueError):
    """The text is not valid YAML, or repeats a key. ``line`` is 1-based (or None)."""

    def __init__(self, message: str, line: int | None, path: tuple = (), key: Any = None, first_line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        #: for a duplicate key: the keys leading to the mapping that repeats ``key``, and the
        #: line where ``key`` was first written
        self.path = path
        self.key = key
        self.first_line = first_line


class LineMap(dict):
    """A mapping that remembers the line of itself and of each key."""

    line: int = 0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._key_lines: dict[Any, int] = {}

    def key_line(self, key: Any) -> int:
        """The line where ``key`` is written (the mapping's own line if unknown)."""
        return self._key_lines.get(key, self.line)


class LineList(list):
    """A list that remembers the line of itself and of each item."""

    line: int = 0

    def __init__(self, *args: Any):
        super().__init__(*args)
        self._item_lines: list[int] = []

    def item_line(self, index: int) -> int:
        return self._item_lines[index] if index < len(self._item_lines) else self.line


def _construct(node: yaml.Node, loader: yaml.SafeLoader, path: tuple = ()) -> Any:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result = LineMap()
        result.line = line
        first_seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, loader, path)
            key_line = key_node.start_mark.line + 1
            if isinstance(key, (dict, list)):
                raise YamlError("a mapping key must be a plain value, not a list or mapping", key_line)
            if key in first_seen:
                raise YamlError(
                    f"duplicate key {key!r} (first written at line {first_seen[key]}); "
                    "keep one of them",
                    key_line,
                    path,
                    key,
                    first_seen[key],
                )
            first_seen[key] = key_line
            result[key] = _construct(value_node, loader, path + (key,))
            result._key_lines[key] = key_line
        return result
    if isinstance(node, yaml.SequenceNode):
        result = LineList()
        result.line = line
        for item in node.value:
            result.append(_construct(item, loader, path + (len(result),)))
            result._item_lines.append(item.start_mark.line + 1)
        return result
    return loader.construct_object(node, deep=True)


def load_yaml_with_lines(text: str) -> Any:
    """Parse one YAML document into LineMap/LineList/scalars. Raises YamlError."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        return _construct(node, loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        message = f"malformed YAML: {exc.problem or exc}"
        if exc.context and exc.context_mark is not None and exc.context_mark is not mark:
            message += f" ({exc.context} that starts at line {exc.context_mark.line + 1})"
        raise YamlError(message + "; fix the syntax there", line) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"malformed YAML: {exc}", None) from None
    finally:
        loader.dispose()
