"""An FRR lab of the fabric: one network namespace and one FRR instance (zebra, bfdd, bgpd) per switch, loaded with
the generated frr.conf, verified against the plan, always torn down. See railfabric/lab/runner.py for the flow."""

from railfabric.lab.daemons import OVERLAYS
from railfabric.lab.model import FAULTS, SUBSTITUTIONS, LabError
from railfabric.lab.runner import LabResult, format_result, preflight, run_lab
from railfabric.lab.teardown import teardown_saved

__all__ = ["FAULTS", "OVERLAYS", "SUBSTITUTIONS", "LabError", "LabResult", "format_result", "preflight", "run_lab",
           "teardown_saved"]
