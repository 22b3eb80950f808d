"""Lossless buffers on SONiC: pools, profiles, per-port PG and queue assignments, cable lengths.

Model: SONiC's *traditional* buffer model (`DEVICE_METADATA.buffer_model: traditional`), every table written in
config_db.json by us. Why not the dynamic model: the push is a full `config replace`, and what it replaces must be
reviewable and verifiable offline. In the traditional model every headroom byte is in generated/, tested here and
readable by the parse-back verifier; in the dynamic model buffermgrd computes profiles and pool sizes at run time
from STATE_DB facts we cannot see, and switching a running box from one model to the other needs a `config reload`
(not a GCU replace). buffermgrd (traditional, `-l pg_profile_lookup.ini`) still runs: for a port with `pfc_enable`
and a CABLE_LENGTH it names the profile `pg_lossless_<speed Mb/s>_<cable>_profile`; when that profile already exists
in CONFIG_DB it reuses it and leaves our BUFFER_PG entry alone (sonic-swss cfgmgr/buffermgr.cpp
doSpeedUpdateTask, "Reusing existing profile"). So we use exactly that name: buffermgrd then writes nothing that a
later `config replace` would delete. (It does log "No PG profile configured for speed ... and cable length ..." for
a speed/cable pair missing from the SKU's ini, before it finds our profile; that log is harmless.)

Headroom of a lossless PG (per distinct speed, cable length, MTU and lane count): the formula of SONiC's dynamic
buffer calculation for NVIDIA Spectrum, sonic-swss cfgmgr/buffer_headroom_mellanox.lua (@e6b0c5b5), taken as a fact
and written out here; its terms are IEEE 802.1Qbb Annex N's delay model (cable delay, interface delay, higher-layer
response):

    peer response   = pause_quanta(speed) x 512 bit / 8        IEEE 802.3 Annex 31B.3.7: how long the peer may
                                                                keep sending after receiving PAUSE (quanta below)
    cable           = 2 x cable_m x fiber_ns_per_m x speed / 8   round trip: PAUSE travels out, data still comes back
    tile            = speed x tile_delay_ns / 8                  Spectrum-4/5 in-ASIC delay (120 ns)
    delay           = port MTU (the frame the peer is sending when PAUSE lands) + cable + mac_phy_delay
                      + peer response + tile
    cell occupancy  = ceil(cell / 64) when cell > 128 (else ceil(2 cell / (cell + 1))): every byte in flight may be
                      a 64-byte frame that takes a whole cell (SONiC's small_packet_percentage 100, the worst case)
    xoff            = ceil_1KiB(lossless MTU 1024 (the frame we are sending) + delay x cell occupancy)
    xon             = ceil_1KiB(pipeline latency, x2 on 8-lane ports)
    size            = ceil_1KiB(xon + xoff + (port MTU on 8-lane ports))   without a shared headroom pool
                      ceil_1KiB(xon)                                       with one (xoff comes from the pool)
    threshold       = the model's lossless_pg_dynamic_th (the SKU ini's threshold column, 0 on SN5600)

Sanity check (tests/test_buffers.py): with SONiC's propagation speed (198,000,000 m/s = 5.0505 ns/m) and the
Spectrum-4 ASIC_TABLE constants (cell 192, pipeline_latency 19 KiB, mac_phy_delay 0.8 KiB; platform/mellanox/
asic_table.j2), the formula gives xon and xoff of all 24 rows of ACS-SN5600/pg_profile_lookup.ini exactly and the
size of 21 rows exactly; 40G 5m, 800G 5m and 800G 300m come out 1,024 bytes (one rounding step) larger than the ini
(for 40G 5m the ini's size is even below its own xon + xoff). The inventory's solver.fiber_ns_per_m (5.0 by default)
is used as given, so an example 800G 5m profile would be 1 KiB smaller than the ini's.

Cable lengths: CABLE_LENGTH values must match `[0-9]+m` (sonic-cable-length.yang), so the solver's per-tier lengths
are rounded UP to whole metres (rounding down would leave less headroom than the cable needs) and never below 1 m
(buffermgrd treats "0m" as "no lossless PG"). Ports without PFC (unused or disabled) get "0m": SONiC's templates give
every port a length (buffermgrd retries a port without one forever), and "0m" tells buffermgrd to build no lossless
PG for it (buffermgr.cpp: "Not creating/updating PG profile ... Cable length is set to 0m"); no buffer is reserved.

Profile and pool names and shapes follow the SN5600 SKU (sonic-buildimage device/mellanox/x86_64-mlnx_msn2700-r0/
ACS-MSN2700/buffers_defaults_objects.j2, symlinked from ACS-SN5600), with the sizes and thresholds from the model's
`buffers:` facts. PG and queue indexes come from the device model's Qos maps (tc_to_pg, pfc_to_queue), so the buffer
tables and PORT_QOS_MAP always agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from railfabric.inventory.intent import CableLengths, SwitchBuffers

# IEEE 802.3 Annex 31B.3.7 pause quanta (512 bit times) a station may take to act on PAUSE, per speed in Gbit/s,
# as tabulated in sonic-swss cfgmgr/buffer_headroom_mellanox.lua (pause_quanta_per_speed).
PAUSE_QUANTA: dict[int, int] = {800: 905, 400: 905, 200: 453, 100: 394, 50: 147, 40: 118, 25: 80, 10: 67}
SMALL_FRAME = 64  # bytes: the worst case for cell occupancy
LOSSLESS_MTU = 1024  # SONiC's default LOSSLESS_TRAFFIC_PATTERN mtu, the frame in flight at our end
EIGHT_LANES = 8  # ports of 8 serdes lanes have two buffer units: doubled pipeline latency
QUEUES = 8  # unicast queues per port (TC_TO_QUEUE maps the 8 traffic classes onto 0-7)
ZERO_CABLE = "0m"

# An NVIDIA SN5600's (Spectrum-4) buffer facts, for `fabric size` skeletons, BUF001's hint and tests; inventory/
# hardware.yml holds the same with their sources (sonic-buildimage ACS-SN5600 T1 pools, Spectrum-4 ASIC_TABLE).
SN5600_BUFFERS: dict[str, int | float] = {
    "total_bytes": 158229504, "ingress_lossless_pool": 52161690, "ingress_lossy_pool": 52161690,
    "egress_lossless_pool": 158229504, "egress_lossy_pool": 52161690, "cell_bytes": 192,
    "pipeline_latency_bytes": 19456, "mac_phy_delay_bytes": 819.2, "tile_delay_ns": 120,
}

INGRESS_LOSSLESS_POOL = "ingress_lossless_pool"
INGRESS_LOSSY_POOL = "ingress_lossy_pool"
EGRESS_LOSSLESS_POOL = "egress_lossless_pool"
EGRESS_LOSSY_POOL = "egress_lossy_pool"
INGRESS_LOSSLESS_PROFILE = "ingress_lossless_profile"
INGRESS_LOSSY_PROFILE = "ingress_lossy_profile"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
EGRESS_LOSSY_PROFILE = "egress_lossy_profile"
QUEUE_LOSSY_PROFILE = "q_lossy_profile"


@dataclass(frozen=True, slots=True)
class Headroom:
    xon: int
    xoff: int
    size: int  # bytes the PG reserves


@dataclass(frozen=True, slots=True)
class Pool:
    name: str
    type: str  # ingress | egress
    mode: str  # static | dynamic
    size: int
    xoff: int  # shared headroom pool (0: none)


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    pool: str
    size: int
    dynamic_th: int
    xon: int | None = None  # lossless PG profiles only
    xoff: int | None = None


@dataclass(frozen=True, slots=True)
class Assignment:
    port: str
    index: str  # a PG or queue number or range: "3", "0-2"
    profile: str


@dataclass(frozen=True, slots=True)
class Buffers:
    pools: tuple[Pool, ...]
    profiles: tuple[Profile, ...]  # the fixed ones, then one lossless PG profile per (speed, cable), sorted
    pgs: tuple[Assignment, ...]  # BUFFER_PG, per PFC port: lossy PGs then lossless PGs
    queues: tuple[Assignment, ...]  # BUFFER_QUEUE, per PFC port, in queue order
    ingress_lists: tuple[tuple[str, tuple[str, ...]], ...]  # BUFFER_PORT_INGRESS_PROFILE_LIST (port, profiles)
    egress_lists: tuple[tuple[str, tuple[str, ...]], ...]
    cable_lengths: tuple[tuple[str, str], ...]  # CABLE_LENGTH|AZURE (port, "30m"), every port
    create_only: bool  # DEVICE_METADATA.create_only_config_db_buffers
    headroom_bytes: int  # what the lossless PGs reserve together (+ the shared headroom pool)
    headroom_budget: int  # what the buffer leaves for it: total - ingress pools


def ceil_kib(value: Fraction | int) -> int:
    return math.ceil(Fraction(value) / 1024) * 1024


def cable_metres(length_m: float) -> int:
    """A solver cable length as CABLE_LENGTH's whole metres: rounded up, at least 1 (see the module docstring)."""
    return max(1, math.ceil(Fraction(length_m)))


