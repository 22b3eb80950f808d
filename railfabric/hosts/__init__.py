"""The host side of the fabric: per GPU server, what its rail NICs need (addresses, policy routing, bonds, RoCE QoS,
NCCL environment), built once from the same intent as the switches (build.py) as plain frozen values (model.py)."""

from .build import build_hosts, roce_settings
from .model import HostGroupPlan, HostPlan, HostsPlan, RailInterface, RoceSettings, Route

__all__ = ["HostGroupPlan", "HostPlan", "HostsPlan", "RailInterface", "RoceSettings", "Route", "build_hosts",
           "roce_settings"]
