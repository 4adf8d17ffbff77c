"""Load YAML while keeping the line of every mapping key and list item.

The workflow validator must say *where* a problem is. PyYAML's ``safe_load`` forgets line
numbers and silently keeps the last of two equal keys, so this module composes the node tree
itself and builds plain Python values whose containers remember their lines:

- :class:`LineMap` is a ``dict`` with ``.line`` (where the mapping starts) and
  ``.key_line(key)`` (where a key is written);
- :class:`LineList` is a ``list`` with ``.line`` and ``.item_line(i)``.

Line numbers are 1-based, as editors show them. A duplicate key raises :class:`YamlError`
naming both lines.

Every YAML file the package reads goes through this module (``load_yaml`` gives what
``yaml.safe_load`` gives; ``load_yaml_with_lines`` the line-keeping values), and both refuse, as a
:class:`YamlError`, a text that would exhaust memory or the stack: more than ``MAX_BYTES``
characters, nesting deeper than ``MAX_DEPTH``, more than ``MAX_ALIASES`` aliases, an alias to
a node that contains it (a recursive alias), or more than ``MAX_NODES`` nodes once the aliases
are expanded (a "billion laughs").
"""

from __future__ import annotations

from typing import Any

import yaml

from study.errors import StudyError

#: Limits of every YAML file read (the study's largest, the FSM workflow, is ~25 KB, 9 levels deep,
#: without aliases).
MAX_BYTES = 1 << 20
MAX_DEPTH = 64
MAX_ALIASES = 100
MAX_NODES = 100_000


class YamlError(StudyError, ValueError):
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


#: libyaml is there (PyYAML's C extension); without it every text takes the Python loader.
_FAST = getattr(yaml, "__with_libyaml__", False)


class _Limits:
    """Composing under the limits above (PyYAML's own composer, with counts)."""

    _depth = 0
    _aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _limit(f"more than {MAX_ALIASES} aliases (*name)", event.start_mark)
            target = self.anchors.get(event.anchor)
            # a collection gets its end mark when it is composed: none yet means the alias is inside it
            if target is not None and target.end_mark is None:
                raise _limit(f"the alias *{event.anchor} refers to a node that contains it (a recursive alias)",
                             event.start_mark)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _limit(f"nesting deeper than {MAX_DEPTH} levels", self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _LimitedLoader(_Limits, yaml.SafeLoader):
    """PyYAML's safe loader, in Python, composing under the limits: the reference, whose errors
    the messages quote."""


if _FAST:
    from yaml.cyaml import CParser

    class _FastLimitedLoader(_Limits, yaml.composer.Composer, CParser, yaml.constructor.SafeConstructor,
                             yaml.resolver.Resolver):
        """The same composer, constructor and resolver over libyaml's scanner and parser: five to
        ten times faster on the study's files. Used only for a text that loads without any error;
        anything else is loaded again by ``_LimitedLoader``, so every error, and its wording, is
        the reference's."""

        def __init__(self, text: str):
            CParser.__init__(self, text)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


class _LimitError(yaml.YAMLError):
    """A text over one of the limits, at ``mark``."""

    def __init__(self, problem: str, mark: Any):
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


_limit = _LimitError


def _expanded_size(root: yaml.Node) -> int:
    """The number of nodes once every alias is expanded (memoised per node; no cycle is left)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if done or not children:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 0) for c in children)
            if sizes[id(node)] > MAX_NODES:
                return sizes[id(node)]
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _compose(loader: yaml.SafeLoader) -> yaml.Node | None:
    """The document's node tree under the limits (raises yaml errors, _LimitError included)."""
    node = loader.get_single_node()
    if node is not None and _expanded_size(node) > MAX_NODES:
        raise _limit(f"more than {MAX_NODES} nodes once its aliases are expanded", node.start_mark)
    return node


def _loading(text: Any, build: Any) -> Any:
    if not isinstance(text, str):
        raise YamlError(f"a YAML file is text, not {type(text).__name__}", None)
    if len(text) > MAX_BYTES:
        raise YamlError(f"the file has {len(text)} characters, more than the {MAX_BYTES} a YAML file of "
                        "the study may have", None)
    if _FAST and not yaml.reader.Reader.NON_PRINTABLE.search(text):
        loader = _FastLimitedLoader(text)
        try:
            node = _compose(loader)
            return None if node is None else build(node, loader)
        except Exception:   # YAML errors, limits, a duplicate key: the reference loader says which
            pass
        finally:
            loader.dispose()
    loader = None
    try:
        loader = _LimitedLoader(text)      # its reader refuses a control character here
        node = _compose(loader)
        return None if node is None else build(node, loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        message = f"malformed YAML: {exc.problem or exc}"
        if exc.context and exc.context_mark is not None and exc.context_mark is not mark:
            message += f" ({exc.context} that starts at line {exc.context_mark.line + 1})"
        raise YamlError(message + "; fix the syntax there", line) from None
    except _LimitError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        raise YamlError(f"refused YAML: {exc.problem}; write the values out plainly", line) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"malformed YAML: {exc}", None) from None
    finally:
        if loader is not None:
            loader.dispose()


def read_yaml_text(path: Any) -> str:
    """The text of the YAML file ``path``, refused (YamlError) before it is read when it is larger
    than ``MAX_BYTES``; ``FileNotFoundError`` and other ``OSError`` as ``open`` raises them."""
    from pathlib import Path

    with open(Path(path), "rb") as fh:
        data = fh.read(MAX_BYTES * 4 + 1)   # at most 4 bytes a character in UTF-8
    if len(data) > MAX_BYTES * 4:
        raise YamlError(f"{path} is larger than a YAML file of the study may be ({MAX_BYTES} characters)", None)
    return data.decode("utf-8")


def load_yaml(text: str) -> Any:
    """Parse one YAML document as ``yaml.safe_load`` does, under the limits. Raises YamlError."""
    return _loading(text, lambda node, loader: loader.construct_document(node))


def load_yaml_with_lines(text: str) -> Any:
    """Parse one YAML document into LineMap/LineList/scalars. Raises YamlError."""
    return _loading(text, lambda node, loader: _construct(node, loader))
