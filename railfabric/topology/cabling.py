"""Explicit cabling (`cabling:`): a pinned host link gets the switch end the inventory names; a link taken off
because its generated port is disabled is put back at its place in the link order."""

from __future__ import annotations

from railfabric.inventory.intent import Inventory
from railfabric.topology.model import End, Link, LinkRole, Topology


def apply_cabling(inv: Inventory, topo: Topology) -> None:
    """Replace the switch end of host links pinned under `cabling:` (identity of the link stays). A host link that
    was taken off (its generated port is disabled) is put back, at its place in the link order."""
    index = {link.id: i for i, link in enumerate(topo.links) if link.role is LinkRole.HOST}
    off = {link.id: k for k, (link, _pos, _end) in enumerate(topo.off) if link.role is LinkRole.HOST}
    back: dict[int, tuple[int, Link]] = {}  # index in topo.off → (position, link)
    for ci, cable in enumerate(inv.cabling):
        path = ("cabling", ci)
        link_id = f"{cable.host}:nic{cable.nic}p{cable.nic_port}"
        if link_id not in index and link_id not in off:
            what = "host" if cable.host not in topo.hosts else "NIC port"
            topo.bad_cables.append((path, f"cabling[{ci}]: no {what} {cable.host} nic{cable.nic} port "
                                          f"{cable.nic_port} in the fabric"))
            continue
        if cable.switch not in topo.switches:
            topo.bad_cables.append(((*path, "switch"), f"cabling[{ci}]: no switch named {cable.switch!r}"))
            continue
        if link_id in off:
            link, pos, _end = topo.off[off[link_id]]
            back[off[link_id]] = (pos, link)
        else:
            link = topo.links[index[link_id]]
        link.z = End(cable.switch, cable.port, cable.lane, link.z.speed)
        topo.pinned.add(link_id)
    if back:
        _put_back(topo, back)


def _put_back(topo: Topology, back: dict[int, tuple[int, Link]]) -> None:
    """Merge re-cabled links back into `topo.links` where expansion would have placed them."""
    at: dict[int, list[Link]] = {}
    for pos, link in sorted(back.values(), key=lambda t: t[0]):
        at.setdefault(pos, []).append(link)
    merged: list[Link] = []
    for i, link in enumerate(topo.links):
        merged.extend(at.get(i, ()))
        merged.append(link)
    merged.extend(at.get(len(topo.links), ()))
    topo.links = merged
    topo.off = [entry for k, entry in enumerate(topo.off) if k not in back]
