"""A soak from its plan to its stored chunks: begun, resumed, or continued with the next
variant of its group; each variant's state in force for its own soak, in one lab.

    soaked = start(store, text, plan, lab_name=None, argv=[...], ssh=ssh, tell=tell)
    soaked = resume(store, soak_id, argv=[...], ssh=ssh, tell=tell)

Both return the ids of the soaks that ran, in order. What a command shows (progress, a
soak's summary as it ends, the lab it built instead) goes through `tell`: this module
writes nothing itself, so that the command decides the words and the streams.
"""

from __future__ import annotations

import contextlib
import functools
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from wirespeed.errors import UsageError, WirespeedError
from wirespeed.soak import records
from wirespeed.soak.group import group_info, group_token, still_to_soak, variant_of
from wirespeed.soak.plan import SoakFile, parse_soak_plan, soak_variants
from wirespeed.store import Store

if TYPE_CHECKING:
    from wirespeed.analysis.expectations import Judgement
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.run.variants import VariantStates
    from wirespeed.soak.soak_runner import Progress, SoakHosts

__all__ = ["Tell", "judgements", "resume", "start", "variants_soaked"]


class Tell(Protocol):
    """What a soak tells as it goes."""

    def note(self, text: str) -> None:
        """A line worth saying (the lab built instead, a left file removed)."""

    def line(self, text: str) -> None:
        """A line said whatever --quiet says: a soak begins or resumes."""

    def progress(self, progress: Progress) -> None: ...

    def ended(self, soak_id: int) -> None:
        """Soak soak_id ended (complete, interrupted or failed): its status is stored."""


def start(
    store: Store,
    text: str,
    plan: SoakFile,
    *,
    lab_name: str | None,
    argv: Sequence[str],
    ssh: SshSettings,
    tell: Tell,
) -> list[int]:
    """A new soak of `plan` (its text `text`), then its other variants."""
    lab = None
    if plan.lab is not None and plan.path.client is None:
        from wirespeed.lab.naming import check_lab_name

        lab = check_lab_name(lab_name or f"soak-{plan.path.topology}")
    variants = soak_variants(plan)
    info: dict[str, object] = {"argv": list(argv)} | _expectations_info(plan)
    if variants:
        info |= group_info(variants, 0, group_token())
    soak_id = records.begin(store, plan.title, text, lab, info)
    _announce(soak_id, plan.soak.duration, info, tell)
    return _run(
        store, soak_id=soak_id, text=text, lab=lab, watched=0.0, position=0, argv=argv,
        ssh=ssh, tell=tell, rename=lab_name is None,
    )  # fmt: skip


def resume(
    store: Store, soak_id: int, *, argv: Sequence[str], ssh: SshSettings, tell: Tell
) -> list[int]:
    """Soak soak_id from where it stopped, then the variants of its group still to soak;
    of a complete soak, the next variant its group has not soaked."""
    from wirespeed.process_owner import owner_alive

    found = records.load(store, soak_id)
    if found is None:
        raise UsageError(f"no soak {soak_id} in the store")
    header, chunks = found
    if header.status == "complete":
        return _next_variant(store, header, argv=argv, ssh=ssh, tell=tell)
    if header.status == "running" and header.owner and owner_alive(header.owner):
        raise UsageError(
            f"soak {soak_id} is still running: {_who(header.owner)}",
            hint="wait until it ends, or stop that process (Ctrl-C keeps what it measured)",
        )
    watched = sum(chunk.watched for chunk in chunks)
    position = chunks[-1].position + 1 if chunks else 0
    tell.line(f"soak {soak_id}: resuming after {watched:.0f} s")
    records.set_status(store, soak_id, "running")
    return _run(
        store, soak_id=soak_id, text=header.plan_text, lab=header.lab, watched=watched,
        position=position, argv=argv, ssh=ssh, tell=tell, rename=True,
    )  # fmt: skip


def _expectations_info(plan: SoakFile) -> dict[str, object]:
    """The plan's `expect:` as the soak keeps it: a report judges a soak with what its
    plan expected when it ran, without reading the plan again."""
    from wirespeed.expectations import TestExpectations, encode
    from wirespeed.soak.measurements import SOAK_TEST

    expected = plan.expectations
    if not expected:
        return {}
    return {"expectations": encode({SOAK_TEST: TestExpectations(everywhere=expected)})}


def _who(owner: str) -> str:
    """Who holds a soak, in words: 'PID 4242 (wirespeed soak plan.yaml)' on this
    machine, 'process 4242 on lab1' on another."""
    from wirespeed.lab.record import describe_owner as describe_local
    from wirespeed.process_owner import describe_owner

    hostname, _, rest = owner.partition("/")
    pid = rest.partition("/")[2].partition("/")[0]
    if hostname == socket.gethostname() and pid.isdigit():
        return describe_local(pid)
    return describe_owner(owner)


def _next_variant(
    store: Store,
    header: records.SoakHeader,
    *,
    argv: Sequence[str],
    ssh: SshSettings,
    tell: Tell,
) -> list[int]:
    """--resume of a complete soak whose group has variants still to soak (the process
    was killed between two): the next one begins."""
    rest = still_to_soak(store, header)
    if not rest:
        raise UsageError(f"soak {header.id} is complete")
    plan = parse_soak_plan(header.plan_text, f"soak {header.id}")
    soak_id = _begin_variant(store, header, plan, rest[0], argv=argv, tell=tell)
    return _run(
        store, soak_id=soak_id, text=header.plan_text, lab=header.lab, watched=0.0,
        position=0, argv=argv, ssh=ssh, tell=tell, rename=True,
    )  # fmt: skip


