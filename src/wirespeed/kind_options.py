"""A kind's `options:` as the store, reports and bundles keep them: JSON-able pairs, so
that none of them need know any tool. The kind's own model of them is a test's
`settings` (model.TestCase)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchSpec:
    """A benchmark that runs on one host: its tool's settings as the plan's `options:`
    gave them, validated by the tool's own schema (plan/bench_options.py), kept as
    JSON-able pairs so that the store and reports need not know any tool."""

    options: tuple[tuple[str, object], ...] = ()
    timeout: float | None = None  # seconds the whole benchmark may take; None: the tool's

    def option(self, name: str, default: object = None) -> object:
        return dict(self.options).get(name, default)

    def as_dict(self) -> dict[str, object]:
        """The options as a driver takes them: JSON's shapes (lists, dicts)."""

        def thaw(value: object) -> object:
            if isinstance(value, FrozenMapping):
                return {key: thaw(v) for key, v in value}
            if isinstance(value, tuple):
                return [thaw(v) for v in value]
            return value

        return {key: thaw(value) for key, value in self.options}


class FrozenMapping(tuple[tuple[str, object], ...]):
    """A mapping inside options (a search goal's {name, loss}), kept as hashable pairs
    that still thaw back to a mapping, not to a list of pairs."""

    __slots__ = ()


def frozen_options(options: dict[str, object]) -> tuple[tuple[str, object], ...]:
    """JSON-shaped options as BenchSpec keeps them: lists as tuples, so that a spec is
    hashable and one read back from the store equals the one written."""

    def freeze(value: object) -> object:
        if isinstance(value, FrozenMapping):
            return value
        if isinstance(value, list | tuple):
            return tuple(freeze(v) for v in value)
        if isinstance(value, dict):
            return FrozenMapping((k, freeze(v)) for k, v in value.items())
        return value

    return tuple((key, freeze(value)) for key, value in options.items())
