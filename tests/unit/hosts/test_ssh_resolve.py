"""Where an SSH target leads after ~/.ssh/config (resolve), and how the poll script's
output is read back (parse_poll)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from wirespeed.hosts.ssh import LOST, parse_poll
from wirespeed.hosts.ssh_channel import quote_argv
from wirespeed.hosts.ssh_connection import fingerprint
from wirespeed.hosts.ssh_destination import SshError, SshSettings, resolve
from wirespeed.hosts.ssh_target import SshTarget

CONFIG = """\
Host dut
  HostName 192.0.2.7
  User admin
  Port 2222
  IdentityFile ~/keys/dut_ed25519
  UserKnownHostsFile ~/kh/one ~/kh/two
  StrictHostKeyChecking accept-new

Host strict
  HostName 192.0.2.8
  StrictHostKeyChecking yes

Host jumped
  HostName 192.0.2.9
  ProxyCommand ssh -W %h:%p jump.example

Host *
  User everyone
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of our own: ~ and the login name are the test's, not this machine's."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LOGNAME", "tester")
    return tmp_path


def _config(home: Path, text: str = CONFIG) -> Path:
    path = home / "ssh_config"
    path.write_text(text)
    return path


def test_an_alias_takes_every_option_of_the_config(home: Path) -> None:
    destination = resolve(SshTarget("dut"), SshSettings(config_path=_config(home)))
    assert destination.alias == "dut"
    assert destination.hostname == "192.0.2.7"
    assert destination.user == "admin"
    assert destination.port == 2222
    assert destination.identities == (home / "keys" / "dut_ed25519",)
    assert destination.known_hosts == (home / "kh" / "one", home / "kh" / "two")
    assert destination.accept_new is True
    assert destination.proxy_command is None
    assert str(destination) == "admin@192.0.2.7:2222"
    assert destination.known_hosts_name == "[192.0.2.7]:2222"


def test_an_explicit_user_and_port_win_over_the_config(home: Path) -> None:
    destination = resolve(SshTarget.parse("root@dut:2200"), SshSettings(config_path=_config(home)))
    assert (destination.hostname, destination.user, destination.port) == ("192.0.2.7", "root", 2200)
    # The rest still comes from the alias.
    assert destination.identities == (home / "keys" / "dut_ed25519",)


def test_an_explicit_port_22_wins_over_the_config_s_port_too(home: Path) -> None:
    # `root@dut:22` says 22: the alias's Port 2222 must not quietly replace it.
    destination = resolve(SshTarget.parse("root@dut:22"), SshSettings(config_path=_config(home)))
    assert destination.port == 22
    assert resolve(SshTarget.parse("root@dut"), SshSettings(config_path=_config(home))).port == (
        2222
    )
    assert str(SshTarget.parse("root@dut")) == "root@dut"
    assert str(SshTarget.parse("root@dut:22")) == "root@dut:22"


def test_a_config_port_that_is_not_a_number_is_a_clear_error(home: Path) -> None:
    config = _config(home, "Host dut\n  Port twenty-two\n")
    with pytest.raises(SshError, match="Port 'twenty-two' is not a number"):
        resolve(SshTarget("dut"), SshSettings(config_path=config))


def test_the_config_fills_only_what_the_target_leaves_open(home: Path) -> None:
    destination = resolve(SshTarget.parse("strict"), SshSettings(config_path=_config(home)))
    assert (destination.hostname, destination.user, destination.port) == (
        "192.0.2.8",
        "everyone",  # from `Host *`
        22,
    )
    assert destination.accept_new is False  # StrictHostKeyChecking yes
    assert destination.known_hosts_name == "192.0.2.8"  # port 22: the bare name