def role_cable(cable: CableLengths, role: str) -> int:
    """Whole metres of the cable of a link role (host | fabric | core | peer). An MLAG peer link joins two switches
    of one rail group, racked side by side like their hosts: it is counted at the host cable length."""
    return cable_metres({"host": cable.host_m, "fabric": cable.fabric_m, "core": cable.core_m,
                         "peer": cable.host_m}[role])


def lossless_profile_name(speed_gbps: int, cable_m: int) -> str:
    """buffermgrd's name for the profile (speed in Mb/s, as PORT.speed), so that it reuses ours."""
    return f"pg_lossless_{speed_gbps * 1000}_{cable_m}m_profile"


@lru_cache(maxsize=1024)
def pg_headroom(asic: SwitchBuffers, speed_gbps: int, cable_m: int, mtu: int, lanes: int,
                ns_per_m: Fraction | float) -> Headroom | None:
    """The lossless PG headroom (module docstring); None when IEEE 802.3 gives no pause quanta for the speed."""
    quanta = PAUSE_QUANTA.get(speed_gbps)
    if quanta is None:
        return None
    cell = asic.cell_bytes
    occupancy = math.ceil(Fraction(cell, SMALL_FRAME) if cell > 2 * SMALL_FRAME else Fraction(2 * cell, 1 + cell))
    peer = Fraction(quanta * 512, 8)
    cable = 2 * cable_m * Fraction(ns_per_m) * speed_gbps / 8
    tile = Fraction(speed_gbps * asic.tile_delay_ns, 8)
    delay = mtu + cable + Fraction(asic.mac_phy_delay_bytes) + peer + tile
    xoff = ceil_kib(LOSSLESS_MTU + delay * occupancy)
    eight = lanes == EIGHT_LANES
    xon = ceil_kib(asic.pipeline_latency_bytes * (2 if eight else 1))
    size = ceil_kib(xon) if asic.shared_headroom_pool else ceil_kib(xon + xoff + (mtu if eight else 0))
    return Headroom(xon, xoff, size)


