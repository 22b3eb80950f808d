"""The Linux names of a GPU server's rail NICs: the host model's `netdevs` / `rdma_devices`, or the documented
defaults. One place, so the netplan file, the RoCE script, the NCCL environment, the rules and `fabric show` agree.

Defaults (when the host model names nothing): NIC n's port p is `nic<n>` on a one-port NIC and `nic<n>p<p>` on a
dual-port NIC (names an operator gives the ports with udev / systemd .link files, or replaces by the server's own in
the inventory); the RDMA device of NIC port i (counted like netdevs, from 0) is `mlx5_<i>`, and of NIC n's RoCE LAG bond
`mlx5_bond_<n>`. The bond of NIC n under MLAG is `bond<n>` (the rail map's).
"""

from __future__ import annotations

from typing import Protocol


class HostModel(Protocol):
    """What naming reads of a host model (railfabric.inventory.intent.HostModel, or the narrower
    railfabric.hosts.build.NicShape)."""

    @property
    def ports_per_nic(self) -> int: ...

    @property
    def netdevs(self) -> list[str] | tuple[str, ...] | None: ...

    @property
    def rdma_devices(self) -> list[str] | tuple[str, ...] | None: ...

__all__ = ["bond", "bond_rdma_device", "default_netdev", "default_rdma", "netdev", "rdma_device"]


def bond(nic: int) -> str:
    """NIC `nic`'s LACP bond under MLAG: the rail map's name (railfabric/outputs/_common.host_bond, kept equal by a
    test; not imported from there so that railfabric.hosts does not depend on the outputs package)."""
    return f"bond{nic}"


def default_netdev(nic: int, port: int, ports_per_nic: int) -> str:
    return f"nic{nic}" if ports_per_nic == 1 else f"nic{nic}p{port}"


def default_rdma(nic: int, port: int, ports_per_nic: int) -> str:
    return f"mlx5_{nic * ports_per_nic + port - 1}"


def netdev(model: HostModel, nic: int, port: int) -> str:
    """The Linux name of NIC `nic`'s port `port` (1-based). A list of the wrong length (HOST001, an error that
    stops rendering) falls back to the default for positions it lacks, so `fabric show` still works."""
    i = nic * model.ports_per_nic + (port - 1)
    if model.netdevs is not None and i < len(model.netdevs):
        return model.netdevs[i]
    return default_netdev(nic, port, model.ports_per_nic)


def rdma_device(model: HostModel, nic: int, port: int) -> str:
    """The RDMA device of NIC `nic`'s port `port`: mlx5 exposes each port of a ConnectX as its own PCI function and
    RDMA device (hence one name per port, like netdevs)."""
    i = nic * model.ports_per_nic + (port - 1)
    if model.rdma_devices is not None and i < len(model.rdma_devices):
        return model.rdma_devices[i]
    return default_rdma(nic, port, model.ports_per_nic)


def bond_rdma_device(model: HostModel, nic: int) -> str:
    """The RDMA device of NIC `nic`'s bond (RoCE LAG: mlx5 replaces the two ports' devices by one bond device,
    `mlx5_bond_<k>`; the numbering is the driver's, so a host model names it as port 1's entry of rdma_devices)."""
    if model.rdma_devices is not None:
        return rdma_device(model, nic, 1)
    return f"mlx5_bond_{nic}"
