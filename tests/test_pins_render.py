"""Pins rendered on every platform: the fabric of tests/test_all_platforms.py (one 2-rail segment per platform, in the
registry's order, spine 1 on SONiC and spine 2 on EOS) rendered without and with pins, every generated file compared.

By hand (railfabric/plan/allocate.py; limits of tests/helpers.py: super_spines 8, pods 4, spines_per_pod 8,
segments_per_pod = the number of platforms, rail_switches_per_segment 8): rail switch p1-s<i>-rail<k> has rail tier
slot (i-1)·8 + k, so loopback 10.0.0.(40 + (i-1)·8 + k) (rail tier base 8 + 4·8 = 40) and ASN 4200100000 +
(i-1)·8 + k; its router-id is its loopback address.

Pinned: p1-s<i>-rail0 gets asn 4200199990 + i and loopback 10.0.1.i; p1-s<i>-rail1 gets router_id 10.255.0.i. So:
- every file of the unpinned render with, for each i, rail0's old ASN and loopback replaced by the pinned ones equals
  the pinned render's file as a multiset of lines (lines may move: the ip plan is sorted by address; a trailing comma
  is ignored, JSON lists end without one), except rail1's router-id lines;
- rail1's files differ in exactly the router-id lines (and host_vars gains router_id for `fabric verify`);
- the parse-back verifier keeps every promise on the pinned render.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.platforms import PLATFORMS
from tests.helpers import dump, write_files
from tests.test_all_platforms import every_platform_inventory

NAMES = list(PLATFORMS)
SKIP = ("manifest.json",)  # digests of the files: they differ wherever a file does


def _old(i: int, k: int) -> tuple[int, str]:
    slot = (i - 1) * 8 + k
    return 4200100000 + slot, f"10.0.0.{40 + slot}"


@pytest.fixture(scope="module")
def renders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("pins-render")
    inv = every_platform_inventory()
    write_files(base / "plain", {"fabric.yml": dump(inv)})
    for i in range(1, len(NAMES) + 1):
        inv["devices"][f"p1-s{i}-rail0"] = {"asn": 4200199990 + i, "loopback": f"10.0.1.{i}"}
        inv["devices"][f"p1-s{i}-rail1"] = {"router_id": f"10.255.0.{i}"}
    write_files(base / "pinned", {"fabric.yml": dump(inv)})
    for name in ("plain", "pinned"):
        assert main(["render", str(base / name), "--out", str(base / f"out-{name}")]) == 0
    return base / "out-plain", base / "out-pinned"


def _sub(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\d.]){re.escape(old)}(?![\d])", new, text)


def _lines(text: str) -> Counter[str]:
    return Counter(line.rstrip(",") for line in text.splitlines())


def _is_router_id_line(line: str) -> bool:
    return bool(re.search(r"router[-_]id", line))


def test_only_the_pinned_values_change(renders: tuple[Path, Path]) -> None:
    plain, pinned = renders
    files = sorted(p.relative_to(plain) for p in plain.rglob("*") if p.is_file() and p.name not in SKIP)
    assert files == sorted(p.relative_to(pinned) for p in pinned.rglob("*") if p.is_file() and p.name not in SKIP)
    changed = set()
    for rel in files:
        before, after = (plain / rel).read_text(encoding="utf-8"), (pinned / rel).read_text(encoding="utf-8")
        expected = before
        for i in range(1, len(NAMES) + 1):
            asn, loopback = _old(i, 0)
            expected = _sub(_sub(expected, str(asn), str(4200199990 + i)), loopback, f"10.0.1.{i}")
        if expected != before or before != after:
            changed.add(rel.as_posix())
        want, got = _lines(expected), _lines(after)
        # what differs beyond the substitution: only rail1's router-id (and its host_vars line saying so)
        extra_got = [line for line in (got - want) if not _is_router_id_line(line)]
        extra_want = [line for line in (want - got) if not _is_router_id_line(line)]
        assert (extra_got, extra_want) == ([], []), rel
    # the pinned switches' own files, their spines' (remote-as, routes to the loopback), the fabric-wide tables
    for i in range(1, len(NAMES) + 1):
        assert f"ansible/host_vars/p1-s{i}-rail0.yml" in changed
        assert f"ansible/host_vars/p1-s{i}-rail1.yml" in changed
    assert {"ipplan.csv", "expected/bgp_sessions.csv", "expected/state/p1-spine1.json",
            "expected/state/p1-spine2.json"} <= changed


def test_router_id_pin_changes_only_the_router_id_lines(renders: tuple[Path, Path]) -> None:
    plain, pinned = renders
    for i in range(1, len(NAMES) + 1):
        _asn, loopback = _old(i, 1)
        for before in sorted((plain / "configs" / f"p1-s{i}-rail1").iterdir()):
            after = pinned / before.relative_to(plain)
            a, b = _lines(before.read_text(encoding="utf-8")), _lines(after.read_text(encoding="utf-8"))
            removed, added = sorted((a - b).elements()), sorted((b - a).elements())
            assert [_sub(line, loopback, f"10.255.0.{i}") for line in removed] == added, before
            assert all(_is_router_id_line(line) for line in removed), before
        hv = (pinned / "ansible" / "host_vars" / f"p1-s{i}-rail1.yml").read_text(encoding="utf-8")
        assert f"router_id: 10.255.0.{i}\n" in hv


# Each platform's own forms (the templates under templates/<platform>/ and railfabric/configs/nvue/startup.py):
# the pinned rail switch's BGP ASN and router-id and its loopback address.
FORMS = {
    "sonic": ("frr.conf", "router bgp {asn}\n bgp router-id {lo}\n", "ip prefix-list PL-LOOPBACK-RAILS seq 10 "
              "permit {lo}/32"),
    "eos": ("running-config.cfg", "router bgp {asn}\n   router-id {lo}\n", "   ip address {lo}/32"),
    "nxos": ("running-config.cfg", "router bgp {asn}\n  router-id {lo}\n", "  ip address {lo}/32"),
    "junos": ("junos.conf", "    router-id {lo};\n    autonomous-system {asn};\n", "address {lo}/32;"),
    "nvue": ("startup.yaml", "autonomous-system: {asn}\n", "router-id: {lo}\n"),
}


@pytest.mark.parametrize("platform", NAMES)
def test_the_pinned_switch_says_its_pins(renders: tuple[Path, Path], platform: str) -> None:
    _plain, pinned = renders
    i = NAMES.index(platform) + 1
    file, bgp, loopback = FORMS[platform]
    text = (pinned / "configs" / f"p1-s{i}-rail0" / file).read_text(encoding="utf-8")
    values = {"asn": 4200199990 + i, "lo": f"10.0.1.{i}"}
    assert bgp.format(**values) in text
    assert loopback.format(**values) in text
    old_asn, old_lo = _old(i, 0)
    assert str(old_asn) not in text and not re.search(rf"{re.escape(old_lo)}(?!\d)", text)


def test_the_spines_peer_with_the_pinned_asn(renders: tuple[Path, Path]) -> None:
    # spine 1 is SONiC (frr.conf), spine 2 EOS: each has one session to every rail switch; rail0 of segment i now
    # has remote-as 4200199990 + i and the old ASN appears nowhere
    _plain, pinned = renders
    for spine, file in (("p1-spine1", "frr.conf"), ("p1-spine2", "running-config.cfg")):
        text = (pinned / "configs" / spine / file).read_text(encoding="utf-8")
        for i in range(1, len(NAMES) + 1):
            assert len(re.findall(rf"^\s*neighbor \S+ remote-as {4200199990 + i}$", text, re.M)) == 1, (spine, i)
            assert str(_old(i, 0)[0]) not in text
        sessions = (pinned / "expected" / "bgp_sessions.csv").read_text(encoding="utf-8")
        assert all(f",{4200199990 + i}," in sessions for i in range(1, len(NAMES) + 1))


def test_verify_keeps_every_promise_on_the_pinned_render(renders: tuple[Path, Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    _plain, pinned = renders
    assert main(["verify", str(pinned), "--no-frr"]) == 0
    assert "all promises kept" in capsys.readouterr().out


def test_a_spine_with_its_own_asn_renders_per_neighbour_remote_as(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # PIN007 is a warning: p1-spine1 pinned to 4200001077 while p1-spine2 keeps 4200001001 (spine_base + pod 1). The
    # rail switches' SPINES group then has two remote ASNs: each neighbour gets its own (NVUE remote-as, Junos
    # peer-as, EOS/NX-OS/FRR neighbor ... remote-as), and the parse-back verifier finds every session consistent
    inv = every_platform_inventory()
    inv["devices"]["p1-spine1"]["asn"] = 4200001077
    write_files(tmp_path / "inv", {"fabric.yml": dump(inv)})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out")]) == 0
    assert "warning PIN007" in capsys.readouterr().out
    for i, platform in enumerate(NAMES, 1):
        text = (tmp_path / "out" / "configs" / f"p1-s{i}-rail0" / FORMS[platform][0]).read_text(encoding="utf-8")
        assert len(re.findall(r"\b4200001077\b", text)) == 1 and len(re.findall(r"\b4200001001\b", text)) == 1, \
            platform
    assert main(["verify", str(tmp_path / "out"), "--no-frr"]) == 0
