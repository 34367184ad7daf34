"""YAML in, with the position of every key and value kept for error messages.

ruamel's round-trip loader remembers where each key, value and list item starts
(`.lc`, 0-based); validation runs on a plain copy (dict, list, str, int, float, bool,
None) so that ruamel's scalar subclasses never reach pydantic, and errors are mapped
back to positions with `position_of`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

# A plan is a few hundred nodes; aliases can multiply that without bound ("billion laughs").
MAX_NODES = 100_000

Loc = tuple[str | int, ...]


class YamlProblem(Exception):
    """The text is not YAML we can use; line and column are 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Document:
    """A loaded YAML document: the plain data and the ruamel tree that knows positions."""

    data: Any
    tree: Any

    def position_of(self, loc: Loc, *, key: bool = False) -> tuple[int, int] | None:
        """1-based (line, column) of the value at loc, or of its key when key=True.

        Where loc leads to something that is not in the file (a missing key), this is the
        position of the deepest mapping or list that is.
        """
        node = self.tree
        position = _start(node)
        for index, step in enumerate(loc):
            last = index == len(loc) - 1
            found = _child_position(node, step, want_key=key and last)
            if found is None:
                break
            position, node = found
        return None if position is None else (position[0] + 1, position[1] + 1)


def load_yaml(text: str) -> Document:
    """Parse text; raise YamlProblem for bad syntax, recursion or an explosion of aliases."""
    yaml = YAML(typ="rt")
    try:
        tree = yaml.load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        message = error.problem or error.context or "not valid YAML"
        if error.context and error.problem:
            message = f"{error.problem} ({error.context})"
        if mark is None:
            raise YamlProblem(f"not valid YAML: {message}") from None
        raise YamlProblem(f"not valid YAML: {message}", mark.line + 1, mark.column + 1) from None
    except YAMLError as error:
        raise YamlProblem(f"not valid YAML: {error}") from None
    except RecursionError:
        raise YamlProblem("not valid YAML: nested too deeply") from None
    return Document(data=_plain(tree, _Budget()), tree=tree)


class _Budget:
    def __init__(self) -> None:
        self.nodes = 0
        self.open: set[int] = set()


def _plain(node: Any, budget: _Budget) -> Any:
    budget.nodes += 1
    if budget.nodes > MAX_NODES:
        raise YamlProblem(f"the file expands to more than {MAX_NODES} values (aliases?)")
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)  # ScalarInt, HexInt... -> int
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, Mapping | list):
        if id(node) in budget.open:
            raise YamlProblem("an alias refers to a value that contains it")
        budget.open.add(id(node))
        try:
            if isinstance(node, Mapping):
                return {_plain_key(k): _plain(v, budget) for k, v in node.items()}
            return [_plain(item, budget) for item in node]
        finally:
            budget.open.discard(id(node))
    tagged = getattr(node, "value", None)  # a !tagged scalar: judge it by its text
    if isinstance(tagged, str):
        return str(tagged)
    return node  # dates, sets: left for validation to reject with a type error


def _plain_key(key: Any) -> Any:
    # `? [a, b]: x` makes a list or mapping a key; no plan key looks like that.
    if key is None or isinstance(key, bool | int | float | str):
        return _plain(key, _Budget())
    return str(key)


def _start(node: Any) -> tuple[int, int] | None:
    lc = getattr(node, "lc", None)
    line, column = getattr(lc, "line", None), getattr(lc, "col", None)
    if isinstance(line, int) and isinstance(column, int):
        return (line, column)
    return None


def _child_position(
    node: Any, step: str | int, *, want_key: bool
) -> tuple[tuple[int, int], Any] | None:
    """(position, child) one step down from node, or None if the step is not in the file."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        if isinstance(node, Mapping):
            key = _find_key(node, step)
            if key is _MISSING:
                return None
            child = node[key]
            # An empty value (`tests:`) has no position of its own: point at its key.
            if want_key or child is None:
                return tuple(lc.key(key)), child
            # A nested mapping or list knows where it starts better than its parent does.
            return (_start(child) or tuple(lc.value(key))), child
        if isinstance(node, Sequence) and not isinstance(node, str) and isinstance(step, int):
            if not 0 <= step < len(node):
                return None
            child = node[step]
            return (_start(child) or tuple(lc.item(step))), child
    except (KeyError, IndexError, TypeError, AttributeError):
        # Keys merged in with `<<:` have no position of their own.
        return None
    return None


_MISSING = object()


def _find_key(node: Mapping[Any, Any], step: str | int) -> Any:
    if step in node:
        return step
    # Validation ran on a copy whose keys were converted (a ScalarInt key became an int).
    for key in node:
        if key == step or str(key) == str(step):
            return key
    return _MISSING