def _begin_variant(
    store: Store,
    previous: records.SoakHeader,
    plan: SoakFile,
    name: str,
    *,
    argv: Sequence[str],
    tell: Tell,
) -> int:
    """A new stored soak for variant `name` of previous's group."""
    variants = soak_variants(plan)
    index = [variant.name for variant in variants].index(name)
    info: dict[str, object] = {"argv": list(argv)} | _expectations_info(plan)
    info |= group_info(variants, index, str(previous.info["group"]))
    previous = records.load_header(store, previous.id) or previous  # its lab as built
    soak_id = records.begin(store, plan.title, previous.plan_text, previous.lab, info)
    _announce(soak_id, plan.soak.duration, info, tell)
    return soak_id


def _announce(soak_id: int, duration: float, info: dict[str, object], tell: Tell) -> None:
    variant = info.get("variant")
    of = f" in variant {variant} ({len(info['variants'])} variants)" if variant else ""  # type: ignore[arg-type]
    tell.line(f"soak {soak_id}: {duration:g} s of probes{of}")


def _run(
    store: Store,
    *,
    soak_id: int,
    text: str,
    lab: str | None,
    watched: float,
    position: int,
    argv: Sequence[str],
    ssh: SshSettings,
    tell: Tell,
    rename: bool,
) -> list[int]:
    """Soak soak_id (from `watched` s on), then the variants of its group still to soak,
    each its own stored soak in the same lab."""
    from wirespeed.soak.setup import soak_hosts
    from wirespeed.soak.stream import remove_left_outputs

    plan = parse_soak_plan(text, f"soak {soak_id}")
    variants = soak_variants(plan)
    by_name = {variant.name: variant for variant in variants}
    soaked: list[int] = []
    with contextlib.ExitStack() as stack:
        try:
            for path in remove_left_outputs():
                tell.note(f"removed {path}, left by a soak that was killed")
            hosts = stack.enter_context(soak_hosts(plan, lab, ssh=ssh, rename=rename))
            if hosts.lab is not None and hosts.lab != lab:
                from wirespeed.lab.record import describe_owner

                for name, owner in hosts.passed_over:
                    tell.note(f"lab {name} is in use by {describe_owner(owner)}")
                tell.note(f"soak {soak_id}: built the lab {hosts.lab} instead")
                records.set_lab(store, soak_id, hosts.lab)
            states = stack.enter_context(_variant_states(store, hosts, tell)) if variants else None
        except BaseException as error:
            # Nothing streamed: the soak is not left `running`, for --report to pick.
            # Not an Exception: Ctrl-C, or SIGTERM as the command raises it.
            interrupted = not isinstance(error, Exception)
            records.set_status(store, soak_id, "interrupted" if interrupted else "failed")
            raise
        while True:
            header = records.load_header(store, soak_id)
            assert header is not None
            variant = by_name.get(variant_of(header.info) or "")
            enter = None
            if states is not None and variant is not None:
                enter = functools.partial(states.enter, variant)
            soaked.append(soak_id)
            _soak_one(
                store, soak_id, plan, hosts,
                tell=tell, watched=watched, position=position, enter=enter,
            )  # fmt: skip
            rest = still_to_soak(store, header)
            if not rest:
                break
            soak_id = _begin_variant(store, header, plan, rest[0], argv=argv, tell=tell)
            watched, position = 0.0, 0
    return soaked


@contextlib.contextmanager
def _variant_states(store: Store, hosts: SoakHosts, tell: Tell) -> Iterator[VariantStates]:
    """The variants' switcher for the soak's lab: what a killed wirespeed left changed is
    restored first, and the variant in force is undone when the block ends."""
    from wirespeed.run.variants import VariantStates, journal_for, recover_left_changes

    journal = journal_for(store)
    for said in recover_left_changes(journal):
        tell.line(f"wirespeed: {said}")
    labs = {} if hosts.built_lab is None else {hosts.built_lab.name: hosts.built_lab}
    with VariantStates(journal, labs) as states:
        yield states


def _soak_one(
    store: Store,
    soak_id: int,
    plan: SoakFile,
    hosts: SoakHosts,
    *,
    tell: Tell,
    watched: float,
    position: int,
    enter: Callable[[], str | None] | None,
) -> None:
    """One stored soak, its status kept whatever happens, its end told."""
    from wirespeed.soak.soak_runner import run_soak

    status = "failed"
    try:
        if enter is not None and (problem := enter()) is not None:
            raise WirespeedError(problem)
        run_soak(
            store, soak_id, plan.soak, hosts,
            watched=watched, position=position, progress=tell.progress,
        )  # fmt: skip
        status = "complete"
    except BaseException as error:
        if not isinstance(error, Exception):
            # Ctrl-C, or SIGTERM as the command raises it: the committed chunks are
            # kept, `--resume` continues.
            status = "interrupted"
        raise
    finally:
        records.set_status(store, soak_id, status)
        tell.ended(soak_id)


def variants_soaked(store: Store, soaked: Sequence[int]) -> bool:
    """Whether the soaks that ran end a group of variants (more than one soaked), to be
    compared side by side."""
    from wirespeed.soak.group import group_of

    header = records.load_header(store, soaked[-1])
    return header is not None and "variants" in header.info and len(group_of(store, header)) > 1


def judgements(store: Store, soaked: Sequence[int]) -> list[Judgement]:
    """The expectations of every soak that ran, judged."""
    from wirespeed.soak.measurements import judge
    from wirespeed.soak.render import summary_of

    judged: list[Judgement] = []
    for soak_id in soaked:
        summary = summary_of(store, soak_id)
        if summary is not None:
            judged += judge(summary)
    return judged
