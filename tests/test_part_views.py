"""The cheap encodings behind the artifact parts' digests (railfabric/outputs/views.py, railfabric/outputs/digest.py)
and the host routes' prefix merge and switch components (railfabric/hosts/routes.py): exact values derived by hand."""

from __future__ import annotations

import hashlib
from dataclasses import fields, replace
from types import SimpleNamespace
from typing import cast

import netaddr
import pytest
from hypothesis import given
from hypothesis import strategies as st

from railfabric.core.address import Prefix
from railfabric.hosts.routes import _components, merge_prefixes
from railfabric.outputs import views
from railfabric.outputs.digest import ItemsDigest, combine
from railfabric.outputs.state_index import routed_view
from railfabric.outputs.views import (
    FLAT_LINK_FIELDS,
    LINK_FIELDS,
    link_values,
    links_digest,
    ports_and_routed,
    sessions_digested,
)
from railfabric.topology import End, Link, LinkRole, Topology


def _p(text: str) -> Prefix:
    return Prefix.parse(text)


@pytest.mark.parametrize(("given_", "merged"), [
    ([], []),
    (["10.0.0.0/24"], ["10.0.0.0/24"]),
    # two halves of 10.0.0.0/23 (10.0.0.0 .. 10.0.1.255): one route
    (["10.0.1.0/24", "10.0.0.0/24"], ["10.0.0.0/23"]),
    # adjacent but 10.0.1.0 is no /23 boundary (1·256 is odd in /24 units): both stay
    (["10.0.1.0/24", "10.0.2.0/24"], ["10.0.1.0/24", "10.0.2.0/24"]),
    # three /24s from 10.0.0.0: the first two make the /23, the third (10.0.2.0, even /24 but the /23 from there
    # would need 10.0.3.0) stays a /24
    (["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"], ["10.0.0.0/23", "10.0.2.0/24"]),
    # a /24 inside a /16 and a duplicate: the /16 alone
    (["10.0.5.0/24", "10.0.0.0/16", "10.0.0.0/16"], ["10.0.0.0/16"]),
    # four /26 of 10.1.0.0/24 out of order with a gap after it: the /24, and 10.1.2.0/25 apart
    (["10.1.0.192/26", "10.1.2.0/25", "10.1.0.64/26", "10.1.0.0/26", "10.1.0.128/26"],
     ["10.1.0.0/24", "10.1.2.0/25"]),
])
def test_merge_prefixes(given_: list[str], merged: list[str]) -> None:
    assert [str(p) for p in merge_prefixes(_p(t) for t in given_)] == merged


@given(st.lists(st.tuples(st.integers(0, (1 << 20) - 1), st.integers(12, 32)), max_size=30))
def test_merge_prefixes_is_the_cidr_cover(raw: list[tuple[int, int]]) -> None:
    # the minimal CIDR cover of a union of prefixes is unique: netaddr's cidr_merge (used before) must agree
    # prefixes inside 10.0.0.0/8: an address 10.0.0.0 + n·16 with its host bits cleared for the length
    prefixes = [Prefix(((0x0A000000 + (n << 4)) >> (32 - length)) << (32 - length), length) for n, length in raw]
    want = [str(n) for n in sorted(netaddr.cidr_merge([str(p) for p in prefixes]))]
    assert [str(p) for p in merge_prefixes(prefixes)] == want


def _link(i: int, role: LinkRole, a: str, z: str) -> Link:
    return Link(f"L{i}", role, End(a, i, 0, 400), End(z, i + 1, 0, 400))


def test_components_follow_fabric_core_and_peer_links_only() -> None:
    # s1-s2 (fabric) and s2-ss1 (core) join {s1, s2, ss1}; r1-r2 only through an MLAG peer link; r3 reaches s3 only
    # through a host link (which does not count): r3 and s3 stay alone. Each component is named by its smallest name
    topo = SimpleNamespace(
        switches={n: None for n in ("s1", "s2", "ss1", "r1", "r2", "r3", "s3")},
        links=[_link(1, LinkRole.FABRIC, "s1", "s2"), _link(2, LinkRole.CORE, "s2", "ss1"),
               _link(3, LinkRole.HOST, "r3", "s3"), _link(4, LinkRole.FABRIC, "h9", "s3")],
        peer_links=[_link(5, LinkRole.FABRIC, "r2", "r1")])
    assert _components(cast(Topology, topo)) == {"s1": "s1", "s2": "s1", "ss1": "s1", "r1": "r1", "r2": "r1",
                                                 "r3": "r3", "s3": "s3"}


