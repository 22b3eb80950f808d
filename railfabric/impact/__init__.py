"""Failure impact in the operator's terms (issue 32): given switches, links, ports or NICs down, which GPUs, hosts
and jobs lose their rail or bandwidth, what the tiers and rails keep, which prefixes become unreachable or
blackholed, the ECMP widths left; and maintenance waves that cost no more together than apart.

Pure computation on the pipeline's inventory, topology and plan (railfabric/impact/compute.py is the entry point,
railfabric/impact/waves.py the waves); `fabric impact` (railfabric/cli/impact.py) prints it. docs/impact.md has the
model and a worked table for the example.
"""

from railfabric.core.hostlist import expand_hostlist
from railfabric.impact.compute import impact
from railfabric.impact.jobs import Job, JobsError, load_jobs
from railfabric.impact.targets import Down, Resolver, UnknownNames
from railfabric.impact.waves import maintenance_waves

__all__ = ["Down", "Job", "JobsError", "Resolver", "UnknownNames", "expand_hostlist", "impact", "load_jobs",
           "maintenance_waves"]
