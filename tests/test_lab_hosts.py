"""GPU hosts in the FRR lab: the networkd parser (hand-written input), netplan's own reading of a netplan file, the
host selection and wiring, and (root) the lab with hosts on a two-segment mini fabric, clean and with the
host-policy fault.

The fabric (`mini2`): tests.helpers' mini fabric with a second segment like the first: pod 1, 2 spines, segments 1
and 2, each single-rail with 2 rails (p1-s<s>-rail0/1) and 4 hosts (p1-s<s>-gpu001..004) of 2 NICs; NIC n goes to
rail n. Rail subnets (allocated): s1 rail0 172.16.0.0/24, rail1 172.16.1.0/24; s2 rail0 172.16.8.0/24, rail1
172.16.9.0/24 (segment_rail_block 21 → 8 /24s per segment); gateway .1, host k of a segment gets .k+1.

Host netplan files: until the hosts branch renders hosts/<host>/*.yaml, `_standin_netplan` writes one per host from
the rail map (a stand-in for that renderer, used only when the render has none): per NIC `nic<n>` with its address,
MTU 9000, table 100+rail holding the NIC's subnet on-link and the rail pool 172.16.0.0/12 via the rail gateway, and a
rule `from <address>` → that table, priority 100+rail.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from railfabric.lab.expect import expected
from railfabric.lab.hostcheck import host_expected
from railfabric.lab.hosts import pick, railmap_rows, rendered_host_files, short_name
from railfabric.lab.networkd import NetworkdError, netplan_generate, parse_link, parse_netdev, parse_network
from railfabric.pipeline import Result
from tests.helpers import base_inventory, run_data

NOT_ROOT = "the FRR lab needs root (network namespaces, FRR daemons); CI runs it as root"
root_only = pytest.mark.skipif(os.geteuid() != 0, reason=NOT_ROOT)


# --------------------------------------------------------------------------- the networkd parser (hand-written)

NETWORK = """\
# written by hand, in the shape netplan 0.106 writes
[Match]
Name=nic0

[Link]
MTUBytes=9000

[Network]
LinkLocalAddressing=ipv6
Address=172.16.0.2/24

[Address]
Address=10.9.9.9/32

[Route]
Destination=172.16.0.0/12
Gateway=172.16.0.1
Table=100

[Route]
Destination=172.16.0.0/24
Scope=link
Table=100
Metric=5

[Route]
Gateway=192.168.0.1

