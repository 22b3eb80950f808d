"""Every generated frr.conf through FRR's own parsers, and the references those parsers let through.

- `vtysh -C -f`: FRR's full CLI grammar; any error line fails the test, not only the exit status.
- a throwaway bgpd (`bgpd -C -f`): runs every command against a real BGP instance, so a neighbor joining an undefined
  peer-group fails; bgpd -C exits 0 even then (and even when it cannot read the file), so its output is what counts.
- our own check on the text: peer-groups, route-maps and prefix-lists used are defined, every neighbor has a
  remote-as. vtysh -C and bgpd -C both accept an undefined route-map or prefix-list.
Each checker is also shown to catch the mistake it is there for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.lab.frrcheck import bgpd_check, have_bgpd, have_vtysh, output_problems, reference_problems, vtysh_check
from tests.helpers import EXAMPLE, ROOT

CONFS = sorted((ROOT / "generated" / "configs").glob("*/frr.conf"))
IDS = [p.parent.name for p in CONFS]
no_vtysh = pytest.mark.skipif(not have_vtysh(), reason="FRR (vtysh) is not installed: apt-get install frr")
no_bgpd = pytest.mark.skipif(not have_bgpd(), reason="FRR (/usr/lib/frr/bgpd) is not installed: apt-get install frr")

BROKEN_REFERENCES = """\
ip prefix-list PL-OK seq 10 permit 10.0.0.1/32
route-map RM-OK permit 10
 match ip address prefix-list PL-OK
exit
router bgp 65000
 neighbor SPINES peer-group
 neighbor SPINES remote-as 65001
 neighbor 10.0.0.1 peer-group SPINE
 neighbor LEAVES peer-group
 neighbor 10.0.0.3 peer-group LEAVES
 neighbor SUPER activate
 address-family ipv4 unicast
  redistribute connected route-map RM-NOPE
  neighbor SPINES route-map RM-OK in
 exit-address-family
exit
route-map RM-TWO permit 10
 match ip address prefix-list PL-NOPE
exit
"""


def test_every_sonic_device_has_a_generated_frr_conf() -> None:
    from railfabric.device import build_devices
    from railfabric.pipeline import run

    r = run(EXAMPLE)
    devices = build_devices(r.inventory, r.topology, r.plan)  # type: ignore[arg-type]
    assert sorted(IDS) == sorted(n for n, d in devices.items() if d.platform == "sonic")
    assert len(CONFS) == 34 - 4  # every switch but pod 1 segment 2's four EOS rail switches


def test_the_lab_loads_exactly_the_generated_files() -> None:
    """`fabric lab` renders in memory; that is byte for byte what generated/configs/<host>/frr.conf holds."""
    from railfabric.lab.spec import build_spec
    from railfabric.pipeline import run

    spec = build_spec(run(EXAMPLE))
    assert len(spec.nodes) == len(CONFS)
    for path in CONFS:
        assert spec.nodes[path.parent.name].frr_conf == path.read_text(encoding="utf-8"), path


@no_vtysh
@pytest.mark.parametrize("path", CONFS, ids=IDS)
def test_vtysh_accepts(path: Path) -> None:
    assert vtysh_check(path) == []


@no_bgpd
@pytest.mark.parametrize("path", CONFS, ids=IDS)
def test_throwaway_bgpd_accepts(path: Path) -> None:
    assert bgpd_check(path) == []


@pytest.mark.parametrize("path", CONFS, ids=IDS)
def test_references_are_defined(path: Path) -> None:
    assert reference_problems(path.read_text(encoding="utf-8")) == []


def test_output_counts_not_only_the_exit_status() -> None:
    assert output_problems(0, "") == []
    assert output_problems(0, "line 1: % Unknown command[4]: router bgp 65000 foo\n") != []
    assert output_problems(0, "BGP: [EC 100663304] Command returned Warning Config Failed on config line 3") != []
    assert output_problems(0, "vty_read_config: can't open configuration file [x]") != []
    assert output_problems(2, "") == ["exit status 2"]
    # the one command only vtysh knows is not an error when a daemon reads the integrated file alone
    assert output_problems(0, "No such command on config line 5: service integrated-vtysh-config") == []


def test_reference_check_catches_undefined_names() -> None:
    problems = "\n".join(reference_problems(BROKEN_REFERENCES))
    assert "peer-group SPINE, which is not defined" in problems
    assert "neighbor 10.0.0.3 has no remote-as" in problems
    assert "undefined peer-group SUPER" in problems
    assert "route-map RM-NOPE is used but not defined" in problems
    assert "prefix-list PL-NOPE is used but not defined" in problems
    assert "RM-OK" not in problems and "PL-OK" not in problems


@no_vtysh
def test_vtysh_catches_a_bad_router_bgp_line_but_not_undefined_names(tmp_path: Path) -> None:
    bad = tmp_path / "bad.conf"
    bad.write_text("router bgp 99999999999\n neighbor 10.0.0.1 remote-as 1\nexit\n")
    assert any("Unknown command" in p for p in vtysh_check(bad))
    # why the other two checks exist: the parser alone accepts every undefined name above
    names = tmp_path / "names.conf"
    names.write_text(BROKEN_REFERENCES)
    assert vtysh_check(names) == []


@no_bgpd
def test_throwaway_bgpd_catches_undefined_peer_group(tmp_path: Path) -> None:
    names = tmp_path / "names.conf"
    names.write_text(BROKEN_REFERENCES)
    problems = "\n".join(bgpd_check(names))
    assert "neighbor 10.0.0.1 peer-group SPINE" in problems
    assert "neighbor SUPER activate" in problems
    assert bgpd_check(tmp_path / "missing.conf") != []  # exit 0, but it could not read the file
