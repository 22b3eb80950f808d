"""What the fabric is made of beyond the topology: the stable address, VLAN and ASN allocation (allocate), the per-link
MTU (mtu), lossless buffer sizing (buffers) and `fabric size` (sizing)."""
