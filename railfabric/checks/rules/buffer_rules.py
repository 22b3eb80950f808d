"""Lossless buffer rules for SONiC switches (BUF001-BUF003): the model has buffer facts, every PFC port's speed has a
headroom figure, and the lossless headroom of each switch fits its buffer. Figures from railfabric/plan/buffers.py, on
the expanded topology (every cabled port runs the RoCE QoS, as the device model says)."""

from __future__ import annotations

from collections import Counter, defaultdict

from railfabric.checks.rules.uses import Uses
from railfabric.checks.solver.index import LinkIndex, link_index
from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.core.units import format_speed
from railfabric.inventory.intent import Inventory, SwitchBuffers
from railfabric.plan.buffers import SN5600_BUFFERS, headroom_budget, pg_headroom, role_cable
from railfabric.platforms import PLATFORMS
from railfabric.topology import Link, LinkRole, Topology

# What BUF001's hint shows: the block with its fields (values of an NVIDIA SN5600, Spectrum-4, as an example).
BUFFERS_BLOCK = "buffers: {" + ", ".join(f"{k}: {v}" for k, v in SN5600_BUFFERS.items()) + "}"


def check_buffers(inv: Inventory, topo: Topology, src: SourceMap, index: LinkIndex | None = None) -> list[Finding]:
    out: list[Finding] = []
    sonic_models: dict[str, str] = {}  # model → first switch using it whose config carries buffer tables
    for sw in topo.switches.values():
        if PLATFORMS[sw.platform].buffer_tables:
            sonic_models.setdefault(sw.model, sw.name)
    for name, first in sorted(sonic_models.items()):
        if inv.switch_models[name].buffers is None:
            out.append(Finding(
                "BUF001", f"switch model {name!r} has no buffer facts, so its "
                f"{PLATFORMS[topo.switches[first].platform].title} switches (e.g. {first}) cannot be made lossless: "
                "no lossless PG headroom for the RoCE priority", src.key_loc(("switch_models", name)),
                f"add the ASIC's facts to the model, e.g. {BUFFERS_BLOCK}"))
    out += _headroom(inv, topo, src, {m for m in sonic_models if inv.switch_models[m].buffers is not None}, index)
    return out


_NO_QUANTA = -1  # `_room` of a port speed without an IEEE 802.3 pause-quanta figure


def _room(inv: Inventory, models: set[str], platform: str, model: str, speed: int, broken_out: bool,
          role: LinkRole) -> int | None:
    """Bytes of lossless PG headroom that one cabled port of this shape reserves; None when the switch carries no
    buffer tables or its model has no buffer facts, _NO_QUANTA when the speed has no pause-quanta figure."""
    if not PLATFORMS[platform].buffer_tables or model not in models:
        return None
    mtu = min(inv.fabric.mtu, PLATFORMS[platform].max_mtu)
    sm = inv.switch_models[model]
    asic: SwitchBuffers = sm.buffers  # type: ignore[assignment]  # `models` hold only models with buffers
    lanes = sm.serdes_lanes // max(1, sm.speed // speed) if broken_out else sm.serdes_lanes
    room = pg_headroom(asic, speed, role_cable(inv.solver.cable, role.value), mtu, lanes, inv.solver.fiber_ns_per_m)
    return _NO_QUANTA if room is None else room.size


def _headroom(inv: Inventory, topo: Topology, src: SourceMap, models: set[str],
              index: LinkIndex | None = None) -> list[Finding]:
    """BUF003 per (model, speed) without a pause-quanta figure; BUF002 per model, for its worst switch (the first
    in link order of those that need the most)."""
    # the headroom of an end is a function of (platform, model, speed, broken out or not, link role) only: computed
    # once per such shape (None: the switch carries no buffer tables; _NO_QUANTA: no pause-quanta figure), and the
    # ends are counted per (switch, speed, lane, role) first (in C)
    rooms: dict[tuple[str, str, int, bool, LinkRole], int | None] = {}
    switches = topo.switches
    ix = index or link_index(topo)
    demand: dict[str, int] = defaultdict(int)
    for (dev, speed, lane, role), count in Counter(zip(ix.end_devs, ix.end_speeds, ix.end_lanes, ix.end_roles,
                                                       strict=True)).items():
        sw = switches[dev]
        shape = (sw.platform, sw.model, speed, bool(lane), role)
        size = rooms[shape] if shape in rooms else rooms.setdefault(shape, _room(inv, models, *shape))
        if size is None:
            continue
        if size == _NO_QUANTA:
            return _headroom_walk(inv, topo, src, models)
        demand[sw.name] += size * count
    most: dict[str, int] = {}
    for name, need in demand.items():
        model = switches[name].model
        most[model] = max(need, most.get(model, -1))
    over = {model for model, need in most.items() if need + _asic(inv, model).shared_headroom_pool
            > headroom_budget(_asic(inv, model))}
    # without a speed lacking pause quanta, a switch's ends have a headroom all or none (it depends on the switch's
    # platform and model), so "first in link order" is the switch of the first end of any of the tied ones
    tied = {name for name, need in demand.items() if switches[name].model in over
            and need == most[switches[name].model]}
    return _over_budget(inv, src, {model: (most[model], name) for model, name in _first_ends(topo, tied).items()})