def test_link_values_hold_every_field_of_a_link_and_its_ends() -> None:
    # Link's fields with each end (a, z: End) spelled out as End's four fields, in order
    ends = {f.name for f in fields(Link) if f.name in ("a", "z")}
    assert ends == {"a", "z"}
    want: list[str] = []
    for f in LINK_FIELDS:
        want += [f"{f}.{e}" for e in ("device", "port", "lane", "speed")] if f in ends else [f]
    assert list(FLAT_LINK_FIELDS) == want
    lk = Link("L7", LinkRole.HOST, End("h1", 2, 0, 200), End("r1", 9, 2, 200), rail=3, nic=3, host_number=1,
              bundle="b1", net_slot=5, channel=11)
    assert link_values([lk]) == [("L7", LinkRole.HOST, "h1", 2, 0, 200, "r1", 9, 2, 200, 3, 3, 1, "b1", 5, 11)]
    # one value per flat field
    assert len(link_values([lk])[0]) == len(FLAT_LINK_FIELDS)


@pytest.mark.parametrize("chunk", [1, 2048])  # each link its own chunk, or both in one
def test_one_changed_value_anywhere_changes_the_links_digest(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "LINK_CHUNK", chunk)
    links = [Link("L1", LinkRole.FABRIC, End("r1", 1, 0, 400), End("s1", 3, 0, 400), net_slot=0),
             Link("L2", LinkRole.HOST, End("h1", 1, 0, 400), End("r1", 9, 1, 200), rail=0, nic=0, host_number=1)]
    base = links_digest(links)
    changed = {"id": "L9", "role": LinkRole.CORE, "rail": 7, "nic": 7, "host_number": 7, "bundle": "x", "net_slot": 7,
               "channel": 7}
    seen = {base}
    for i in range(len(links)):
        for name, value in changed.items():
            edited = [replace(lk, **{name: value}) if j == i else lk for j, lk in enumerate(links)]
            seen.add(links_digest(edited))
        for end in ("a", "z"):
            for k, v in enumerate(("hX", 77, 7, 100)):
                old = getattr(links[i], end)
                new_end = End(*(v if m == k else x for m, x in enumerate(old)))
                edited = [replace(lk, **{end: new_end}) if j == i else lk for j, lk in enumerate(links)]
                seen.add(links_digest(edited))
    # every edit (8 fields and 2 × 4 end fields, on each of the 2 links) gives its own digest
    assert len(seen) == 1 + 2 * (8 + 8)
    assert links_digest(links[::-1]) != base  # the order counts


def test_links_digest_is_each_chunk_by_its_first_index(monkeypatch: pytest.MonkeyPatch) -> None:
    # ItemsDigest("links") of (first index, link_values of the chunk): with chunks of 1, [0, [L1]] then [1, [L2]];
    # a link: id, role, a's device/port/lane/speed, z's, rail, nic, host_number, bundle, net_slot, channel
    links = [Link("L1", LinkRole.FABRIC, End("r1", 1, 0, 400), End("s1", 3, 0, 400), net_slot=0),
             Link("L2", LinkRole.HOST, End("h1", 1, 0, 400), End("r1", 9, 1, 200), rail=0, nic=0, host_number=1)]
    l1 = b'["L1","fabric","r1",1,0,400,"s1",3,0,400,null,null,null,null,0,null]'
    l2 = b'["L2","host","h1",1,0,400,"r1",9,1,200,0,0,1,null,null,null]'
    monkeypatch.setattr(views, "LINK_CHUNK", 1)
    assert links_digest(links) == hashlib.sha256(b"links\0[0,[" + l1 + b"]][1,[" + l2 + b"]]").hexdigest()
    monkeypatch.setattr(views, "LINK_CHUNK", 2)
    assert links_digest(links) == hashlib.sha256(b"links\0[0,[" + l1 + b"," + l2 + b"]]").hexdigest()


def test_routed_view_keeps_the_addressed_interfaces_in_order() -> None:
    ports = {"r1": ((1, 0, "Ethernet0", "10.0.0.0/31", "s1", "Ethernet8", "fabric"),
                    (2, 0, "Ethernet4", None, "", "", ""),
                    (3, 1, "Ethernet8", "10.0.0.2/31", "s2", "Ethernet9", "fabric")),
             "r2": ((1, 0, "Ethernet0", None, "h1", "nic0p1", "host"),)}
    assert routed_view(ports) == {"r1": (("Ethernet0", "10.0.0.0/31"), ("Ethernet8", "10.0.0.2/31")), "r2": ()}


