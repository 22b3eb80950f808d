"""Golden files of the three newer platforms, with their meaning asserted by parsing them back.

The example inventory with pod 1 segment 1 moved to the platform (its spines stay SONiC, so the uplinks are mixed
links); the golden file is p1-s1-rail3's configuration, byte for byte (RAILFABRIC_UPDATE_GOLDEN=1 rewrites it). A
golden file only says "unchanged", so each is also read back by the platform's own parse-back reader and checked
against what the example means, derived by hand (the same derivations as tests/test_render_eos.py):

- p1-s1-rail3 is pod 1, segment 1, single-rail, rail 3: VLAN 100 + 3 = 103 on 172.16.3.0/24 (segment 1 of pod 1
  owns 172.16.0.0/21, rail r its r-th /24), SVI gateway .1; ASN rail_switch_base 4200100000 + slot 3 = 4200100003.
- 16 hosts, one 400G NIC each on rail 3: 16 access ports in VLAN 103 (2x400G breakouts of ports 1-7 and 9).
- 4 spines × 2 links = 8 uplinks, each an eBGP session to a pod-1 spine (ASN spine_base 4200001000 + pod 1); the first
  uplink, port 33, faces p1-spine1 on 10.4.1.129/31 (p1-spine1 holds .128).
- QoS (fabric.yml): DSCP 26 → TC 3 with PFC on priority 3 only, CNP DSCP 48 → TC 6 strict, ECN on queue 3.
- management: ansible_host 192.168.15.3 (tests/test_outputs.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from railfabric.cli import main
from railfabric.platforms import PLATFORMS
from railfabric.verify.run import reader
from tests.helpers import EXAMPLE

GOLDEN = Path(__file__).resolve().parent / "golden"
NEWER = ("nvue", "nxos", "junos")
HOST = "p1-s1-rail3"


@pytest.fixture(scope="module", params=NEWER)
def rendered(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    platform = request.param
    base = tmp_path_factory.mktemp(f"golden-{platform}")
    shutil.copytree(EXAMPLE, base / "inv")
    pods_file = base / "inv" / "pods.yml"
    doc = yaml.safe_load(pods_file.read_text(encoding="utf-8"))
    seg = doc["pods"][0]["segments"][0]
    assert seg["id"] == 1 and "platform" not in seg, "the example's pod 1 segment 1 changed: update this test"
    seg["platform"] = platform
    pods_file.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    if not PLATFORMS[platform].syslog_tcp:  # NX-OS: syslog over plain TCP is PLAT001, so the example's goes UDP/514
        system = base / "inv" / "system.yml"
        line = "    - {address: 192.0.2.40, port: 601, protocol: tcp}\n"
        text = system.read_text(encoding="utf-8")
        assert text.count(line) == 1, "the example's syslog server changed: update this test"
        system.write_text(text.replace(line, "    - {address: 192.0.2.40, port: 514, protocol: udp}\n"),
                          encoding="utf-8")
    assert main(["render", str(base / "inv"), "--out", str(base / "out")]) == 0
    return platform, base / "out"


def test_golden_file(rendered: tuple[str, Path]) -> None:
    platform, out = rendered
    for name in PLATFORMS[platform].config_files():
        text = (out / "configs" / HOST / name).read_text(encoding="utf-8")
        golden = GOLDEN / platform / HOST / name
        if os.environ.get("RAILFABRIC_UPDATE_GOLDEN"):
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text, encoding="utf-8")
        assert golden.is_file(), f"no golden file {golden}: RAILFABRIC_UPDATE_GOLDEN=1 writes it"
        assert text == golden.read_text(encoding="utf-8"), f"{platform} {HOST}/{name} differs from {golden}"


def test_golden_file_means_what_the_example_says(rendered: tuple[str, Path]) -> None:
    platform, out = rendered
    dev = reader(platform)(HOST, out)
    assert dev.platform == platform
    assert dev.bgp.asn == 4200100003
    assert sorted(n.remote_as for n in dev.bgp.neighbors.values()) == [4200001001] * 8
    uplink = [i for i in dev.interfaces.values() if "10.4.1.129/31" in i.ipv4]
    assert len(uplink) == 1
    assert "10.4.1.128" in dev.bgp.neighbors
    assert dev.vlans[103].svi == ["172.16.3.1/24"]
    hosts = [i for i in dev.interfaces.values() if i.mode == "access" and i.vlan == 103]
    assert len(hosts) == 16
    routed = [i for i in dev.interfaces.values() if i.mode == "routed" and i.ipv4]
    assert len(routed) == 8
    for intf in routed:
        q = intf.qos
        assert q is not None and (q.dscp_to_tc[26], q.dscp_to_tc[48]) == (3, 6), intf.name
        assert q.pfc_priorities == frozenset({3}) and 6 in q.strict_queues and 3 in q.ecn_queues, intf.name
    assert (dev.mgmt.address or "").startswith("192.168.15.3/")
