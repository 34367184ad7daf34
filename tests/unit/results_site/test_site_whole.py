"""The site reads each bundle checked whole as `wirespeed import` does (store/bundle.py's
unpack), without writing its canonical JSON twice: what it reads, and what it refuses,
are unpack's."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from support.site_bundles import card_bundles, firmware_bundles
from wirespeed.site import whole
from wirespeed.site.gather import read_bundle
from wirespeed.store.bundle import BundleError, canonical, pack, unpack, with_id


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp_path = tmp_path_factory.mktemp("bundles")
    return card_bundles(tmp_path / "results", tmp_path) + firmware_bundles(
        tmp_path / "results", tmp_path
    )


def _document(path: Path) -> dict[str, Any]:
    return json.loads(gzip.decompress(path.read_bytes()))  # type: ignore[no-any-return]


def _same_as_unpack(data: bytes) -> None:
    read = whole.read_whole(data, "x.wsr")
    assert read is not None
    bundle, records = read
    assert bundle == unpack(data, "x.wsr")
    assert records == tuple(bundle.records())


def test_an_exported_bundle_is_read_from_its_own_bytes_as_unpack_reads_it(
    bundles: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*_: object) -> None:
        raise AssertionError("the canonical JSON written again")

    monkeypatch.setattr(whole, "_ids_written_once", never)
    for path in bundles:
        _same_as_unpack(path.read_bytes())


def test_a_bundle_written_otherwise_or_of_several_runs_is_read_as_unpack_reads_it(
    bundles: list[Path], tmp_path: Path
) -> None:
    document = _document(bundles[0])
    # Spaced and unsorted, as another JSON writer may write it: the same content.
    spaced = json.dumps(dict(reversed(document.items())), indent=1).encode()
    _same_as_unpack(gzip.compress(spaced))
    # A number past 64 bits (JSON has no limit): read by unpack itself.
    run = document["runs"][0]
    big = pack([with_id({**run, "provenance": {**run["provenance"], "n": 2**70}})], names="k")
    assert whole.read_whole(big, "x.wsr") is None
    (tmp_path / "big.wsr").write_bytes(big)
    bundle, records = read_bundle(tmp_path / "big.wsr", "x.wsr", "left out")
    assert bundle == unpack(big, "x.wsr") and records == tuple(bundle.records())
    # Several runs in one bundle, as `wirespeed export 1 2` writes them.
    runs = [_document(path)["runs"][0] for path in bundles[:3]]
    _same_as_unpack(pack(runs, names="pseudonyms"))


def _refused_alike(data: bytes) -> str:
    assert whole.read_whole(data, "x.wsr") is None
    with pytest.raises(BundleError) as unpacked:
        unpack(data, "x.wsr")
    return unpacked.value.message


def test_what_unpack_refuses_is_refused(bundles: list[Path], tmp_path: Path) -> None:
    source = bundles[0]
    document = _document(source)
    run = document["runs"][0]
    # A run's trial edited, its id kept and the document's digest made again.
    edited = json.loads(json.dumps(run))
    edited["trials"][0]["result"]["directions"][0]["received"][2] *= 2
    said = _refused_alike(pack([edited], names="pseudonyms"))
    assert "does not match its id" in said
    # The same, its id made again too: a whole bundle again.
    _same_as_unpack(pack([with_id(edited)], names="pseudonyms"))
    # The title edited, the digest left: in the file's bytes and in its order.
    body = {k: v for k, v in document.items() if k != "digest"}
    body["runs"] = [{**run, "title": "faster"}]
    changed = canonical({**body, "digest": document["digest"]}) + b"\n"
    assert "changed after it was written" in _refused_alike(gzip.compress(changed))
    # A digest that is not one.
    _refused_alike(gzip.compress(canonical({**body, "digest": 1}) + b"\n"))
    # Cut short, and two gzip members (unpack reads both: the second is not JSON here).
    whole_bytes = source.read_bytes()
    assert "cut short" in _refused_alike(whole_bytes[:-9])
    _refused_alike(whole_bytes + gzip.compress(b"{}"))
    # A newer format version, a run that is not an object.
    assert "needs a newer wirespeed" in _refused_alike(
        gzip.compress(canonical({**document, "version": 2}))
    )
    _refused_alike(gzip.compress(canonical({**body, "runs": [1], "digest": "x"})))
    # And the site names the file, through unpack.
    (tmp_path / "cut.wsr").write_bytes(whole_bytes[:-9])
    with pytest.raises(BundleError, match=r"cut\.wsr: not a whole bundle"):
        read_bundle(tmp_path / "cut.wsr", "cut.wsr", "it is left out of the site")
