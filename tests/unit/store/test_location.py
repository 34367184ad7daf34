"""Whose default store a command uses: the invoking user's under sudo, as sudo names them."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from wirespeed.store import location

# A user every Debian system has, who is not root.
NOBODY = pwd.getpwnam("nobody")


def as_root_under_sudo(monkeypatch: pytest.MonkeyPatch, **variables: str) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    for name in ("SUDO_USER", "SUDO_UID", "SUDO_GID", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)


def test_sudo_names_the_user_whose_store_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    as_root_under_sudo(
        monkeypatch, SUDO_USER="nobody", SUDO_UID=str(NOBODY.pw_uid), SUDO_GID="4242"
    )
    owner = location.invoking_user()
    assert owner == location.Owner("nobody", NOBODY.pw_uid, 4242, Path(NOBODY.pw_dir))
    assert location.default_db_path() == (
        Path(NOBODY.pw_dir) / ".local" / "share" / "wirespeed" / "wirespeed.db"
    )


def test_sudo_e_keeps_the_users_xdg_data_home(monkeypatch: pytest.MonkeyPatch) -> None:
    as_root_under_sudo(monkeypatch, SUDO_USER="nobody", XDG_DATA_HOME="/srv/nobody-data")
    assert location.default_db_path() == Path("/srv/nobody-data/wirespeed/wirespeed.db")


@pytest.mark.parametrize(
    "variables",
    [
        {},  # root itself, no sudo
        {"SUDO_USER": "root", "SUDO_UID": "0"},  # root's own sudo
        {"SUDO_USER": "no-such-user-here"},
        {"SUDO_USER": "nobody", "SUDO_UID": "12345678"},  # variables that disagree
    ],
)
def test_otherwise_the_store_is_this_processs(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str]
) -> None:
    as_root_under_sudo(monkeypatch, **variables)
    assert location.invoking_user() is None


def test_a_process_that_is_not_root_keeps_its_own_store(monkeypatch: pytest.MonkeyPatch) -> None:
    as_root_under_sudo(monkeypatch, SUDO_USER="nobody")
    monkeypatch.setattr(os, "geteuid", lambda: NOBODY.pw_uid)  # sudo -u nobody
    assert location.invoking_user() is None


def test_help_shows_ones_own_default_store_under_home_as_tilde(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("SUDO_USER", "SUDO_UID", "SUDO_GID", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert location.shown_default_db_path() == "~/.local/share/wirespeed/wirespeed.db"


def test_help_shows_the_invoking_users_store_in_full_under_sudo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    as_root_under_sudo(monkeypatch, SUDO_USER="nobody", XDG_DATA_HOME="/srv/nobody-data")
    assert location.shown_default_db_path() == "/srv/nobody-data/wirespeed/wirespeed.db"
