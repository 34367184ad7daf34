"""What a forwarding-rate search cannot do on a path, found before anything runs.

Its options were checked by their schema (plan/forwarding.py); here they meet the paths:
a frame larger than the path's MTU allows, `in` and `out` anywhere but through NAT, a
path with no link (so no frame-rate ceiling) and no max_rate to start the search from,
and durations that do not fit the final trial's default, which differs between the lab
and devices.
"""

from __future__ import annotations

from collections.abc import Collection

from wirespeed.model import PathSpec, TestCase, Topology
from wirespeed.plan.checks import RunsOn
from wirespeed.plan.collect import Collector
from wirespeed.plan.forwarding import NAT_ONLY, ForwardingOptions
from wirespeed.plan.yamltree import Loc
from wirespeed.search.frames import largest_frame


def search_options(case: TestCase) -> ForwardingOptions:
    """The test's options as validated when the plan was read."""
    return case.settings_as(ForwardingOptions)


def check_search_on_paths(case: TestCase, loc: Loc, on: RunsOn, out: Collector) -> None:
    """A search's options on each path it runs on, at each variant's MTU too."""
    options, hosts = search_options(case), on.hosts
    where = (*loc, "options")
    for path in on.paths:
        mtus: list[tuple[int | None, str | None]] = [(path.link.mtu if path.link else None, None)]
        mtus += [(mtu, name) for name, mtu in on.variant_mtus]
        for mtu, variant in mtus:
            if mtu is None:
                continue
            too_large = [size for size in options.frame_sizes if size > largest_frame(mtu)]
            if too_large:
                at = f" in variant {variant!r}" if variant else ""
                out.error(
                    (*where, "frame_sizes"),
                    f"test {case.id!r}: frames of {', '.join(map(str, too_large))} B do not fit "
                    f"path {path.name!r}{at}: its MTU {mtu} carries frames of at most "
                    f"{largest_frame(mtu)} B (with FCS)",
                    hint="drop those sizes, or raise the MTU (lab: {mtu: 9000})",
                )
        nat_words = [d for d in options.directions if d in NAT_ONLY]
        if nat_words and path.topology is not Topology.NAT:
            out.error(
                (*where, "directions"),
                f"test {case.id!r}: {' and '.join(nat_words)} "
                f"{'name' if len(nat_words) > 1 else 'names'} the sides of a NAT, and "
                f"path {path.name!r} is a {path.topology.value} path",
                hint="use up (client to server) and down (server to client)",
            )
        _check_default_final(case, where, path, options, out, in_lab=path.client not in hosts)
        _check_senders(case, where, path, options, out, hosts=hosts)
        if options.max_rate is None and (path.link is None or path.link.rate_bps is None):
            out.error(
                (*where,),
                f"test {case.id!r}: path {path.name!r} has no link rate, so no frame-rate "
                "ceiling to start the search from",
                hint="set options: {max_rate: 200kpps} (what the generator can send), or the "
                "path's link: (gbe, fe ...)",
            )


def _check_default_final(
    case: TestCase,
    where: Loc,
    path: PathSpec,
    options: ForwardingOptions,
    out: Collector,
    *,
    in_lab: bool,
) -> None:
    """The durations against the final trial's default where the plan leaves it out, as
    the run applies it: LAB_FINAL_DURATION in the lab, DEVICE_FINAL_DURATION on devices
    (the schema compares them where final_duration is written)."""
    if options.final_duration is not None:
        return
    final = options.final_seconds(in_lab)
    on = f"final_duration defaults to {final:g} s {'in the lab' if in_lab else 'on devices'}"
    if options.initial_duration > final:
        out.error(
            (*where, "initial_duration"),
            f"test {case.id!r}: initial_duration {options.initial_duration:g} s is longer than "
            f"the final trial on path {path.name!r}: {on}",
            hint=f"set initial_duration: {final:g} or less, or final_duration: of at least "
            f"{options.initial_duration:g}",
        )
    if options.duration_sum is not None and options.duration_sum < final:
        out.error(
            (*where, "duration_sum"),
            f"test {case.id!r}: duration_sum {options.duration_sum:g} s is shorter than one "
            f"final trial on path {path.name!r}: {on}",
            hint=f"set duration_sum: {final:g} or more, or a final_duration: of at most "
            f"{options.duration_sum:g}",
        )


def _check_senders(
    case: TestCase,
    where: Loc,
    path: PathSpec,
    options: ForwardingOptions,
    out: Collector,
    *,
    hosts: Collection[str],
) -> None:
    """More senders are plan hosts beside a real path's client, sending up (or out)."""
    if not options.senders:
        return
    if path.client not in hosts:
        out.error(
            (*where, "senders"),
            f"test {case.id!r}: path {path.name!r} is the lab's, which has one client",
            hint="name senders on a path between hosts: of your own (client:, server:)",
        )
        return
    unknown = [name for name in options.senders if name not in hosts]
    if unknown:
        out.error(
            (*where, "senders"),
            f"test {case.id!r}: {', '.join(map(repr, unknown))} is not in hosts:",
            hint=f"known hosts: {', '.join(sorted(hosts))}",
        )
    if path.client in options.senders or path.server in options.senders:
        out.error(
            (*where, "senders"),
            f"test {case.id!r}: the path's client sends anyway and its server receives",
            hint="name only the other hosts that send with the client",
        )
    away = [d for d in options.directions if d not in ("up", "out")]
    if away:
        out.error(
            (*where, "directions"),
            f"test {case.id!r}: several senders send towards the server (up or out), "
            f"not {', '.join(away)}",
            hint="directions: [up] (out through NAT)",
        )