def test_without_a_config_the_defaults_are_openssh_s(home: Path) -> None:
    settings = SshSettings(config_path=home / "no-such-config")
    destination = resolve(SshTarget("192.0.2.1"), settings)
    assert destination.hostname == "192.0.2.1"
    assert destination.port == 22
    assert destination.user == "tester"  # the login name
    ssh = home / ".ssh"
    assert destination.identities == (ssh / "id_ed25519", ssh / "id_ecdsa", ssh / "id_rsa")
    assert destination.known_hosts == (ssh / "known_hosts",)
    assert destination.accept_new is False
    assert destination.proxy_command is None


def test_the_user_s_own_config_is_read_when_none_is_named(home: Path) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "config").write_text(CONFIG)
    destination = resolve(SshTarget("dut"), SshSettings())
    assert (destination.hostname, destination.user, destination.port) == (
        "192.0.2.7",
        "admin",
        2222,
    )


def test_an_unmatched_host_gets_the_wildcard_and_the_defaults(home: Path) -> None:
    destination = resolve(SshTarget("elsewhere.example"), SshSettings(config_path=_config(home)))
    assert destination.hostname == "elsewhere.example"
    assert destination.user == "everyone"
    assert destination.port == 22
    assert destination.known_hosts == (home / ".ssh" / "known_hosts",)


def test_settings_add_identities_first_and_replace_known_hosts(home: Path) -> None:
    settings = SshSettings(
        config_path=_config(home),
        identities=(home / "mine",),
        known_hosts=(home / "lab_known_hosts",),
    )
    destination = resolve(SshTarget("dut"), settings)
    assert destination.identities == (home / "mine", home / "keys" / "dut_ed25519")
    assert destination.known_hosts == (home / "lab_known_hosts",)


def test_accept_new_in_the_settings_is_an_opt_in_for_any_host(home: Path) -> None:
    config = _config(home)
    assert resolve(SshTarget("strict"), SshSettings(config_path=config)).accept_new is False
    settings = SshSettings(config_path=config, accept_new=True)
    assert resolve(SshTarget("strict"), settings).accept_new is True


def test_a_proxy_command_gets_the_host_and_port(home: Path) -> None:
    destination = resolve(SshTarget("jumped"), SshSettings(config_path=_config(home)))
    assert destination.proxy_command == "ssh -W 192.0.2.9:22 jump.example"


def test_a_proxy_command_gets_the_target_s_own_port_and_user(home: Path) -> None:
    # paramiko fills %p and %r from the config alone: the plan's port and user must win.
    config = _config(
        home,
        "Host dut\n  HostName 192.0.2.7\n  Port 2222\n  User admin\n"
        "  ProxyCommand nc -X connect -x proxy:3128 %h %p # %r %n 100%%\n",
    )
    settings = SshSettings(config_path=config)
    explicit = resolve(SshTarget.parse("root@dut:2200"), settings)
    assert explicit.proxy_command == "nc -X connect -x proxy:3128 192.0.2.7 2200 # root dut 100%"
    from_config = resolve(SshTarget.parse("dut"), settings)
    assert from_config.proxy_command == (
        "nc -X connect -x proxy:3128 192.0.2.7 2222 # admin dut 100%"
    )
    port_22 = resolve(SshTarget.parse("dut:22"), settings)
    assert port_22.proxy_command is not None and " 192.0.2.7 22 #" in port_22.proxy_command


def test_a_proxy_command_with_an_unknown_token_is_a_clear_error(home: Path) -> None:
    config = _config(home, "Host dut\n  ProxyCommand ssh -W %h:%q jump\n")
    with pytest.raises(SshError, match="%q is not a token"):
        resolve(SshTarget("dut"), SshSettings(config_path=config))


JUMPS = """\
Host behind
  HostName 10.0.0.5
  ProxyJump admin@bastion:2022

Host chained
  HostName 10.0.0.6
  ProxyJump ssh://first,second:2200

Host first
  HostName 192.0.2.1
  User one

Host second
  HostName 198.51.100.2
  ProxyJump elsewhere

Host direct
  ProxyJump none
  ProxyCommand never-used %h

Host commanded
  ProxyCommand ssh -W %h:%p gateway
  ProxyJump never-used

Host bastion
  HostName 192.0.2.254
  User jumper
  ProxyJump none

Host loop
  ProxyJump loop-b
Host loop-b
  ProxyJump loop

Host bad
  ProxyJump root@;reboot

Host *
  ProxyJump bastion
"""


