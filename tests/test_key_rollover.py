"""TCP-AO key rollover without a session reset (routing.authentication.<tier>.key_id and .next, issue 30).

The fabric is tests.helpers' base fabric (rail switches p1-s1-rail0/1, spines p1-spine1/2, one tier: rail_spine).
Every test's rail_spine key: the current key in vault variable bgp_rail_key with KeyID 3, the next key in
bgp_rail_next with KeyID 4, sent from 2026-12-01T06:00:00+01:00, which is 05:00:00 UTC: every platform writes the
time in UTC.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_sessions import _block, _codes, _data, _files, _lines, _run, _verify

NEXT: dict[str, Any] = {"password": {"vault": "bgp_rail_next"}, "key_id": 4, "send_from": "2026-12-01T06:00:00+01:00"}
ROLLOVER: dict[str, Any] = {"authentication": {"rail_spine": {"password": {"vault": "bgp_rail_key"},
                                                              "algorithm": "tcp-ao", "key_id": 3, "next": NEXT}}}


def _routing(**auth: Any) -> dict[str, Any]:
    routing = copy.deepcopy(ROLLOVER)
    routing["authentication"]["rail_spine"].update(auth)
    return routing


# --------------------------------------------------------------------------- rendering


def test_eos_profile_holds_both_secrets_with_meeting_transmit_windows(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("eos", _routing(), mlag=False))
    # both secrets received forever; the current one (id 3) sent from the fixed past epoch until 05:00 UTC, the next
    # one (id 4) from 05:00 UTC on (railfabric/configs/eos/keys.py: KEY_EPOCH, KEY_END)
    for switch in ("p1-s1-rail0", "p1-spine1"):
        assert _block(files[f"configs/{switch}/running-config.cfg"], "management security") == [
            "management security", "   session shared-secret profile RF-RAIL-SPINE",
            "      secret 3 0 %%vault.bgp_rail_key%% receive-lifetime infinite transmit-lifetime 2020-01-01 00:00:00 "
            "2026-12-01 05:00:00",
            "      secret 4 0 %%vault.bgp_rail_next%% receive-lifetime infinite transmit-lifetime 2026-12-01 05:00:00 "
            "2099-12-31 23:59:59", "   !"]
    # the push must resolve both keys: both variables among the switch's vault_variables
    host_vars = yaml.safe_load(files["ansible/host_vars/p1-s1-rail0.yml"])
    assert {"bgp_rail_key", "bgp_rail_next"} <= set(host_vars["vault_variables"])


def test_eos_key_id_without_rollover_is_the_secret_id(tmp_path: Path) -> None:
    routing = _routing(next=None)
    del routing["authentication"]["rail_spine"]["next"]
    text = _files(tmp_path, _data("eos", routing, mlag=False))["configs/p1-s1-rail0/running-config.cfg"]
    assert _block(text, "management security")[2] == (
        "      secret 3 0 %%vault.bgp_rail_key%% receive-lifetime infinite transmit-lifetime infinite")


def test_junos_key_chain_holds_key_0_and_key_1(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("junos", _routing(), mlag=False))
    cfg = [ln.strip() for ln in _lines(files["configs/p1-s1-rail0/junos.conf"])]
    chain = cfg.index("key-chain RF-RAIL-SPINE {")
    # key 0: the current key (KeyID 3) since the fixed past start-time; key 1: the next key (KeyID 4) from 05:00 UTC,
    # written as Junos shows start-times (month and day without a leading zero)
    assert cfg[chain + 1:chain + 20] == [
        "key 0 {", 'secret "%%vault.bgp_rail_key%%";', 'start-time "2020-1-1.00:00:00 +0000";', "algorithm ao;",
        "ao-attribute {", "send-id 3;", "recv-id 3;", "}", "}",
        "key 1 {", 'secret "%%vault.bgp_rail_next%%";', 'start-time "2026-12-1.05:00:00 +0000";', "algorithm ao;",
        "ao-attribute {", "send-id 4;", "recv-id 4;", "}", "}", "}"]
    host_vars = yaml.safe_load(files["ansible/host_vars/p1-s1-rail0.yml"])
    assert {"bgp_rail_key", "bgp_rail_next"} <= set(host_vars["vault_variables"])


def test_mixed_tier_eos_spines_and_junos_rail_switches_agree_on_key_ids(tmp_path: Path) -> None:
    data = _data("junos", _routing(), mlag=False)
    data["pods"][0]["spines"]["platform"] = "eos"
    files = _files(tmp_path, data)
    eos = _block(files["configs/p1-spine1/running-config.cfg"], "management security")
    junos = [ln.strip() for ln in _lines(files["configs/p1-s1-rail0/junos.conf"])]
    # the EOS secret ids are the Junos keys' send-id/recv-id: 3 then 4, and the switch-over time is the same instant
    assert [ln.split()[1] for ln in eos if ln.strip().startswith("secret ")] == ["3", "4"]
    assert [ln for ln in junos if ln.startswith("send-id ")] == ["send-id 3;", "send-id 4;"]
    assert "2026-12-01 05:00:00" in eos[3] and 'start-time "2026-12-1.05:00:00 +0000";' in junos


# --------------------------------------------------------------------------- findings


def test_md5_cannot_roll_over(tmp_path: Path) -> None:
    # TCP MD5 holds one key: the next key is refused (AUTH002), and a key id is TCP-AO's (AUTH003)
    routing = _routing(algorithm="md5", key_id=0)
    assert _codes(tmp_path, "eos", routing) == [("AUTH002", "error")]
    routing = _routing(algorithm="md5")
    del routing["authentication"]["rail_spine"]["next"]
    assert _codes(tmp_path / "id", "eos", routing) == [("AUTH003", "error")]


def test_the_next_key_needs_its_own_key_id(tmp_path: Path) -> None:
    res = _run(tmp_path, _data("junos", _routing(key_id=4), mlag=False))
    (f,) = [f for f in res.findings if f.code == "AUTH004"]
    assert "next.key_id 4 is the current key's KeyID" in f.message and "e.g. 5" in (f.hint or "")
    assert f.location is not None and f.location.line > 0


def test_the_next_key_in_the_same_vault_variable_is_a_warning(tmp_path: Path) -> None:
    routing = _routing(next={**NEXT, "password": {"vault": "bgp_rail_key"}})
    assert _codes(tmp_path, "eos", routing) == [("AUTH005", "warning")]


@pytest.mark.parametrize("platform", ["sonic", "nvue", "nxos"])
def test_platforms_without_tcp_ao_refuse_the_tier_not_the_rollover(tmp_path: Path, platform: str) -> None:
    assert _codes(tmp_path, platform, _routing()) == [("PLAT046", "error")]


@pytest.mark.parametrize(("send_from", "why"), [("2026-12-01T06:00:00", "timezone"),
                                                 ("2026-12-01T06:00:00.5Z", "whole seconds")])
def test_send_from_needs_a_zone_and_whole_seconds(tmp_path: Path, send_from: str, why: str) -> None:
    res = _run(tmp_path, _data("eos", _routing(next={**NEXT, "send_from": send_from}), mlag=False))
    errors = [f for f in res.findings if f.severity.value == "error"]
    assert errors and all(f.code.startswith("SCH") for f in errors) and why in errors[0].message, errors


# --------------------------------------------------------------------------- verify


@pytest.mark.parametrize(("platform", "config", "next_line"), [
    ("eos", "running-config.cfg", "      secret 4 0 %%vault.bgp_rail_next%% receive-lifetime infinite "
                                  "transmit-lifetime 2026-12-01 05:00:00 2099-12-31 23:59:59\n"),
    ("junos", "junos.conf", None)])
def test_verify_compares_both_keys_of_a_rollover(tmp_path: Path, platform: str, config: str, next_line: str | None,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Both ends hold keys 3 and 4: verify is clean. With p1-spine1's next key removed, each of its 2 sessions (to
    rail0 and rail1) differs, said from both ends: 4 failures naming the variables and KeyIDs, never a key."""
    from railfabric.cli import main
    from railfabric.verify.run import reader
    from tests.helpers import dump, write_files

    write_files(tmp_path / "inv", {"fabric.yml": dump(_data(platform, _routing(), mlag=False))})
    out = tmp_path / "out"
    assert main(["render", str(tmp_path / "inv"), "--out", str(out), "-q"]) == 0
    dev = reader(platform)("p1-s1-rail0", out)
    both = "3=%%vault.bgp_rail_key%% 4=%%vault.bgp_rail_next%%"
    assert {n.key for n in dev.bgp.neighbors.values()} == {("tcp-ao", both)}
    assert _verify(out, capsys)["failures"] == []
    conf = out / "configs" / "p1-spine1" / config
    text = conf.read_text(encoding="utf-8")
    if next_line is None:  # Junos: key 1 of the chain, from `key 1 {` to the line closing it (9 lines)
        lines = text.splitlines(keepends=True)
        at = next(i for i, ln in enumerate(lines) if ln.strip() == "key 1 {")
        edited = "".join(lines[:at] + lines[at + 9:])
    else:
        edited = text.replace(next_line, "")
    assert edited != text
    conf.write_text(edited, encoding="utf-8")
    failures = _verify(out, capsys)["failures"]
    planned, left = "tcp-ao bgp_rail_key (KeyID 3), bgp_rail_next (KeyID 4)", "tcp-ao bgp_rail_key (KeyID 3)"
    assert sorted((f["device"], f["expected"].split(" as on ")[0], f["found"]) for f in failures) == sorted(
        [("p1-spine1", f"session key {planned}", left)] * 2
        + [(rail, f"session key {left}", planned) for rail in ("p1-s1-rail0", "p1-s1-rail1")])
