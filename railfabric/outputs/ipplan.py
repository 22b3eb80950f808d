"""ipplan.csv: every address and prefix the plan hands out, with its owner and purpose (for IPAM import and
reviews).

Schema v1 columns:
- address: `a.b.c.d/len`, empty on an unnumbered link end; interface addresses carry their subnet's length (a host
  NIC `172.16.3.16/24`, a /31 end `10.4.0.1/31`), prefixes are written as the network (`172.16.3.0/24`);
- owner: the device (switch hostname or host name), empty for pools and blocks that belong to nobody;
- interface: where the address is configured (Loopback0, the management port, an Ethernet or port-channel, the rail
  VLAN's SVI, a host NIC port such as nic3p1), empty for summaries and pools;
- purpose: pool | segment-block | loopback | management | management-gateway | p2p | rail-subnet | rail-gateway |
  rail-own | host | aggregate | unnumbered (rail-own: a switch's own address on a rail SVI beside the gateway it
  shares with its MLAG peer, on platforms that need one, Platform.mlag_own_svi_address; unnumbered: below);
- pool: the inventory pool that contains the address (loopbacks, fabric_links, rail_subnets, management), empty
  when it lies outside every pool (a pinned management address, for instance);
- detail: the peer of a /31, the rail and VLAN of a rail subnet, the segment of a block.
Rows are sorted by address numerically, a containing prefix before the addresses inside it (ties: by the row's
text).

On an unnumbered fabric (routing.addressing: unnumbered, RFC 8950) a fabric link end has no address: each end is an
`unnumbered` row with an empty address and pool, its owner and interface, and the peer's device and interface with
"IPv6 link-local" in the detail, so that the plan still lists every link. These rows come after every IPv4
row, by owner then interface (digits as numbers).
A dual-stack fabric (routing.address_families with ipv6) has its IPv6 rows after every IPv4 row, sorted the
same way, with the same purposes and the pools loopbacks_v6 / rail_subnets_v6 (ipv6_rows_text).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import attrgetter, is_not, itemgetter
from socket import AF_INET, inet_pton

from railfabric.core.address import BITS, cidr_key, ntoa, ntoa_many, size
from railfabric.core.address6 import aton6, ntoa6
from railfabric.core.order import natural_key
from railfabric.device import DeviceConfig
from railfabric.device.vlans import Vlan
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.platforms import PLATFORMS
from railfabric.topology import Link, LinkRole, Topology

from ._common import csv_text, host_bond, plain_cells, plain_values
from .state_index import routed_view
from .views import Addresses, RailSubnet, addresses_view, ports_view, rail_subnets_view, vlans_view

TITLE = "railfabric ip plan v1"
HEADER = ("address", "owner", "interface", "purpose", "pool", "detail")

# Names of the interfaces the device model does not name itself (the templates use the same ones).


@dataclass(frozen=True, slots=True)
class PlanAddresses:
    """What the IP plan reads of the allocation plan and the inventory's pools."""
    pools: tuple[tuple[str, int, int], ...]  # (pool, network, length)
    blocks: tuple[tuple[int, int, str], ...]  # (pod, segment, block a.b.c.d/len)
    management_gateway: int | None  # pools.management.gateway, when set
    management_len: int
    host_addr: dict[str, int]  # host link id → NIC address
    # dual-stack (railfabric/plan/allocate_v6.py): the IPv6 pools (pool, prefix text) and each host NIC's IPv6
    # address as text (digested as JSON: no 128-bit ints); empty on an IPv4-only fabric
    pools_v6: tuple[tuple[str, str], ...] = ()
    host_addr_v6: dict[str, str] = field(default_factory=dict)


