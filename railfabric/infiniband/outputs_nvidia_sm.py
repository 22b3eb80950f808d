"""A second subnet-manager profile: opensm.conf for NVIDIA's SM (MLNX OpenSM, the SM inside UFM and the
switches), with the keys NVIDIA adds for adaptive routing and SHIELD. NOT checkable offline: upstream OpenSM 3.3.23
(the one the lab runs) does not know these keys or engines, so no SM that knows them loaded this file. What is
checked (tests/test_ib_nvidia_sm_upstream.py): upstream's `opensm -F ours -c back` flags exactly the NVIDIA keys we
write ("Unrecognized token") and writes every other value back, so the profile is the upstream one plus those keys.

Every key the upstream profile writes (railfabric.infiniband.opensm_conf) is kept, with the same values; NVIDIA's
SM reads the same "key value" form (UFM Enterprise User Manual v6.19.5, "Appendix - UFM Subnet Manager Default
Properties": subnet_prefix, lmc, ... as opensm.conf attributes). What this profile decides, with its source:
- routing_engine: the adaptive-routing variant of the planned engine, ftree -> ar_ftree and updn -> ar_updn
  ("InfiniBand Cluster Bring-up Procedure v1.0", Adaptive Routing: AR is configured by the SM, on by default, engine
  ar_updn by default; MLNXSM release notes v5.11.0: pFRN needs ar_updn or ar_ftree). On an XDR fabric (a
  Quantum-X800 switch) ar_ftree becomes ar_updn: "For XDR topologies, only the ar_updn routing mode is supported"
  (UFM Enterprise User Manual v6.21.0, "Appendix - Adaptive Routing"). Other engines (minhop, lash, dor, ...) have no
  adaptive-routing variant and are kept: the file then says adaptive routing is off. The root GUID file stays
  ("The root_guid file must be provided by the customer", same appendix), and ar_ftree keeps the compute-node file.
- shield_mode: SHIELD (fast link fault recovery) is on by default; `shield_mode 0` disables it (Bring-up Procedure
  v1.0, SHIELD); `shield_mode 2` disables pFRN only (MLNXSM release notes v5.11.0). pFRN needs an ar_* engine and
  every switch a Quantum or Quantum-2 (same notes): on any other fabric (e.g. XDR Quantum-X800) we write 2. With
  SHIELD and pFRN both wanted and possible, NVIDIA's default is kept and the key is not written.
- pfrn_sl: the SL of pFRN messages (default 0, MLNXSM release notes v5.11.0); we write the fabric's default SL (the
  QoS plan's, else 0) so that pFRN shares the compute class's VL, written only when pFRN is on.
NOT emitted: fast_recovery_enabled / fast_recovery_conf_file (MLNXSM release notes v5.15.0): the policy file's form
is not in the documents we found; AR group algorithm (LAG / TREE / DF_PLUS: the SM picks TREE for fat trees per the
Bring-up Procedure, the key name was not found); pfrn_mask_clear_timeout (kept at its default).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from railfabric.infiniband.model import IbFabric, SubnetManager
from railfabric.infiniband.opensm_conf import Paths, opensm_conf

AR_ENGINES = {"ftree": "ar_ftree", "updn": "ar_updn", "ar_ftree": "ar_ftree", "ar_updn": "ar_updn"}
# Switch models that run pFRN: NVIDIA Quantum (HDR, QM87xx) and Quantum-2 (NDR, QM97xx) (MLNXSM RN v5.11.0).
PFRN_MODELS = ("QM8700", "QM8790", "QM9700", "QM9790")
XDR_MODELS = ("Q3400",)  # Quantum-X800


@dataclass(frozen=True, slots=True)
class NvidiaSmPlan:
    engine: str
    adaptive_routing: bool
    shield: bool
    pfrn: bool
    pfrn_sl: int | None  # None: not written
    shield_mode: int | None  # None: NVIDIA's default (SHIELD and pFRN on), not written
    notes: tuple[str, ...]


def plan(fab: IbFabric, shield: bool = True) -> NvidiaSmPlan:
    """Every value of the profile, decided from the fabric (and whether the site wants SHIELD)."""
    notes: list[str] = []
    xdr = any(s.model in XDR_MODELS for s in fab.switches)
    engine = AR_ENGINES.get(fab.routing_engine, fab.routing_engine)
    if engine == "ar_ftree" and xdr:
        engine = "ar_updn"
        notes.append("XDR switches: NVIDIA's SM supports ar_updn only, not ar_ftree")
    ar = engine.startswith("ar_")
    if not ar:
        notes.append(f"routing engine {engine} has no adaptive-routing variant: adaptive routing is off")
    others = sorted({s.model for s in fab.switches if s.model not in PFRN_MODELS})
    pfrn = shield and ar and not others
    if shield and ar and others:
        notes.append(f"pFRN off: it needs Quantum/Quantum-2 switches only, not {', '.join(others)}")
    if shield and not ar:
        notes.append("pFRN off: it needs ar_ftree or ar_updn")
    shield_mode = None if pfrn else (2 if shield else 0)
    pfrn_sl = (fab.qos.default_sl if fab.qos is not None else 0) if pfrn else None
    return NvidiaSmPlan(engine, ar, shield, pfrn, pfrn_sl, shield_mode, tuple(notes))


def nvidia_opensm_conf(fab: IbFabric, sm: SubnetManager, paths: Paths | None = None, shield: bool = True) -> str:
    """The NVIDIA SM profile of one subnet manager: a header saying it is not checkable offline, the upstream
    profile's keys with the adaptive-routing engine, then the SHIELD/pFRN keys."""
    p = plan(fab, shield)
    upstream = opensm_conf(replace(fab, routing_engine=p.engine), sm, paths or Paths()).splitlines()
    body = [line for line in upstream if not line.startswith("# railfabric: OpenSM 3.3.23")]
    head = [
        f"# railfabric: NVIDIA SM (MLNX OpenSM / UFM) configuration of the subnet manager on {sm.node} "
        f"(fabric {fab.name})",
        "# NOT checkable offline: upstream OpenSM does not know the NVIDIA keys below; check on NVIDIA's SM",
        f"# adaptive routing {'on' if p.adaptive_routing else 'off'} ({p.engine}), SHIELD "
        f"{'on' if p.shield else 'off'}, pFRN {'on' if p.pfrn else 'off'}",
        *(f"# {n}" for n in p.notes),
    ]
    tail: list[str] = []
    if p.shield_mode is None:
        tail.append("# shield_mode: NVIDIA's default (SHIELD and pFRN on) is kept")
    else:
        tail.append(f"shield_mode {p.shield_mode}")
    if p.pfrn_sl is not None:
        tail.append(f"pfrn_sl {p.pfrn_sl}")
    return "\n".join([*head, *body, *tail]) + "\n"
