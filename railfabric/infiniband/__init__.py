"""InfiniBand fabrics (issue 31, first increment): a typed model of an InfiniBand subnet (switches, HCAs, cables,
subnet managers, routing engine, LMC, partitions, QoS), writers for what upstream OpenSM reads (opensm.conf, root
and compute-node GUID files, partitions.conf) and for the expected topology in ibnetdiscover / ibsim net-file form,
a parser of ibnetdiscover output with the late GUID binding, and a lab that brings the planned subnet up in ibsim
with the real OpenSM and infiniband-diags (railfabric.infiniband.lab). `from_inventory.ib_fabric` builds the model
from an inventory with `fabric.kind: infiniband`; `outputs` is what `fabric render` writes for it. See
docs/infiniband.md.
"""