def plan_addresses(inv: Inventory, plan: Plan) -> PlanAddresses:
    gateway = inv.pools.management.gateway
    v6 = plan.v6
    pools_v6 = () if v6 is None else (("loopbacks_v6", str(v6.loopbacks)), ("rail_subnets_v6", str(v6.rail_pool)))
    return PlanAddresses(tuple((name, p.prefix.net, p.prefix.length) for name, p in plan.pools.items()),
                         tuple((pod, seg, str(block)) for (pod, seg), block in plan.segment_blocks.items()),
                         None if gateway is None else int(gateway), plan.management_len, plan.host_addr,
                         pools_v6, {} if v6 is None else {k: ntoa6(n) for k, n in v6.host_addr.items()})


def ipplan_csv(inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return ipplan_files(plan_addresses(inv, plan), addresses_view(devices), vlans_view(devices),
                        {n: (d.platform, d.management) for n, d in devices.items()}, routed_view(ports_view(devices)),
                        topo.links,
                        rail_subnets_view(plan))


def ipplan_files(plan: PlanAddresses, devices: Mapping[str, Addresses], vlans: Mapping[str, tuple[Vlan, ...]],
                 access: Mapping[str, tuple[str, str]], routed: Mapping[str, tuple[tuple[str, str], ...]],
                 links: Sequence[Link],
                 subnets: Mapping[tuple[str, int], RailSubnet]) -> dict[str, str]:
    """From exactly what the plan shows: the pools and blocks, every switch's addresses, VLANs, platform and
    management address and routed interfaces (state_index.routed_view), the host links with their addresses and the
    rail subnets."""
    text = _plan_text(plan, devices, vlans, access, routed, links, subnets, plain=True)
    if text is None:  # a cell to quote or escape (never in a valid inventory): rows of cells through csv_text
        text = _plan_text(plan, devices, vlans, access, routed, links, subnets, plain=False)
    assert text is not None
    if plan.pools_v6:
        text += ipv6_rows_text(plan, devices, vlans, access, links)
    return {"ipplan.csv": text}


def _plan_text(plan: PlanAddresses, devices: Mapping[str, Addresses], vlans: Mapping[str, tuple[Vlan, ...]],
               access: Mapping[str, tuple[str, str]], routed: Mapping[str, tuple[tuple[str, str], ...]],
               links: Sequence[Link], subnets: Mapping[tuple[str, int], RailSubnet], plain: bool) -> str | None:
    """The IP plan's text; `plain`: each row made as one line of cells joined with _CELL (no tuple per row, no
    join at the end) and written as is, or None when a cell would need csv.writer (see _plain_text)."""
    out = _Rows(plan.pools, plain)
    for name, net, length in plan.pools:
        out.rows.append((net, length, out.row(f"{ntoa(net)}/{length}", "", "", "pool", name, "")))
        out.values.add(name)
    for pod, segment, block in plan.blocks:
        out.add(block, "", "", "segment-block", f"pod {pod} segment {segment}")
    if plan.management_gateway is not None:
        out.add(f"{ntoa(plan.management_gateway)}/{plan.management_len}", "", "", "management-gateway")
    _p2p_rows(out, devices, routed)
    _unnumbered_rows(out, devices)
    _switch_rows(out, devices, vlans, access)
    _host_rows(out, plan.host_addr, links, subnets)
    out.rows.sort()
    if plain:
        return _plain_text(list(map(_ROW, out.rows)), out.proven and plain_values(out.values))
    return csv_text(TITLE, HEADER, list(map(_ROW, out.rows)))


# The plain rows' separators: below every character a cell may hold, so that a line sorts as its cells do (a cell
# before a longer one it begins: the separator sorts first, as the shorter string does in a tuple), and turned into
# ',' and '\n' in one pass at the end.
_CELL, _LINE = "\x1f", "\x1e"
_SEPARATORS = str.maketrans({_CELL: ",", _LINE: "\n"})


def _plain_text(lines: list[str], proven: bool) -> str | None:
    """The CSV text of plain lines, or None when a cell holds what csv.writer would quote or textsafe escape
    (_common.plain_cells): each line has exactly len(HEADER) - 1 cell separators of its own making, so any more is
    a cell's. `proven`: every cell is plain by construction or among the values _common.plain_values passed (_Rows:
    the text is then not searched)."""
    text = _LINE.join(lines)
    if not proven and (text.count(_CELL) != len(lines) * (len(HEADER) - 1)
                       or text.count(_LINE) != max(len(lines) - 1, 0) or not plain_cells(text, _CELL + _LINE)):
        return None
    return csv_text(TITLE, HEADER, []) + text.translate(_SEPARATORS) + ("\n" if lines else "")


_ROW = itemgetter(2)
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def cidr_keys(texts: Sequence[str]) -> list[tuple[int, int]]:
    """cidr_key of each text 'a.b.c.d/len' (cidr_columns, paired)."""
    return list(zip(*cidr_columns(texts), strict=True))


def cidr_columns(texts: Sequence[str]) -> tuple[list[int], list[int]]:
    """The addresses and the prefix lengths of texts 'a.b.c.d/len' (cidr_key of each), in C-level passes, without
    a function call of ours per text (half a million at 131,072 GPUs); any text this refuses (a bad address, no or
    a bad length) goes through cidr_key, which parses it or raises its own error. When every text ends in '/31'
    (the /31 ends) the lengths are cut in one pass over the texts joined."""
    nets, lengths, _strict = _cidr_columns(texts)
    return nets, lengths


def _cidr_columns(texts: Sequence[str]) -> tuple[list[int], list[int], bool]:
    """cidr_columns, and whether every text was read by its strict C-level passes: a dotted quad inet_pton takes,
    '/' and a length of 0 to 32 written without a sign or leading zero, nothing more (a plain cell)."""
    from_bytes = int.from_bytes
    try:
        if (cut := _cut_p2p_lengths(texts)) is not None:
            nets = list(map(from_bytes, map(inet_pton, repeat(AF_INET), cut), repeat("big")))  # type: ignore[arg-type]
            return nets, [_P2P] * len(nets), True
        keys = [(from_bytes(inet_pton(AF_INET, a), "big"), _LENGTHS[n])
                for a, _, n in map(str.partition, texts, repeat("/"))]
    except (OSError, KeyError):
        keys = [cidr_key(t) for t in texts]
        return list(map(_FIRST, keys)), list(map(_SECOND, keys)), False
    return list(map(_FIRST, keys)), list(map(_SECOND, keys)), True


_P2P = 31


def _cut_p2p_lengths(texts: Sequence[str]) -> list[str] | None:
    """The addresses of texts that each hold exactly one '/', followed by '31' and nothing more, else None: the
    joined text then holds as many '/' as texts and as many '/31' before a line end (a text's end), and as many
    line ends as texts (no text holds one)."""
    joined = "\n".join(texts) + "\n"
    n = len(texts)
    if joined.count("\n") != n or joined.count("/") != n or joined.count("/31\n") != n:
        return None
    return joined.replace("/31\n", "\n").split("\n")[:-1]


_LENGTHS = {str(n): n for n in range(BITS + 1)}  # a prefix length's text → its value (nothing else is one)


class _Rows:
    """The plan's rows as (address as an integer, prefix length, row): sorted on the numbers, ties (the same prefix
    on several owners) broken by the row's text; each row names the pool holding its address. `values`: every cell
    (or text inside a cell) the rows hold that is not plain by construction, for _common.plain_values; `proven`:
    False when a cell is neither (the text is then searched)."""

    def __init__(self, pools: Sequence[tuple[str, int, int]], plain: bool) -> None:
        self.pools = sorted((net, net + size(length), name) for name, net, length in pools)
        self.plain = plain
        self.values: set[object] = set()
        self.proven = True
        self.rows: list[tuple[int, int, str | tuple[str, ...]]] = []
        # the pools cut the address space into segments between their bounds; within a segment every address lies
        # in the same pools, so the first pool (in `pools` order) holding the segment's start names all of it
        self._bounds = sorted({x for net, end, _ in self.pools for x in (net, end)})
        self._names = ["", *(self._first_pool(b) for b in self._bounds)]

    def _first_pool(self, n: int) -> str:
        for net, end, name in self.pools:
            if net <= n < end:
                return name
        return ""

    def pool_of(self, n: int) -> str:
        return self._names[bisect_right(self._bounds, n)]

    def pools_of(self, nets: Iterable[int]) -> list[str]:
        """pool_of of each address, in C-level passes."""
        return list(map(self._names.__getitem__, map(bisect_right, repeat(self._bounds), nets)))

    def row(self, *cells: str) -> str | tuple[str, ...]:
        """One row: its line of cells when plain, else the cells."""
        return _CELL.join(cells) if self.plain else cells

    def many(self, *columns: Iterable[str]) -> Iterator[str | tuple[str, ...]]:
        """Rows of the cells in `columns`, one row per position (lines formatted in C when plain)."""
        if self.plain:
            return map(_CELL.join(["{}"] * len(columns)).format, *columns)
        return zip(*columns, strict=True)

    def add(self, address: str, owner: str, interface: str, purpose: str, detail: str = "") -> None:
        n, length = cidr_key(address)
        self.values.update((address, owner, interface, purpose, detail))
        self.rows.append((n, length, self.row(address, owner, interface, purpose, self.pool_of(n), detail)))


def _p2p_rows(out: _Rows, devices: Mapping[str, Addresses], routed: Mapping[str, tuple[tuple[str, str], ...]]) -> None:
    """/31 ends, each naming its peer: the owner and interface of every routed address (_common.routed_owners,
    each address read once). Built column by column in C-level passes (two hundred thousand ends at 65,536 GPUs)."""
    owners: list[str] = []
    ifnames: list[str] = []
    texts: list[str] = []
    for name, dev in devices.items():
        ends = [*routed[name], *dev.port_channels]
        if dev.mlag is not None:
            ends.append((dev.mlag[0], f"{dev.mlag[1]}/{dev.mlag[2]}"))
        owners += repeat(name, len(ends))
        ifnames += map(_FIRST, ends)
        texts += map(_SECOND, ends)
    nets, lengths, strict = _cidr_columns(texts)
    out.proven &= strict  # else the texts are searched with the rest
    out.values.add("p2p")
    out.values.update(owners)
    out.values.update(ifnames)
    # each end's peer by its position (the last end holding an address, as a dict keeps), the detail formatted in
    # the row's own format: no peer text made apart per end
    at = dict(zip(nets, range(len(nets)), strict=True))
    peers = list(map(at.get, map(int.__xor__, nets, repeat(1))))
    pools = out.pools_of(nets)
    out.values.update(pools)
    if None in peers:  # an end without a peer (never in a valid fabric)
        peer_of = {n: f"peer {owners[i]} {ifnames[i]}" for n, i in at.items()}
        details: Iterable[str] = map(peer_of.get, map(int.__xor__, nets, repeat(1)), repeat(""))
        rows = out.many(texts, owners, ifnames, repeat("p2p", len(texts)), pools, details)
    elif out.plain:
        line = _CELL.join(["{}", "{}", "{}", "p2p", "{}", "peer {} {}"])
        rows = map(line.format, texts, owners, ifnames, pools, map(owners.__getitem__, peers),  # type: ignore[arg-type]
                   map(ifnames.__getitem__, peers))  # type: ignore[arg-type]
    else:
        details = map("peer {} {}".format, map(owners.__getitem__, peers),  # type: ignore[arg-type]
                      map(ifnames.__getitem__, peers))  # type: ignore[arg-type]
        rows = out.many(texts, owners, ifnames, repeat("p2p", len(texts)), pools, details)
    out.rows += zip(nets, lengths, rows, strict=True)


_AFTER_EVERY_ADDRESS = 1 << BITS  # the sort key of a row without address: after every IPv4 address


def _unnumbered_rows(out: _Rows, devices: Mapping[str, Addresses]) -> None:
    """One `unnumbered` row per end of an unnumbered session (Addresses.unnumbered): no address, no pool, the peer
    and its interface in the detail. Sorted after the addressed rows by (owner, interface in natural order): the
    rank of that order is the row's second sort key."""
    ends = [(name, *end) for name, dev in devices.items() for end in dev.unnumbered]
    if not ends:
        return
    out.values.add("unnumbered")
    ends.sort(key=lambda e: (e[0], natural_key(e[1])))
    for rank, (name, interface, peer, peer_interface) in enumerate(ends):
        detail = f"peer {peer} {peer_interface} over IPv6 link-local"
        out.values.update((name, interface, detail))
        out.rows.append((_AFTER_EVERY_ADDRESS, rank, out.row("", name, interface, "unnumbered", "", detail)))


def _switch_rows(out: _Rows, devices: Mapping[str, Addresses], vlans: Mapping[str, tuple[Vlan, ...]],
                 access: Mapping[str, tuple[str, str]]) -> None:
    """Each switch's loopback, management address, rail subnets with their gateways and summaries."""
    add = out.add
    for name, dev in devices.items():
        platform_name, management = access[name]
        platform = PLATFORMS[platform_name]
        add(dev.loopback, name, platform.loopback_interface, "loopback")
        add(management, name, platform.management_interface, "management")
        mlag_peer = dev.mlag[3] if dev.mlag else None
        for vlan in vlans[name]:
            svi = f"{platform.svi_prefix}{vlan.id}"
            detail = f"rail {vlan.rail} vlan {vlan.id}"
            add(vlan.prefix, name, svi, "rail-subnet", detail)
            add(vlan.gateway, name, svi, "rail-gateway",
                f"{detail} shared with MLAG peer {mlag_peer}" if vlan.virtual and mlag_peer else detail)
            if vlan.own and mlag_peer:
                add(vlan.own, name, svi, "rail-own", f"{detail} own address beside the gateway shared with MLAG peer "
                    f"{mlag_peer}")
        for prefix in dev.aggregates:
            add(prefix, name, "", "aggregate", "BGP summary-only")


def _host_rows(out: _Rows, host_addr: Mapping[str, int], links: Sequence[Link],
               subnets: Mapping[tuple[str, int], RailSubnet]) -> None:
    """Each host NIC port's address, or each MLAG bond's (one address per bond, listed once: _bond_rows). Without
    bonds the rows are made column by column in C-level passes (131,072 at as many GPUs): the cells a switch and
    rail share are made once per (switch, rail), the addresses' text in one pass (address.ntoa_many)."""
    host_links = list(compress(links, map(LinkRole.HOST.__eq__, map(_LINK_ROLE, links))))
    if any(map(_BUNDLE, host_links)):
        _bond_rows(out, host_addr, host_links, subnets)
        return
    addressed = list(map(host_addr.get, map(_LINK_ID, host_links)))
    if None in addressed:  # a link without an address has no row
        host_links = list(compress(host_links, map(is_not, addressed, repeat(None))))
        addressed = list(compress(addressed, map(is_not, addressed, repeat(None))))
    nets: list[int] = addressed  # type: ignore[assignment]  # no None left
    switches = list(map(_Z_DEVICE, host_links))
    pairs = list(zip(switches, map(_RAIL, host_links), strict=True))
    rails = {pair: _rail_cells(pair, subnets) for pair in dict.fromkeys(pairs)}  # (switch, rail) → its cells
    cells = list(map(rails.__getitem__, pairs))
    slashes, prefixes = list(map(_SECOND, cells)), map(_THIRD, cells)
    texts, owners, pools = ntoa_many(nets), list(map(_A_DEVICE, host_links)), out.pools_of(nets)
    nics, ports = list(map(_NIC, host_links)), list(map(_A_PORT, host_links))
    # the texts are dotted quads (address.ntoa_many); the rest of each cell from these values (the rail cells'
    # ints formatted already)
    out.values.add("host")
    for column in (owners, nics, ports, pools, switches, *zip(*rails.values(), strict=True)):
        out.values.update(column)
    if out.plain:  # format writes the NIC index and port (ints) as the f-string of _bond_rows does
        line = _CELL.join(["{}{}", "{}", "nic{}p{}", "host", "{}", "{}{}"])
        rows: Iterable[str | tuple[str, ...]] = map(line.format, texts, slashes, owners, nics, ports, pools,
                                                     prefixes, switches)
    else:
        rows = out.many(map(str.__add__, texts, slashes), owners, map("nic{}p{}".format, nics, ports),
                        repeat("host", len(nets)), pools, map(str.__add__, prefixes, switches))
    out.rows += zip(nets, map(_FIRST, cells), rows, strict=True)


def _rail_cells(pair: tuple[str, int | None], subnets: Mapping[tuple[str, int], RailSubnet]) -> tuple[int, str, str]:
    """A (switch, rail)'s subnet length, its '/len' and the host rows' detail up to the switch."""
    sub = subnets[pair]  # type: ignore[index]
    return sub.length, f"/{sub.length}", f"rail {pair[1]} vlan {sub.vlan} via "


def _bond_rows(out: _Rows, host_addr: Mapping[str, int], host_links: Sequence[Link],
               subnets: Mapping[tuple[str, int], RailSubnet]) -> None:
    """_host_rows where some host links are MLAG bond members: link by link."""
    bonds: dict[str, list[str]] = {}  # MLAG host bond → the switches it lands on
    for link in host_links:
        if link.bundle:
            bonds.setdefault(link.bundle, []).append(link.z.device)
    rails: dict[tuple[str, int | None], tuple[int, str, str]] = {}  # (switch, rail) → length, "/len", detail
    nets: list[int] = []
    lengths: list[int] = []
    slashes: list[str] = []
    cells: list[tuple[str, str, str]] = []  # owner, interface, detail
    for link in host_links:
        n = host_addr.get(link.id)
        if n is None:
            continue
        sw = link.z.device
        if (rail := rails.get((sw, link.rail))) is None:
            rail = rails[(sw, link.rail)] = _rail_cells((sw, link.rail), subnets)
        if link.bundle is None:
            cells.append((link.a.device, f"nic{link.nic}p{link.a.port}", rail[2] + sw))
        elif (switches := bonds.pop(link.bundle, None)) is not None:
            cells.append((link.a.device, host_bond(link.nic or 0), f"{rail[2]}MLAG {' + '.join(switches)}"))
        else:
            continue
        nets.append(n)
        lengths.append(rail[0])
        slashes.append(rail[1])
    texts = map(str.__add__, ntoa_many(nets), slashes)
    owners, interfaces, details = zip(*cells, strict=True) if cells else ((), (), ())
    pools = out.pools_of(nets)
    for column in (owners, interfaces, details, pools, slashes):
        out.values.update(column)
    rows = out.many(texts, owners, interfaces, repeat("host", len(nets)), pools, details)
    out.rows += zip(nets, lengths, rows, strict=True)


_LINK_ROLE, _LINK_ID, _BUNDLE, _RAIL, _NIC = (attrgetter("role"), attrgetter("id"), attrgetter("bundle"),
                                             attrgetter("rail"), attrgetter("nic"))
_A_DEVICE, _A_PORT, _Z_DEVICE = attrgetter("a.device"), attrgetter("a.port"), attrgetter("z.device")


# --------------------------------------------------------------------------- dual-stack: the IPv6 rows


def ipv6_rows_text(plan: PlanAddresses, devices: Mapping[str, Addresses], vlans: Mapping[str, tuple[Vlan, ...]],
                   access: Mapping[str, tuple[str, str]], links: Sequence[Link]) -> str:
    """The IPv6 rows of a dual-stack plan, after every IPv4 row, in the same columns and the same order (numeric,
    a containing prefix first, ties by the row's text): the v6 pools, each switch's loopback /128, each rail VLAN's
    /64, gateway and own address, each IPv6 summary, each host NIC port's address. The cells are IPv6 texts
    (RFC 5952), names railfabric made and the purposes of the IPv4 rows: nothing to quote."""
    from ipaddress import IPv6Network

    nets = [(name, IPv6Network(text)) for name, text in plan.pools_v6]
    pools = [(int(net.network_address), int(net.network_address) + net.num_addresses, name) for name, net in nets]

    def pool_of(n: int) -> str:
        return next((name for net, end, name in pools if net <= n < end), "")

    rows: list[tuple[int, int, str]] = []

    def add(address: str, owner: str, interface: str, purpose: str, detail: str = "") -> None:
        text, _, length = address.partition("/")
        n = aton6(text)
        rows.append((n, int(length), ",".join((address, owner, interface, purpose, pool_of(n), detail))))

    for pool_name, net in nets:  # a pool's row names the pool itself (as the IPv4 pool rows do)
        rows.append((int(net.network_address), net.prefixlen, ",".join((str(net), "", "", "pool", pool_name, ""))))
    for name, dev in devices.items():
        platform = PLATFORMS[access[name][0]]
        if dev.loopback_v6:
            add(dev.loopback_v6, name, platform.loopback_interface, "loopback")
        mlag_peer = dev.mlag[3] if dev.mlag else None
        for vlan in vlans[name]:
            if not vlan.gateway_v6:
                continue
            svi = f"{platform.svi_prefix}{vlan.id}"
            detail = f"rail {vlan.rail} vlan {vlan.id}"
            net6 = IPv6Network(vlan.prefix_v6)
            add(f"{net6.network_address.compressed}/{net6.prefixlen}", name, svi, "rail-subnet", detail)
            add(vlan.gateway_v6, name, svi, "rail-gateway",
                f"{detail} shared with MLAG peer {mlag_peer}" if vlan.virtual and mlag_peer else detail)
            if vlan.own_v6 and mlag_peer:
                add(vlan.own_v6, name, svi, "rail-own", f"{detail} own address beside the gateway shared with MLAG "
                    f"peer {mlag_peer}")
        for prefix in dev.aggregates_v6:
            add(prefix, name, "", "aggregate", "BGP summary-only")
    rail_vlan = {(n, v.rail): v.id for n, vs in vlans.items() for v in vs if v.gateway_v6}
    bonds: dict[str, list[str]] = {}  # MLAG host bond → the switches it lands on (as _bond_rows)
    for link in links:
        if link.role is LinkRole.HOST and link.bundle:
            bonds.setdefault(link.bundle, []).append(link.z.device)
    for link in links:
        addr = plan.host_addr_v6.get(link.id)
        vlan_id = rail_vlan.get((link.z.device, link.rail))  # type: ignore[arg-type]
        if link.role is not LinkRole.HOST or addr is None or vlan_id is None:
            continue
        detail = f"rail {link.rail} vlan {vlan_id} via "
        if link.bundle is None:
            add(f"{addr}/64", link.a.device, f"nic{link.nic}p{link.a.port}", "host", detail + link.z.device)
        elif (switches := bonds.pop(link.bundle, None)) is not None:
            add(f"{addr}/64", link.a.device, host_bond(link.nic or 0), "host",
                f"{detail}MLAG {' + '.join(switches)}")
    rows.sort()
    return "".join(row + "\n" for _n, _l, row in rows)
