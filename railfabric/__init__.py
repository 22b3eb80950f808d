"""railfabric: network-as-code for AI GPU back-end fabrics."""

__version__ = "0.1.0"
