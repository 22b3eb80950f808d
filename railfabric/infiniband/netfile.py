"""The planned topology in ibnetdiscover's node/port form, as ibsim reads it (its "net" file).

Form (ibsim-utils 0.10, /usr/share/doc/ibsim-utils/net-examples/net and examples.README): a header line per node
`Switch|Hca <ports> "<nodeid>"`, then one line per connected port `[<port>] "<remote nodeid>"[<remote port>]`, a
blank line between nodes, '#' comments; the first port in the file is the SM port unless SIM_HOST names another
node. ibsim uses the nodeid as the node description, so our nodeids are the planned names (switch hostnames, "<host>
<device>" for HCAs) and a site can diff `ibnetdiscover`'s node descriptions against this file. Verified offline:
ibsim 0.10 loads it and ibnetdiscover reports each node description and link back (tests/test_lab_ib.py).
"""

from __future__ import annotations

from collections import defaultdict

from railfabric.infiniband.model import End, IbFabric


def peers(fab: IbFabric) -> dict[str, dict[int, End]]:
    """node → port → the far end, both directions of every cable."""
    out: dict[str, dict[int, End]] = defaultdict(dict)
    for c in fab.cables:
        out[c.a.node][c.a.port] = c.z
        out[c.z.node][c.z.port] = c.a
    return out


def net_file(fab: IbFabric) -> str:
    """Switches (plan order) then HCAs; each node's connected ports in port order."""
    links = peers(fab)
    blocks = [f"# railfabric: planned topology of {fab.name} (ibnetdiscover / ibsim net form, names not GUIDs)"]
    nodes: list[tuple[str, str, int]] = [("Switch", s.name, s.ports) for s in fab.switches]
    nodes += [("Hca", h.name, h.ports) for h in fab.hcas]
    for kind, name, ports in nodes:
        lines = [f'{kind}\t{ports} "{name}"']
        lines += [f'[{p}]\t"{far.node}"[{far.port}]' for p, far in sorted(links.get(name, {}).items())]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"
