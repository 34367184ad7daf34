"""`wirespeed lab up|down|status`: the emulated lab by hand."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.model import ForwardingLimit, LinkModel


def execute(args: argparse.Namespace, env: Environment) -> int:
    if args.lab_command == "up":
        return _up(args, env)
    if args.lab_command == "down":
        return _down(args, env)
    return _status(args, env)


def _up(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.lab.lab import Lab, LabSpec
    from wirespeed.lab.links import parse_link
    from wirespeed.model import ModelError, Role, Topology
    from wirespeed.units import parse_delay

    try:
        queue = None if args.queue is None else parse_delay(args.queue)
        link = parse_link(args.link, mtu=args.mtu, queue=queue)
    except (ValueError, ModelError) as error:
        raise UsageError(str(error)) from None
    limit = _forwarding_limit(args)
    # A lab of that name a live run uses is refused (LabInUseError, exit status 2).
    lab = Lab.up(
        LabSpec(
            topology=Topology(args.topology),
            link=link,
            name=args.name,
            dut_access=args.dut,
            limit=limit,
        )
    )
    out = env.stdout
    limited = f", the DUT forwards at most {describe_limit(limit, link, link.mtu)}" if limit else ""
    queued = describe_queue(link)
    out.write(
        f"lab {lab.name} is up: {args.topology}, link {link.name}{queued}, "
        f"MTU {link.mtu}{limited}\n"
    )
    for node, namespace in lab.namespaces.items():
        out.write(f"  {node.value:<7} {namespace}\n")
    client = lab.hosts[Role.CLIENT].name
    server = lab.hosts[Role.SERVER].name
    out.write(
        f"try:  ip netns exec {server} iperf3 -s -1 &  "
        f"ip netns exec {client} iperf3 -c {lab.server_address}\n"
        f"then: wirespeed lab down {lab.name}\n"
    )
    if lab.port_forward is not None and lab.wan_address is not None:
        first, last = lab.port_forward
        out.write(
            f"port forward: UDP and TCP to {lab.wan_address}:{first}-{last} reach the client "
            f"{lab.client_address} on the same port\n"
        )
    device = lab.ssh_device
    if device is not None:
        if lab.ssh_host is not None:
            lab.ssh_host.close()
        out.write(
            f"the DUT is an SSH device at {device.address} (dropbear, busybox sh); log in:\n"
            f"  ip netns exec {device.mgmt_namespace} ssh -i {device.client_key} "
            f"-o UserKnownHostsFile={device.known_hosts} {device.user}@{device.address}\n"
        )
    return ExitStatus.OK


def _forwarding_limit(args: argparse.Namespace) -> ForwardingLimit | None:
    from wirespeed.model import ForwardingLimit, ModelError
    from wirespeed.units import parse_rate

    if args.forward_pps is None and args.forward_rate is None:
        if args.ring is not None:
            raise UsageError(
                "--ring: the ring of a DUT that forwards at most so much, and none was given",
                hint="add --forward-pps N or --forward-rate RATE: --forward-pps 20000 --ring 512",
            )
        return None
    bps = None
    if args.forward_rate is not None:
        try:
            bps = parse_rate(args.forward_rate)
        except ValueError as error:
            raise UsageError(f"--forward-rate: {error}") from None
    try:
        return ForwardingLimit(pps=args.forward_pps, bps=bps, ring=args.ring)
    except ModelError as error:
        raise UsageError(f"--forward-pps/--forward-rate/--ring: {error}") from None


def describe_queue(link: LinkModel) -> str:
    """', queue 40ms' for a link whose bottleneck queues that much; '' for the default."""
    from wirespeed.units import format_delay

    return "" if link.queue is None else f", queue {format_delay(link.queue)}"


def describe_limit(limit: ForwardingLimit, link: LinkModel | None, mtu: int | None) -> str:
    """'15000 packets/s and 100.0 Mbit/s, queueing up to 256 packets'."""
    from wirespeed.lab.limits import ring_packets
    from wirespeed.units import format_rate

    words = []
    if limit.pps is not None:
        words.append(f"{limit.pps} packets/s")
    if limit.bps is not None:
        words.append(format_rate(limit.bps))
    said = " and ".join(words)
    if link is None:
        return said
    return f"{said}, queueing up to {ring_packets(limit, link, mtu or link.mtu)} packets"


def _down(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.lab.lab import down_all, down_lab
    from wirespeed.lab.record import describe_owner

    if args.name:
        # A lab a live run uses raises LabInUseError (exit status 2) unless --force.
        if not down_lab(args.name, force=args.force):
            # Idempotent: a lab that is already gone is what the user asked for.
            env.stdout.write(f"no lab named {args.name}: nothing to remove\n")
            return ExitStatus.OK
        env.stdout.write(f"lab {args.name} removed\n")
        return ExitStatus.OK
    removal = down_all(force=args.force)
    out = env.stdout
    out.write(f"removed: {', '.join(removal.removed)}\n" if removal.removed else "")
    for name, owner in removal.kept:
        out.write(f"kept {name}: in use by {describe_owner(owner)} (--force removes it)\n")
    if not removal.removed and not removal.kept:
        out.write("no labs to remove\n")
    return ExitStatus.OK


def _status(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.lab.lab import lab_status

    labs = lab_status()
    if args.json:
        from wirespeed.cli.documents import lab_status_document, write_json

        write_json(env, lab_status_document(labs))
        return ExitStatus.OK
    if not labs:
        env.stdout.write("no labs (wirespeed lab up builds one)\n")
        return ExitStatus.OK
    from wirespeed.units import format_rate

    for info in labs:
        topology = info.topology.value if info.topology else "unknown topology"
        link = "unknown link"
        if info.link is not None:
            rate = format_rate(info.link.rate_bps) if info.link.rate_bps else "unshaped"
            link = f"{info.link.name} ({rate}){describe_queue(info.link)}"
        state = "complete" if info.complete else "incomplete: `wirespeed lab down` removes it"
        mtu = f"MTU {info.mtu}" if info.mtu else "MTU ?"
        limit = (
            f", forwards at most {describe_limit(info.limit, info.link, info.mtu)}"
            if info.limit
            else ""
        )
        env.stdout.write(f"{info.name}: {topology}, {link}, {mtu}{limit}, {state}\n")
        for namespace in info.namespaces:
            interfaces = info.addresses.get(namespace, {})
            shown = ", ".join(
                f"{name} {' '.join(addresses)}" if addresses else name
                for name, addresses in interfaces.items()
            )
            env.stdout.write(f"  {namespace}  {shown}\n")
    return ExitStatus.OK
