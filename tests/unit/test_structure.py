"""The house's shape, held where a change would bend it: modules small enough to read in
one sitting, and no modules that import each other in a loop.

The layers themselves are import-linter's contract (pyproject.toml); this counts what
that contract does not see: loops inside one layer (every import counts, also one inside
a function, which keeps `wirespeed --help` fast but still ties the two modules) and size.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "wirespeed"
MOST_LINES = 600


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(package: Path) -> dict[str, Path]:
    return {_module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}


def _imported(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        if path.name != "__init__.py":
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    return [f"{target}.{alias.name}" for alias in node.names] + [target]


def _import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for named in _imported(name, path, node):
                target = named
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                # A package's __init__ hands names on: an arrow to it is not a tie to
                # whichever of its modules the names come from.
                if target and target != name and modules[target].name != "__init__.py":
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root, imported in graph.items():
        if root in index:
            continue
        work = [(root, iter(sorted(imported)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_the_graph_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    package = tmp_path / "house"
    (package / "low").mkdir(parents=True)
    (package / "__init__.py").write_text("from house.low.floor import ground\n")
    (package / "low" / "__init__.py").write_text("")
    (package / "low" / "floor.py").write_text("ground = 1\n")
    (package / "top.py").write_text("def later():\n    from .low import floor\n")
    graph = _import_graph(package)
    assert graph["house.top"] == {"house.low.floor"}
    assert graph["house"] == {"house.low.floor"}  # a package's face still imports
    assert graph["house.low.floor"] == set()


def test_a_loop_of_two_modules_is_found() -> None:
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": set()}
    assert _cycles(graph) == [["a", "b"]]


def test_no_modules_import_each_other_in_a_loop() -> None:
    # A loop is found by a cut below which both halves' shared names move (as
    # analysis/link_ceiling.py holds what the link's and the tunnel's ceilings share).
    cycles = _cycles(_import_graph())
    assert not cycles, "\n".join(", ".join(group) for group in cycles)


def test_no_module_is_longer_than_one_sitting() -> None:
    long = {
        str(path.relative_to(SRC)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert not long, f"over {MOST_LINES} lines: {long}"