[RoutingPolicyRule]
From=172.16.0.2
Table=100
Priority=100
"""


def test_parse_network_file() -> None:
    from railfabric.lab.networkd import Route, Rule

    n = parse_network(NETWORK, "10-netplan-nic0.network")
    assert (n.name, n.mac, n.mtu, n.bond) == ("nic0", None, 9000, None)
    assert n.addresses == ("172.16.0.2/24", "10.9.9.9/32")  # [Network] Address= and [Address] Address=
    assert n.routes == (Route("172.16.0.0/12", "172.16.0.1", 100),
                        Route("172.16.0.0/24", None, 100, 5),
                        Route("default", "192.168.0.1", None))  # no Destination=: the default route, main table
    assert n.rules == (Rule("172.16.0.2", None, 100, 100),)


def test_parse_netdev_link_and_errors() -> None:
    dev = parse_netdev("[NetDev]\nName=bond0\nMTUBytes=9000\nKind=bond\n\n[Bond]\nMode=802.3ad\n", "b.netdev")
    assert (dev.name, dev.kind, dev.mtu) == ("bond0", "bond", 9000)
    link = parse_link("[Match]\nPermanentMACAddress=02:00:00:00:00:01\n\n[Link]\nName=nic1\nMTUBytes=9000\n")
    assert (link.mac, link.name, link.mtu) == ("02:00:00:00:00:01", "nic1", 9000)
    with pytest.raises(NetworkdError, match="line 2"):
        parse_network("[Match]\nName nic0\n")
    with pytest.raises(NetworkdError, match="Priority"):
        parse_network("[RoutingPolicyRule]\nPriority=high\n")


def test_netplan_generate_reads_a_netplan_file_back() -> None:
    """Debian's netplan turns a hand-written netplan file into networkd files; a renamed NIC (match + set-name) is
    found by its .link file."""
    text = yaml.safe_dump({"network": {"version": 2, "renderer": "networkd", "ethernets": {
        "nic0": {"addresses": ["172.16.0.2/24"], "mtu": 9000,
                 "routes": [{"to": "172.16.0.0/12", "via": "172.16.0.1", "table": 100}],
                 "routing-policy": [{"from": "172.16.0.2", "table": 100, "priority": 100}]},
        "rail1": {"match": {"macaddress": "02:00:00:00:00:01"}, "set-name": "nic1",
                  "addresses": ["172.16.1.2/24"], "mtu": 9000}}}})
    net = netplan_generate({"h.yaml": text})
    n0 = net.with_address("172.16.0.2/24")
    assert n0 is not None and net.interface_name(n0) == "nic0" and n0.mtu == 9000
    assert [(r.destination, r.gateway, r.table) for r in n0.routes] == [("172.16.0.0/12", "172.16.0.1", 100)]
    assert [(r.from_, r.table, r.priority) for r in n0.rules] == [("172.16.0.2", 100, 100)]
    n1 = net.with_address("172.16.1.2/24")
    assert n1 is not None and net.interface_name(n1) == "nic1"
    with pytest.raises(NetworkdError, match="netplan generate refused"):
        netplan_generate({"bad.yaml": "network:\n  version: 2\n  ethernets:\n    nic0: {mtu: lots}\n"})


def test_host_sysctls_from_a_rendered_script() -> None:
    from railfabric.lab.hosts import host_sysctls

    script = ("#!/bin/sh\nneed /proc/sys/net/ipv4/conf/nic0\nput /proc/sys/net/ipv4/conf/nic0/arp_ignore 1\n"
              "put /proc/sys/net/ipv4/conf/nic0/rp_filter 2\nput /sys/class/net/nic0/ecn/roce_np/enable/3 1\n")
    assert host_sysctls({"roce.sh": script, "netplan.yaml": "put /proc/sys/net/ipv4/conf/x/rp_filter 0"}) == [
        ("nic0", "arp_ignore", "1"), ("nic0", "rp_filter", "2")]  # only *.sh, only the ARP / rp_filter keys


def test_pick_and_short_names() -> None:
    assert pick(4, 2) == [0, 3] and pick(4, "all") == [0, 1, 2, 3] and pick(7, 3) == [0, 3, 6]
    assert pick(1, 2) == [0] and pick(5, 0) == []
    assert short_name("enp170s0f0np0", set()) == "enp170s0f0np0"  # 13 characters: kept
    # 16 characters: the first 12 ("enp170s0f0np") and a 3-digit counter, the next free one
    assert short_name("enp170s0f0np0abc", set()) == "enp170s0f0np000"
    assert short_name("enp170s0f0np0abc", {"enp170s0f0np000"}) == "enp170s0f0np001"


# --------------------------------------------------------------------------- selection and expectations


def _mini2(tmp_path: Path) -> Result:
    data = base_inventory()
    seg = data["pods"][0]["segments"][0]
    data["pods"][0]["segments"].append(dict(seg, id=2))
    return run_data(tmp_path, data)


def _standin_netplan(res: Result) -> dict[str, dict[str, str]]:
    """The host files: the render's when it has them, else one netplan file per host from the rail map."""
    rendered = rendered_host_files(res)
    if rendered:
        return rendered
    assert res.inventory is not None
    pool = str(res.inventory.pools.rail_subnets)  # 172.16.0.0/12
    out: dict[str, dict] = {}
    for r in railmap_rows(res):
        table = 100 + r.rail
        subnet = f"{r.address.rsplit('.', 1)[0]}.0/{r.address.split('/')[1]}"
        eth = out.setdefault(r.host, {"network": {"version": 2, "renderer": "networkd", "ethernets": {}}})
        eth["network"]["ethernets"][f"nic{r.nic}"] = {
            "addresses": [r.address], "mtu": r.mtu,
            "routes": [{"to": subnet, "scope": "link", "table": table},
                       {"to": pool, "via": r.gateway, "table": table}],
            "routing-policy": [{"from": r.ip, "table": table, "priority": table}]}
    return {h: {"netplan.yaml": yaml.safe_dump(doc, sort_keys=False)} for h, doc in out.items()}


@pytest.fixture(scope="module")
def mini2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, dict]:
    res = _mini2(tmp_path_factory.mktemp("mini2"))
    return res, _standin_netplan(res)


