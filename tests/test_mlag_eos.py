"""EOS MLAG: the rendered sections of a named pair, the verifier on them (passing, and failing on hand-broken copies),
and the real arista.eos collection's parsers reading them back.

Hand derivation for tests.helpers.mlag_inventory("eos") (2 rails, 4 hosts with 2 NICs × 2 ports of 400G, sw64:
64 ports of 800G, 2 spines; limits: 4 pods, 4 segments per pod, 8 rail switches per segment, 16 uplinks per rail
switch, 8 spines per pod, 16 uplinks per spine):
- pairs: rail group 1 = p1-s1-rail0a (side a, primary) + p1-s1-rail0b, rail group 2 = p1-s1-rail1a + p1-s1-rail1b;
  MLAG domain "p<pod>-s<segment>-g<group>" = p1-s1-g1 and p1-s1-g2.
- peer link: sw64 has no port_blocks; with spines its uplink candidates are the upper half (33-64, the spines use
  33 and 34), so the free ports are 1-32 and the default 2 peer-link ports are the highest of them: 31 and 32,
  EOS Ethernet31/1 and Ethernet32/1 (8-lane OSFP, native 800G: `speed 800g-8`), port-channel 1000.
- peer VLAN 4094, /31 from fabric_links 10.32.0.0/11: the rail-switch uplink /31 slots come first,
  pods·segments_per_pod·rail_switches_per_segment·uplinks_per_rail_switch = 4·4·8·16 = 2048, then the spine
  uplinks, pods·spines_per_pod·uplinks_per_spine = 4·8·16 = 512: peer_net_base = 2560 slots. The pair's slot adds
  side a's rail tier slot (rail switch k of pod 1 segment 1: k-1; rail0a 0, rail1a 2): /31 number 2560 and 2562,
  addresses 2·2560 = 5120 = 20·256 → 10.32.20.0/31 and 10.32.20.4/31. The upper end (side b, the z end of the
  peer link) takes the even address: rail0b 10.32.20.0, rail0a 10.32.20.1; rail1b 10.32.20.4, rail1a 10.32.20.5.
- ASN: rail_switch_base 4200100000 + side a's tier slot, shared by the pair: 4200100000 (g1), 4200100002 (g2);
  the MLAG-PEER iBGP session's remote-as is that same ASN.
- host bonds: MLAG id = port-channel number = 1000 + (host−1)·rails_per_switch + rail slot + 1 = 1001..1004 for
  hosts 1..4 (one rail per switch, slot 0), the same on both switches of a pair; NIC n is on rail n, its port 1 on
  side a, port 2 on side b; host h's port: 400G lanes of the 2x400G breakout, h=1 Ethernet1/1, 2 Ethernet1/5,
  3 Ethernet2/1, 4 Ethernet2/5. Rail r's VLAN = 100 + r.
- rail subnets: segment 1 of pod 1 owns 172.16.0.0/21; the pair shares rail group g's /24: rail 0 172.16.0.0/24,
  rail 1 172.16.1.0/24; the gateway (.1) is `ip address virtual` on both switches, answered with the fabric-wide
  virtual MAC 02:1c:73:00:00:01 (locally administered).
- MTU: fabric 9216 normalised to 9214, the EOS maximum.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.verify.eos import read_eos
from tests.helpers import dump, mlag_inventory, write_files
from tests.rollout_support import ansible_bin, ansible_env


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mlag-eos")
    write_files(base / "inv", {"fabric.yml": dump(mlag_inventory("eos"))})
    assert main(["render", str(base / "inv"), "--out", str(base / "raw"), "-q"]) == 0
    return base / "raw"


@pytest.fixture()
def gen(rendered: Path, tmp_path: Path) -> Path:
    shutil.copytree(rendered, tmp_path / "gen")
    return tmp_path / "gen"


def config(root: Path, host: str) -> str:
    return (root / "configs" / host / "running-config.cfg").read_text()


def block(text: str, header: str) -> str:
    """One top-level section: its header line and the lines up to the next `!`."""
    lines = text.splitlines()
    start = lines.index(header)
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "!" or not lines[i].startswith(" "))
    return "\n".join(lines[start:end])


def edit(root: Path, host: str, old: str, new: str) -> None:
    path = root / "configs" / host / "running-config.cfg"
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


# ------------------------------------------------------------------------------------------------ rendering

def test_peer_vlan_and_spanning_tree(rendered: Path) -> None:
    text = config(rendered, "p1-s1-rail0a")
    assert "\nspanning-tree mode none\nno spanning-tree vlan-id 4094\n" in text
    assert block(text, "vlan 4094") == "vlan 4094\n   name MLAG-PEER\n   trunk group MLAG-PEER"
    assert block(text, "vlan 100") == "vlan 100\n   name RAIL0"


def test_peer_link_port_channel_and_members(rendered: Path) -> None:
    a, b = config(rendered, "p1-s1-rail0a"), config(rendered, "p1-s1-rail1b")
    assert block(a, "interface Port-Channel1000") == "\n".join((
        "interface Port-Channel1000",
        "   description MLAG peer link p1-s1-rail0b",
        "   mtu 9214",
        "   switchport trunk allowed vlan 100,4094",
        "   switchport mode trunk",
        "   switchport trunk group MLAG-PEER",
        "   port-channel min-links 1"))
    assert "   switchport trunk allowed vlan 101,4094\n" in block(b, "interface Port-Channel1000")
    for port in ("Ethernet31/1", "Ethernet32/1"):
        head = block(a, f"interface {port}").splitlines()[:5]
        assert head == [f"interface {port}", f"   description MLAG peer link p1-s1-rail0b {port}", "   speed 800g-8",
                        "   error-correction encoding reed-solomon", "   channel-group 1000 mode active"]
        assert "   qos trust dscp" in a.split(f"interface {port}\n")[1].split("\n!\n")[0]  # RoCE QoS kept


def test_host_bonds(rendered: Path) -> None:
    for host in ("p1-s1-rail0a", "p1-s1-rail0b"):
        text = config(rendered, host)
        for n, port in ((1, "Ethernet1/1"), (2, "Ethernet1/5"), (3, "Ethernet2/1"), (4, "Ethernet2/5")):
            assert block(text, f"interface Port-Channel100{n}") == "\n".join((
                f"interface Port-Channel100{n}",
                f"   description p1-s1-gpu00{n} nic0 bond rail0",
                "   mtu 9214",
                "   switchport access vlan 100",
                "   switchport mode access",
                "   port-channel min-links 1",
                f"   mlag 100{n}"))
            member = block(text, f"interface {port}").splitlines()
            assert member[2:5] == ["   speed 400g-4", "   error-correction encoding reed-solomon",
                                   f"   channel-group 100{n} mode active"]
            assert not any(ln.startswith(("   switchport", "   mtu")) for ln in member)


def test_svis_gateway_and_mlag_domain(rendered: Path) -> None:
    a, b = config(rendered, "p1-s1-rail0a"), config(rendered, "p1-s1-rail0b")
    for text in (a, b):
        assert block(text, "interface Vlan100") == ("interface Vlan100\n   description RAIL0 172.16.0.0/24\n"
                                                    "   mtu 9214\n   ip address virtual 172.16.0.1/24")
        assert "\nip virtual-router mac-address 02:1c:73:00:00:01\n" in text
    assert block(a, "interface Vlan4094") == ("interface Vlan4094\n   description MLAG peer p1-s1-rail0b\n"
                                              "   mtu 9214\n   no autostate\n   ip address 10.32.20.1/31")
    assert block(b, "interface Vlan4094").endswith("   ip address 10.32.20.0/31")
    assert block(a, "mlag configuration") == ("mlag configuration\n   domain-id p1-s1-g1\n"
                                              "   local-interface Vlan4094\n   peer-address 10.32.20.0\n"
                                              "   peer-link Port-Channel1000")
    assert "   peer-address 10.32.20.1\n" in block(b, "mlag configuration") + "\n"
    c = config(rendered, "p1-s1-rail1a")
    assert "   domain-id p1-s1-g2\n   local-interface Vlan4094\n   peer-address 10.32.20.4\n" in c
    assert "   ip address virtual 172.16.1.1/24\n" in c
    # EOS prints the domain after the prefix-lists and before the static routes
    assert a.index("ip prefix-list") < a.index("mlag configuration") < a.index("ip route vrf MGMT")


def test_mlag_peer_bgp_group(rendered: Path) -> None:
    a, c = config(rendered, "p1-s1-rail0a"), config(rendered, "p1-s1-rail1a")
    assert ("   neighbor MLAG-PEER peer group\n   neighbor MLAG-PEER remote-as 4200100000\n"
            "   neighbor MLAG-PEER next-hop-self\n   neighbor MLAG-PEER bfd\n") in a
    assert "   neighbor 10.32.20.0 peer group MLAG-PEER\n   neighbor 10.32.20.0 description p1-s1-rail0b\n" in a
    assert "router bgp 4200100002\n" in c and "   neighbor MLAG-PEER remote-as 4200100002\n" in c
    assert "   neighbor 10.32.20.4 peer group MLAG-PEER\n" in c
    assert "next-hop-self" not in block(a, "router bgp 4200100000").split("neighbor SPINES peer group")[1]


# ------------------------------------------------------------------------------------------------ verifier

def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["verify", str(path), "--no-frr"])
    return code, [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("FAIL ", "verify:"))]


def test_reader_records(rendered: Path) -> None:
    dev = read_eos("p1-s1-rail0a", rendered)
    pc, bond, member = (dev.interfaces[n] for n in ("Port-Channel1000", "Port-Channel1003", "Ethernet2/1"))
    assert (pc.mode, pc.trunk_vlans, pc.mlag) == ("trunk", frozenset({100, 4094}), None)
    assert (bond.mode, bond.vlan, bond.mlag, bond.mtu) == ("access", 100, 1003, 9214)
    assert (member.mode, member.channel, member.mtu) == ("member", "Port-Channel1003", 9214)
    assert dev.vlans[100].virtual and dev.vlans[100].svi == ["172.16.0.1/24"]
    assert dev.vlans[100].tagged == ["Port-Channel1000"] and dev.vlans[4094].tagged == ["Port-Channel1000"]
    assert dev.vlans[100].members == [f"Port-Channel100{n}" for n in (1, 2, 3, 4)]
    m = dev.mlag
    assert m is not None
    assert (m.domain, m.vlan, m.local_ip, m.peer_ip, m.peer_link, m.virtual_mac) == (
        "p1-s1-g1", 4094, "10.32.20.1", "10.32.20.0", "Port-Channel1000", "02:1c:73:00:00:01")
    assert "10.32.20.1" in dev.addresses()  # the MLAG-PEER session's reverse resolves


def test_rendered_pairs_keep_every_promise(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 4 rail switches × 2 spine uplinks + 2 pairs × 2 peer cables = 12 links; 4 hosts × 2 NICs × 2 ports = 16 host
    # ports; BGP: each rail switch 2 spines + its MLAG peer (12), each spine 4 rail switches (8) = 20
    assert verify(gen, capsys) == (0, ["verify: 6 devices (4 EOS, 2 SONiC), 12 fabric links, 16 host ports "
        "(16 against the hosts' files), "
                                       "20 BGP neighbours: all promises kept"])


A0, B0, A1, B1 = (f"configs/p1-s1-rail{r}/running-config.cfg" for r in ("0a", "0b", "1a", "1b"))


def test_mlag_id_mismatch_between_the_pair(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0b", "   mlag 1002\n", "   mlag 1003\n")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0b Port-Channel1002: expected MLAG id 1002 as on p1-s1-rail0a Port-Channel1002 "
        f"(host bond p1-s1-gpu002:nic0), found mlag 1003 ({A0}, {B0})"]


def test_rail_vlan_missing_from_the_peer_link(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail1a", "switchport trunk allowed vlan 101,4094", "switchport trunk allowed vlan 4094")
    assert verify(gen, capsys)[1][:-1] == [
        "FAIL mlag: p1-s1-rail1a Port-Channel1000: expected a trunk carrying VLANs 101,4094 (the rail VLANs and the "
        f"peer VLAN), found trunk port carrying 4094 ({A1})"]


def test_peer_link_outside_the_peer_vlans_trunk_group(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """VLAN 4094 is in trunk group MLAG-PEER: a peer link without the group does not carry it, whatever it allows."""
    edit(gen, "p1-s1-rail0b", "   switchport trunk group MLAG-PEER\n", "")
    assert verify(gen, capsys)[1][:-1] == [
        "FAIL mlag: p1-s1-rail0b Port-Channel1000: expected a trunk carrying VLANs 100,4094 (the rail VLANs and the "
        f"peer VLAN), found trunk port carrying 100 ({B0})"]


def test_non_virtual_gateway(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0a", "ip address virtual 172.16.0.1/24", "ip address 172.16.0.1/24")
    assert verify(gen, capsys)[1][:-1] == [
        "FAIL mlag: p1-s1-rail0a Vlan100: expected a virtual gateway shared with p1-s1-rail0b (rail 0), found "
        f"ip address 172.16.0.1/24 ({A0})"]


def test_gateway_differs_across_the_pair(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail1b", "ip address virtual 172.16.1.1/24", "ip address virtual 172.16.1.254/24")
    lines = verify(gen, capsys)[1]
    assert "FAIL mlag: p1-s1-rail1a Vlan101: expected gateway 172.16.1.254/24 as on p1-s1-rail1b, found " \
           f"172.16.1.1/24 ({A1}, {B1})" in lines
    assert any(re.fullmatch(rf"FAIL address: p1-s1-rail1b Vlan101: expected 172\.16\.1\.1/24 \(ipplan\.csv:\d+\), "
                            rf"found 172\.16\.1\.254/24 \({B1}\)", ln) for ln in lines)
    # the four hosts' bond1 (NIC 1, rail 1) routes through the planned gateway .1, which side b no longer has
    hosts = [ln for ln in lines if ln.startswith("FAIL host-gateway: ")]
    assert [ln.split()[2] for ln in hosts] == [f"p1-s1-gpu00{n}" for n in range(1, 5)]
    assert all("expected routes only via 172.16.1.254 (p1-s1-rail1b Vlan101), found 172.16.1.1" in ln for ln in hosts)
    assert len(lines) == 3 + 4


def test_missing_peer_link_member(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail1b", "   description MLAG peer link p1-s1-rail1a Ethernet32/1\n   speed 800g-8\n"
         "   error-correction encoding reed-solomon\n   channel-group 1000 mode active\n",
         "   description MLAG peer link p1-s1-rail1a Ethernet32/1\n   speed 800g-8\n"
         "   error-correction encoding reed-solomon\n")
    lines = verify(gen, capsys)[1]
    assert "FAIL mlag: p1-s1-rail1b Ethernet32/1: expected a member of the peer link Port-Channel1000 (peer cable " \
           f"p1-s1-rail1a=p1-s1-rail1b#2), found not in a port-channel ({B1})" in lines
    assert "FAIL link: p1-s1-rail1b Ethernet32/1: expected a member of bundle p1-s1-rail1a=p1-s1-rail1b, found not " \
           f"in a port-channel ({B1})" in lines


def test_mlag_domains_disagree(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0b", "   domain-id p1-s1-g1\n   local-interface Vlan4094\n   peer-address 10.32.20.1\n",
         "   domain-id p1-s1-g9\n   local-interface Vlan4094\n   peer-address 10.32.20.7\n")
    edit(gen, "p1-s1-rail0b", "ip virtual-router mac-address 02:1c:73:00:00:01", "ip virtual-router mac-address "
         "021c.7300.0001")  # the same MAC in EOS's dotted form: no failure
    assert verify(gen, capsys)[1][:-1] == [
        f"FAIL mlag: p1-s1-rail0b MLAG domain (peer p1-s1-rail0a): expected domain p1-s1-g1 as on p1-s1-rail0a, "
        f"found p1-s1-g9 ({A0}, {B0})",
        f"FAIL mlag: p1-s1-rail0b MLAG peer address: expected 10.32.20.1 (the local address of p1-s1-rail0a), found "
        f"10.32.20.7 ({A0}, {B0})"]


def test_mlag_peer_session_without_its_reverse(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail1b", "   neighbor 10.32.20.5 peer group MLAG-PEER\n   neighbor 10.32.20.5 description "
         "p1-s1-rail1a\n", "")
    lines = verify(gen, capsys)[1]
    assert f"FAIL bgp: p1-s1-rail1a neighbor 10.32.20.4: expected a reverse session on p1-s1-rail1b to one of this " \
           f"device's addresses, found none ({A1})" in lines


def test_host_port_taken_out_of_its_bond(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0a", "   channel-group 1004 mode active\n", "   switchport access vlan 100\n")
    assert "FAIL host: p1-s1-rail0a Ethernet2/5: expected a member of a port-channel (host bond p1-s1-gpu004:nic0), " \
           f"found access port ({A0})" in verify(gen, capsys)[1]


# ------------------------------------------------------------------------------------------------ arista.eos

def section(text: str, pattern: str) -> str:
    """What `show running-config | section <pattern>` returns: every top-level block whose header matches."""
    out, keep = [], False
    for line in text.splitlines():
        if not line.startswith(" "):
            keep = bool(re.search(pattern, line))
        if keep and line != "!":
            out.append(line)
    return "\n".join(out) + "\n"


PLAY = """
- hosts: sw
  gather_facts: false
  tasks:
{tasks}
    - ansible.builtin.copy:
        content: "{{{{ {{{names}}} | to_json }}}}"
        dest: "{out}"
      delegate_to: localhost