def test_combine_is_each_part_then_a_nul() -> None:
    # sha256("a\0b\0") and sha256("") by hand; a generator is read like a list
    assert combine(["a", "b"]) == hashlib.sha256(b"a\x00b\x00").hexdigest()
    assert combine(p for p in ["a", "b"]) == combine(["a", "b"])
    assert combine([]) == hashlib.sha256(b"").hexdigest()
    assert combine([""]) == hashlib.sha256(b"\x00").hexdigest()
    assert combine(["ab"]) != combine(["a", "b"])


def test_cidr_keys_read_like_cidr_key() -> None:
    from railfabric.outputs.ipplan import cidr_keys

    # 10.4.0.1 = 10·2^24 + 4·2^16 + 1 = 167,772,160 + 262,144 + 1; 192.168.15.3 = 3,232,239,363
    assert cidr_keys(["10.4.0.1/31", "192.168.15.3/24", "0.0.0.0/0"]) == [(167772160 + 262144 + 1, 31),
                                                                           (3232239363, 24), (0, 0)]
    assert cidr_keys([]) == []
    # no length: cidr_key's /32; a bad address or length: cidr_key's ValueError
    assert cidr_keys(["10.0.0.1/31", "10.0.0.9"]) == [(167772161, 31), (167772169, 32)]
    # lengths the fast pass does not know are cidr_key's reading too (it does not check them: /33, "031")
    assert cidr_keys(["10.0.0.0/33", "10.0.0.2/031"]) == [(167772160, 33), (167772162, 31)]
    for bad in (["10.0.0.1/31", "10.0.0.256/31"], ["10.1/8"], ["10.0.0.1/x"]):
        with pytest.raises(ValueError):
            cidr_keys(bad)


@given(st.text(max_size=12))
def test_yaml_quoting_is_json(text: str) -> None:
    import json

    from railfabric.outputs.ansible_yaml import _quoted

    assert _quoted(text) == json.dumps(text)


def test_yaml_values_mark_jinja_openers_unsafe() -> None:
    from railfabric.outputs.ansible_yaml import _value

    # every opener ({{ {% {#) is marked; a lone brace, a plain and a quoted text are not
    assert [_value(t) for t in ("a{{b", "{%x", "x {# y", "a{b", "abc", "a b")] == [
        '!unsafe "a{{b"', '!unsafe "{%x"', '!unsafe "x {# y"', '"a{b"', "abc", '"a b"']


def test_docs_topology_digest_skips_only_management_and_override() -> None:
    from railfabric.outputs.digest import value_digest
    from railfabric.outputs.views import DOCS_SWITCH_FIELDS, docs_topology_values
    from railfabric.topology import Role, Switch

    sw = Switch("p1-s1-rail0", "p1-s1-rail0", Role.RAIL, 1, 1, 1, "m1", "eos", 3, 4, ("pods", 0), (0, 1), 0, 0, None,
                "r1", None, frozenset({9}), False)
    changed = {"key": "k", "name": "n", "role": Role.SPINE, "pod": 2, "segment": 2, "index": 2, "model": "m2",
               "platform": "sonic", "slot": 7, "tier_slot": 7, "src": ("pods", 1), "rails": (2,), "side": 1,
               "group": 1, "plane": 1, "rack": "r2", "management": 167772161, "disabled_ports": frozenset({8}),
               "overridden": True, "asn": 4200199999, "loopback": 167772162, "router_id": 167772163}
    assert set(changed) == {f.name for f in fields(Switch)}  # a new Switch field must be added here

    def digest(s: Switch) -> str:
        return value_digest(docs_topology_values(Topology(switches={"p1-s1-rail0": s})))

    base = digest(sw)
    moved = {name for name, value in changed.items() if digest(replace(sw, **{name: value})) != base}
    assert moved == set(DOCS_SWITCH_FIELDS) == {f.name for f in fields(Switch)} - {"management", "overridden"}
    # the links and peer links are digested apart, every other field of the topology here
    assert len(docs_topology_values(Topology())) == len(fields(Topology)) - 2


def test_items_digest_hashes_a_tag_then_each_pair_as_json() -> None:
    # the tag, a NUL, then each pair dumped as the JSON list [key, value]: here ["a",[1,"x"]] and ["b",null]
    d = ItemsDigest("t")
    d.add("a", (1, "x"))
    d.add("b", None)
    assert d.hexdigest() == hashlib.sha256(b't\0["a",[1,"x"]]["b",null]').hexdigest()


def _iface(name: str, port: int, lane: int, ipv4: str | None, peer: str, peer_if: str, role: str) -> object:
    return SimpleNamespace(name=name, port=port, lane=lane, ipv4=ipv4, peer=peer, peer_interface=peer_if, role=role)


