"""InfiniBand fabrics (issue 31): a typed model of an InfiniBand subnet (switches, HCAs, cables, subnet managers,
routing engine, LMC, partitions, QoS), writers for what upstream OpenSM reads (opensm.conf, root and compute-node
GUID files, partitions.conf), the site files (outputs_*: ibdiagnet topology, NVIDIA SM profile, hosts' NCCL files),
the expected topology in ibnetdiscover / ibsim net-file form, a parser of ibnetdiscover output with the late GUID
binding, and a lab that brings the planned subnet up in ibsim with the real OpenSM and infiniband-diags
(railfabric.infiniband.lab). This package sits below the inventory: railfabric.topology.infiniband builds the model
from an inventory with `fabric.kind: infiniband`, railfabric.outputs.infiniband is what `fabric render` writes for
it. See docs/infiniband.md.
"""
