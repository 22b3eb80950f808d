"""One fabric on every registered platform at once: mixed links, per-link MTU, one QoS policy in each platform's
syntax, all rendered and read back by the parse-back verifier.

The fabric grows with the registry (railfabric/platforms/): one pod with spine 1 on SONiC and spine 2 on EOS (a
`devices:` override), and one 2-rail segment of 4 hosts per platform, in the registry's order. Every rail switch
therefore has one uplink to a SONiC spine and one to an EOS spine, so every platform meets both others' MTU ceilings
and QoS syntax across a cable.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from railfabric.cli import main
from railfabric.core.finding import Severity
from railfabric.device import build_devices
from railfabric.platforms import PLATFORMS
from railfabric.topology import LinkRole
from tests.helpers import base_inventory, dump, run_data, with_system, write_files

NAMES = list(PLATFORMS)


def every_platform_inventory() -> dict[str, Any]:
    inv = with_system(base_inventory())  # the push account: platforms that replace the whole config need it
    inv["limits"]["segments_per_pod"] = len(NAMES)
    pod = inv["pods"][0]
    pod["spines"]["ports_per_segment"] = 4  # 2 rail switches × 1 link, room to spare
    template = pod["segments"][0]
    pod["segments"] = []
    for i, name in enumerate(NAMES, 1):
        seg = copy.deepcopy(template)
        seg.update({"id": i, "platform": name})
        pod["segments"].append(seg)
    inv["devices"] = {"p1-spine1": {"platform": "sonic"}, "p1-spine2": {"platform": "eos"}}
    return inv


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("every-platform")
    write_files(base / "inv", {"fabric.yml": dump(every_platform_inventory())})
    assert main(["render", str(base / "inv"), "--out", str(base / "out")]) == 0
    return base


def test_it_validates_without_errors(tmp_path: Path) -> None:
    result = run_data(tmp_path, every_platform_inventory())
    assert [f.line() for f in result.findings if f.severity is Severity.ERROR] == []


def test_every_switch_gets_its_platforms_files(rendered: Path) -> None:
    configs = rendered / "out" / "configs"
    for i, name in enumerate(NAMES, 1):
        for rail in (0, 1):
            files = sorted(p.name for p in (configs / f"p1-s{i}-rail{rail}").iterdir())
            assert files == sorted(PLATFORMS[name].config_files()), (name, rail)
    assert sorted(p.name for p in (configs / "p1-spine1").iterdir()) == ["config_db.json", "frr.conf"]
    assert [p.name for p in (configs / "p1-spine2").iterdir()] == ["running-config.cfg"]


def test_per_link_mtu_is_the_smaller_ceiling(tmp_path: Path) -> None:
    """A link runs at the larger MTU both ends accept: min(fabric 9216, both platforms' ceilings). Hand-derived for
    the two stock platforms: SONiC spine ↔ SONiC rail 9216, anything ↔ the EOS spine 9214 (EOS's ceiling)."""
    result = run_data(tmp_path, every_platform_inventory())
    assert result.inventory and result.topology and result.plan
    devices = build_devices(result.inventory, result.topology, result.plan)
    seen = 0
    for link in result.topology.links:
        if link.role is not LinkRole.FABRIC:
            continue
        a, z = devices[link.a.device], devices[link.z.device]
        want = min(9216, PLATFORMS[a.platform].max_mtu, PLATFORMS[z.platform].max_mtu)
        ia = next(i for i in a.interfaces if i.peer == z.hostname)
        iz = next(i for i in z.interfaces if i.peer == a.hostname)
        assert ia.mtu == iz.mtu == want, (link.a.device, link.z.device)
        seen += 1
    assert seen == 2 * 2 * len(NAMES)  # 2 rail switches per segment, each cabled to both spines
    s1 = devices["p1-s1-rail0"]  # segment 1 is the first registered platform
    assert {i.peer: i.mtu for i in s1.interfaces if i.role == "fabric"} == {
        "p1-spine1": min(9216, PLATFORMS[NAMES[0]].max_mtu), "p1-spine2": min(9214, PLATFORMS[NAMES[0]].max_mtu)}


def test_the_parse_back_verifier_reads_every_platform(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each platform's reader reads its files; both ends of every mixed link agree on speed, MTU and QoS (one
    policy, five syntaxes), every BGP session has its reverse with crossing ASNs."""
    code = main(["verify", str(rendered / "out"), "--no-frr", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert [f for f in report["failures"]] == [] and code == 0
    counts = report["counts"]
    want = {name: 2 for name in NAMES}
    want["sonic"] += 1  # spine 1
    want["eos"] += 1  # spine 2
    assert {name: counts[name] for name in NAMES} == want
    assert counts["devices"] == 2 * len(NAMES) + 2
    assert counts["links"] == 2 * 2 * len(NAMES)
    assert counts["host_ports"] == 4 * 2 * len(NAMES)  # 4 hosts × 2 NICs per segment, one port each
    # each rail switch peers with both spines; each spine with every rail switch: 2 sessions per link, both ends
    assert counts["bgp_neighbors"] == 2 * counts["links"]


def test_one_qos_policy_reads_back_the_same_on_every_platform(rendered: Path) -> None:
    """The default policy (railfabric/inventory/intent.py: RoCE DSCP 26 on priority 3, CNP DSCP 48 on priority 6, ECN
    on) read back from each platform's own syntax by its reader: on the uplink of every rail switch, DSCP is trusted, 26
    → TC 3 and 48 → TC 6, PFC pauses priority 3 only, the CNP queue 6 is strict, the RoCE queue 3 marks ECN."""
    from railfabric.verify.run import reader

    for i, name in enumerate(NAMES, 1):
        dev = reader(name)(f"p1-s{i}-rail0", rendered / "out")
        uplinks = [intf for intf in dev.interfaces.values() if intf.qos is not None and intf.mode == "routed"]
        assert len(uplinks) == 2, name  # one to each spine
        for intf in uplinks:
            q = intf.qos
            assert q is not None and q.dscp_trust, (name, intf.name)
            assert (q.dscp_to_tc[26], q.dscp_to_tc[48]) == (3, 6), (name, intf.name)
            assert q.pfc_priorities == frozenset({3}), (name, intf.name)
            assert 6 in q.strict_queues and 3 in q.ecn_queues, (name, intf.name)