def _switches() -> dict[str, object]:
    # r1: a routed port and an unrouted host port; s1: one routed port back to r1
    return {"r1": SimpleNamespace(interfaces=[_iface("Ethernet1", 1, 0, "10.0.0.0/31", "s1", "Ethernet9", "fabric"),
                                              _iface("Ethernet2", 2, 1, None, "h1", "eth0", "host")]),
            "s1": SimpleNamespace(interfaces=[_iface("Ethernet9", 9, 0, "10.0.0.1/31", "r1", "Ethernet1", "fabric")])}


def test_ports_and_routed_views_and_their_digests() -> None:
    ports, routed = ports_and_routed(cast(dict, _switches()))
    # Port = (port, lane, name, ipv4, peer, peer_interface, role); routed: (name, ipv4) of the addressed ones
    assert ports.view == {"r1": ((1, 0, "Ethernet1", "10.0.0.0/31", "s1", "Ethernet9", "fabric"),
                                 (2, 1, "Ethernet2", None, "h1", "eth0", "host")),
                          "s1": ((9, 0, "Ethernet9", "10.0.0.1/31", "r1", "Ethernet1", "fabric"),)}
    assert routed.view == {"r1": (("Ethernet1", "10.0.0.0/31"),), "s1": (("Ethernet9", "10.0.0.1/31"),)}
    assert routed.view == routed_view(ports.view)
    assert ports.digest == hashlib.sha256(
        b'ports\0["r1",[[1,0,"Ethernet1","10.0.0.0/31","s1","Ethernet9","fabric"],[2,1,"Ethernet2",null,"h1","eth0",'
        b'"host"]]]["s1",[[9,0,"Ethernet9","10.0.0.1/31","r1","Ethernet1","fabric"]]]').hexdigest()
    assert routed.digest == hashlib.sha256(
        b'routed\0["r1",[["Ethernet1","10.0.0.0/31"]]]["s1",[["Ethernet9","10.0.0.1/31"]]]').hexdigest()


@pytest.mark.parametrize("field", ["name", "port", "lane", "ipv4", "peer", "peer_interface", "role"])
def test_any_port_value_changes_the_ports_digest(field: str) -> None:
    base_ports, base_routed = ports_and_routed(cast(dict, _switches()))
    for switch, index in (("r1", 0), ("r1", 1), ("s1", 0)):
        devices = _switches()
        iface = cast(SimpleNamespace, devices[switch]).interfaces[index]
        setattr(iface, field, "10.9.9.9/31" if field == "ipv4" else 77 if field in ("port", "lane") else "other")
        ports, routed = ports_and_routed(cast(dict, devices))
        assert ports.digest != base_ports.digest
        # the routed view holds the name and address of the addressed ports only (r1's port 2 has none until now)
        shown = field in ("name", "ipv4") and (iface.ipv4 is not None)
        assert (routed.digest != base_routed.digest) == shown
    swapped = {"s1": _switches()["s1"], "r1": _switches()["r1"]}
    assert ports_and_routed(cast(dict, swapped))[0].digest != base_ports.digest  # the order counts


def _bgp_switch(asn: int, bfd: bool, neighbors: list[tuple[str, str, int]]) -> object:
    group = SimpleNamespace(name="FABRIC", bfd=bfd,
                            neighbors=[SimpleNamespace(ip=i, local_ip=loc, remote_as=r) for i, loc, r in neighbors])
    return SimpleNamespace(bgp=SimpleNamespace(asn=asn, peer_groups=[group]))


def test_sessions_view_and_any_value_changes_its_digest() -> None:
    base = sessions_digested(cast(dict, {"r1": _bgp_switch(65001, True, [("10.0.0.1", "10.0.0.0", 65100)])}))
    # Sessions = (asn, ((group, bfd, ((ip, local_ip, remote_as), ...)), ...))
    assert base.view == {"r1": (65001, (("FABRIC", True, (("10.0.0.1", "10.0.0.0", 65100),)),))}
    assert base.digest == hashlib.sha256(b'sessions\0["r1",[65001,[["FABRIC",true,[["10.0.0.1","10.0.0.0",65100]]]]]]'
                                         ).hexdigest()
    for asn, bfd, neighbor in ((65002, True, ("10.0.0.1", "10.0.0.0", 65100)),
                               (65001, False, ("10.0.0.1", "10.0.0.0", 65100)),
                               (65001, True, ("10.0.0.3", "10.0.0.0", 65100)),
                               (65001, True, ("10.0.0.1", "10.0.0.2", 65100)),
                               (65001, True, ("10.0.0.1", "10.0.0.0", 65101))):
        other = sessions_digested(cast(dict, {"r1": _bgp_switch(asn, bfd, [neighbor])}))
        assert other.digest != base.digest
