"""YAML in, with the position of every key and value kept for error messages.

ruamel's round-trip loader remembers where each key, value and list item starts
(`.lc`, 0-based); validation runs on a plain copy (dict, list, str, int, float, bool,
None) so that ruamel's scalar subclasses never reach pydantic, and errors are mapped
back to positions with `position_of`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError

# A plan is a few hundred nodes; aliases can multiply that without bound ("billion laughs").
MAX_NODES = 100_000
# A plan nests a handful of [ and { deep. ruamel's scanner slows down with the square of
# the depth of flow collections (seconds for a line of a few thousand `[`), so a depth no
# plan has is refused before it parses anything. Brackets inside quotes count too: only
# text nobody writes (a hundred unclosed `[`) is refused for it.
MAX_FLOW_DEPTH = 100
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# ruamel knows the resolvers of YAML 1.1 and 1.2 only, and fails on any other version
# with a KeyError or an AssertionError that says nowhere where the directive is.
_VERSION_DIRECTIVE = re.compile(r"^%YAML[ \t]+([0-9]+)\.([0-9]+)", re.MULTILINE)

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
    with warnings.catch_warnings():
        # ruamel warns about valid YAML it finds odd (an anchor defined twice: the later
        # one counts); on a user's terminal that would be Python noise.
        warnings.simplefilter("ignore")
        return _load(text)


def _load(text: str) -> Document:
    _check_flow_depth(text)
    _check_version(text)
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
    except ReaderError as error:
        raise _reader_problem(text, error) from None
    except YAMLError as error:
        raise YamlProblem(f"not valid YAML: {error}") from None
    except RecursionError:
        raise YamlProblem("not valid YAML: nested too deeply") from None
    except Exception as error:
        # ruamel's constructors raise plain ValueError, KeyError, IndexError, TypeError...
        # for values they cannot build (`2020-13-45`, `!!int x`, `? [a]: b`): whatever
        # the parser of an untrusted file raises, the file is not YAML we can use.
        raise _construction_problem(text, error) from None
    try:
        return Document(data=_plain(tree, _Budget()), tree=tree)
    except RecursionError:
        raise YamlProblem("not valid YAML: nested too deeply") from None


def _check_flow_depth(text: str) -> None:
    depth = 0
    for bracket in _BRACKET.finditer(text):
        if bracket.group() in "[{":
            depth += 1
            if depth > MAX_FLOW_DEPTH:
                at = bracket.start()
                line = text.count("\n", 0, at) + 1
                column = at - (text.rfind("\n", 0, at) + 1) + 1
                raise YamlProblem(
                    f"not valid YAML: nested too deeply (more than {MAX_FLOW_DEPTH} [ or {{)",
                    line,
                    column,
                )
        elif depth > 0:
            depth -= 1


def _check_version(text: str) -> None:
    for directive in _VERSION_DIRECTIVE.finditer(text):
        version = (int(directive[1]), int(directive[2]))
        if version not in ((1, 1), (1, 2)):
            line = text.count("\n", 0, directive.start()) + 1
            raise YamlProblem(
                f"not valid YAML: %YAML {directive[1]}.{directive[2]}: "
                "only YAML 1.1 and 1.2 are known (leave the directive out for 1.2)",
                line,
                1,
            )


def _reader_problem(text: str, error: ReaderError) -> YamlProblem:
    """A character YAML does not allow in a file (a control character), with its position."""
    character, position = error.character, error.position
    if not isinstance(character, int) or not isinstance(position, int):
        return YamlProblem(f"not valid YAML: {error.reason}")
    before = text[:position]
    line = before.count("\n") + 1
    column = position - (before.rfind("\n") + 1) + 1
    return YamlProblem(
        f"not valid YAML: the character U+{character:04X} cannot appear in a YAML file "
        f'(inside double quotes, write it as "\\u{character:04x}")',
        line,
        column,
    )


# What each tag's value must look like, for the message about one that is not.
_TAG_KINDS = {
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "true or false",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:timestamp": "a date",
    "tag:yaml.org,2002:binary": "base64 data",
    "tag:yaml.org,2002:omap": "an ordered mapping (!!omap)",
    "tag:yaml.org,2002:pairs": "a list of pairs (!!pairs)",
    "tag:yaml.org,2002:set": "a set (!!set)",
}


def _construction_problem(text: str, error: Exception) -> YamlProblem:
    """The node ruamel could not build, found again on a fresh parse, with its position."""
    try:
        found = _unbuildable_node(text)
    except Exception:  # only the message gets poorer
        found = None
    if found is None:
        return YamlProblem(f"not valid YAML: {type(error).__name__}: {error}")
    node, message = found
    mark = node.start_mark
    return YamlProblem(f"not valid YAML: {message}", mark.line + 1, mark.column + 1)


def _unbuildable_node(text: str) -> tuple[Node, str] | None:
    """The first node, in reading order, that cannot be built on its own; innermost first."""
    yaml = YAML(typ="rt")
    root = yaml.compose(text)
    constructor = yaml.constructor
    seen: set[int] = set()

    def visit(node: Node) -> tuple[Node, str] | None:
        if id(node) in seen:  # an alias: built where its anchor is
            return None
        seen.add(id(node))
        children: list[Node] = []
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if not isinstance(key, ScalarNode):
                    return key, "a list or a mapping cannot be a key"
                children += [key, value]
        elif isinstance(node, SequenceNode):
            children = list(node.value)
        for child in children:
            found = visit(child)
            if found is not None:
                return found
        try:
            constructor.construct_object(node, deep=True)
        except Exception as error:
            constructor.constructed_objects = {}
            constructor.recursive_objects = {}
            return node, _unbuildable(node, error)
        return None

    return None if root is None else visit(root)


def _unbuildable(node: Node, error: Exception) -> str:
    tag = str(node.tag)
    kind = _TAG_KINDS.get(tag, f"a {tag}")
    if not isinstance(node, ScalarNode):
        shape = "mapping" if isinstance(node, MappingNode) else "list"
        return f"cannot build {kind} from this {shape}"
    shown = str(node.value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    # Python's own words only where they help: a date's "month must be in 1..12".
    detail = f": {error}" if tag == "tag:yaml.org,2002:timestamp" and str(error) else ""
    # A bare 2020-13-45 only looks like a date; `!!int x` asked for the type itself.
    advice = "" if _written_tag(node) else " (quote it to make it text)"
    return f"cannot read {shown!r} as {kind}{detail}{advice}"


def _written_tag(node: Node) -> bool:
    mark = node.start_mark
    buffer, pointer = getattr(mark, "buffer", None), getattr(mark, "pointer", None)
    if not isinstance(buffer, str) or not isinstance(pointer, int):
        return False
    return buffer[pointer : pointer + 1] == "!"


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
        return _joined_surrogates(str(node))
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
        return _joined_surrogates(str(tagged))
    return node  # dates, sets: left for validation to reject with a type error


def _joined_surrogates(text: str) -> str:
    """A surrogate pair written as two escapes, as JSON writes 🙂 ("\\ud83d\\ude42", and
    so valid YAML), joined into its one character.

    ruamel leaves the two halves, which no file, database or terminal takes; a half
    without its other half stays, for validation to refuse."""
    if not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        return text


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