def _asic(inv: Inventory, model: str) -> SwitchBuffers:
    return inv.switch_models[model].buffers  # type: ignore[return-value]  # only models with buffers get here


def _first_ends(topo: Topology, names: set[str]) -> dict[str, str]:
    """Model → the first of `names` of that model in link order (a before z; a host link's switch end is z)."""
    switches, host = topo.switches, LinkRole.HOST
    left = {switches[n].model for n in names}
    first: dict[str, str] = {}
    for link in (*topo.links, *topo.peer_links) if left else ():
        for end in (link.z,) if link.role is host else (link.a, link.z):
            name = end.device
            if name in names and switches[name].model not in first:
                first[switches[name].model] = name
                left.discard(switches[name].model)
        if not left:
            break
    return first


def _over_budget(inv: Inventory, src: SourceMap, worst: dict[str, tuple[int, str]]) -> list[Finding]:
    """BUF002 for each model whose worst switch (need, name) does not fit its buffer."""
    out: list[Finding] = []
    for model, (need, name) in sorted(worst.items()):
        asic = _asic(inv, model)
        total = need + asic.shared_headroom_pool
        budget = headroom_budget(asic)
        if total > budget:
            shp = f" + shared headroom pool {asic.shared_headroom_pool:,}" if asic.shared_headroom_pool else ""
            out.append(Finding(
                "BUF002", f"the lossless PGs of {name} (model {model!r}) reserve {need:,} bytes of headroom{shp} = "
                f"{total:,}, but the buffer leaves {budget:,} (total_bytes {asic.total_bytes:,} - "
                f"ingress_lossless_pool {asic.ingress_lossless_pool:,} - ingress_lossy_pool "
                f"{asic.ingress_lossy_pool:,})",
                src.key_loc(("switch_models", model, "buffers")),
                f"shrink the ingress pools by at least {total - budget:,} bytes, use a shared headroom pool, or "
                "shorter cables"))
    return out


def _headroom_walk(inv: Inventory, topo: Topology, src: SourceMap, models: set[str]) -> list[Finding]:
    """`_headroom` end by end, in link order: when some port speed has no pause-quanta figure (BUF003 names the
    first switch of each such (model, speed))."""
    demand: dict[str, int] = defaultdict(int)
    no_quanta: dict[tuple[str, int], tuple[str, Link]] = {}
    # the headroom of an end is a function of (platform, model, speed, broken out or not, link role) only: computed
    # once per such shape (None: the switch carries no buffer tables; _NO_QUANTA: no pause-quanta figure)
    rooms: dict[tuple[str, str, int, bool, LinkRole], int | None] = {}
    switches, host_role = topo.switches, LinkRole.HOST
    for link in (*topo.links, *topo.peer_links):
        role = link.role
        for end in (link.z,) if role is host_role else (link.a, link.z):
            sw = switches[end.device]
            shape = (sw.platform, sw.model, end.speed, bool(end.lane), role)
            size = rooms[shape] if shape in rooms else rooms.setdefault(shape, _room(inv, models, *shape))
            if size is None:
                continue
            if size == _NO_QUANTA:
                no_quanta.setdefault((sw.model, end.speed), (sw.name, link))
                continue
            demand[sw.name] += size
    uses = Uses(inv, topo)
    out = [Finding("BUF003", f"no IEEE 802.3 pause-quanta figure for {format_speed(speed)} ports (e.g. on {name}), "
                   "so their lossless headroom cannot be computed", src.key_loc(("switch_models", model, "buffers")),
                   "run these links at 10G-800G, or extend railfabric/plan/buffers.py PAUSE_QUANTA from IEEE 802.3 "
                   "Annex 31B.3.7 for the new speed", uses=uses.link(link))
           for (model, speed), (name, link) in sorted(no_quanta.items(), key=lambda t: t[0])]
    worst: dict[str, tuple[int, str]] = {}
    for name, need in demand.items():
        model = topo.switches[name].model
        if need > worst.get(model, (-1, ""))[0]:
            worst[model] = (need, name)
    return out + _over_budget(inv, src, worst)
