"""BGP neighbour statements as EOS and FRR both write them, read into Neighbor records (the verifier's own parser).

`neighbor X peer group G` (EOS) and `neighbor X peer-group G` (FRR) put a neighbour in a group; `neighbor G peer
group` / `neighbor G peer-group` declare the group; `remote-as N` and `bfd` (FRR also `bfd profile P`) apply to a
neighbour or to its group, a neighbour's own value winning. The session options: BFD timers as EOS writes them
(`bfd interval TX min-rx RX multiplier M`) or through an FRR profile (`bfd profile P`, its timers from the `bfd`
section: `profiles`), and the key: `password [0] KEY` (TCP MD5) or EOS's `password shared-secret profile P algorithm
A` (TCP-AO, the profile's secret from `management security`: `secrets`). FRR's unnumbered neighbour `neighbor <ifname>
interface peer-group G` (or `... interface remote-as N`) is keyed by its interface, marked Neighbor.interface; its
later statements name the interface alone. EOS's unnumbered neighbour is one statement, `neighbor interface <if>
peer-group G remote-as N`, keyed by its interface the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from railfabric.verify.model import Neighbor

_EOS_TIMERS = re.compile(r"bfd interval (\d+) min-rx (\d+) multiplier (\d+)")
_ADDRESS = re.compile(r"[\d.]+|[0-9a-fA-F:]+:[0-9a-fA-F:.]*")


def neighbors(statements: Iterable[list[str]], profiles: Mapping[str, tuple[int, int, int]] | None = None,
              secrets: Mapping[str, str] | None = None) -> dict[str, Neighbor]:
    """Neighbour address → Neighbor, from the words of each statement under `router bgp` (others are ignored)."""
    groups: dict[str, dict[str, object]] = {}
    peers: dict[str, dict[str, object]] = {}
    for words in statements:
        if words[:1] != ["neighbor"] or len(words) < 3:
            continue
        who, rest = words[1], words[2:]
        if who == "interface" and len(rest) >= 3:  # EOS's interface neighbour: options on the one line
            _eos_interface(peers.setdefault(rest[0], {}), rest[1:])
            continue
        if rest[0] == "interface":  # FRR's unnumbered neighbour: the interface is its name
            peers.setdefault(who, {})["interface"] = True
            rest = rest[1:] or ["interface"]
        entry = (peers if _ADDRESS.fullmatch(who) or who in peers else groups).setdefault(who, {})
        if rest[:2] == ["peer", "group"]:  # EOS spells FRR's peer-group in two words
            rest = ["peer-group", *rest[2:]]
        if rest[0] == "peer-group" and len(rest) == 2:
            entry["group"] = rest[1]
        elif rest[0] == "remote-as" and len(rest) == 2 and rest[1].isdigit():
            entry["remote_as"] = int(rest[1])
        elif rest == ["bfd"] or (rest[:2] == ["bfd", "profile"] and len(rest) == 3):  # FRR: a profile's timers
            entry["bfd"] = True
            if len(rest) == 3:
                entry["timers"] = (profiles or {}).get(rest[2])
        elif (m := _EOS_TIMERS.fullmatch(" ".join(rest))) is not None:
            entry["timers"] = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif rest[:3] == ["password", "shared-secret", "profile"] and len(rest) >= 4:
            entry["key"] = ("tcp-ao", (secrets or {}).get(rest[3], ""))
        elif rest[0] == "password" and len(rest) in (2, 3):
            entry["key"] = ("md5", rest[-1])
    out = {}
    for ip, p in peers.items():
        group = p.get("group")
        g = groups.get(str(group), {})
        remote = p.get("remote_as", g.get("remote_as"))
        timers, key = p.get("timers", g.get("timers")), p.get("key", g.get("key"))
        out[ip] = Neighbor(ip, remote if isinstance(remote, int) else None, group if isinstance(group, str) else None,
                           bool(p.get("bfd") or g.get("bfd")), bool(p.get("interface")),
                           bfd_timers=timers if isinstance(timers, tuple) else None,
                           key=key if isinstance(key, tuple) else None)
    return out


def _eos_interface(entry: dict[str, object], rest: list[str]) -> None:
    """`neighbor interface <if> peer-group <G> [remote-as <N>]` (EOS, as Arista's AVD writes it: platforms/eos.py):
    the neighbour is its interface; its group and remote-as are word pairs after it (a peer-filter is not read)."""
    entry["interface"] = True
    pairs = dict(zip(rest[::2], rest[1::2], strict=False))
    if "peer-group" in pairs:
        entry["group"] = pairs["peer-group"]
    if pairs.get("remote-as", "").isdigit():
        entry["remote_as"] = int(pairs["remote-as"])