def test_hosts_selected_and_wired_from_the_rail_map(mini2) -> None:
    from railfabric.lab.expect import expected
    from railfabric.lab.spec import build_spec

    res, files = mini2
    spec = build_spec(res, hosts=2, host_files=files)
    # first and last host of each segment
    assert list(spec.hosts) == ["p1-s1-gpu001", "p1-s1-gpu004", "p1-s2-gpu001", "p1-s2-gpu004"]
    h = spec.hosts["p1-s2-gpu004"]
    assert h.ns == "rf-p1-s2-gpu004"
    # host 4 of segment 2: .5 on s2's rail subnets, cabled to port 4 × 4 lanes = Ethernet12 of each rail switch
    assert [(n.ifname, n.plan.address, n.plan.switch, n.plan.switch_if, n.plan.vlan, n.network.mtu, n.switch_mtu)
            for n in h.nics] == [("nic0", "172.16.8.5/24", "p1-s2-rail0", "Ethernet12", 100, 9000, 9216),
                                 ("nic1", "172.16.9.5/24", "p1-s2-rail1", "Ethernet12", 101, 9000, 9216)]
    assert len(build_spec(res, hosts="all", host_files=files).hosts) == 8
    hx = host_expected(spec, expected(spec))
    # same rail: 8 NICs × the 2 built hosts of the other segment = 16 at 9000 (all routed through the spines),
    # plus one 9001 per NIC (8, must fail) → 24; cross rail: one per NIC → 8, all routed
    assert len(hx.same_rail) == 24 and sum(p.ping.expect_ok for p in hx.same_rail) == 16
    assert {p.ping.size for p in hx.same_rail if not p.ping.expect_ok} == {9001}
    assert len(hx.cross_rail) == 8 and all(p.ping.expect_ok for p in hx.cross_rail)
    first = hx.same_rail[0]
    assert (first.ping.src, first.ping.dst, first.nic, first.gateway) == ("172.16.0.2", "172.16.8.2", "nic0",
                                                                          "172.16.0.1")


def _rail_only(tmp_path: Path) -> Result:
    """The mini fabric without spines, with a second segment: a rail-only pod of 2 segments."""
    data = base_inventory()
    pod = data["pods"][0]
    del pod["spines"]
    pod["segments"].append(dict(pod["segments"][0], id=2))
    res = run_data(tmp_path, data)
    assert res.plan is not None, [f.code for f in res.findings]
    return res


def test_rail_only_pod_isolates_rails(tmp_path: Path) -> None:
    """Without spines (a rail-only pod of 2 segments) nothing routes between rail switches: same-rail pings across
    segments and cross-rail pings are planned to fail; only the 9001 probe is left out (no passing destination)."""
    from railfabric.lab.expect import expected
    from railfabric.lab.spec import build_spec

    res = _rail_only(tmp_path)
    spec = build_spec(res, hosts=1, host_files=_standin_netplan(res))
    hx = host_expected(spec, expected(spec))
    # 2 hosts (one per segment) × 2 NICs → 4 same-rail pings, 4 cross-rail pings, none may pass
    assert len(hx.same_rail) == 4 and len(hx.cross_rail) == 4
    assert not any(p.ping.expect_ok for p in hx.same_rail + hx.cross_rail)


def _shared_nics(tmp_path: Path) -> Result:
    """Hosts that share NICs: tests.helpers' mini fabric with 4 spines and 2 multi-rail segments (2 rails each, one
    rail switch p1-s<s>-rail0-1 per segment), each with 4 hosts of model h8: 8 GPUs behind 2 NICs (gpu_to_nic
    [0,0,0,0,1,1,1,1]: GPUs 0-3 on NIC 0, 4-7 on NIC 1), one port per NIC."""
    data = base_inventory()
    data["host_models"]["h8"] = {"gpus": 8, "nics": 2, "nic_speed": "400G", "gpu_to_nic": [0, 0, 0, 0, 1, 1, 1, 1]}
    pod = data["pods"][0]
    pod["spines"]["count"] = 4  # 4 hosts × 2 NICs × 400G = 3.2T down per rail switch: 4 × 800G up
    seg = dict(pod["segments"][0], rail_design="multi-rail", host_groups=[{"model": "h8", "count": 4}])
    pod["segments"] = [seg, dict(seg, id=2)]
    res = run_data(tmp_path, data)
    assert res.plan is not None, [f.code for f in res.findings]
    return res