def headroom_budget(asic: SwitchBuffers) -> int:
    """Buffer left for lossless headroom: the shared buffer minus the two ingress shared pools."""
    return asic.total_bytes - asic.ingress_lossless_pool - asic.ingress_lossy_pool


def index_ranges(indexes: list[int]) -> list[str]:
    """Sorted indexes as SONiC keys: runs become "a-b", single ones "a"."""
    out: list[str] = []
    run: list[int] = []
    for i in sorted(set(indexes)):
        if run and i != run[-1] + 1:
            out.append(_run_key(run))
            run = []
        run.append(i)
    if run:
        out.append(_run_key(run))
    return out


def _run_key(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


def _fixed_pools(asic: SwitchBuffers) -> tuple[Pool, ...]:
    m = asic.pool_mode
    return (Pool(EGRESS_LOSSLESS_POOL, "egress", m, asic.egress_lossless_pool, 0),
            Pool(EGRESS_LOSSY_POOL, "egress", m, asic.egress_lossy_pool, 0),
            Pool(INGRESS_LOSSLESS_POOL, "ingress", m, asic.ingress_lossless_pool, asic.shared_headroom_pool),
            Pool(INGRESS_LOSSY_POOL, "ingress", m, asic.ingress_lossy_pool, 0))


def _fixed_profiles(asic: SwitchBuffers) -> tuple[Profile, ...]:
    return (Profile(EGRESS_LOSSLESS_PROFILE, EGRESS_LOSSLESS_POOL, 0, asic.lossless_dynamic_th),
            Profile(EGRESS_LOSSY_PROFILE, EGRESS_LOSSY_POOL, asic.egress_lossy_reserve, asic.lossless_dynamic_th),
            Profile(INGRESS_LOSSLESS_PROFILE, INGRESS_LOSSLESS_POOL, 0, asic.lossless_dynamic_th),
            Profile(INGRESS_LOSSY_PROFILE, INGRESS_LOSSY_POOL, 0, asic.lossy_dynamic_th),
            Profile(QUEUE_LOSSY_PROFILE, EGRESS_LOSSY_POOL, 0, asic.lossy_dynamic_th))


@dataclass(frozen=True, slots=True)
class PortFacts:
    """What the buffers need of one interface of the device model."""

    name: str
    speed: int  # Gbit/s
    mtu: int
    lanes: int  # serdes lanes
    role: str  # host | fabric | core, "" when unused
    pfc: bool  # the RoCE QoS (PFC) applies


def build_buffers(asic: SwitchBuffers, ports: list[PortFacts], cable: CableLengths, ns_per_m: float,
                  tc_to_pg: tuple[int, ...], lossless: tuple[int, ...],
                  pfc_to_queue: tuple[tuple[int, int], ...]) -> Buffers:
    """The buffer tables of one SONiC switch. Ports whose speed has no pause quanta get no lossless PG (BUF003
    refuses such an inventory before rendering)."""
    lossless_pgs = sorted({tc_to_pg[p] for p in lossless})
    lossy_pgs = index_ranges([pg for pg in set(tc_to_pg) if pg not in lossless_pgs])
    lossless_queues = sorted({q for _p, q in pfc_to_queue})
    lossy_queues = [q for q in range(QUEUES) if q not in lossless_queues]
    queue_keys = sorted([(int(k.split("-")[0]), k, QUEUE_LOSSY_PROFILE) for k in index_ranges(lossy_queues)]
                        + [(q, str(q), EGRESS_LOSSLESS_PROFILE) for q in lossless_queues])
    pg_profiles: dict[str, Profile] = {}
    pgs: list[Assignment] = []
    queues: list[Assignment] = []
    ingress: list[tuple[str, tuple[str, ...]]] = []
    egress: list[tuple[str, tuple[str, ...]]] = []
    lengths: list[tuple[str, str]] = []
    reserved = asic.shared_headroom_pool
    # buffermgrd's profile name holds speed and cable only: ports that share it (e.g. at two link MTUs, or 8 and 4
    # lanes) get the largest headroom of them, so one profile is enough for all
    rooms: dict[str, Headroom] = {}
    for p in ports:
        if p.pfc and p.role:
            metres = role_cable(cable, p.role)
            room = pg_headroom(asic, p.speed, metres, p.mtu, p.lanes, ns_per_m)
            name = lossless_profile_name(p.speed, metres)
            if room is not None and (name not in rooms or room.size > rooms[name].size):
                rooms[name] = room
    for p in ports:
        if not (p.pfc and p.role):
            lengths.append((p.name, ZERO_CABLE))
            continue
        metres = role_cable(cable, p.role)
        lengths.append((p.name, f"{metres}m"))
        pgs.extend(Assignment(p.name, key, INGRESS_LOSSY_PROFILE) for key in lossy_pgs)
        name = lossless_profile_name(p.speed, metres)
        room = rooms.get(name)
        if room is not None:
            pg_profiles[name] = Profile(name, INGRESS_LOSSLESS_POOL, room.size, asic.lossless_pg_dynamic_th,
                                        room.xon, room.xoff)
            pgs.extend(Assignment(p.name, str(pg), name) for pg in lossless_pgs)
            reserved += room.size * len(lossless_pgs)
        queues.extend(Assignment(p.name, key, profile) for _q, key, profile in queue_keys)
        ingress.append((p.name, (INGRESS_LOSSLESS_PROFILE, INGRESS_LOSSY_PROFILE)))
        egress.append((p.name, (EGRESS_LOSSLESS_PROFILE, EGRESS_LOSSY_PROFILE)))
    profiles = _fixed_profiles(asic) + tuple(pg_profiles[n] for n in sorted(pg_profiles))
    return Buffers(_fixed_pools(asic), profiles, tuple(pgs), tuple(queues), tuple(ingress), tuple(egress),
                   tuple(lengths), asic.create_only_config_db_buffers, reserved, headroom_budget(asic))
