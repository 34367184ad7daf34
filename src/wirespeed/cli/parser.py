"""`wirespeed`'s argument parser: every command and its options.

argparse rather than a framework: `wirespeed --help` must answer at once, and everything
heavy (rich, SQLAlchemy, pydantic) is imported inside the command that needs it.
"""

from __future__ import annotations

import argparse

from wirespeed import __version__
from wirespeed.cli.options import add_budgets, add_db, add_flag, add_outputs, add_row, add_ssh
from wirespeed.cli.outputs import run_id, run_or_file

DESCRIPTION = """\
Network benchmarks for routers and single-board computers.

wirespeed runs iperf2/iperf3 test matrices against or through a device under test,
stores every trial with its raw output, and reports each figure beside its physical
ceiling. With no hardware it builds an emulated lab of network namespaces (root needed).
"""

EPILOG = """\
examples:
  wirespeed check examples/seed-matrix.yaml           validate a plan, list its trials
  wirespeed run examples/seed-matrix.yaml             the R4S/R2S post's six tests, in the lab
  wirespeed run seed-matrix --duration 3              the same, built in: every test 3 s
  wirespeed run -c lab:router:fe -u -b 100M           one test in iperf's words, in the lab
  wirespeed run -c root@r4s.lan -P 2 -R               one test against a device over SSH
  wirespeed card lab:nat --forward-pps 15000 -o c.html   a device card: every part, one page
  wirespeed report -o table.md -o run.json            the latest run as Markdown and JSON
  wirespeed compare 7 8                               run 8 against run 7, figure by figure
  wirespeed compare 3 4 5                             runs as columns, each % against run 3
  wirespeed compare 7 --paths WAN Br0                 two paths of one run
  wirespeed trend --by firmware --fail-on regression   which firmware made it slower
  wirespeed import saved/*.txt                        bring old iperf outputs into the store
  wirespeed export 12 -o r4s.wsr                      a run or card as a bundle to share
  wirespeed compare r4s.wsr r2s.wsr                   two bundles' figures side by side
  wirespeed site results/ -o public/                  a static site of every bundle in results/
  wirespeed facts --root tests/fixtures/boards/r4s    a board's CPUs, NICs and their IRQs
  wirespeed tune suggest --root tests/fixtures/boards/r4s   eth0 -> CPU4, eth1 -> CPU5
  wirespeed lab up --topology nat --link fe           a lab to try things by hand

exit status: 0 ok, 1 a trial or teardown failed, 2 bad input, 3 a tool is missing,
4 root needed, 5 measured but below the plan's expect: (or a trend --fail-on regression),
130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
"""


def _add_tune_keep(tune: argparse.ArgumentParser) -> None:
    keep = tune.add_argument_group("keep: a boot script (docs/tuning.md)")
    keep.add_argument(
        "--run", type=int, metavar="N", help="keep a variant of stored run N (with --variant)"
    )
    keep.add_argument("--variant", metavar="NAME", help="the variant of --run to keep")
    keep.add_argument(
        "--interface",
        action="append",
        metavar="IF",
        help="the interfaces a variant's mtu, rps, xps and offloads go on; repeat or "
        "separate by commas (default: the device's physical NICs)",
    )
    keep.add_argument("-o", "--output", metavar="FILE", help="write the boot script to FILE")
    keep.add_argument(
        "--install",
        metavar="USER@HOST",
        help="install the boot script there over SSH (or `local`), journaled, and enable "
        "it at boot; every command is shown",
    )
    keep.add_argument(
        "--system",
        choices=["openwrt", "systemd"],
        help="the init system of --install (default: found on the device)",
    )
    keep.add_argument(
        "--install-root",
        metavar="DIR",
        help="install under DIR on the device (a mounted image or SD card), not /",
    )
    add_flag(keep, "--no-enable", help="install without enabling it at boot")
    keep.add_argument(
        "--name", metavar="NAME", help="the boot script's name (default: wirespeed-tune)"
    )
    add_flag(
        keep,
        "--keep",
        help="restore: remove the boot script files `tune keep --install` put on HOST",
    )


