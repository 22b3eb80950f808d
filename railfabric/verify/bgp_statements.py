"""BGP neighbour statements as EOS and FRR both write them, read into Neighbor records (the verifier's own parser).

`neighbor X peer group G` (EOS) and `neighbor X peer-group G` (FRR) put a neighbour in a group; `neighbor G peer
group` / `neighbor G peer-group` declare the group; `remote-as N` and `bfd` (FRR also `bfd profile P`) apply to a
neighbour or to its group, a neighbour's own value winning.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from railfabric.verify.model import Neighbor

_ADDRESS = re.compile(r"[\d.]+|[0-9a-fA-F:]+:[0-9a-fA-F:.]*")


def neighbors(statements: Iterable[list[str]]) -> dict[str, Neighbor]:
    """Neighbour address → Neighbor, from the words of each statement under `router bgp` (others are ignored)."""
    groups: dict[str, dict[str, object]] = {}
    peers: dict[str, dict[str, object]] = {}
    for words in statements:
        if words[:1] != ["neighbor"] or len(words) < 3:
            continue
        who, rest = words[1], words[2:]
        entry = (peers if _ADDRESS.fullmatch(who) else groups).setdefault(who, {})
        if rest[:2] == ["peer", "group"]:  # EOS spells FRR's peer-group in two words
            rest = ["peer-group", *rest[2:]]
        if rest[0] == "peer-group" and len(rest) == 2:
            entry["group"] = rest[1]
        elif rest[0] == "remote-as" and len(rest) == 2 and rest[1].isdigit():
            entry["remote_as"] = int(rest[1])
        elif rest == ["bfd"] or (rest[:2] == ["bfd", "profile"] and len(rest) == 3):  # FRR: a profile's timers
            entry["bfd"] = True
    out = {}
    for ip, p in peers.items():
        group = p.get("group")
        g = groups.get(str(group), {})
        remote = p.get("remote_as", g.get("remote_as"))
        out[ip] = Neighbor(ip, remote if isinstance(remote, int) else None, group if isinstance(group, str) else None,
                           bool(p.get("bfd") or g.get("bfd")))
    return out