def test_hosts_sharing_nics_get_one_interface_per_nic_port(tmp_path: Path) -> None:
    """The rail map has a row per GPU: 8 per host here, 4 naming each NIC port. The lab used to build a veth per row
    (RTNETLINK "File exists" on the second `nic0`, or 12-character + counter renames); it builds one per NIC port,
    named as the host's rendered netplan file names it (nic0, nic1). Cabling, by hand: host k's NIC n on port
    2(k-1)+n+1 of its segment's rail switch, 4 lanes a port → Ethernet 4·(2(k-1)+n); rail n → VLAN 100+n; address
    .k+1 of the rail subnet (s1: 172.16.0/1.0/24, s2: 172.16.8/9.0/24)."""
    from railfabric.lab.spec import build_spec

    res = _shared_nics(tmp_path)
    rows = railmap_rows(res)
    assert len(rows) == 8 * 8 and sum(r.host == "p1-s1-gpu001" and r.nic == 0 for r in rows) == 4
    spec = build_spec(res, hosts=2)  # the render's own host files
    assert list(spec.hosts) == ["p1-s1-gpu001", "p1-s1-gpu004", "p1-s2-gpu001", "p1-s2-gpu004"]
    wiring = {h: [(n.ifname, n.plan.switch, n.plan.switch_if, n.plan.vlan, n.plan.address) for n in host.nics]
              for h, host in spec.hosts.items()}
    assert wiring == {
        "p1-s1-gpu001": [("nic0", "p1-s1-rail0-1", "Ethernet0", 100, "172.16.0.2/24"),
                         ("nic1", "p1-s1-rail0-1", "Ethernet4", 101, "172.16.1.2/24")],
        "p1-s1-gpu004": [("nic0", "p1-s1-rail0-1", "Ethernet24", 100, "172.16.0.5/24"),
                         ("nic1", "p1-s1-rail0-1", "Ethernet28", 101, "172.16.1.5/24")],
        "p1-s2-gpu001": [("nic0", "p1-s2-rail0-1", "Ethernet0", 100, "172.16.8.2/24"),
                         ("nic1", "p1-s2-rail0-1", "Ethernet4", 101, "172.16.9.2/24")],
        "p1-s2-gpu004": [("nic0", "p1-s2-rail0-1", "Ethernet24", 100, "172.16.8.5/24"),
                         ("nic1", "p1-s2-rail0-1", "Ethernet28", 101, "172.16.9.5/24")]}
    # pings: each of the 8 NICs to the same rail on the other segment's 2 built hosts (16, all routed over the
    # spines) + one host-MTU + 1 probe per NIC (8) = 24; one cross-rail ping per NIC = 8
    hx = host_expected(spec, expected(spec))
    assert (len(hx.same_rail), len(hx.cross_rail)) == (24, 8)


def test_two_ports_on_one_interface_are_refused(tmp_path: Path) -> None:
    """Two NIC ports of the plan can never be one interface of the host file: named, not renamed."""
    from railfabric.lab.model import LabError
    from railfabric.lab.spec import build_spec

    res = _shared_nics(tmp_path)
    files = rendered_host_files(res)
    doc = yaml.safe_load(files["p1-s1-gpu001"]["netplan.yaml"])
    eth = doc["network"]["ethernets"]
    eth["nic0"]["addresses"] += eth.pop("nic1")["addresses"]  # both planned addresses on nic0
    files["p1-s1-gpu001"] = {"netplan.yaml": yaml.safe_dump(doc)}
    with pytest.raises(LabError, match=r"p1-s1-gpu001: NIC 1 port 1 and NIC 0 port 1 of the rail map are both "
                                       r"'nic0' in its netplan file"):
        build_spec(res, hosts=2, host_files=files)


def test_missing_host_files_are_named(mini2) -> None:
    from railfabric.lab.model import LabError
    from railfabric.lab.spec import build_spec

    res, files = mini2
    with pytest.raises(LabError, match=r"no rendered netplan file .* p1-s1-gpu001"):
        build_spec(res, hosts=2, host_files={k: v for k, v in files.items() if k != "p1-s1-gpu001"})
    wrong = dict(files)
    wrong["p1-s1-gpu004"] = {"x.yaml": files["p1-s1-gpu004"]["netplan.yaml"].replace("172.16.1.5/24",
                                                                                       "172.16.1.99/24")}
    with pytest.raises(LabError, match=r"p1-s1-gpu004: no interface .* 172\.16\.1\.5/24"):
        build_spec(res, hosts=2, host_files=wrong)


