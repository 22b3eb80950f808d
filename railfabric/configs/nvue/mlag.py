"""The MLAG pieces of an NVUE startup.yaml (Cumulus Linux MLAG/clagd + VRR), from the device model's Mlag,
PortChannel and Vlan records (railfabric/device/mlag.py decides the pair, the ids, the peer /31 and the gateway).

What is NVUE's own and decided here, once:
- the peer link is the bond named `peerlink` (NVUE has no setting naming the peer-link bond: `nv set interface
  peerlink bond member ...` makes it, type peerlink, and its subinterface peerlink.4094 carries the MLAG control
  session; CL 5.14 MLAG guide). The model's peer-link port-channel name maps to it here, for NVUE only;
- the peer VLAN is the subinterface peerlink.<vlan> (type sub, base-interface peerlink), never a bridge VLAN ("Do
  not add VLAN 4094 to the bridge VLAN list"); it holds the pair's /31, so `mlag peer-ip` is the peer's address on
  it and the MLAG-PEER iBGP session runs over it;
- the MLAG system MAC, one per pair: NVIDIA reserves 44:38:39:ff:00:00-44:38:39:ff:ff:ff for it and asks for a
  different one per pair. The last two octets are the low 16 bits of the pair's peer /31 number (its network
  address / 2): every pair has its own /31 in one block of the fabric-links pool, so two pairs collide only
  65,536 /31s apart. Both switches compute it from the same /31;
- the primary: side a gets `mlag priority` 2048, side b the documented default 32768 (lower wins);
- `mlag backup` = the peer's management address in the management VRF; `init-delay` left at its default;
- the shared rail gateway is VRR on the SVI (`ip vrr address`, `ip vrr mac-address` = the model's virtual MAC,
  `ip vrr state up`), with `router vrr enable on`, beside the switch's own `ip address` on the SVI (the model's
  Vlan.own, decided in allocate: NVUE sets Platform.mlag_own_svi_address);
- the peer VLAN's interface name peerlink.<vlan> is Platform.mlag_peer_interface (PEER_INTERFACE), so the model,
  ipplan.csv and expected/ name it as startup.yaml does.
The switches (`mlag enable on` / `state enabled`, `bond mlag`, `router vrr`, `ip vrr` / `ipv4 vrr`, the VRR
interface's `state` / `vrr-state` up) are the release's Forms (railfabric/platforms/nvue_release.py, from 5.15).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from railfabric.core.address import aton
from railfabric.platforms.nvue import PEERLINK
from railfabric.platforms.nvue_release import forms

if TYPE_CHECKING:  # the registry imports this package before the device model exists
    from railfabric.device import DeviceConfig, Mlag, PortChannel, Vlan

Tree = dict[str, Any]
BRIDGE = "br_default"
MLAG_MAC_BASE = "44:38:39:ff"  # NVIDIA's reserved MLAG system MAC range 44:38:39:ff:00:00-ff:ff
PRIMARY_PRIORITY = 2048
SECONDARY_PRIORITY = 32768  # clagd's default




def peer_subinterface(m: Mlag) -> str:
    return m.interface


def bond_name(dev: DeviceConfig, name: str) -> str:
    """The NVUE interface name of a model port-channel: the MLAG peer link is `peerlink`, every other bond keeps
    its model name (bond<n>)."""
    return PEERLINK if dev.mlag is not None and name == dev.mlag.peer_link else name


def system_mac(m: Mlag) -> str:
    """The pair's MLAG system MAC: 44:38:39:ff:hh:ll, hhll = the low 16 bits of the peer /31's number."""
    n = (min(aton(m.local_ip), aton(m.peer_ip)) >> 1) & 0xFFFF
    return f"{MLAG_MAC_BASE}:{n >> 8:02x}:{n & 0xFF:02x}"


def mlag(dev: DeviceConfig) -> Tree:
    """The `mlag` section: system MAC, peer address on the peer VLAN, backup over management, priority."""
    m = dev.mlag
    assert m is not None
    out: Tree = {**forms(dev.release).flag(True), "mac-address": system_mac(m), "peer-ip": m.peer_ip,
                 "priority": PRIMARY_PRIORITY if m.primary else SECONDARY_PRIORITY}
    if m.peer_management:
        out["backup"] = {m.peer_management: {"vrf": dev.system.vrf}}
    return out


def bond(dev: DeviceConfig, pc: PortChannel) -> Tree:
    """An MLAG host bond (access in its rail VLAN, `bond mlag id` shared with the peer) or the peer link (type
    peerlink: NVUE bridges it in every bridge VLAN itself)."""
    node: Tree = {"type": "bond", "description": pc.description, "link": {"mtu": pc.mtu},
                  "bond": {"member": {m: {} for m in pc.members}}}
    if pc.mode == "trunk":
        node["type"] = PEERLINK
    else:
        node["bond"]["mlag"] = {**forms(dev.release).flag(True), "id": pc.mlag}
        node["bridge"] = {"domain": {BRIDGE: {"access": pc.vlan}}}
    return node


def peer_vlan(dev: DeviceConfig) -> Tree:
    """peerlink.<vlan>: the MLAG control session's and the MLAG-PEER iBGP session's interface, with the /31."""
    m = dev.mlag
    assert m is not None
    return {"type": "sub", "base-interface": PEERLINK, "vlan": m.vlan, "description": f"MLAG peer {m.peer}",
            "link": {"mtu": dev.mtu},
            forms(dev.release).address_family: {"address": {f"{m.local_ip}/{m.prefix_len}": {}}}}


def vrr(dev: DeviceConfig, v: Vlan) -> Tree:
    """The `ip` (`ipv4` from 5.15) of a rail SVI whose gateway the pair shares: the switch's own address (unique in
    the pair) beside the shared VRR address and MAC, as in every NVIDIA MLAG + VRR example."""
    m = dev.mlag
    assert m is not None
    f = forms(dev.release)
    out: Tree = {"address": {v.own: {}}} if v.own else {}
    out["vrr"] = {**f.flag(True), "address": {v.gateway: {}}, "mac-address": m.virtual_mac,
                  f.vrr_up_key: {"up": {}}}
    return out
