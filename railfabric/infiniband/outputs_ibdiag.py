"""The planned topology as the topology file NVIDIA's `ibdiagnet` and UFM Cable Validation compare a cabled fabric
with, plus the system definitions (IBNL) of the hosts it names.

Form (IBUtils2 Utility Documentation v2.23.0, "Topology Comparison", docs.nvidia.com/networking/display/
ibdiagnetutilityv2230/Topology+Comparison; NVIDIA UFM Cable Validation Tool v1.5.0, "Topo File", which loads the
same file, written by ibdiagnet, with `load_topo <file>`; the section grammar is the IBDM topology file,
ibdm-topo-file(1), ibutils 1.5.7):
  `ibdiagnet -t <topology file> --out_ibnl_dir <dir>` compares the discovered fabric with the file and reports every
  mismatch in its log; `-w <file>` writes the discovered fabric in the same form.
  A section per system: a line `<SYSTEM-TYPE> <SYSTEM-NAME>`, then one indented line per cabled port
  `<local port> -<width>-<lane speed>-> <remote type> <remote name> <remote port>`, a blank line between sections
  (ibdm-topo-file(1): "the lines to follow until the next empty line describe the connections"). Every cable is
  listed from both ends, as the documents' examples do.
  A host is one system named by its hostname whose HCAs are units named by their RDMA device, port
  `<device>/P<p>`, of type `HCA_<stem>_<n>` (n HCAs named `<stem>_<digits>`): the CVT document's example
  `MQM8700 sw-ufm-hdr01 P2 -4x-50G-> HCA_mlx5_3 swx-ufm3-04 mlx5_0/P1`, the HCA node description "<host> <device>"
  split in two (railfabric.infiniband.model). The type is defined by an IBNL file (`TOPSYSTEM <type>`, then per unit
  `NODE CA <ports> <device id> <device>` and `<p> -> <device>/P<p>` lines), as in the ibdiagnet document's IBNL
  example (there with units U1..Un: `TOPSYSTEM HCA_3`, `NODE CA 2 MT4099 U1`, `1 -> U1/P1`). Units are listed in
  rail order. Switch ports are `P<port>`; a switch's type is its NVIDIA system name (QM9700 -> MQM9700, as in
  `MQM9700 sw-ufm-ndr05 P61`), its name the planned hostname.
  The link is `-4x-<lane speed>->`: EDR shows as `-4x-25G-` and HDR as `-4x-50G-` in the documents, a link between
  an HDR and an NDR switch as the slower `-4x-50G-` (the CVT example); NDR (QM9700, 4 x 100G lanes) as `-4x-100G-`
  and XDR (Q3400, 4 x 200G) as `-4x-200G-` follow the same pattern.

Verified offline with the legacy IBDM parser (Debian 12 `ibutils` 1.5.7, `ibdmchk` in design mode,
tests/test_ib_ibdmchk.py): the section and line grammar, the port names `P<n>` and `<device>/P<p>`, the host types
resolved through our IBNL files (IBDM_IBNL_PATH), every cable connected, the CA-to-CA hop counts as planned. That
parser reads widths and speeds up to 10G only (its line regex: `-((1|4|8|12)[xX]-)?((2.5|5|10)G-)?>`), so it checks
the width-only form (`speed=False`, `-4x->`); the speed token is NOT checked by it.
NOT verified (no ibdiagnet 2 or CVT here: ibutils2 is not in Debian, CVT is a container from NVIDIA):
- the NDR/XDR lane-speed spelling (`100G`, `200G`) and the system types MQM9790 and Q3400 (MQM9700 and MQM8700 are
  in the documents); a switch model missing from SWITCH_TYPES is written as its model name with the width/speed
  left out (`P1 -> ...`, the ibdm-topo-file(1) form without width and speed);
- how the type name `HCA_mlx5_3` is derived (we read it as stem + number of HCAs), the IBNL file name ibdiagnet
  looks up in --out_ibnl_dir (we write `<type in lower case>.ibnl`; the legacy parser reads every file of its IBNL
  directory), and the device ids (CA MT4129: ConnectX-7, PCI 15b3:1021; switch MT54002/MT54004), which no tool here
  compares;
- that ibdiagnet splits a node description "dgx01 mlx5_0" into system dgx01 and unit mlx5_0 when it matches (the
  CVT example shows that form, written by ibdiagnet itself). The legacy `ibtopodiff` matched all 8 nodes of the
  test fabric against OpenSM's opensm-subnet.lst from the ibsim lab by walking the links, then crashed (SIGSEGV)
  before its report, so it is not used in a test.
The file has no comment lines: the grammar documents none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from railfabric.infiniband.model import End, Hca, IbFabric, Switch

# Switch model -> (ibdiagnet system type, lane speed). QM9700/QM9790: Quantum-2 NDR, 64 ports of 4 x 100G;
# Q3400: Quantum-X800 XDR, 144 ports of 4 x 200G (REFERENCE-IB-AND-UNDERLAY.md section 4).
SWITCH_TYPES: dict[str, tuple[str, str]] = {
    "QM9700": ("MQM9700", "100G"),
    "QM9790": ("MQM9790", "100G"),
    "Q3400": ("Q3400", "200G"),
}
WIDTH = "4x"
CA_DEVICE = "MT4129"  # ConnectX-7 (PCI 15b3:1021), the HCA of DGX H100
# Switch ASICs for the switch IBNL files: Quantum-2 (PCI 15b3:d2f2 = 54002), Quantum-3 (15b3:d2f4 = 54004)
SWITCH_DEVICES = {"QM9700": "MT54002", "QM9790": "MT54002", "Q3400": "MT54004"}


@dataclass(frozen=True, slots=True)
class Port:
    """One end of a cable as ibdiagnet names it."""

    system_type: str
    system: str
    port: str  # "P5" or "U2/P1"

    def __str__(self) -> str:
        return f"{self.system_type} {self.system} {self.port}"


def host_units(fab: IbFabric) -> dict[str, tuple[Hca, ...]]:
    """host -> its HCAs in rail order (unit k+1 = the k-th), hosts in plan order."""
    hosts: dict[str, list[Hca]] = {}
    for h in fab.hcas:
        hosts.setdefault(h.host, []).append(h)
    return {host: tuple(sorted(hcas, key=lambda h: (h.rail, h.index))) for host, hcas in hosts.items()}


def host_type(hcas: tuple[Hca, ...]) -> str:
    """`HCA_<stem>_<n>` for n single-port HCAs whose devices are `<stem>_<digits>` (mlx5_0, mlx5_1 -> HCA_mlx5_2,
    the form of NVIDIA's CVT example `HCA_mlx5_3 swx-ufm3-04 mlx5_0/P1`), else `HCA_<n>`; with other port counts,
    the counts in unit order are appended (`HCA_mlx5_2_2-1`) so that two hosts never share a type name with
    different definitions."""
    found = [re.fullmatch(r"([A-Za-z0-9]+)_\d+", h.device) for h in hcas]
    stems = {m.group(1) for m in found if m is not None}
    stem = f"{stems.pop()}_" if len(stems) == 1 and all(found) else ""
    counts = [h.ports for h in hcas]
    return f"HCA_{stem}{len(hcas)}" + ("" if set(counts) == {1} else "_" + "-".join(map(str, counts)))


def _switch_type(sw: Switch) -> str:
    return SWITCH_TYPES.get(sw.model, (sw.model, ""))[0]


def _name(fab: IbFabric, units: dict[str, tuple[Hca, ...]], end: End) -> Port:
    node = fab.node(end.node)
    if isinstance(node, Switch):
        return Port(_switch_type(node), node.name, f"P{end.port}")
    if not isinstance(node, Hca):
        raise ValueError(f"cable end {end} is not a planned switch or HCA (railfabric.infiniband.model.problems)")
    hcas = units[node.host]
    return Port(host_type(hcas), node.host, f"{node.device}/P{end.port}")


def _link(fab: IbFabric, a: End, z: End, speed: bool) -> str:
    """`-4x-<speed>->` from the switch ends' lane speeds (the slower when they differ), `-4x->` without the speed;
    `->` when a switch model is unknown."""
    speeds = []
    for end in (a, z):
        node = fab.node(end.node)
        if isinstance(node, Switch):
            speeds.append(SWITCH_TYPES.get(node.model, ("", ""))[1])
    if not speeds or "" in speeds:
        return "->"
    if not speed:
        return f"-{WIDTH}->"
    return f"-{WIDTH}-{min(speeds, key=lambda s: int(s.rstrip('G')))}->"


def topology_file(fab: IbFabric, speed: bool = True) -> str:
    """Switch sections in plan order, then one section per host in plan order; each section's ports in order
    (switch ports by number, host ports by unit then port). `speed=False`: links as `-4x->`, the form the legacy
    IBDM parser (ibutils 1.5.7, whose speeds stop at 10G) reads: tests/test_ib_ibdmchk.py checks it with ibdmchk."""
    units = host_units(fab)
    lines: dict[tuple[str, str], list[tuple[tuple[int, int], str]]] = {}
    heads: list[tuple[str, str]] = [(_switch_type(s), s.name) for s in fab.switches]
    heads += [(host_type(hcas), host) for host, hcas in units.items()]
    for head in heads:
        lines[head] = []
    for cable in fab.cables:
        for near, far in ((cable.a, cable.z), (cable.z, cable.a)):
            me, other = _name(fab, units, near), _name(fab, units, far)
            order = _port_order(fab, units, near)
            lines[(me.system_type, me.system)].append((order, f"   {me.port} {_link(fab, near, far, speed)} {other}"))
    blocks = []
    for head in heads:
        body = [text for _, text in sorted(lines[head])]
        blocks.append("\n".join([f"{head[0]} {head[1]}", *body]))
    return "\n\n".join(blocks) + "\n"


def _port_order(fab: IbFabric, units: dict[str, tuple[Hca, ...]], end: End) -> tuple[int, int]:
    """Switch ports by number; host ports by unit (rail order), then port."""
    node = fab.node(end.node)
    return (units[node.host].index(node), end.port) if isinstance(node, Hca) else (0, end.port)


def ibnl_files(fab: IbFabric, switches: bool = False) -> dict[str, str]:
    """The IBNL definition of every host system type the topology file uses: file name -> text. `switches=True`
    adds one per switch type (`NODE SW <ports> <device> U1`, port p -> P<p>), for tools that ship none for it
    (the legacy ibdmchk). For ibdiagnet they are not written: its documentation uses NVIDIA's switch types
    (MQM9700) without a custom IBNL, so we take it that it knows them (NOT verified)."""
    out: dict[str, str] = {}
    for hcas in host_units(fab).values():
        kind = host_type(hcas)
        nodes = []
        for hca in hcas:
            nodes.append("\n".join([f"NODE CA {hca.ports} {CA_DEVICE} {hca.device}",
                                    *(f"   {p} -> {hca.device}/P{p}" for p in range(1, hca.ports + 1))]))
        out[f"{kind.lower()}.ibnl"] = "\n\n".join([f"TOPSYSTEM {kind}", *nodes]) + "\n"
    if switches:
        for sw in fab.switches:
            kind = _switch_type(sw)
            node = "\n".join([f"NODE SW {sw.ports} {SWITCH_DEVICES.get(sw.model, sw.model)} U1",
                              *(f"   {p} -> P{p}" for p in range(1, sw.ports + 1))])
            out[f"{kind.lower()}.ibnl"] = f"TOPSYSTEM {kind}\n\n{node}\n"
    return dict(sorted(out.items()))