"""
TASK = """    - arista.eos.eos_{module}:
        running_config: "{{{{ lookup('ansible.builtin.file', '{path}') }}}}"
        state: parsed
      register: {module}
"""


def test_arista_eos_collection_parses_the_mlag_sections(rendered: Path, tmp_path: Path) -> None:
    """arista.eos has no offline syntax check (eos_config validates on the switch only); its resource modules'
    `state: parsed` read running-config text with the collection's own parsers, with no device. Fed what the
    switch would return for each module's `show running-config | section ...`, they read the MLAG constructs back
    as rendered. Not covered: `mlag configuration` (no resource module) and `router bgp` (eos_bgp_global's parsed
    state fails under ansible-core 2.19 before reading anything: "Unknown profile name 'module_None_m2c'")."""
    env = ansible_env(tmp_path / "ansible")
    text = config(rendered, "p1-s1-rail0a")
    sources = {"l2_interfaces": "^interface", "l3_interfaces": "^interface", "lag_interfaces": "^interface",
               "vlans": "^vlan"}
    tasks = []
    for module, pattern in sources.items():
        path = tmp_path / f"{module}.txt"
        path.write_text(section(text, pattern))
        tasks.append(TASK.format(module=module, path=path))
    out = tmp_path / "parsed.json"
    names = ", ".join(f"'{m}': {m}.parsed" for m in sources)
    (tmp_path / "play.yml").write_text(PLAY.format(tasks="".join(tasks), names=names, out=out))
    (tmp_path / "inv.yml").write_text(
        "sw:\n  hosts:\n    p1-s1-rail0a:\n      ansible_connection: ansible.netcommon.network_cli\n"
        "      ansible_network_os: arista.eos.eos\n      ansible_host: 127.0.0.1\n      ansible_port: 1\n")
    command = [ansible_bin("ansible-playbook"), "-i", str(tmp_path / "inv.yml"), str(tmp_path / "play.yml")]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    parsed = json.loads(out.read_text())
    l2 = {i["name"]: i for i in parsed["l2_interfaces"]}
    assert l2["Port-Channel1000"] == {"name": "Port-Channel1000", "mode": "trunk",
                                      "trunk": {"trunk_allowed_vlans": ["100", "4094"]}}
    assert l2["Port-Channel1001"] == {"name": "Port-Channel1001", "mode": "access", "access": {"vlan": 100}}
    l3 = {i["name"]: i for i in parsed["l3_interfaces"]}
    assert l3["Vlan100"]["ipv4"] == [{"address": "172.16.0.1/24", "virtual": True}]
    assert l3["Vlan4094"]["ipv4"] == [{"address": "10.32.20.1/31"}]
    lag = {i["name"]: i["members"] for i in parsed["lag_interfaces"]}
    assert lag["Port-Channel1000"] == [{"member": "Ethernet31/1", "mode": "active"},
                                       {"member": "Ethernet32/1", "mode": "active"}]
    assert lag["Port-Channel1003"] == [{"member": "Ethernet2/1", "mode": "active"}]
    assert {"vlan_id": 4094, "name": "MLAG-PEER", "state": "active"} in parsed["vlans"]


def test_host_bond_without_its_mlag_id(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail1a", "   mlag 1003\n", "")
    assert verify(gen, capsys)[1][:-1] == [
        "FAIL mlag: p1-s1-rail1a Port-Channel1003: expected an MLAG id (host bond p1-s1-gpu003:nic1), found none "
        f"({A1})"]
