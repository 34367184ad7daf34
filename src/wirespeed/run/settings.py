"""A run's settings: how it measures its plan, beside the plan itself.

They are stored with the run (runs.settings, as to_json() gives them), so that
`run --resume` measures the trials still missing the same way without reading any
command line; `run` and `card` make them from their options, and every command that
measures builds its Runner from them (build_runner), the same way.

What only the process that measures knows (where its labs are named, how SSH reaches
the hosts, where it says what it does) is not a setting of the run: each process
that takes the run up gives its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wirespeed.run.runner import Runner

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.model import Trial
    from wirespeed.plan import Plan
    from wirespeed.run.runner import Progress
    from wirespeed.store import Store

# The version of to_json()'s form: a stored form of a later version is refused by name.
SETTINGS_VERSION = 1


class SettingsError(ValueError):
    """Stored settings this version cannot read."""


@dataclass(frozen=True)
class RunSettings:
    """What decides which of the plan's trials a run has and how each is measured."""

    # Begun by `wirespeed card`: shown as a card (its durations, repetitions and parts
    # are in its plan already).
    card: bool = False
    only: tuple[str, ...] | None = None  # the test ids run, None: every test
    duration: float | None = None  # every test this long, None: the plan's
    repetitions: int | None = None  # None: the plan's
    watch: tuple[str, ...] = ("dut",)  # the roles whose hosts are sampled
    sample_interval: float = 1.0
    lab_dut: str = "netns"  # how lab paths reach the DUT: netns or ssh
    # What the user said the run is (`run --label firmware=23.05.3`).
    labels: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON values only, as the store keeps them."""
        return {
            "version": SETTINGS_VERSION,
            "card": self.card,
            "only": None if self.only is None else list(self.only),
            "duration": self.duration,
            "repetitions": self.repetitions,
            "watch": list(self.watch),
            "sample_interval": self.sample_interval,
            "lab_dut": self.lab_dut,
            "labels": dict(self.labels),
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> RunSettings:
        """The settings as to_json() stored them; SettingsError if they are not that."""
        version = stored.get("version")
        if version != SETTINGS_VERSION:
            raise SettingsError(f"settings of version {version}, not {SETTINGS_VERSION}")
        only, labels = stored.get("only"), stored.get("labels", {})
        duration, repetitions = stored.get("duration"), stored.get("repetitions")
        try:
            settings = cls(
                card=_typed(stored.get("card"), bool),
                only=None if only is None else tuple(_strings(only)),
                duration=None if duration is None else float(_typed(duration, (int, float))),
                repetitions=None if repetitions is None else _typed(repetitions, int),
                watch=tuple(_strings(stored.get("watch"))),
                sample_interval=float(_typed(stored.get("sample_interval"), (int, float))),
                lab_dut=_typed(stored.get("lab_dut"), str),
                labels={str(k): _typed(v, str) for k, v in _typed(labels, dict).items()},
            )
        except TypeError as error:
            raise SettingsError(str(error)) from None
        return settings


def _typed(value: Any, kind: type[Any] | tuple[type[Any], ...]) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise TypeError(f"{value!r} is not a {kind}")
    return value


def _strings(values: Any) -> list[str]:
    return [_typed(value, str) for value in _typed(values, list)]


def trials_of(plan: Plan, settings: RunSettings) -> list[Trial]:
    """The plan's trials the settings choose, in run order."""
    from wirespeed.plan import expand

    only = None if settings.only is None else list(settings.only)
    return expand(plan, duration=settings.duration, repetitions=settings.repetitions, only=only)


def unused_duration(trials: list[Trial], settings: RunSettings) -> str | None:
    """What to say when the settings' duration changes none of the trials: a plan of
    benchmarks alone, which take their own `seconds:` (openssl) or none (7-zip)."""
    if settings.duration is None or not trials:
        return None
    if any(trial.test.tool.moves_traffic for trial in trials):
        return None
    return (
        f"--duration {settings.duration:g} changes nothing here: it sets how long traffic "
        "flows, and these tests are benchmarks, which run for their own time (openssl's "
        "`seconds:` option)"
    )


def build_runner(
    plan: Plan,
    store: Store,
    settings: RunSettings,
    *,
    progress: Progress,
    lab_prefix: str | None,
    ssh_settings: SshSettings,
    notice: Callable[[str], None],
) -> Runner:
    """The Runner of a run with these settings, as every command that measures makes it;
    its run() stores them with a new run (settings=settings.to_json())."""
    return Runner(
        plan,
        store,
        progress,
        lab_prefix=lab_prefix,
        watch=settings.watch,
        sample_interval=settings.sample_interval,
        lab_dut=settings.lab_dut,
        ssh_settings=ssh_settings,
        notice=notice,
        labels=settings.labels,
    )
