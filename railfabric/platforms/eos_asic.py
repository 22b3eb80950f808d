"""EOS per-queue QoS forms by switch family: the egress queue keyword and the MMU (buffer) profile of the lossless
priorities. The decision is made here, once; templates/eos/_interface_qos.j2 and _mmu.j2 only format it.

Forms and their sources:
- `uc-tx-queue N` (the unicast queue of a Trident/Tomahawk port, under `interface EthernetX`), with the same
  sub-commands as `tx-queue` (`priority strict`, `no priority`, `bandwidth percent W`, `random-detect ecn
  minimum-threshold A bytes maximum-threshold B bytes max-mark-probability P`): Intel Habana, "Arista Switch L2/L3
  Configuration Example" (docs.habana.ai, latest, Management_and_Monitoring/Network_Configuration) on
  DCS-7060DX4-32 and DCS-7060PX5-64E; an AMD Instinct GPU-cluster networking guide (reStructuredText, "Example -
  DCQCN configuration on an Arista 7388 switch": `uc-tx-queue 3` with `random-detect ecn ...` in a `qos profile`;
  its repository was not identified in the index); Arista AVD eos_cli_config_gen
  `ethernet_interfaces[].uc_tx_queues` (templates eos/ethernet-interface-uc-tx-queues.j2, AVD 5.0 and 2025, the
  sub-commands above); the Arista EOS User Manual, Quality of Service chapter, section "QoS Configuration: Trident
  and Tomahawk Platform Switches" (section title seen; its text was not readable in the stored copy).
- `platform trident mmu queue profile <name>` with `ingress threshold <alpha>` and `ingress headroom <bytes>`
  (4-space indent, as EOS and AVD print it): Habana's L3 examples (`ingress threshold 1`, `ingress headroom 165100`
  on the 7060PX5-64E, `ingress headroom 64000` on the 7060DX4-32, both Tomahawk switches under the `trident`
  keyword); AVD eos_cli_config_gen `platform.trident.mmu.queue_profiles[].ingress.{threshold,headroom}` (template
  eos/platform-trident.j2 at AVD commit 1855719a, 2025: threshold one of 1/128 ... 8, headroom in bytes unless a
  unit is given). `platform trident mmu queue profile <name> apply`: AVD `platform.trident.mmu.active_profile`
  (eos/platform-apply.j2, AVD 5.0; molecule intended config platform.cfg).
- `tx-queue N` on Sand (Jericho) switches: Arista TOI "tx-queue 7 configurable on Sand platforms" (EOS 4.33.0F):
  "Sand platform switches have eight queues, 0 through 7, and all queues are exposed through the CLI"; AVD
  `ethernet_interfaces[].tx_queues`. Sand switches are VoQ/deep-buffer: no MMU queue profile is written there.

NOT verified: that the 7060X6 (Tomahawk 5) takes the same `uc-tx-queue` and `platform trident mmu` forms as the
Tomahawk 3/4 examples (no Tomahawk 5 example was found); a published ingress headroom for Tomahawk 5 (none found:
the profile there carries the threshold only and EOS keeps its default headroom, see docs/eos-asic.md); the
EOS release each form first appeared in (the Habana and AMD examples name none; the TOI says 4.33.0F for
tx-queue 7 only). Whether `platform tomahawk ...` exists as a keyword: not found in any stored source; the
examples on Tomahawk switches use `platform trident`.
"""

from __future__ import annotations

from railfabric.platforms.asic import AsicFamily, MmuProfile, QueueForm

MMU_PROFILE = "ROCE_LOSSLESS"  # the name railfabric gives its EOS MMU queue profile
MMU_THRESHOLD = "1"  # ingress dynamic threshold (alpha) of both of Habana's L3 examples


def _strata(family: AsicFamily, headroom: int | None) -> QueueForm:
    return QueueForm(family.value, "uc-tx-queue", MmuProfile(MMU_PROFILE, MMU_THRESHOLD, headroom))


EOS_QUEUE_FORMS: dict[str, QueueForm] = {
    AsicFamily.TOMAHAWK_3: _strata(AsicFamily.TOMAHAWK_3, 64000),  # Habana, DCS-7060DX4-32 (L3)
    AsicFamily.TOMAHAWK_4: _strata(AsicFamily.TOMAHAWK_4, 165100),  # Habana, DCS-7060PX5-64E-F (L3)
    AsicFamily.TOMAHAWK_5: _strata(AsicFamily.TOMAHAWK_5, None),  # no published headroom: EOS's default stays
    AsicFamily.JERICHO_2: QueueForm(AsicFamily.JERICHO_2.value, "tx-queue"),
}