# --------------------------------------------------------------------------- the lab (root)


def _leftovers(run: str) -> list[str]:
    from tests.test_lab import _leftovers as run_leftovers

    return run_leftovers(run)


@pytest.fixture
def run_id():
    """A fresh run id for the test's lab; afterwards whatever is left of that run is torn down and nothing of it may
    have been left (namespaces, daemons, directories, record). Other labs on the machine run on undisturbed."""
    from railfabric.lab import teardown_saved
    from railfabric.lab.runs import new_run_id

    rid = new_run_id()
    yield rid
    left = _leftovers(rid)
    teardown_saved(run=rid)
    assert not left, f"lab run {rid} left things behind: {left[:5]}"


@root_only
def test_lab_with_hosts(mini2, run_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from railfabric.lab import format_result, neigh, run_lab

    res, files = mini2
    # this small lab fits the kernel's default ARP table; a headroom past the machine's hard limit makes the lab
    # raise it (as `--hosts all` of a big fabric does), which must hold during the run and be undone after it
    before = {n: neigh.read_limit(n) for n in neigh.LIMITS}
    assert None not in before.values()
    monkeypatch.setattr(neigh, "HEADROOM", max(v or 0 for v in before.values()) + 1)
    seen: dict[str, int | None] = {}
    apply = neigh.apply
    monkeypatch.setattr(neigh, "apply", lambda changed: (apply(changed), seen.update(
        {n: neigh.read_limit(n) for n in neigh.LIMITS})))
    said: list[str] = []
    t0 = time.monotonic()
    r = run_lab(res, hosts=2, host_files=files, say=said.append, run_id=run_id)
    print(f"lab with hosts: {time.monotonic() - t0:.1f}s")
    print(format_result(r))
    assert r.ok, "\n".join(b for c in r.checks.values() for b in c.bad[:10])
    assert all(seen[n] > before[n] for n in neigh.LIMITS), (before, seen)  # type: ignore[operator]
    assert any("neighbour table: " in m and "put back at teardown" in m for m in said)
    assert {n: neigh.read_limit(n) for n in neigh.LIMITS} == before and r.removed["sysctls"] == 2
    c = r.counts()
    # 4 hosts × 2 NICs (test_hosts_selected_and_wired_from_the_rail_map); pings: 24 same rail + 8 cross rail = 32;
    # one route lookup per pair pinged: 16 same rail (the 9001 probes repeat pairs) + 8 cross rail = 24
    assert (c["host-interfaces"], c["host-rules"], c["host-pings"], c["cross-rail"], c["host-egress"]) == \
        (8, 8, 24, 8, 24)
    assert r.removed["namespaces"] == 6 and r.removed["host_namespaces"] == 4
    assert not _leftovers(run_id)


@root_only
def test_host_policy_fault_is_caught_and_named(mini2, run_id: str) -> None:
    from railfabric.lab import format_result, run_lab

    res, files = mini2
    r = run_lab(res, hosts=2, host_files=files, faults=["host-policy"], say=lambda _m: None, run_id=run_id)
    text = format_result(r)
    print(text)
    (f,) = r.spec.faults
    # the first built host's first NIC: p1-s1-gpu001 nic0 172.16.0.2 (its table is the host file's: 100 in the
    # stand-in, the rendered file's own once the render has host files)
    assert f.where == "p1-s1-gpu001" and "rule del from 172.16.0.2 table " in f.detail
    assert r.checks["host-rules"].bad == ["p1-s1-gpu001: no ip rule from 172.16.0.2 (nic0, rail 0): its traffic "
                                          "follows the main table, plan: policy routing per rail NIC"]
    assert {"host-rules", "host-egress", "host-pings", "cross-rail"} <= set(r.caught_by(f))
    # every mismatch names the host: from its rail-0 NIC the main table has no route off its subnet, and its replies
    # to the other segment's rail-0 NICs are lost the same way
    stray = [b for c in r.checks.values() for b in c.bad if "p1-s1-gpu001" not in b]
    assert not stray, stray[:5]
    assert "fault host-policy at p1-s1-gpu001: DETECTED by" in text
    assert not _leftovers(run_id)


@root_only
def test_host_namespaces_removed_after_a_crash(mini2, run_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from railfabric.lab import run_lab
    from railfabric.lab.daemons import Instances

    def boom(self) -> None:
        raise RuntimeError("injected failure after the hosts were built")

    res, files = mini2
    monkeypatch.setattr(Instances, "start", boom)
    with pytest.raises(RuntimeError, match="injected"):
        run_lab(res, hosts=2, host_files=files, say=lambda _m: None, run_id=run_id)
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"rf{run_id}-" not in out and not _leftovers(run_id)


@root_only
def test_main_table_leak_onto_another_rail_is_caught(tmp_path: Path, run_id: str) -> None:
    """Host files whose rail tables hold only their own subnet (nothing for the other rails, as a rail-only pod
    might be rendered): a lookup from NIC 0's address towards rail 1 misses table 100, falls through to the main
    table, whose connected route sends it out of NIC 1, and is answered. Rail-only 2-segment mini fabric, 2 hosts per
    segment, built in the order s1-gpu001, s1-gpu004, s2-gpu001, s2-gpu004; each NIC's cross-rail ping goes to the
    next host's other rail. From s1-gpu001 and s2-gpu001 the next host is in the same segment, whose other-rail
    subnet is connected on the source host too: 2 hosts × 2 NICs = 4 leaks (route lookup and ping). From s1-gpu004
    and s2-gpu004 the next host is in the other segment: not connected, no route, the ping fails as planned."""
    from railfabric.lab import format_result, run_lab

    res = _rail_only(tmp_path)
    files = {}
    for host, named in _standin_netplan(res).items():
        doc = yaml.safe_load(next(iter(named.values())))
        for eth in doc["network"]["ethernets"].values():
            eth["routes"] = [r for r in eth["routes"] if r.get("scope") == "link"]  # own subnet only
        files[host] = {"netplan.yaml": yaml.safe_dump(doc)}
    r = run_lab(res, hosts=2, host_files=files, say=lambda _m: None, run_id=run_id)
    print(format_result(r))
    leaks = r.checks["host-egress"].bad
    assert len(leaks) == 4 and len(r.checks["cross-rail"].bad) == 4 and r.mismatches == 8
    assert "p1-s1-gpu001 nic0 172.16.0.2 (rail 0) -> p1-s1-gpu004 nic1 172.16.1.5 (rail 1): route get: leaves " \
           "through nic1, plan nic0 or no route (no planned path)" in leaks
    assert any("p1-s1-gpu001 nic0 172.16.0.2 (rail 0) -> p1-s1-gpu004 nic1" in b and "passed (replied), plan: fail"
               in b for b in r.checks["cross-rail"].bad)


@root_only
def test_every_host_of_a_segment_fits_the_neighbour_table(run_id: str) -> None:
    """The example's pod 2 with all its hosts (`fabric lab --pod 2 --hosts all`): one segment of 16 hosts × 8 NICs,
    8 rails. On each rail SVI 16 host NICs + the switch may learn each other: 8 × 17 × 16 = 2,176 ARP entries, plus
    2 per routed link (64 links) = 2,304, over the kernel's default hard limit of 1,024 for the whole machine: before
    the lab sized the table, pings failed with "sendmsg: No buffer space available". Same-rail pings: each of the 128
    NICs to the 15 other hosts' NIC on its rail at the host MTU (1,920) and one MTU + 1 probe (128) = 2,048;
    cross-rail: one per NIC = 128."""
    import time

    from railfabric.lab import format_result, neigh, run_lab
    from tests.helpers import EXAMPLE, run

    before = {n: neigh.read_limit(n) for n in neigh.LIMITS}
    t0 = time.monotonic()
    r = run_lab(run(EXAMPLE), pod=2, hosts="all", say=lambda _m: None, run_id=run_id)
    print(f"pod 2, all hosts: {time.monotonic() - t0:.1f}s")
    print(format_result(r))
    assert neigh.needed_entries(r.spec) == 2304
    c = r.counts()
    assert (len(r.spec.hosts), c["host-interfaces"], c["host-pings"], c["cross-rail"]) == (16, 128, 2048, 128)
    assert r.ok, "\n".join(b for ch in r.checks.values() for b in ch.bad[:10])
    assert {n: neigh.read_limit(n) for n in neigh.LIMITS} == before


def _links(ns: str) -> list[tuple[str, str | None]]:
    """(interface, bridge it is in) of a namespace, sorted."""
    out = subprocess.run(["ip", "-n", ns, "-j", "link", "show"], capture_output=True, text=True, timeout=30).stdout
    return sorted((x["ifname"], x.get("master")) for x in json.loads(out or "[]"))


@root_only
def test_two_labs_at_once_and_teardown_of_one(tmp_path: Path) -> None:
    """Two labs run side by side in one process (two threads), as two checkouts or CI jobs would: A the shared-NIC
    fabric with 2 hosts per segment, B the mini fabric (p1-spine1, p1-spine2, p1-s1-rail0, p1-s1-rail1, the
    spine names A has too), both kept. Both PASS; A's hosts have one interface per NIC port; tearing A down leaves
    every namespace of B in place and its BGP sessions up; then B goes."""
    import threading

    from railfabric.lab import LabResult, format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id
    from railfabric.lab.teardown import list_namespaces
    from tests.test_lab import _mini

    a_id, b_id = new_run_id(), new_run_id()
    inputs = {a_id: (_shared_nics(tmp_path / "a"), 2), b_id: (_mini(tmp_path / "b"), 0)}
    results: dict[str, LabResult | BaseException] = {}

    def one(rid: str) -> None:
        res, hosts = inputs[rid]
        try:
            results[rid] = run_lab(res, hosts=hosts, keep=True, say=lambda _m: None, run_id=rid)
        except BaseException as exc:
            results[rid] = exc

    threads = [threading.Thread(target=one, args=(rid,)) for rid in (a_id, b_id)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        a, b = results[a_id], results[b_id]
        assert isinstance(a, LabResult) and isinstance(b, LabResult), (a, b)
        print(format_result(a))
        print(format_result(b))
        assert a.ok and b.ok and a.kept and b.kept
        # A: 6 switches + 4 hosts; 8 sessions (2 rail switches × 4 spines), 8 NIC ports, 24 + 8 host pings
        c = a.counts()
        assert (c["sessions"], c["host-interfaces"], c["host-pings"], c["cross-rail"]) == (8, 8, 24, 8)
        a_ns = sorted(ns for ns in list_namespaces() if ns.startswith(f"rf{a_id}-"))
        b_ns = sorted(ns for ns in list_namespaces() if ns.startswith(f"rf{b_id}-"))
        assert len(a_ns) == 10 and b_ns == [f"rf{b_id}-{h}" for h in ("p1-s1-rail0", "p1-s1-rail1", "p1-spine1",
                                                                        "p1-spine2")]
        # a host with 8 GPUs behind 2 NICs: lo and one veth per NIC port; its rail switch's ends in the rail bridges
        assert _links(f"rf{a_id}-p1-s1-gpu001") == [("lo", None), ("nic0", None), ("nic1", None)]
        ends = [x for x in _links(f"rf{a_id}-p1-s1-rail0-1") if x[1]]
        assert ends == [("Ethernet0", "Vlan100"), ("Ethernet24", "Vlan100"), ("Ethernet28", "Vlan101"),
                        ("Ethernet4", "Vlan101")]
        (done,) = teardown_saved(run=a_id)
        assert done.removed["namespaces"] == 6 and done.removed["host_namespaces"] == 4
        assert done.removed["daemons"] == 18 and not _leftovers(a_id)
        assert sorted(ns for ns in list_namespaces() if ns.startswith(f"rf{b_id}-")) == b_ns
        summary = subprocess.run(["vtysh", "-N", f"rf{b_id}-p1-s1-rail0", "-c", "show bgp summary json"],
                                 capture_output=True, text=True, timeout=30).stdout
        peers = json.loads(summary)["ipv4Unicast"]["peers"]
        assert sorted(p["state"] for p in peers.values()) == ["Established", "Established"]  # one per spine
    finally:
        for t in threads:
            t.join(timeout=600)
        teardown_saved(run=a_id)
        teardown_saved(run=b_id)
    assert not _leftovers(a_id) and not _leftovers(b_id)