def _add_adhoc(run: argparse.ArgumentParser) -> None:
    adhoc = run.add_argument_group(
        "one test without a plan, in iperf's words (the plan it makes is checked and "
        "stored like any other)"
    )
    adhoc.add_argument(
        "-c",
        dest="adhoc_host",
        metavar="HOST",
        help="lab[:TOPOLOGY[:LINK]] (lab alone: bridge, gbe), [user@]device[:port] (the "
        "server is started there over SSH), or a loopback address (both ends here)",
    )
    adhoc.add_argument("-u", dest="adhoc_udp", action="store_true", help="UDP (default TCP)")
    adhoc.add_argument(
        "-b",
        dest="adhoc_rate",
        metavar="RATE",
        help="target rate, read as the tool reads it "
        "(iperf2: 100M is 100 x 2^20, 100m is 10^8; iperf3: both 10^8)",
    )
    adhoc.add_argument("-l", dest="adhoc_length", metavar="LEN", help="buffer / datagram size")
    adhoc.add_argument("-P", dest="adhoc_parallel", type=int, metavar="N", help="streams")
    adhoc.add_argument("-w", dest="adhoc_window", metavar="SIZE", help="socket buffer size")
    adhoc.add_argument(
        "-t", dest="adhoc_time", type=float, metavar="SEC", help="seconds (default 10)"
    )
    adhoc.add_argument("-R", dest="adhoc_reverse", action="store_true", help="server sends")
    adhoc.add_argument("--bidir", dest="adhoc_bidir", action="store_true", help="both at once")
    adhoc.add_argument(
        "--tool", dest="adhoc_tool", choices=["iperf2", "iperf3"], help="default iperf3"
    )
    adhoc.add_argument("--save-plan", metavar="FILE", help="also write the plan run (YAML) to FILE")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wirespeed",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"wirespeed {__version__}")
    add_flag(parser, "--traceback", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser(
        "run",
        help="run a plan: every test on every path, stored as it finishes",
        description="Run a plan file. Each finished trial is committed to the store before "
        "the next starts; a failed trial is recorded with its reason and the run goes on. "
        "Lab paths get their namespaces built first and removed at the end, also on "
        "Ctrl-C and SIGTERM.",
    )
    run.add_argument(
        "plan",
        metavar="PLAN",
        nargs="?",
        help="the plan file (YAML, docs/plan-format.md), a built-in plan's name "
        "(`wirespeed plans`), or - to read it from stdin; not with --resume or -c",
    )
    run.add_argument(
        "--resume",
        type=run_id,
        metavar="RUN",
        help="continue run RUN (interrupted or killed) with only the trials it is missing, "
        "from its stored plan and options; refused while RUN is still going; trials kept "
        "in the spool while the store was away are committed first",
    )
    add_flag(
        run,
        "--retry-failed",
        help="with --resume: also run the trials that failed again; each new outcome "
        "replaces the failed one, so every trial is counted once",
    )
    add_flag(
        run,
        "--force",
        help="with --resume: take over a run still marked as written by a process on "
        "another machine (which cannot be checked from here); a live run on this machine "
        "is always refused",
    )
    run.add_argument(
        "--duration",
        type=float,
        metavar="SECONDS",
        help="run every test this long instead of the plan's durations (a quick look)",
    )
    run.add_argument(
        "--repeat", type=int, metavar="N", help="repetitions of each test (overrides the plan)"
    )
    run.add_argument(
        "--only", metavar="IDS", help="run only these test ids, comma-separated (e.g. 1,5)"
    )
    run.add_argument("--markdown", metavar="FILE", help="also write the report as Markdown to FILE")
    run.add_argument(
        "--watch",
        default="dut",
        metavar="ROLES",
        help="sample these hosts' CPU, interrupts, clocks and kernel log during every "
        "trial: dut, client, server, comma-separated, or '' for none (default: dut)",
    )
    run.add_argument(
        "--sample-interval",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="seconds between samples, 0.05 to 60 (default: 1)",
    )
    run.add_argument(
        "--lab-name",
        metavar="NAME",
        help="name the run's labs NAME-<topology>, e.g. to keep them apart from a lab "
        "built with `wirespeed lab up`; refused while a live run uses that name "
        "(default: the topology, or topology-2, -3 ... while other runs use it)",
    )
    run.add_argument(
        "--lab-dut",
        choices=["netns", "ssh"],
        default="netns",
        help="how lab paths reach the DUT: its namespace directly (default), or ssh: a "
        "dropbear + busybox device in the DUT namespace, driven over SSH like a real router",
    )
    run.add_argument(
        "--label",
        action="append",
        metavar="KEY=VALUE",
        help="say what this run is, stored with it: --label firmware=23.05.3; repeat for "
        "several; `wirespeed trend --by KEY` groups runs by it (the DUT's kernel and os "
        "need no label)",
    )
    add_ssh(run)
    add_flag(
        run,
        "-q",
        "--quiet",
        help="no progress bar, no table: only the run id on stdout, for id=$(wirespeed run -q ...)",
    )
    add_flag(
        run,
        "--json",
        help="print the run id, status and each trial's figures as JSON instead of the "
        "table (docs/json-format.md)",
    )
    _add_adhoc(run)
    add_db(run)

    check = sub.add_parser(
        "check",
        help="validate a plan (every problem, with line:column) and list its trials",
    )
    check.add_argument(
        "plan", metavar="PLAN", help="the plan file (YAML), a built-in plan's name, or - (stdin)"
    )
    add_flag(check, "--json", help="print the problems and trials as JSON (docs/json-format.md)")

    plans = sub.add_parser(
        "plans",
        help="the plans built into wirespeed, one line each; with NAME, its YAML",
        description="List the built-in plans (`wirespeed run NAME` runs one), or print "
        "one's YAML to start a plan of your own from.",
    )
    plans.add_argument("name", nargs="?", metavar="NAME", help="print this plan's YAML")

    facts = sub.add_parser(
        "facts",
        help="what a machine is: board, CPU clusters, NICs, their IRQs and affinities",
        description="Describe this machine, a lab namespace, or a captured /proc + /sys "
        "tree: board, kernel, CPU clusters (which is fastest), each NIC's bus, driver, "
        "queues and the IRQs that carry its packets, with their affinity and per-CPU counts.",
    )
    facts.add_argument(
        "host",
        nargs="?",
        metavar="HOST",
        help="local (default), a network namespace name, or user@host[:port] over SSH",
    )
    add_ssh(facts)
    facts.add_argument(
        "--root", metavar="DIR", help="read a captured tree DIR/proc, DIR/sys instead"
    )
    add_flag(facts, "--json", help="print JSON (docs/facts-format.md)")
    add_flag(facts, "--all", help="also list virtual interfaces (bridges, veth, ifb)")

    lab = sub.add_parser(
        "lab",
        help="build, inspect or remove the emulated lab (root)",
        description="The emulated lab: network namespaces wirespeed-<lab>-<role> joined by "
        "veth links, shaped with tbf to a line rate with Ethernet framing counted.",
    )
    lab_sub = lab.add_subparsers(dest="lab_command", metavar="ACTION", required=True)
    up = lab_sub.add_parser(
        "up",
        help="build a lab (a stale one of the same name is replaced; one a live run uses "
        "is refused)",
    )
    up.add_argument(
        "--topology",
        default="bridge",
        choices=["endpoint", "bridge", "router", "nat"],
        help="what sits between client and server (default: bridge)",
    )
    up.add_argument(
        "--link", default="gbe", help="gbe, fe, 2.5gbe, 10gbe, unshaped, or a rate like 300mbit"
    )
    up.add_argument("--mtu", type=int, default=1500, help="MTU of every lab link (default 1500)")
    up.add_argument("--name", help="lab name (default: the topology)")
    up.add_argument(
        "--dut",
        choices=["netns", "ssh"],
        default="netns",
        help="ssh: also run dropbear + busybox in the DUT namespace, a device to drive "
        "over SSH (default: netns)",
    )
    up.add_argument(
        "--forward-pps",
        type=int,
        metavar="N",
        help="the DUT forwards at most N packets/s, both directions together, queueing "
        "what it cannot forward yet in its ring and dropping only when the ring is full, as "
        "a CPU-bound router does (bridge, router, nat)",
    )
    up.add_argument(
        "--ring",
        type=int,
        metavar="N",
        help="the limited DUT's ring holds N packets waiting for its CPU (default 256, a "
        "gigabit NIC's receive ring; with --queue: DELAY at the DUT's rate)",
    )
    up.add_argument(
        "--forward-rate",
        metavar="RATE",
        help="the DUT forwards at most RATE (e.g. 100mbit, 1G), counted on the wire as a "
        "link's rate, exact for full-size packets; with --forward-pps whichever bites first",
    )
    up.add_argument(
        "--queue",
        metavar="DELAY",
        help="the bottleneck's queue holds DELAY (e.g. 40ms): the line rate's, and a "
        "limited DUT's ring at its rate, whichever is the bottleneck; a bufferbloated "
        "router, whose latency under load the probes measure (shaped links)",
    )
    down = lab_sub.add_parser(
        "down",
        help="remove a lab, or all of wirespeed's labs; those a live run uses are kept",
    )
    down.add_argument("name", nargs="?", help="lab name (default: all labs)")
    add_flag(down, "--force", help="also remove labs that live runs use (their next trials fail)")
    status = lab_sub.add_parser("status", help="list wirespeed's labs")
    add_flag(status, "--json", help="print JSON (docs/json-format.md)")

    imp = sub.add_parser(
        "import",
        help="bring bundles (.wsr) or saved iperf outputs into the store",
        description="Import bundles written by `wirespeed export` (FILE.wsr): each run as "
        "it was, once (a run imported before is not stored again); a bundle that is cut "
        "short, edited or of a newer format version is refused and nothing is imported. "
        "Or import saved iperf2 (text or -y C) and iperf3 (-J or text) outputs, "
        "client or server side; the tool and format are detected. All files become one run; "
        "an iperf2 server's log of several tests becomes one trial per test. A file that "
        "holds no measurement, or is larger than 64 MiB (a saved output is far smaller), is "
        "an error (exit 2) and nothing is imported.",
    )
    imp.add_argument("files", nargs="+", metavar="FILE")
    add_flag(imp, "--json", help="print the normalized results instead")
    imp.add_argument("--title", help="title of the imported run")
    add_db(imp)

    runs = sub.add_parser("runs", help="list the runs in the store")
    add_flag(runs, "--json", help="print JSON (docs/json-format.md)")
    add_db(runs)

    from wirespeed.cli.commands.soak import add_parser as add_soak_parser

    soak = add_soak_parser(sub)
    add_ssh(soak)
    add_db(soak)

    from wirespeed.cli.commands.card import add_parser as add_card_parser

    card = add_card_parser(sub)
    add_ssh(card)
    add_row(card)
    add_db(card)

    from wirespeed.cli.commands.export import add_parser as add_export_parser

    add_db(add_export_parser(sub))

    report = sub.add_parser("report", help="report a run (default: the latest)")
    report.add_argument("run", nargs="?", type=run_id, metavar="RUN", help="run id (`runs`)")
    add_outputs(report, ".html ")
    add_budgets(report)
    add_row(report)
    add_db(report)

    compare = sub.add_parser(
        "compare",
        help="compare runs (default: the latest two), or two paths or variants of one",
        description="A table of runs: one row per measurement (a flow's goodput, loss, "
        "jitter and retransmits, a probe's round trip, a benchmark's or a search's "
        "figures), one column per run (or per path or variant of one run), each median "
        "with its change against the first column in % and whether a permutation test "
        "and the ratio's 95 % bootstrap interval tell the difference from noise. A figure "
        "measured otherwise than the first column's (another tool major version, link, "
        "topology or options) says which key differs; across stores and bundles (FILE, "
        "--store) it has no ratio, and the table says how the devices' configurations "
        "differ and whether each run is valid to compare (docs/sharing.md).",
    )
    compare.add_argument(
        "runs",
        nargs="*",
        type=run_or_file,
        metavar="RUN|FILE",
        help="run ids (`runs`): A B for two runs (default: the latest two), A B C ... "
        "for a table of runs; one run with --paths or --variants (default: the latest); "
        "or bundles (FILE.wsr, `wirespeed export`), each of their runs a column",
    )
    compare.add_argument(
        "--store",
        action="append",
        metavar="DB",
        help="a column from another store: its latest run, or DB#RUN; repeat for several "
        "(with bundles and RUNs of --db, in the order given: stores first)",
    )
    compare.add_argument(
        "--paths", nargs=2, metavar=("A", "B"), help="compare two paths of one run, e.g. WAN Br0"
    )
    compare.add_argument(
        "--variants", nargs=2, metavar=("A", "B"), help="compare two variants of one run"
    )
    add_flag(
        compare,
        "--soaks",
        help="the ids are soaks' (`soak --report`): a table of soaks, their outages, loss "
        "and round trip (default: the latest soak's variants, else the latest two)",
    )
    add_outputs(compare, "")
    add_budgets(compare)
    add_db(compare)

    from wirespeed.cli.commands.trend import add_parser as add_trend_parser

    add_db(add_trend_parser(sub))

    from wirespeed.cli.commands.site import add_parser as add_site_parser

    add_site_parser(sub)

    tune = sub.add_parser(
        "tune",
        help="suggest, apply, restore or keep IRQ affinity and RPS/XPS masks (journaled)",
        description="suggest: a plan from the machine's facts that puts each NIC's "
        "interrupts and packet steering on a fast core of its own. apply: make it so, "
        "every previous value journaled in the store first. restore: write the journaled "
        "previous values back (also what a killed wirespeed left changed). keep: a boot "
        "script that sets the plan (or a stored run's variant) at every boot, printed or "
        "installed over SSH.",
    )
    tune.add_argument(
        "action",
        choices=["suggest", "apply", "restore", "keep"],
        metavar="ACTION",
        help="suggest, apply, restore or keep",
    )
    tune.add_argument(
        "host",
        nargs="?",
        metavar="HOST",
        help="local (default), a network namespace name, or user@host[:port] over SSH; "
        "restore without HOST restores every host",
    )
    tune.add_argument(
        "--root",
        metavar="DIR",
        help="suggest (or keep) for a captured tree DIR/proc, DIR/sys (suggest and keep only)",
    )
    add_flag(tune, "--json", help="suggest: print the plan as JSON")
    add_flag(
        tune,
        "--force",
        help="apply even MTU/offload changes on the control connection's interface (the "
        "default route's; over SSH, the one the session comes in by)",
    )
    add_flag(
        tune,
        "--forget",
        help="restore: drop HOST's journal entries without writing (the host is gone for good)",
    )
    _add_tune_keep(tune)
    add_ssh(tune)
    add_db(tune)

    completion = sub.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print a completion script for every command and option of this "
        "wirespeed. bash: source <(wirespeed completion bash) in ~/.bashrc; zsh: "
        "wirespeed completion zsh > ~/.zfunc/_wirespeed (a directory on $fpath); fish: "
        "wirespeed completion fish > ~/.config/fish/completions/wirespeed.fish.",
    )
    completion.add_argument(
        "shell", choices=["bash", "zsh", "fish"], metavar="SHELL", help="bash, zsh or fish"
    )
    sub.add_parser(
        "manpage",
        help="print the man page, wirespeed(1), in roff",
        description="Print wirespeed(1) in roff: man -l <(wirespeed manpage) reads it; "
        "wirespeed manpage > ~/.local/share/man/man1/wirespeed.1 installs it for man wirespeed.",
    )
    return parser
