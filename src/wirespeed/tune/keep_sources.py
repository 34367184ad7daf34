"""What `tune keep` keeps, from where: the tuning `tune suggest` plans for a device's
facts (its tree, this machine or a host), or what a variant of a stored run set, put on
the device's interfaces; and the init system a boot script is installed for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.errors import UsageError
from wirespeed.tune.hosts import LOCAL

if TYPE_CHECKING:
    from wirespeed.facts.model import Facts
    from wirespeed.hosts.base import Host
    from wirespeed.tune.keep import Kept
    from wirespeed.tune.keep_systems import System


def device_facts(root: str | None, host: Host | None) -> Facts:
    """The facts of the tree under `root`, else of `host`, else of this machine."""
    from wirespeed.facts import HostSource, TreeSource, collect

    if root is not None:
        tree = Path(root)
        if not (tree / "proc").is_dir() and not (tree / "sys").is_dir():
            raise UsageError(f"--root {root}: no proc/ or sys/ in it")
        return collect(TreeSource(tree, where=f"tree {root}"))
    if host is None or host.name == LOCAL:
        return collect(TreeSource(Path("/"), where="this machine"))
    return collect(HostSource(host))


def kept_of_facts(root: str | None, host: Host | None) -> Kept:
    """The settings `tune suggest` plans for the device; KeepError when it plans none."""
    from wirespeed.tune.keep import KeepError, from_plan
    from wirespeed.tune.suggest import suggest

    facts = device_facts(root, host)
    kept = from_plan(suggest(facts), facts)
    if not kept.settings:
        raise KeepError(
            f"nothing to keep for {facts.source}: the plan sets no knob",
            hint=f"wirespeed tune suggest{'' if root is None else ' --root ' + root} says why",
        )
    return kept


def kept_of_variant(
    db: str | None,
    run: int,
    variant: str,
    interfaces: Sequence[str],
    *,
    root: str | None,
    host: Host | None,
) -> Kept:
    """What variant `variant` of stored run `run` set, on `interfaces` (comma-separated
    lists, as --interface gives them), else on every physical NIC of the device."""
    from wirespeed.tune.keep import KeepError, from_variant

    state = variant_state(db, run, variant)
    names = [part for given in interfaces for part in given.split(",") if part.strip()]
    if not names:
        if root is None and host is None:
            raise UsageError(
                f"which interfaces should variant {variant} go on?",
                hint="--interface eth0,eth1, or HOST / --root / --install for the device's NICs",
            )
        names = [nic.name for nic in device_facts(root, host).nics]
        if not names:
            raise KeepError("the device has no physical NIC to put the variant on")
    source = f"run {run}, variant {variant}"
    return from_variant(state, [name.strip() for name in names], source, variant)


def variant_state(db: str | None, run: int, variant: str) -> Mapping[str, object]:
    """What the variant set, as the run recorded it in its provenance."""
    from wirespeed.store import Store

    with Store.open(db) as store:
        record = store.load_run(run, intervals=False, outputs=False, commands=False)
    provenance = record.info.provenance
    variants = provenance.get("variants") if isinstance(provenance, Mapping) else None
    if not isinstance(variants, Mapping) or not variants:
        raise UsageError(f"run {run} recorded no variants")
    if variant not in variants or not isinstance(variants[variant], Mapping):
        raise UsageError(
            f"run {run} has no variant {variant!r}", hint="its variants: " + ", ".join(variants)
        )
    return {str(key): value for key, value in variants[variant].items()}


def init_system(host: Host, root: str, given: str | None = None) -> System:
    """The init system a boot script goes to on `host` under `root`: `given`, else the
    one the device has (OpenWrt's /etc/rc.common, systemd's /run/systemd/system)."""
    from wirespeed.tune.keep_systems import System

    if given is not None:
        return System(given)
    if host.run(["test", "-e", f"{root}/etc/rc.common"], timeout=30.0).returncode == 0:
        return System.OPENWRT
    if host.run(["test", "-d", f"{root}/run/systemd/system"], timeout=30.0).returncode == 0:
        return System.SYSTEMD
    raise UsageError(
        f"cannot tell the init system of {host.name}{' under ' + root if root else ''}: "
        "no /etc/rc.common (OpenWrt), no /run/systemd/system (systemd)",
        hint="--system openwrt or --system systemd",
    )
