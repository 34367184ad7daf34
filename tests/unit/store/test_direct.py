"""Objects the loader makes directly are the model's own, and a model that gains a
field stops the loader from leaving it unset."""

from __future__ import annotations

import pytest

from wirespeed.model import ModelError, Transfer
from wirespeed.store.direct import field_setter
from wirespeed.store.rebuilding import measurement


def test_a_measurement_made_directly_equals_one_made_by_its_class() -> None:
    made = measurement(1_000, 1.5, 5333.3)
    assert made == Transfer(bytes=1_000, seconds=1.5, bits_per_second=5333.3)
    assert hash(made) == hash(Transfer(bytes=1_000, seconds=1.5, bits_per_second=5333.3))
    assert measurement(None, 0.0, 0.0) is None


def test_a_value_the_model_refuses_is_refused_with_its_error() -> None:
    with pytest.raises(ModelError, match="bytes must not be negative"):
        measurement(-1, 1.0, 8.0)


def test_the_fields_must_be_the_models() -> None:
    with pytest.raises(TypeError, match="has the fields"):
        field_setter(Transfer, ("bytes", "seconds"))
