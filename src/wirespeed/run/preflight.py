"""What a run refuses before a store is opened or a lab is built: a plan it cannot run
here (no root for the lab, a tool missing on this machine, variants that need a DUT of
their own over SSH)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wirespeed.errors import MissingToolError, NotRootError, UsageError
from wirespeed.hosts.base import Host
from wirespeed.model import PathSpec, Trial
from wirespeed.run.paths import (
    cpu_device,
    is_lab_path,
    named_generator,
    search_senders,
    tunnel_ends,
)
from wirespeed.run.trial import program_for

if TYPE_CHECKING:
    from wirespeed.plan import Plan


def preflight(plan: Plan, trials: Sequence[Trial]) -> None:
    """Refuse up front what cannot work, before a store is opened or a lab is built."""
    from wirespeed.hosts.local import LocalHost

    if not trials:
        raise UsageError("the plan selects no trials (check --only)")
    known = {variant.name for variant in plan.variants}
    for trial in trials:
        if trial.variant not in known:
            raise UsageError(f"trial {trial.key}: the plan has no variant {trial.variant!r}")
    paths = {t.path.name: t.path for t in trials}.values()
    for path in paths:
        _refuse_cpu_variants_without_a_device(plan, path, trials)
    if any(is_lab_path(plan, p) for p in paths) and os.geteuid() != 0:
        raise NotRootError("the emulated lab")
    for path in paths:
        if is_lab_path(plan, path):
            continue
        # A variant's MTU is the trial's too (expand.py); that one is set on the hosts.
        if any(
            t.test.spec.mtu not in (None, plan.variant(t.variant).mtu)
            for t in trials
            if t.path.name == path.name
        ):
            raise UsageError(
                f"path {path.name!r} runs on real hosts, and a test's `mtu` is set only on "
                "the lab's links",
                hint="give the MTU to a variant instead (variants: - {name: mtu512, mtu: "
                "512}): it goes on the DUT over SSH and on the path's ends",
            )
        _refuse_steering_without_a_device(plan, path, trials)
    this_machine = LocalHost(name="this machine")
    for program in sorted(_tunnel_tools_here(plan, trials)):
        if this_machine.which(program) is None:
            raise MissingToolError(program)
    for program in sorted({program_for(t.test.tool) for t in trials if t.test.tool.moves_traffic}):
        if this_machine.which(program) is None:
            raise MissingToolError(program)
    replayed_here = [
        t
        for t in trials
        if named_generator(t) == "tcpreplay"
        and (
            is_lab_path(plan, t.path)
            or any(plan.hosts[name].ssh is None for name in search_senders(t))
        )
    ]
    if replayed_here and this_machine.which("tcpreplay") is None:
        raise MissingToolError("tcpreplay")
    _refuse_missing_benchmarks(plan, trials, this_machine)


def _tunnel_tools_here(plan: Plan, trials: Sequence[Trial]) -> set[str]:
    """What this machine needs for the trials' tunnels: a lab's both ends; between real
    hosts openssl for OpenVPN's keys (made here), and an end's tools if it is this machine."""
    from wirespeed.lab.tunnel import tools_for
    from wirespeed.model import TunnelKind
    from wirespeed.run.host_tunnel import WIREGUARD_MODULE, tools_on_host

    needed: set[str] = set()
    for trial in trials:
        tunnel = trial.path.tunnel
        if tunnel is None:
            continue
        if is_lab_path(plan, trial.path):
            needed.update(tools_for(tunnel))
            continue
        if tunnel.kind is TunnelKind.OPENVPN:
            needed.add("openssl")
        if any(plan.hosts[name].ssh is None for name in tunnel_ends(trial.path)):
            needed.update(tools_on_host(tunnel.kind))
            if tunnel.kind is TunnelKind.WIREGUARD and not os.path.isdir(WIREGUARD_MODULE):
                needed.add("wireguard-go")  # no kernel module loaded here
    return needed


def _refuse_missing_benchmarks(plan: Plan, trials: Sequence[Trial], this_machine: Host) -> None:
    """A benchmark on this machine or in the lab (whose namespaces share its files) needs
    its program here: refused before anything runs, naming the package. (An SSH device
    is asked when it is logged in to.)"""
    from wirespeed.run.bench_trial import find_program
    from wirespeed.tools.bench import benchmark_of

    seen: set[tuple[str, str]] = set()
    for trial in trials:
        benchmark = benchmark_of(trial.test)
        path = trial.path
        if benchmark is None:
            continue
        if not is_lab_path(plan, path) and plan.hosts[path.dut or ""].ssh:
            continue
        driver, bench = benchmark
        options = bench.as_dict()
        key = (str(trial.test.tool), str(options.get("directory")))
        if key not in seen:
            seen.add(key)
            find_program(this_machine, driver, options)


def _refuse_cpu_variants_without_a_device(
    plan: Plan, path: PathSpec, trials: Sequence[Trial]
) -> None:
    """CPU variants need a DUT of its own over SSH: the lab's DUT (a namespace, or the
    dropbear in one) and a host without ssh are this machine, whose cores wirespeed
    never takes offline or reclocks."""
    changing = sorted(
        {t.variant for t in trials if t.path.name == path.name}
        & {v.name for v in plan.variants if v.changes_cpus}
    )
    if not changing:
        return
    named = ", ".join(repr(v) for v in changing)
    if is_lab_path(plan, path):
        raise UsageError(
            f"path {path.name!r} runs in the lab, whose DUT shares this machine's CPUs: "
            f"variants {named} set cores online, a governor or a maximum frequency",
            hint="run CPU variants on a path whose dut (or endpoint server) is a device "
            "with ssh: under hosts:",
        )
    device = cpu_device(plan, path)
    if device is None or plan.hosts[device].ssh is None:
        raise UsageError(
            f"path {path.name!r}: variants {named} set CPUs, and "
            + (
                "the path names no dut"
                if device is None
                else f"its DUT {device!r} is this machine (no ssh:)"
            ),
            hint="CPU variants act on a DUT reached over SSH; give the path a dut with ssh:",
        )


def _refuse_steering_without_a_device(plan: Plan, path: PathSpec, trials: Sequence[Trial]) -> None:
    """RPS, XPS and offloads act on a real path's DUT over SSH (link_variants.py); the
    MTU goes on whichever of its hosts wirespeed reaches, so it needs no DUT."""
    steering = sorted(
        {t.variant for t in trials if t.path.name == path.name}
        & {
            v.name
            for v in plan.variants
            if v.rps is not None or v.xps is not None or any(v.offloads)
        }
    )
    if not steering:
        return
    device = cpu_device(plan, path)
    if device is None or plan.hosts[device].ssh is None:
        named = ", ".join(repr(v) for v in steering)
        raise UsageError(
            f"path {path.name!r}: variants {named} set RPS, XPS or offloads, and "
            + (
                "the path names no dut"
                if device is None
                else f"its DUT {device!r} is this machine (no ssh:)"
            ),
            hint="they act on the DUT over SSH: give the path a dut with ssh: under hosts:",
        )
