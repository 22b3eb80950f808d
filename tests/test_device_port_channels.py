"""railfabric/device/port_channels.py: routed fabric bundles from hand-made link-walk output."""

from __future__ import annotations

from railfabric.device.interfaces import Interface
from railfabric.device.port_channels import fabric_port_channels
from railfabric.plan.allocate import Plan
from railfabric.topology import End, Link, LinkRole

NET = (10 << 24) + (4 << 16) + 64  # 10.4.0.64: the bundle's /31, upper end .64, lower end .65


def _member(port: int) -> Interface:
    return Interface(f"Ethernet{(port - 1) * 8}", port, 0, 800, "member", True, "p1-spine1", 9214, qos=True,
                     peer="p1-spine1", role="fabric")


def _bundle(limit: int | None):
    plan = Plan()
    plan.p2p["r0>s1#pc1"] = NET
    links = [Link(f"r0>s1#{k}", LinkRole.FABRIC, End("r0", port, 0, 800), End("p1-spine1", 10 + k, 0, 800),
                  bundle="r0>s1#pc1") for k, port in ((1, 34), (2, 33))]
    used = {(34, 0): _member(34), (33, 0): _member(33)}
    # the walk met port 34 first; I am the lower end (a) of both links
    channels = {"r0>s1#pc1": [(34, 0, links[0], False), (33, 0, links[1], False)]}
    return fabric_port_channels(channels, used, plan, lambda n: f"PortChannel{n}", limit), used


def test_bundle_numbered_by_its_lowest_port() -> None:
    (pc,), used = _bundle(None)
    assert (pc.name, pc.number, pc.members) == ("PortChannel33", 33, ("Ethernet256", "Ethernet264"))
    assert (pc.ipv4, pc.peer, pc.description, pc.mtu, pc.mode) == (
        "10.4.0.65/31", "p1-spine1", "p1-spine1 pc1", 9214, "routed")  # lower end .65; the members' MTU
    assert pc.min_links == 2  # default: every member
    assert used[(34, 0)].channel == "PortChannel33" and used[(33, 0)].channel_number == 33


def test_min_links_limit() -> None:
    assert _bundle(1)[0][0].min_links == 1
    assert _bundle(3)[0][0].min_links == 2  # never more than the members
