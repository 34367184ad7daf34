"""Every problem of a plan file at once, each with its file:line:column, never a traceback."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.plan import PlanError, Problem, load_plan, parse_plan

PLANS = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "plans"

LAB = """
lab: {link: gbe}
paths:
  - {name: WAN, topology: endpoint}
"""


def problems_of(text: str) -> list[str]:
    """The messages of a plan that must not load, as 'line:col: message' (hints dropped)."""
    with pytest.raises(PlanError) as caught:
        parse_plan(textwrap.dedent(text), source="plan.yaml")
    return [
        f"{problem.line}:{problem.column}: {problem.message}" for problem in caught.value.problems
    ]


def warnings_of(text: str) -> list[str]:
    plan = parse_plan(textwrap.dedent(text), source="plan.yaml")
    return [f"{w.line}:{w.column}: {w.message}" for w in plan.warnings]


def test_a_typo_a_wrong_type_and_an_unknown_host_give_three_messages_with_positions() -> None:
    with pytest.raises(PlanError) as caught:
        load_plan(PLANS / "three-problems.yaml")
    source = str(PLANS / "three-problems.yaml")
    assert [str(p) for p in caught.value.problems] == [
        f"{source}:9:13: unknown host 'r4z' (did you mean 'r4s'?)\n"
        "  hint: hosts are r4s, workstation",
        f"{source}:14:5: unknown key 'durtion' (did you mean 'duration'?)",
        f"{source}:16:15: parallel: expected an integer, got 'two'",
    ]


def test_a_plan_error_is_a_usage_error_with_every_problem_in_its_message() -> None:
    with pytest.raises(PlanError) as caught:
        load_plan(PLANS / "three-problems.yaml")
    error = caught.value
    assert isinstance(error, UsageError)
    assert error.exit_status == 2
    # A summary line, then one `file:line:col:` line per problem.
    first, *problems = error.message.splitlines()
    assert first.startswith("3 problems in ") and first.endswith("three-problems.yaml:")
    assert sum(line.startswith(str(PLANS / "three-problems.yaml:")) for line in problems) == 3
    assert error.hint == "fix them and run again"


def test_a_problem_reads_like_a_compiler_message() -> None:
    problem = Problem("plan.yaml", 12, 5, "unknown key 'durtion' (did you mean 'duration'?)")
    assert str(problem) == "plan.yaml:12:5: unknown key 'durtion' (did you mean 'duration'?)"
    assert str(Problem("plan.yaml", None, None, "no such plan file")) == (
        "plan.yaml: no such plan file"
    )


# --- the file itself ---------------------------------------------------------------


def test_a_missing_file_is_one_clear_problem(tmp_path: Path) -> None:
    with pytest.raises(PlanError) as caught:
        load_plan(tmp_path / "nope.yaml")
    assert [p.message for p in caught.value.problems] == ["no such plan file"]


def test_a_directory_is_not_a_plan(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="is a directory"):
        load_plan(tmp_path)


def test_a_file_that_is_not_utf8_says_so(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"title: caf\xe9\n")
    with pytest.raises(PlanError, match="not UTF-8"):
        load_plan(path)


@pytest.mark.parametrize("text", ["", "   \n", "# only a comment\n"])
def test_an_empty_plan_says_what_it_needs(text: str) -> None:
    assert problems_of(text) == [
        "None:None: the plan is empty: it needs at least paths: and tests:"
    ]


@pytest.mark.parametrize(
    ("text", "kind"), [("- a\n- b\n", "a list"), ("hello\n", "the text 'hello'")]
)
def test_a_plan_must_be_a_mapping(text: str, kind: str) -> None:
    [message] = problems_of(text)
    assert message.startswith("1:1: a plan is a mapping of keys (title, lab, hosts")
    assert message.endswith(f"not {kind}")


def test_a_yaml_syntax_error_has_its_line_and_column() -> None:
    [message] = problems_of("title: x\ntests:\n  - id: 1\n   name: [oops\n")
    assert message.startswith("4:")
    assert "not valid YAML" in message


def test_a_key_written_twice_is_a_yaml_error_with_its_position() -> None:
    [message] = problems_of("title: a\ntitle: b\n")
    assert message.startswith("2:1: not valid YAML")
    assert "duplicate key" in message


def test_aliases_that_expand_without_bound_are_refused() -> None:
    # "Billion laughs": each level repeats the one before ten times.
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 6):
        levels.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]")
    [message] = problems_of("\n".join(levels) + "\n")
    assert message == "None:None: the file expands to more than 100000 values (aliases?)"


# --- keys ----------------------------------------------------------------------------


def test_unknown_keys_everywhere_suggest_the_nearest_one() -> None:
    problems = problems_of(
        """
        titel: x
        lab: {link: gbe, mut: 1500}
        hosts:
          r4s: {adress: 192.168.0.62}
        paths:
          - {name: WAN, topolgy: endpoint}
        defaults: {tol: iperf2}
        tests:
          - {id: 1, windw: 64K}
        """
    )
    assert problems == [
        "2:1: unknown key 'titel' (did you mean 'title'?)",
        "3:18: unknown key 'mut' (did you mean 'mtu'?)",
        "5:9: unknown key 'adress' (did you mean 'address'?)",
        "7:5: missing key 'topology'",
        "7:17: unknown key 'topolgy' (did you mean 'topology'?)",
        "8:12: unknown key 'tol' (did you mean 'tool'?)",
        "10:13: unknown key 'windw' (did you mean 'window'?)",
    ]


def test_a_key_written_one_level_too_deep_is_said_to_belong_above() -> None:
    # Before: "unknown key 'queue' (did you mean 'queue'?)", the lab's own key offered
    # for the DUT's entry.
    problems = problems_of(
        """
        lab: {link: fe, dut: {forward_pps: 20000, queue: 30ms, rnig: 64}}
        paths: [{name: WAN, topology: router}]
        tests: [{id: 1}]
        """
    )
    assert problems == [
        "2:43: unknown key 'queue' under dut: (it is a key of lab:)",
        "2:56: unknown key 'rnig' (did you mean 'ring'?)",
    ]


def test_an_unknown_key_without_a_near_miss_gets_no_suggestion() -> None:
    assert problems_of(LAB + "tests:\n  - {id: 1, zzz: 3}\n") == ["6:13: unknown key 'zzz'"]


def test_id_under_defaults_is_explained() -> None:
    assert problems_of(LAB + "defaults: {id: 1}\ntests: [{id: 1}]\n") == [
        "5:12: id: belongs to each test, not to defaults"
    ]


def test_paths_and_tests_are_required() -> None:
    assert problems_of("title: x\n") == [
        "1:1: missing key 'paths': a plan needs paths and tests",
        "1:1: missing key 'tests': a plan needs paths and tests",
    ]


def test_empty_paths_and_tests_are_refused() -> None:
    assert problems_of("lab: {}\npaths: []\ntests:\n") == [
        "2:8: paths: the plan needs at least one path",
        "3:1: tests: the plan needs at least one test",
    ]


# --- types and values ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            "tool: iperf",
            "tool: 'iperf' is not one of 7zip, bounceback, forwarding, iperf2, iperf3, openssl, "
            "ping-flood, rrul or unixbench",
        ),
        ("protocol: sctp", "protocol: 'sctp' is not one of tcp or udp"),
        ("direction: both", "direction: 'both' is not one of up, down, dual or bidir"),
        ("duration: 0", "duration: must be more than 0, got 0"),
        ("duration: ten", "duration: expected a number, got 'ten'"),
        ("duration: null", "duration: needs a value (leave the key out to use the default)"),
        ("parallel: 0", "parallel: must be at least 1, got 0"),
        ("parallel: 2.5", "parallel: expected an integer, got 2.5"),
        ("parallel: true", "parallel: expected an integer, got True"),
        ("window: 64Q", "window: not a size: '64Q' (write e.g. 64K, 128KB, 1M or 1470)"),
        ("rate: fast", "rate: not a rate: 'fast' (write e.g. 1000M, 1G, 300mbit or 94100000)"),
        ("rate: [1]", "rate: expected a rate such as 1000M or 94100000, got a list"),
        ("mtu: 40", "mtu: must be at least 68, got 40"),
        ("interval: -1", "interval: must be more than 0, got -1"),
        ("name: 3", "name: expected text, got 3"),
        ("paths: WAN", "paths: expected a list, got 'WAN'"),
    ],
)
def test_a_wrong_value_names_the_key_and_what_was_expected(entry: str, message: str) -> None:
    [problem] = problems_of(LAB + f"tests:\n  - id: 1\n    {entry}\n")
    assert message in problem
    assert problem.startswith("7:")


def test_ids_must_be_usable_in_file_names() -> None:
    [problem] = problems_of(LAB + "tests:\n  - id: a/b\n")
    assert problem.startswith("6:9: id: 'a/b' is not a usable name")


def test_duplicate_test_ids_point_at_both() -> None:
    assert problems_of(LAB + "tests:\n  - id: 4\n  - id: '4'\n") == [
        "7:9: duplicate test id '4' (first at line 6)"
    ]


def test_duplicate_path_names_are_refused() -> None:
    text = "lab: {}\npaths:\n  - {name: A, topology: bridge}\n  - {name: A, topology: nat}\n"
    assert problems_of(text + "tests: [{id: 1}]\n") == [
        "4:12: duplicate path name 'A' (first at line 3)"
    ]


def test_a_bad_entry_does_not_hide_the_problems_of_the_next() -> None:
    assert problems_of(LAB + "tests:\n  - hello\n  - {id: 2, parallel: 0}\n") == [
        "6:5: a test: expected a mapping of keys, got 'hello'",
        "7:23: parallel: must be at least 1, got 0",
    ]


def test_repetitions_and_title_are_checked() -> None:
    assert problems_of(LAB + "tests: [{id: 1}]\nrepetitions: 0\ntitle: [a]\n") == [
        "6:14: repetitions: must be at least 1, got 0",
        "7:8: title: expected text, got a list",
    ]


def test_a_lab_link_must_be_known() -> None:
    [problem] = problems_of(
        "lab: {link: gbee}\npaths: [{name: A, topology: bridge}]\ntests: [{id: 1}]"
    )
    assert problem.startswith("1:13: link: unknown link 'gbee'")


# --- hosts and paths -----------------------------------------------------------------


def test_a_path_with_no_lab_and_no_hosts_cannot_run() -> None:
    assert problems_of("paths: [{name: WAN, topology: endpoint}]\ntests: [{id: 1}]\n") == [
        "1:9: path 'WAN' names no hosts and the plan has no lab"
    ]


def test_a_path_between_real_hosts_needs_client_and_server() -> None:
    text = """
    hosts: {r4s: {ssh: root@192.168.0.62}}
    paths: [{name: WAN, topology: endpoint, server: r4s}]
    tests: [{id: 1}]
    """
    assert problems_of(text) == ["3:9: path 'WAN' between real hosts needs client:"]


def test_an_endpoint_path_measures_the_dut_as_server() -> None:
    text = """
    hosts:
      pc: {address: 192.168.0.2}
      r4s: {ssh: root@192.168.0.62}
      r2s: {ssh: root@192.168.0.63}
    paths: [{name: WAN, topology: endpoint, client: pc, server: r4s, dut: r2s}]
    tests: [{id: 1}]
    """
    [problem] = problems_of(text)
    assert problem.startswith("6:71: path 'WAN' is an endpoint path: the DUT runs the server")


def test_an_endpoint_path_implies_its_dut() -> None:
    plan = parse_plan(
        """
        hosts:
          pc: {address: 192.168.0.2}
          r4s: {ssh: root@192.168.0.62}
        paths: [{name: WAN, topology: endpoint, client: pc, server: r4s}]
        tests: [{id: 1}]
        """
    )
    assert plan.paths[0].dut == "r4s"
    assert plan.paths[0].link is None


def test_a_dut_in_between_cannot_be_an_end() -> None:
    text = """
    hosts:
      pc: {address: 192.168.0.2}
      r4s: {ssh: root@192.168.0.62}
    paths: [{name: Br0, topology: bridge, client: pc, server: r4s, dut: r4s}]
    tests: [{id: 1}]
    """
    [problem] = problems_of(text)
    assert "in a bridge path the DUT sits between client and server" in problem


def test_a_server_needs_an_address() -> None:
    text = """
    hosts:
      pc: {address: 192.168.0.2, ssh: me@192.168.0.2}
      here: {}
    paths: [{name: P, topology: router, client: pc, server: here}]
    tests: [{id: 1}]
    """
    [problem] = problems_of(text)
    assert "server 'here' has no address for the client to connect to" in problem


def test_a_bad_ssh_target_is_refused() -> None:
    [problem] = problems_of(
        "hosts: {r4s: {ssh: 'root@r4s:99999'}, pc: {}}\n"
        "paths: [{name: A, topology: endpoint, client: pc, server: r4s}]\ntests: [{id: 1}]\n"
    )
    assert problem == "1:20: ssh: SSH port 99999 is not in 1..65535"


def test_a_lab_path_takes_its_link_from_the_lab() -> None:
    [problem] = problems_of(
        "lab: {}\npaths: [{name: A, topology: nat, link: fe}]\ntests: [{id: 1}]"
    )
    assert problem == "2:40: path 'A' runs in the lab, whose link is set under lab:"


def test_a_test_limited_to_an_unknown_path() -> None:
    assert problems_of(LAB + "tests: [{id: 1, paths: [WAM]}]\n") == [
        "5:25: unknown path 'WAM' (did you mean 'WAN'?)"
    ]


# --- what cannot work on the wire ----------------------------------------------------


def test_iperf2_dual_through_nat_is_an_error_with_the_ways_out() -> None:
    with pytest.raises(PlanError) as caught:
        load_plan(PLANS / "dual-through-nat.yaml")
    [problem] = caught.value.problems
    assert (problem.line, problem.column) == (8, 16)
    assert "iperf2 dual (-d) cannot cross the nat path 'NAT'" in problem.message
    assert "still exits 0" in problem.message
    assert problem.hint is not None
    assert "direction: bidir (iperf2 --full-duplex), down (-R), or iperf3 bidir" in problem.hint


def test_a_dual_direction_from_defaults_is_reported_at_defaults() -> None:
    text = "lab: {}\npaths: [{name: N, topology: nat}]\ndefaults: {direction: dual}\n"
    [problem] = problems_of(text + "tests: [{id: 1}]\n")
    assert problem.startswith("3:23: test '1': iperf2 dual (-d) cannot cross")


def test_iperf2_dual_is_fine_where_nothing_translates_addresses() -> None:
    for topology in ("endpoint", "bridge", "router"):
        parse_plan(
            f"lab: {{}}\npaths: [{{name: P, topology: {topology}}}]\n"
            "tests: [{id: 1, direction: dual}]\n"
        )


def test_iperf3_has_no_dual_mode() -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(LAB + "tests: [{id: 1, tool: iperf3, direction: dual}]\n")
    [problem] = caught.value.problems
    assert problem.message == "test '1': iperf3 has no dual mode"
    assert problem.hint is not None and "use direction: bidir" in problem.hint


@pytest.mark.parametrize("direction", ["down", "dual", "bidir"])
def test_iperf2_cannot_set_the_congestion_control_of_the_servers_flows(direction: str) -> None:
    # iperf 2.1.8: -Z with -R is refused, with -d crashes, with --full-duplex the server's
    # flow keeps the system's algorithm; refused up front with iperf3 as the way out.
    text = LAB + f"tests: [{{id: 1, direction: {direction}, congestion: cubic}}]\n"
    with pytest.raises(PlanError) as caught:
        parse_plan(text)
    [problem] = caught.value.problems
    assert "iperf2 sets congestion: cubic only on the client's sending socket" in problem.message
    assert f"direction: {direction}" in problem.message
    assert problem.hint is not None and "use tool: iperf3" in problem.hint


def test_congestion_is_accepted_where_the_sender_can_take_it() -> None:
    plan = parse_plan(
        LAB + "tests: [{id: 1, congestion: cubic}, "
        "{id: 2, tool: iperf2, direction: dual, protocol: udp, rate: 10M, congestion: cubic}, "
        + ", ".join(
            f"{{id: i{d}, tool: iperf3, direction: {d}, congestion: cubic}}"
            for d in ("up", "down", "bidir")
        )
        + "]\n"
    )
    assert len(plan.tests) == 5


def test_bidir_crosses_nat() -> None:
    plan = parse_plan(
        "lab: {}\npaths: [{name: N, topology: nat}]\n"
        "tests: [{id: 1, direction: bidir}, {id: 2, tool: iperf3, direction: bidir}]\n"
    )
    assert len(plan.tests) == 2


def test_udp_datagrams_larger_than_the_mtu_are_a_warning_not_an_error() -> None:
    plan = load_plan(PLANS / "fragmenting-udp.yaml")
    assert [(w.line, w.column, w.message) for w in plan.warnings] == [
        (
            13,
            13,
            "test 'too-long': UDP datagrams of 1500 bytes do not fit MTU 1500 (at most 1472): "
            "fragmented on the wire",
        ),
        (
            15,
            10,
            "test 'default-at-512': iperf2 sends 1470-byte datagrams by default: at MTU 512 "
            "each one is fragmented on the wire",
        ),
    ]


def test_a_udp_datagram_longer_than_any_datagram_can_be_is_an_error() -> None:
    # 65,535 bytes of IPv4 packet less 28 of headers; iperf fails on more only mid-run.
    assert problems_of(LAB + "tests: [{id: 1, protocol: udp, rate: 10M, length: 70000}]\n") == [
        "5:51: test '1': UDP datagrams of 70000 bytes cannot be sent: a datagram carries "
        "at most 65,507 bytes"
    ]
    assert warnings_of(LAB + "tests: [{id: 1, protocol: udp, rate: 10M, length: 65507}]\n") == [
        "5:51: test '1': UDP datagrams of 65507 bytes do not fit MTU 1500 (at most 1472): "
        "fragmented on the wire"
    ]
    assert warnings_of(LAB + "tests: [{id: 1, length: 70000}]\n") == []  # TCP: a buffer


def test_udp_without_a_rate_warns_about_iperfs_1_mbit_default() -> None:
    assert warnings_of(LAB + "tests: [{id: 1, protocol: udp}]\n") == [
        "5:9: test '1': UDP without rate: iperf sends 1 Mbit/s by default"
    ]


def test_rate_on_tcp_is_allowed() -> None:
    plan = parse_plan(LAB + "tests: [{id: 1, rate: 500M}]\n")
    assert plan.tests[0].spec.rate == 500_000_000
    assert plan.warnings == ()


def test_unused_hosts_and_idle_paths_are_warnings() -> None:
    text = """
    lab: {}
    hosts:
      pc: {address: 192.168.0.2}
      spare: {address: 192.168.0.9}
      r4s: {ssh: root@192.168.0.62}
    paths:
      - {name: WAN, topology: endpoint, client: pc, server: r4s}
      - {name: Br0, topology: bridge}
    tests: [{id: 1, paths: [WAN]}]
    """
    assert warnings_of(text) == [
        "5:3: host 'spare' is not used by any path",
        "9:12: no test runs on path 'Br0'",
    ]


def test_a_date_where_text_belongs_says_to_quote_it() -> None:
    [problem] = problems_of(LAB + "tests: [{id: 1}]\ntitle: 2020-12-09\n")
    assert (
        problem == "6:8: title: expected text, got the date 2020-12-09 (quote it to make it text)"
    )


def test_a_date_where_a_checked_value_belongs_is_named_as_a_date() -> None:
    # The lab's queue is checked by the schema's own validator, not by pydantic's types.
    text = "lab: {link: gbe, queue: 2020-12-09}\npaths: [{name: WAN, topology: endpoint}]\n"
    [problem] = problems_of(text + "tests: [{id: 1}]\n")
    assert problem == (
        "1:25: queue: expected a delay with its unit such as 40ms, got the date 2020-12-09 "
        "(quote it to make it text)"
    )


def test_x_keys_hold_anchors_for_reuse() -> None:
    plan = parse_plan(
        LAB + "x-udp: &udp {protocol: udp, rate: 1000M}\n"
        "tests:\n  - {id: 5, <<: *udp}\n  - {id: 6, <<: *udp, direction: dual}\n"
    )
    assert [t.spec.rate for t in plan.tests] == [10**9, 10**9]
    assert plan.warnings == ()


def test_a_section_of_the_wrong_shape_is_named() -> None:
    assert problems_of("lab: [gbe]\npaths: [{name: A, topology: nat}]\ntests: [{id: 1}]\n") == [
        "1:6: lab: expected a mapping of keys, got a list"
    ]


def test_two_ends_on_this_machine_through_a_dut_are_refused_with_the_plans_addresses() -> None:
    # The kernel routes between its own addresses over loopback: 25 Gbit/s "through" a
    # gigabit router. The hint names the plan's own host and address.
    text = """
    hosts:
      lan-side: {address: 192.168.1.50}
      wan-side: {address: 10.0.0.3}
      router: {address: 10.0.0.1, ssh: root@192.168.1.1}
    paths:
      - {name: R, topology: router, client: lan-side, server: wan-side, dut: router}
    tests: [{id: 1}]
    """
    with pytest.raises(PlanError) as caught:
        parse_plan(textwrap.dedent(text), source="plan.yaml")
    [problem] = caught.value.problems
    assert (problem.line, problem.column) == (7, 59)  # server:
    assert "'lan-side' and server 'wan-side' are both this machine" in problem.message
    assert "never crosses router" in problem.message
    assert problem.hint is not None
    assert "lan-side: {port: PORT_A, address: 192.168.1.50/24" in problem.hint
    assert "wan-side: {port: PORT_B, address: 10.0.0.3/24" in problem.hint
    assert "wan-side: {address: 10.0.0.3, ssh: root@10.0.0.3}" in problem.hint


def test_two_ports_of_this_machine_through_a_dut_are_two_namespaces_not_refused() -> None:
    # The hint's own remedy: each port is moved into a namespace of its own for the run.
    text = """
    hosts:
      lan-side: {port: pt-a, address: 192.168.1.50/24, gateway: 192.168.1.1}
      wan-side: {port: pt-b, address: 10.0.0.3/24, gateway: 10.0.0.1}
      router: {address: 10.0.0.1, ssh: root@192.168.1.1}
    paths:
      - {name: R, topology: router, client: lan-side, server: wan-side, dut: router}
    tests: [{id: 1}]
    """
    plan = parse_plan(textwrap.dedent(text), source="plan.yaml")
    assert [path.name for path in plan.paths] == ["R"]


def test_two_hosts_logging_in_to_one_ssh_host_through_a_dut_are_refused() -> None:
    text = """
    hosts:
      a: {address: 192.168.1.50, ssh: root@pc}
      b: {address: 10.0.0.3, ssh: me@pc:22}
    paths: [{name: R, topology: nat, client: a, server: b}]
    tests: [{id: 1}]
    """
    [problem] = problems_of(text)
    assert "are both the machine pc, in one network namespace" in problem


def test_one_end_on_this_machine_and_one_over_ssh_is_a_path() -> None:
    text = """
    hosts:
      laptop: {address: 192.168.1.50}
      workstation: {address: 10.0.0.3, ssh: me@10.0.0.3}
    paths: [{name: R, topology: nat, client: laptop, server: workstation}]
    tests: [{id: 1}]
    """
    plan = parse_plan(textwrap.dedent(text), source="plan.yaml")
    assert [path.name for path in plan.paths] == ["R"]
