"""Thousands of damaged and generated plan files through `wirespeed check` and `run`.

Each one ends with exit status 0 (the plan is valid), or 2 and a message on stderr that
names the file and, where the problem has one, its line; never with a traceback (the
contract is spelled out in plan_cli.py). The files come from two kinds of generators:

- the example plans, damaged: keys deleted, duplicated, renamed and retyped, values
  swapped, odd scalars (NaN, huge numbers, dates, hostile text) put in, anchors, aliases,
  merge keys and tags added; and as bytes: cut at any offset, bytes that are not UTF-8,
  tabs, BOMs, CRs, YAML directives, deep nesting;
- plans built from the schema: some with valid values only (about a third of these
  plans load; the others fail the checks across entries), the rest with bad values
  mixed in at several rates.

2,000 generated cases, about 40 s on two cores; WIRESPEED_FUZZ_SCALE=10 runs ten times as
many.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plan_cli import check_and_run, cli
from ruamel.yaml import YAML

from wirespeed.plan.load import MAX_PLAN_BYTES
from wirespeed.plan.yamltree import load_yaml

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SEEDS: dict[str, str] = {p.name: p.read_text("utf-8") for p in sorted(EXAMPLES.glob("*.yaml"))}
SEED_DATA: dict[str, Any] = {name: load_yaml(text).data for name, text in SEEDS.items()}

# WIRESPEED_FUZZ_SCALE=10 runs ten times as many cases (a longer hunt, not for every run).
SCALE = int(os.environ.get("WIRESPEED_FUZZ_SCALE", "1"))


def cases(count: int) -> settings:
    return settings(
        max_examples=count * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# File names that make a message awkward to print, and how a message shows each one.
FILE_NAMES: dict[bytes, str] = {
    b"plan.yaml": "plan.yaml",
    b"my plan.yaml": "my plan.yaml",
    b"plan;reboot.yaml": "plan;reboot.yaml",
    b"$(reboot)`id`.yaml": "$(reboot)`id`.yaml",
    "plän ✓.yaml".encode(): "plän ✓.yaml",
    b"-plan.yaml": "-plan.yaml",
    b"\xff\xfeplan.yaml": "\\xff\\xfeplan.yaml",  # not UTF-8
    b"two\nlines.yaml": "two\\x0alines.yaml",
}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def write_and_check(scratch: Path, content: bytes, name: bytes, command: str) -> None:
    path = Path(os.fsdecode(bytes(scratch).rstrip(b"/") + b"/" + name))
    path.write_bytes(content)
    check_and_run(path, f"{scratch}/{FILE_NAMES[name]}", scratch / "fuzz.db", command)


file_names = st.sampled_from(list(FILE_NAMES))
commands = st.sampled_from(["check", "run"])


# -- odd values ---------------------------------------------------------------------

HOSTILE_TEXT = [
    "; reboot",
    "$(reboot)",
    "`reboot`",
    "'; reboot; '",
    '"; reboot; "',
    "a\nb",
    "line\r\nbreak",
    "-oProxyCommand=reboot",
    "--help",
    "a b",
    "| pipe |",
    "<script>alert(1)</script>",
    "[bold]markup[/bold]",
    "\x1b[2Jclear",
    "\x00",
    "\u202eevil",
    "\u2028",
    "é",
    "🙂",
    "",
    " ",
    "\t",
]
ODD_SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**63,
    10**400,
    -(10**30),
    0.5,
    -0.0,
    1e308,
    math.nan,
    math.inf,
    -math.inf,
    "null",
    "~",
    "yes",
    "off",
    "0x1f",
    "0o17",
    "1_000",
    "1e999",
    "2020-12-09",
    "2020-13-45",
    "12:30:00",
    "64Q",
    "1000M",
    "gbe",
    "udp",
    "dual",
    "nat",
    "spread",
    "x" * 300,
    *HOSTILE_TEXT,
]
KEY_NAMES = [
    "title",
    "lab",
    "hosts",
    "paths",
    "defaults",
    "tests",
    "variants",
    "repetitions",
    "x-anchor",
    "id",
    "name",
    "tool",
    "protocol",
    "duration",
    "interval",
    "direction",
    "parallel",
    "window",
    "rate",
    "length",
    "mtu",
    "link",
    "topology",
    "client",
    "server",
    "dut",
    "address",
    "ssh",
    "rps",
    "xps",
    "offloads",
    "gro",
    "durtion",
    "<<",
]
odd_scalars = st.one_of(
    st.sampled_from(ODD_SCALARS),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(),
    st.text(max_size=10),
)
odd_keys = st.one_of(
    st.sampled_from(KEY_NAMES),
    st.sampled_from([None, True, 0, 1.5, "", " ", "x-", "Title", "tests "]),
    st.text(max_size=6),
)


# -- a YAML writer that can also write anchors, aliases, merge keys and tags --------


@dataclass(frozen=True)
class Anchor:
    name: str
    value: Any


@dataclass(frozen=True)
class Alias:
    name: str


@dataclass(frozen=True)
class Tagged:
    tag: str
    value: Any


TAGS = [
    "!!str",
    "!!int",
    "!!float",
    "!!bool",
    "!!null",
    "!!binary",
    "!!timestamp",
    "!!set",
    "!!omap",
    "!!pairs",
    "!!map",
    "!!seq",
    "!!merge",
    "!local",
    "!<tag:yaml.org,2002:str>",
    "!!python/object/apply:os.system",
]


def emit(value: Any, depth: int = 0) -> str:
    """Flow-style YAML, one entry per line (so problems have lines of their own)."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, Anchor):
        return f"&{value.name} {emit(value.value, depth)}"
    if isinstance(value, Alias):
        return f"*{value.name}"
    if isinstance(value, Tagged):
        return f"{value.tag} {emit(value.value, depth)}"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{_emit_key(key)}: {emit(item, depth + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(inner + item for item in items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [emit(item, depth + 1) for item in value]
        return "[\n" + ",\n".join(inner + item for item in items) + f"\n{pad}]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    return quote(str(value))


def quote(text: str) -> str:
    """A double-quoted YAML scalar: JSON's escapes are YAML's, and every character YAML
    does not allow raw in a file (C0, C1, DEL, surrogates...) is written as an escape."""
    quoted = json.dumps(text, ensure_ascii=False)
    return "".join(
        char if char.isprintable() or char == " " else f"\\U{ord(char):08x}" for char in quoted
    )


def _emit_key(key: Any) -> str:
    return "<<" if key == "<<" else emit(key)


def dump_block(data: Any) -> str:
    stream = StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.dump(data, stream)
    return stream.getvalue()


def plain(data: Any) -> bool:
    """No Anchor, Alias or Tagged inside: the block dumper can write it."""
    if isinstance(data, Anchor | Alias | Tagged):
        return False
    if isinstance(data, dict):
        return all(plain(k) and plain(v) for k, v in data.items())
    if isinstance(data, list):
        return all(plain(item) for item in data)
    return True


# -- damaged examples, as data --------------------------------------------------------

Loc = tuple[Any, ...]


def locations(data: Any, loc: Loc = ()) -> Iterator[Loc]:
    yield loc
    if isinstance(data, dict):
        for key, value in data.items():
            yield from locations(value, (*loc, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from locations(value, (*loc, index))


def get(data: Any, loc: Loc) -> Any:
    for step in loc:
        data = data[step]
    return data


def put(data: Any, loc: Loc, value: Any) -> Any:
    """data with the value at loc replaced (a new root when loc is empty)."""
    if not loc:
        return value
    get(data, loc[:-1])[loc[-1]] = value
    return data


def copy(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: copy(value) for key, value in data.items()}
    if isinstance(data, list):
        return [copy(item) for item in data]
    return data


Draw = Callable[[st.SearchStrategy[Any]], Any]


def mutate(draw: Draw, data: Any, serial: int) -> Any:
    locs = list(locations(data))
    loc = draw(st.sampled_from(locs))
    here = get(data, loc)
    parent = get(data, loc[:-1]) if loc else None
    operation = draw(
        st.sampled_from(
            [
                "delete",
                "retype",
                "swap",
                "wrap",
                "rename",
                "add",
                "duplicate",
                "anchor",
                "merge",
                "tag",
            ]
        )
    )
    if operation == "delete" and loc and parent is not None:
        del parent[loc[-1]]
        return data
    if operation == "retype":
        return put(data, loc, draw(odd_scalars))
    if operation == "swap":
        other = draw(st.sampled_from(locs))
        return put(data, loc, copy(get(data, other)))
    if operation == "wrap":
        wrapped = draw(st.sampled_from(["list", "map"]))
        return put(data, loc, [here] if wrapped == "list" else {draw(odd_keys): here})
    if operation == "rename" and isinstance(parent, dict):
        key = draw(odd_keys)
        items = [(key if k == loc[-1] else k, v) for k, v in parent.items()]
        return put(data, loc[:-1], dict(items))
    if operation == "add":
        if isinstance(here, dict):
            here[draw(odd_keys)] = draw(st.one_of(odd_scalars, st.just(copy(here))))
        elif isinstance(here, list):
            here.insert(draw(st.integers(0, len(here))), draw(st.one_of(odd_scalars, st.just(0))))
        return data
    if operation == "duplicate" and isinstance(parent, list):
        parent.insert(loc[-1], copy(here))
        return data
    if operation == "anchor":
        # The alias may come before its anchor, or sit inside it: both must be refused.
        name = f"a{serial}"
        other = draw(st.sampled_from(locs))
        data = put(data, loc, Anchor(name, here))
        try:
            return put(data, other, Alias(name))
        except (KeyError, IndexError, TypeError):
            return data
    if operation == "merge" and isinstance(here, dict) and isinstance(data, dict):
        name = f"m{serial}"
        moved = {k: here.pop(k) for k in list(here)[: draw(st.integers(0, len(here)))]}
        here["<<"] = Alias(name)
        return {f"x-{name}": Anchor(name, moved), **data}
    if operation == "tag" and not isinstance(here, Anchor | Alias | Tagged):
        return put(data, loc, Tagged(draw(st.sampled_from(TAGS)), here))
    return data


@st.composite
def damaged_examples(draw: Draw) -> bytes:
    data = copy(SEED_DATA[draw(st.sampled_from(sorted(SEED_DATA)))])
    for serial in range(draw(st.integers(1, 4))):
        data = mutate(draw, data, serial)
    if plain(data) and draw(st.booleans()):
        try:
            return dump_block(data).encode()
        except Exception:  # a value the block dumper cannot write: the flow writer can
            pass
    return emit(data).encode()


@cases(420)
@given(damaged_examples(), file_names, commands)
def test_damaged_examples_exit_0_or_2_naming_the_file(
    scratch: Path, content: bytes, name: bytes, command: str
) -> None:
    write_and_check(scratch, content, name, command)


# -- damaged examples, as bytes -------------------------------------------------------

TOKENS: list[bytes] = [
    b"\t",
    b"\xef\xbb\xbf",  # a BOM, in the middle of the text too
    b"\xff\xfe",  # a UTF-16 BOM
    b"\xc3",  # half a character
    b"\xed\xa0\x80",  # an encoded surrogate: not UTF-8
    b"\xc0\xaf",  # an overlong '/'
    b"\x00",
    b"\x1b[2J",
    b"\r",
    b"\r\n",
    "\u2028".encode(),
    "\u0085".encode(),
    b".nan",
    b".inf",
    b"-.inf",
    b"1e999",
    b"9" * 400,
    b"0x",
    b"0x_",
    b"2020-13-45",
    b"12:30:61",
    b"&a ",
    b"*a",
    b"*nope",
    b"&a [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
    b"<<: *a\n",
    b"<<: [1, 2]\n",
    b"!!binary ",
    b"!!int ",
    b"!!float ",
    b"!!bool ",
    b"!!timestamp ",
    b"!!set ",
    b"!!omap ",
    b"!!python/object/apply:os.system ",
    b"!x ",
    b"? ",
    b"? [a, b]\n",
    b"? {a: b}\n",
    b"---\n",
    b"...\n",
    b"%YAML 1.1\n---\n",
    b"%YAML 2.0\n---\n",
    b"%TAG ! tag:x,2000:\n---\n",
    b"[" * 200,
    b"{" * 200,
    b"- " * 100,
    b"|\n",
    b">-\n",
    b'"\\ud800"',
    b'"\\x1b[2J"',
    b'"\\0"',
    b"'",
    b'"',
    b"#",
    b"- ",
    b": ",
    b", ",
    b"\n",
    b"\n  ",
    b"\n    - ",
    b"@",
    b"`",
    b"%",
    b";",
    b"$(reboot)",
    b"title: ",
    b"tests: ",
    b"paths: ",
    b"hosts: ",
    b"id: ",
    b"- {id: 1}\n",
    b"ssh: root@h;reboot\n",
    b"address: $(reboot)\n",
]


@dataclass(frozen=True)
class Edit:
    at: int  # a fraction of the length, in millionths, so it shrinks towards the start
    cut: int
    insert: bytes


edits = st.builds(
    Edit,
    at=st.integers(0, 1_000_000),
    cut=st.integers(0, 12),
    insert=st.one_of(st.sampled_from(TOKENS), st.binary(max_size=6)),
)
whole_file = st.sampled_from(["none", "truncate", "tabs", "crlf", "bom", "lines", "nest"])


@st.composite
def damaged_bytes(draw: Draw) -> bytes:
    content = SEEDS[draw(st.sampled_from(sorted(SEEDS)))].encode()
    for edit in draw(st.lists(edits, max_size=5)):
        at = edit.at * len(content) // 1_000_000
        content = content[:at] + edit.insert + content[at + edit.cut :]
    operation = draw(whole_file)
    where = draw(st.integers(0, 1_000_000))
    at = where * len(content) // 1_000_000
    if operation == "truncate":
        content = content[:at]
    elif operation == "tabs":
        content = content.replace(b"  ", b"\t")
    elif operation == "crlf":
        content = content.replace(b"\n", b"\r\n")
    elif operation == "bom":
        content = b"\xef\xbb\xbf" + content
    elif operation == "lines":  # a line twice (duplicate keys), or one gone
        lines = content.splitlines(keepends=True)
        if lines:
            index = where % len(lines)
            lines.insert(index, lines[index]) if where % 2 else lines.pop(index)
            content = b"".join(lines)
    elif operation == "nest":
        depth = 1 + where % 3000
        content = content[:at] + b"[" * depth + b"]" * depth + content[at:]
    return content


@cases(480)
@given(damaged_bytes(), file_names, commands)
def test_example_bytes_damaged_anywhere_exit_0_or_2_naming_the_file(
    scratch: Path, content: bytes, name: bytes, command: str
) -> None:
    write_and_check(scratch, content, name, command)


# -- plans built from the schema ------------------------------------------------------

GOOD_NAMES = ["WAN", "Br0", "LAN-WAN", "r4s", "laptop", "1", "4f", "a.b_c+d"]
BAD_NAMES: list[Any] = ["", "-x", "a b", "a;b", "$(x)", "x\n", "ü", "..", "a/b", 4.5, None]
ADDRESSES = ["192.168.0.62", "10.0.0.1", "::1", "fe80::1%eth0", "r4s.lan", "198.18.0.1"]
SSH_TARGETS = ["root@192.168.2.1:22", "me@192.168.0.2", "root@[fe80::1]:2222", "r4s"]
LINKS = ["gbe", "fe", "2.5gbe", "10gbe", "unshaped", "300mbit", 94100000]
SETTINGS: dict[str, list[Any]] = {
    "tool": ["iperf2", "iperf3", "IPERF3"],
    "protocol": ["tcp", "udp"],
    "duration": [1, 2.5, 10, 120],
    "interval": [0.5, 1],
    "direction": ["up", "down", "dual", "bidir"],
    "parallel": [1, 2, 128],
    "window": ["64K", "128KB", "1M", 1470, None],
    "rate": ["1000M", "1G", "300mbit", 94100000, None],
    "length": [484, 1470, "1K", None],
    "mtu": [512, 1500, 9000],
}


# Titles and test names: any printable text on one line.
free_text = st.text(
    st.characters(exclude_categories=["Cc", "Cs", "Zl", "Zp"]), min_size=1, max_size=30
)


class Maker:
    """Draws plan values: the good ones, and at the plan's level of chaos a bad one instead.

    A plan at chaos 0 has only values that are valid on their own, so the checks across
    entries (hosts, paths, dual through NAT, MTUs) and the listing of trials get their
    share of the cases; the others mix in bad values from one in ten to one in two."""

    def __init__(self, draw: Draw, chaos: int) -> None:
        self.draw, self.chaos = draw, chaos

    def pick(self, good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any] = odd_scalars) -> Any:
        if self.chaos and self.draw(st.integers(0, 9)) < self.chaos:
            return self.draw(bad)
        return self.draw(good)

    def one(self, good: list[Any], bad: st.SearchStrategy[Any] = odd_scalars) -> Any:
        return self.pick(st.sampled_from(good), bad)

    def settings(self) -> dict[Any, Any]:
        """Some of the keys a test shares with defaults:, each with a value."""
        keys = {key: partial(self.one, good) for key, good in SETTINGS.items()}
        return self.some(keys)

    def some(self, keys: Mapping[str, Callable[[], Any]]) -> dict[Any, Any]:
        chosen = self.draw(st.lists(st.sampled_from(sorted(keys)), unique=True, max_size=4))
        entry = {key: keys[key]() for key in chosen}
        if self.chaos and self.draw(st.integers(0, 9)) < self.chaos:
            entry[self.draw(odd_keys)] = self.draw(odd_scalars)
        return entry


@st.composite
def generated_plans(draw: Draw) -> dict[Any, Any]:
    make = Maker(draw, draw(st.sampled_from([0, 0, 1, 3, 5])))
    plan: dict[Any, Any] = {}
    if draw(st.booleans()):
        plan["title"] = make.pick(free_text, st.sampled_from(HOSTILE_TEXT))
    lab = draw(st.integers(0, 3)) > 0
    if lab:
        plan["lab"] = make.some({"link": lambda: make.one(LINKS), "mtu": lambda: make.one([1500])})
    hosts: dict[Any, Any] = {}
    for _ in range(draw(st.integers(0 if lab else 2, 3))):
        hosts[make.one(GOOD_NAMES, st.sampled_from(BAD_NAMES))] = {
            "address": make.one(ADDRESSES, st.sampled_from(HOSTILE_TEXT)),
            **make.some({"ssh": lambda: make.one(SSH_TARGETS, st.sampled_from(HOSTILE_TEXT))}),
        }
    if hosts:
        plan["hosts"] = hosts
    host_names = [h for h in hosts if isinstance(h, str)] or ["nobody"]
    paths: list[Any] = []
    path_pool = draw(st.permutations(GOOD_NAMES))
    for number in range(draw(st.integers(0 if make.chaos else 1, 3))):
        topology = make.one(["endpoint", "bridge", "router", "nat"])
        path = {"name": make.pick(st.just(path_pool[number])), "topology": topology}
        if not lab or (hosts and draw(st.booleans())):
            ends = draw(st.permutations(host_names))
            path["client"] = make.one(ends[:1])
            path["server"] = make.one(ends[-1:])
            if draw(st.booleans()):
                path["dut"] = make.one(host_names)
            if draw(st.booleans()):
                path["link"] = make.one(LINKS)
        paths.append(path)
    plan["paths"] = paths
    path_names = [p["name"] for p in paths if isinstance(p["name"], str)] or ["nowhere"]
    if draw(st.booleans()):
        plan["defaults"] = make.settings()
    tests = []
    for number in range(draw(st.integers(0 if make.chaos else 1, 4))):
        test = {"id": make.pick(st.just(number)), **make.settings()}
        if draw(st.booleans()):
            test["name"] = make.pick(free_text, st.sampled_from(HOSTILE_TEXT))
        if draw(st.integers(0, 3)) == 0:
            test["paths"] = draw(st.lists(st.sampled_from(path_names), min_size=1, max_size=2))
        tests.append(test)
    plan["tests"] = tests
    if draw(st.integers(0, 3)) == 0:
        variants = [{"name": "default"}]
        for number in range(draw(st.integers(0, 2))):
            variant = make.some(
                {
                    "mtu": lambda: make.one([512, 1500]),
                    "rps": lambda: make.one(["spread", "off", "3f", "0x3f", 0]),
                    "xps": lambda: make.one(["spread", "off", "ff,ffffffff"]),
                    "offloads": lambda: {make.one(["gro", "gso", "tso"]): make.one(["on", False])},
                }
            )
            variants.append({"name": make.pick(st.just(f"v{number}")), **variant})
        plan["variants"] = variants
    if draw(st.booleans()):
        plan["repetitions"] = make.pick(st.integers(1, 3))
    if make.chaos:  # a section of the wrong shape, or gone
        for key in draw(st.lists(st.sampled_from(sorted(plan)), max_size=1)):
            plan[key] = draw(st.one_of(odd_scalars, st.just([]), st.just({})))
    return plan


@cases(390)
@given(generated_plans(), st.booleans(), file_names, commands)
def test_generated_plans_exit_0_or_2_naming_the_file(
    scratch: Path, plan: Any, block: bool, name: bytes, command: str
) -> None:
    text = dump_block(plan) if block else emit(plan)
    write_and_check(scratch, text.encode(), name, command)


# -- files that are not plan files ----------------------------------------------------


def test_what_is_not_a_plan_file_exits_2_naming_it(scratch: Path) -> None:
    missing = scratch / "missing.yaml"
    directory = scratch / "a-directory.yaml"
    directory.mkdir(exist_ok=True)
    loop = scratch / "loop.yaml"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    dangling = scratch / "dangling.yaml"
    if not dangling.is_symlink():
        dangling.symlink_to(scratch / "nowhere.yaml")
    huge = scratch / "huge.yaml"
    huge.write_bytes(b"# " + b"x" * MAX_PLAN_BYTES + b"\n")
    for path in (missing, directory, loop, dangling, huge):
        for command in ("check", "run"):
            outcome = check_and_run(path, str(path), scratch / "fuzz.db", command)
            assert outcome.status == 2


@pytest.mark.parametrize("command", ["check", "run"])
def test_an_endless_device_is_not_read_to_the_end(scratch: Path, command: str) -> None:
    outcome = check_and_run(Path("/dev/zero"), "/dev/zero", scratch / "fuzz.db", command)
    assert "larger than 1 MiB" in outcome.err


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n\n",
        b"# only a comment\n",
        b"\xef\xbb\xbf",
        b"---\n",
        b"---\n...\n",
        b"~\n",
        b"null\n",
        b"[]\n",
        b"42\n",
        b'"text"\n',
        b"\x00",
        b"\xff\xfe" + "title: x\n".encode("utf-16-le"),
        b"title: ok\nname: \xe9\n",  # Latin-1
        b"a: &a [*a]\n",
        b"a: &a {b: *a}\n",
        b"<<: *a\n",
        b"- &a [" + b"*a, " * 10 + b"]\n- &b [" + b"*a, " * 10 + b"]\n" + b"- [*b, *b, *b]\n",
        b"[" * 100_000,
        b"a:\n" + b"".join(b"  " * i + b"a:\n" for i in range(1, 3000)),
        b"- " * 20_000 + b"x\n",
    ],
)
@pytest.mark.parametrize("command", ["check", "run"])
def test_degenerate_files_exit_2_naming_the_file(
    scratch: Path, content: bytes, command: str
) -> None:
    path = scratch / "degenerate.yaml"
    path.write_bytes(content)
    outcome = check_and_run(path, str(path), scratch / "fuzz.db", command)
    assert outcome.status == 2


def test_a_name_no_file_can_have_is_a_missing_file() -> None:
    outcome = cli("check", "plan\0.yaml")
    assert (outcome.status, outcome.err) == (
        2,
        "wirespeed: error: plan\\x00.yaml: no such plan file\n  hint: fix it and run again\n",
    )


def test_the_examples_pass_through_both_commands(scratch: Path) -> None:
    for path in sorted(EXAMPLES.glob("*.yaml")):
        assert check_and_run(path, str(path), scratch / "fuzz.db", "check").status == 0
        assert check_and_run(path, str(path), scratch / "fuzz.db", "run").status is None
