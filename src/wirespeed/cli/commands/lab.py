"""`wirespeed lab up|down|status`: the emulated lab by hand."""

from __future__ import annotations

import argparse

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.errors import UsageError


def execute(args: argparse.Namespace, env: Environment) -> int:
    if args.lab_command == "up":
        return _up(args, env)
    if args.lab_command == "down":
        return _down(args, env)
    return _status(env)


def _up(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.lab.lab import Lab, LabSpec
    from wirespeed.lab.links import parse_link
    from wirespeed.model import ModelError, Role, Topology

    try:
        link = parse_link(args.link, mtu=args.mtu)
    except (ValueError, ModelError) as error:
        raise UsageError(str(error)) from None
    lab = Lab.up(LabSpec(topology=Topology(args.topology), link=link, name=args.name))
    out = env.stdout
    out.write(f"lab {lab.name} is up: {args.topology}, link {link.name}, MTU {link.mtu}\n")
    for role in (Role.CLIENT, Role.DUT, Role.SERVER):
        host = lab.hosts.get(role)
        if host is not None:
            out.write(f"  {role.value:<7} {host.name}\n")
    client = lab.hosts[Role.CLIENT].name
    server = lab.hosts[Role.SERVER].name
    out.write(
        f"try:  ip netns exec {server} iperf3 -s -1 &  "
        f"ip netns exec {client} iperf3 -c {lab.server_address}\n"
        f"then: wirespeed lab down {lab.name}\n"
    )
    return ExitStatus.OK


def _down(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.lab.lab import attach, down_all

    if args.name:
        lab = attach(args.name)
        if lab is None:
            raise UsageError(
                f"no lab named {args.name!r}", hint="`wirespeed lab status` lists them"
            )
        lab.down()
        env.stdout.write(f"lab {args.name} removed\n")
        return ExitStatus.OK
    removed = down_all()
    env.stdout.write(f"removed: {', '.join(removed)}\n" if removed else "no labs to remove\n")
    return ExitStatus.OK


def _status(env: Environment) -> int:
    from wirespeed.lab.lab import lab_status

    labs = lab_status()
    if not labs:
        env.stdout.write("no labs (wirespeed lab up builds one)\n")
        return ExitStatus.OK
    for info in labs:
        env.stdout.write(f"{info}\n")
    return ExitStatus.OK