def test_proxy_jump_reaches_the_target_through_the_jump_host(home: Path) -> None:
    settings = SshSettings(config_path=_config(home, JUMPS))
    destination = resolve(SshTarget.parse("root@behind:2200"), settings)
    assert (destination.hostname, destination.port, destination.user) == ("10.0.0.5", 2200, "root")
    assert destination.proxy_command is None
    jump = destination.jump
    assert jump is not None
    # The jump host's own entry applies, and what ProxyJump writes out wins over it.
    assert (jump.alias, jump.hostname, jump.port, jump.user) == (
        "bastion",
        "192.0.2.254",
        2022,
        "admin",
    )
    assert jump.jump is None  # its own `ProxyJump none`
    assert jump.known_hosts == destination.known_hosts


def test_a_proxy_jump_chain_goes_through_each_host_first_one_first(home: Path) -> None:
    destination = resolve(SshTarget("chained"), SshSettings(config_path=_config(home, JUMPS)))
    second = destination.jump
    assert second is not None
    # `-J first,second`: the target through second, second through first, whatever
    # ProxyJump second's own entry names.
    assert (second.alias, second.hostname, second.port) == ("second", "198.51.100.2", 2200)
    first = second.jump
    assert first is not None
    assert (first.alias, first.hostname, first.user) == ("first", "192.0.2.1", "one")
    # The first hop's own config applies to it, as OpenSSH's `ssh first` would.
    assert first.jump is not None and first.jump.alias == "bastion"
    assert first.jump.jump is None


def test_proxy_jump_none_and_the_first_of_jump_and_command_win(home: Path) -> None:
    settings = SshSettings(config_path=_config(home, JUMPS))
    direct = resolve(SshTarget("direct"), settings)
    assert (direct.jump, direct.proxy_command) == (None, None)
    commanded = resolve(SshTarget("commanded"), settings)
    assert commanded.jump is None
    assert commanded.proxy_command == "ssh -W commanded:22 gateway"
    # Any other host goes through `Host *`'s bastion, and bastion itself directly.
    other = resolve(SshTarget("192.0.2.50"), settings)
    assert other.jump is not None and other.jump.hostname == "192.0.2.254"


def test_a_proxy_jump_loop_or_a_bad_jump_host_is_a_clear_error(home: Path) -> None:
    config = _config(home, JUMPS)
    with pytest.raises(SshError, match="more than 8 ProxyJump hosts") as raised:
        resolve(SshTarget("loop"), SshSettings(config_path=config))
    assert raised.value.hint is not None and "ProxyJump none" in raised.value.hint
    with pytest.raises(SshError, match=r"ProxyJump of bad: .*not an SSH target"):
        resolve(SshTarget("bad"), SshSettings(config_path=config))


def test_an_unreadable_config_is_an_ssh_error_naming_it(home: Path) -> None:
    config = _config(home, "Host dut\n  Port\n")
    with pytest.raises(SshError) as raised:
        resolve(SshTarget("dut"), SshSettings(config_path=config))
    assert str(config) in raised.value.message


def test_an_ipv6_destination_is_bracketed(home: Path) -> None:
    settings = SshSettings(config_path=home / "none")
    destination = resolve(SshTarget.parse("root@[fe80::1]:2222"), settings)
    assert str(destination) == "root@[fe80::1]:2222"
    assert destination.known_hosts_name == "[fe80::1]:2222"
    assert resolve(SshTarget.parse("root@[fe80::1]"), settings).known_hosts_name == "fe80::1"


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")
@pytest.mark.process
def test_the_fingerprint_is_the_one_openssh_prints(tmp_path: Path) -> None:
    import paramiko

    key_path = tmp_path / "key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key_path)],
        check=True,
        timeout=30,
    )
    printed = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(key_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.split()[1]
    assert fingerprint(paramiko.PKey.from_path(str(key_path))) == printed


@pytest.mark.process
def test_quote_argv_makes_one_word_of_each_argument() -> None:
    argv = ["printf", "%s\\n", "a b", "$(x)", "it's", ""]
    line = quote_argv(argv)
    done = subprocess.run(
        ["sh", "-c", line], capture_output=True, text=True, check=True, timeout=10
    )
    assert done.stdout == "a b\n$(x)\nit's\n\n"
    with pytest.raises(ValueError):
        quote_argv([])


# -- parse_poll ------------------------------------------------------------------------

B = b"@@wirespeed-00112233aabbccdd"


def _block(number: int, status: str, out: bytes, err: bytes) -> bytes:
    """What the poll script prints for one program."""
    return b"@@p %d %s\n%s\n%s\n%s\n%s\n" % (number, status.encode(), out, B, err, B)


def test_parse_poll_reads_each_program_s_block() -> None:
    data = _block(1, "-", b"partial line", b"") + _block(2, "0", b"a\nb\n", b"warn\n")
    assert parse_poll(data, B) == [(1, None, b"partial line", b""), (2, 0, b"a\nb\n", b"warn\n")]


def test_parse_poll_keeps_output_exactly_whatever_it_holds() -> None:
    tricky = [
        b"",
        b"\n",
        b"\n\n",
        b"no newline",
        b"ends with newline\n",
        b"\xff\xfe\x00 binary \x00",
        "split é"[:-1].encode() + "é".encode()[:1],  # a UTF-8 character cut in half
        b"@@p 7 0\nlooks like a header\n",
        B + b" not on a line of its own",
        b"\n" + B[:-1],  # almost this poll's boundary (it is random: never all of it)
        b"@@wirespeed-ffffffffffffffff\n",  # another poll's boundary
    ]
    for out in tricky:
        for err in (b"", out):
            assert parse_poll(_block(3, "-", out, err), B) == [(3, None, out, err)], out


def test_parse_poll_turns_shell_statuses_into_exit_statuses() -> None:
    cases = {
        "-": None,
        "0": 0,
        "1": 1,
        "127": 127,
        "128": 128,
        "129": -1,  # 128 + N: killed by signal N, as subprocess says
        "137": -9,
        "143": -15,
        "192": -64,
        "193": 193,
        "255": 255,
        "gone": LOST,  # the program's directory vanished
        "garbage": LOST,
    }
    for text, expected in cases.items():
        assert parse_poll(_block(1, text, b"", b""), B) == [(1, expected, b"", b"")], text


def test_parse_poll_of_a_header_without_a_status_reads_as_running() -> None:
    assert parse_poll(b"@@p 4\nx\n" + B + b"\n\n" + B + b"\n", B) == [(4, None, b"x", b"")]


def test_parse_poll_of_nothing_or_of_noise_is_nothing() -> None:
    assert parse_poll(b"", B) == []
    assert parse_poll(b"sh: can't create /tmp/wirespeed/x/lease\n", B) == []
    assert parse_poll(b"@@p x 0\n\n" + B + b"\n\n" + B + b"\n", B) == []


def test_parse_poll_drops_a_block_that_was_cut_short() -> None:
    # The poll script killed mid-way: the complete blocks count, the cut one does not,
    # and nothing of a half-printed boundary ever passes for output.
    whole = _block(1, "-", b"one", b"") + _block(2, "-", b"two\n", b"err")
    complete = [(1, None, b"one", b"")]
    for cut in range(len(_block(1, "-", b"one", b"")), len(whole)):
        assert parse_poll(whole[:cut], B) == complete, whole[:cut]
    assert parse_poll(whole, B) == [*complete, (2, None, b"two\n", b"err")]
