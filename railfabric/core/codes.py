"""The catalogue of finding codes. Codes are stable: never reuse or renumber one.

Each code has a short machine name (used as the SARIF rule name), a title and an explanation
(shown by `fabric explain CODE`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Code:
    name: str
    title: str
    explanation: str


_TABLE: list[tuple[str, str, str, str]] = [
    # --- loading (LOAD): the files themselves
    ("LOAD001", "yaml-syntax", "YAML syntax error",
     "The file is not valid YAML. The location points at where the parser gave up."),
    ("LOAD002", "duplicate-key", "Key defined twice in one mapping",
     "YAML parsers usually keep the last value silently; railfabric refuses, because the first value may be "
     "the one you meant."),
    ("LOAD003", "duplicate-key-across-files", "Key defined in two inventory files",
     "Inventory files merge into one tree; mappings merge key by key, but one key cannot be defined twice."),
    ("LOAD004", "empty-file", "Empty inventory file", "The file holds no YAML document."),
    ("LOAD005", "not-a-mapping", "Top level is not a mapping",
     "Each inventory file must be a mapping of sections (fabric, routing, pods, ...)."),
    ("LOAD006", "not-text", "File is not UTF-8 text", "The file contains binary data or is not UTF-8."),
    ("LOAD007", "alias-bomb", "Too many alias expansions",
     "Anchors and aliases expanded beyond the limit (a 'billion laughs' file) or refer to themselves."),
    ("LOAD008", "no-inventory", "Inventory not found", "The inventory path does not exist or holds no .yml files."),
    ("LOAD009", "multi-document", "More than one YAML document in a file",
     "Put one document per file; use several files to split the inventory."),
    ("LOAD010", "bad-key", "Unusable mapping key", "Mapping keys must be plain scalars (strings or numbers)."),
    ("LOAD011", "too-large", "File too large", "Inventory files are limited in size to keep loading safe."),
    ("LOAD012", "symlink-outside", "Symlink points outside the inventory directory",
     "A symlinked file or directory under the inventory must stay inside it: following it would read (and quote in "
     "findings) any file the user running railfabric can read. Copy the file into the inventory instead."),
    ("LOAD013", "dangling-symlink", "Symlink to a file that does not exist",
     "A .yml/.yaml symlink whose target is missing would silently drop part of the inventory."),
    ("LOAD014", "not-a-regular-file", "Inventory entry is not a regular file",
     "A .yml/.yaml entry that is a FIFO, socket or device cannot be an inventory file (reading it could block)."),
    ("LOAD015", "input-budget", "Inventory files are too large together",
     "All inventory files together are limited in size, so that a huge input fails fast instead of running for "
     "minutes."),
    ("LOAD016", "too-many-findings", "Too many findings: the rest are not shown",
     "After this many findings the input is clearly not an inventory; fix the first ones and run again."),
    # --- schema (SCH)
    ("SCH001", "unknown-key", "Unknown key", "The key is not part of the inventory schema (see `fabric schema`)."),
    ("SCH002", "missing-key", "Required key missing", "The schema requires this key."),
    ("SCH003", "bad-value", "Value has the wrong type or is out of range", "See the message for the expected value."),
    # --- security (SEC)
    ("SEC001", "control-characters", "String contains a newline or control character",
     "Inventory strings end up inside device configurations; a newline or control character could inject "
     "configuration lines, so they are refused everywhere."),
    ("SEC002", "bad-hostname", "Hostname is not an RFC 1123 label",
     "Hostnames become file names under generated/ and appear in configs: 1-63 letters, digits and hyphens, "
     "not starting or ending with a hyphen."),
    ("SEC003", "bad-name-pattern", "Name pattern uses an unknown placeholder or format",
     "Name patterns may use {pod}, {segment}, {rail}, {rails}, {index}, {side}, {host}, {plane} with an optional "
     "zero-padded width such as {index:02d}."),
    ("SEC004", "unsafe-free-text", "Free text holds characters that could inject into an output",
     "Free text (rack, descriptions) reaches Ansible vars (evaluated as Jinja: '{{', '{%', '{#'), CSV files (a cell "
     "starting with = + - @ is a spreadsheet formula) and device configs (quotes break a quoting context). It may "
     "hold ASCII letters, digits, spaces and _ . , : / ( ) + # @ & -, starting with a letter or digit."),
    # --- references and identity (REF, ID)
    ("REF001", "unknown-switch-model", "Unknown switch model", "The name is not in switch_models."),
    ("REF002", "unknown-host-model", "Unknown host model", "The name is not in host_models."),
    ("REF003", "unknown-device", "Override for a device that does not exist",
     "Keys under `devices:` are the pattern names of switches the fabric generates."),
    ("ID001", "duplicate-pod-id", "Pod id used twice",
     "Pod ids identify pods in every allocation; they must be unique."),
    ("ID002", "duplicate-segment-id", "Segment id used twice in a pod", "Segment ids must be unique within a pod."),
    ("ID003", "duplicate-name", "Two devices or hosts have the same name",
     "Names become file names and BGP descriptions; they must be unique fabric-wide."),
    ("ID004", "id-beyond-limits", "Id or count beyond the address plan's limits",
     "Allocation strides come from `limits:`; an id or count above them would collide with a neighbour's slot."),
    ("ID005", "host-range-overlap", "Host groups of a segment overlap or need an explicit start",
     "Host numbers decide ports and addresses; each group needs a stable `first` so that adding or reordering "
     "groups never renumbers hosts."),
    ("ID006", "case-collision", "Two names differ only in case",
     "Names become directories under generated/ and DNS names: on macOS and Windows checkouts (and in DNS) two "
     "names that differ only in case are the same name."),
    # --- pools and addresses (POOL, ADDR)
    ("POOL001", "pool-overlap", "Address pools overlap", "Each pool must be disjoint from every other pool."),
    ("POOL002", "pool-exhausted", "Address pool too small",
     "The plan places an address outside the pool. Grow the pool or lower the limits."),
    ("POOL003", "address-outside-pool", "Explicit address outside its pool",
     "An explicitly pinned address must lie inside the pool it belongs to."),
    ("POOL004", "address-collision", "Explicit address collides with an allocated one",
     "The pinned address is already allocated to another device."),
    ("POOL005", "rail-block-too-small", "Rail subnets of a segment do not fit the segment's block",
     "Each segment gets a fixed block of the rail pool (limits.segment_rail_block)."),
    ("POOL006", "rail-subnet-too-small", "Rail subnet too small for the hosts",
     "A rail subnet holds the gateway and one address per host."),
    # --- MTU, QoS (MTU, QOS)
    ("MTU001", "host-mtu-above-fabric", "Host MTU above fabric MTU", "Hosts must not send frames the fabric drops."),
    ("MTU002", "host-mtu-too-small-for-roce", "Host MTU too small for 4096-byte RoCE payloads",
     "RoCEv2 path MTU 4096 needs the payload plus headers (Eth 14 + IP 20 + UDP 8 + BTH 12 + ICRC 4 and "
     "optional RETH 16) inside the host MTU."),
    ("MTU003", "host-mtu-above-rail-switch", "Host MTU above a rail switch's MTU",
     "Each rail switch carries at most its platform's MTU ceiling (EOS 9214, SONiC 9216) capped at fabric.mtu; a host "
     "NIC with a larger MTU would send frames its own rail switch drops. The rail map tells hosts host_mtu, so it "
     "must fit every rail switch."),
    ("QOS001", "ecn-thresholds", "ECN minimum threshold not below maximum", "ECN marking needs min < max."),
    ("QOS002", "dscp-clash", "RoCE and CNP use the same DSCP",
     "Data and congestion notifications need distinct DSCPs."),
    ("QOS003", "cnp-lossless", "CNP priority equals the lossless RoCE priority",
     "CNPs must not be paused by PFC; put them on a strict-priority class of their own."),
    ("QOS004", "pfc-watchdog-timers", "PFC watchdog detection shorter than its poll interval",
     "The watchdog cannot detect a storm faster than it polls."),
    ("QOS005", "pfc-watchdog-rounded", "PFC watchdog time rounded up to whole polls",
     "NX-OS (detection and restoration multipliers), Cumulus (robustness) and Junos (detection count) set the "
     "watchdog times as a number of polling intervals: a time that is not a multiple of poll_ms takes effect "
     "rounded up to the next poll, so the switch reacts later than the inventory says."),
    # --- rails and hardware (RAIL, HW, PORT)
    ("RAIL001", "rails-vs-nics", "Rails of a segment do not match the hosts' NICs",
     "Rail r carries NIC r of every host, so a segment needs as many rails as its hosts have NICs."),
    ("RAIL002", "rail-grouping", "Rails cannot be grouped onto switches as declared",
     "single-rail serves 1 rail per switch, dual-rail 2, multi-rail `rails_per_switch`; every rail exactly once."),
    ("RAIL003", "shared-nic-map", "GPU-to-NIC map missing or inconsistent",
     "Hosts with fewer NICs than GPUs must say which NIC each GPU uses."),
    ("RAIL004", "port-blocks", "Switch model's rail port blocks do not fit",
     "A rail switch serving k rails needs k rail port blocks in its model when blocks are given."),
    ("HW001", "no-speed-mode", "Switch cannot run a port at the needed speed",
     "The link speed must be the model's native speed or one of its breakouts."),
    ("HW002", "bad-breakout", "Breakout does not divide the native speed", "NxS must equal the native port speed."),
    ("PORT001", "ports-exhausted", "Switch needs more ports than it has",
     "Links were placed on port numbers the model does not have."),
    ("PORT002", "port-conflict", "Two links on one port",
     "Physical ports are compared whatever the link kind: a native port takes one cable, a broken-out port one cable "
     "per lane, all at one breakout mode (e.g. an explicit host cable on a lane of a port an uplink uses)."),
    ("PORT003", "port-stride", "Downlink ports reserved per segment or pod are too few",
     "spines.ports_per_segment / super_spines.ports_per_pod reserve fixed port ranges so that growth never "
     "moves existing cables; a segment or pod needs more than its range."),
    # --- topology (TOPO), ASN
    ("TOPO001", "no-uplinks", "Pod with spines is not connected to the super-spines",
     "A 3-tier fabric connects every pod with spines to the super-spines."),
    ("TOPO002", "plane-mismatch", "Spines cannot be spread over the super-spine planes",
     "With planes, spine i connects to plane ((i-1) mod planes)+1, which must have super-spines."),
    ("TOPO003", "port-channel", "Port-channel members do not divide the link count",
     "links_per_rail_switch must be a multiple of port_channel_members."),
    ("TOPO004", "dual-homing", "Dual-homing mode without dual-port NICs or vice versa",
     "Hosts with 2 ports per NIC land on two switches per rail; say how (mlag, esi, two-vlans)."),
    ("ASN001", "asn-range", "ASN outside the valid or private range",
     "RFC 6996 private ASNs: 64512-65534 (2-byte) and 4200000000-4294967294 (4-byte)."),
    ("ASN002", "asn-overlap", "ASN ranges of two tiers overlap", "Each tier's ASNs must be distinct (RFC 7938)."),
    ("CAP001", "oversubscribed", "Switch has less uplink than downlink capacity beyond the allowance",
     "Non-blocking needs as many Gbps up as down at every switch with an upper tier; declare "
     "solver.oversubscription.<tier> to accept a ratio on purpose."),
    ("RAIL010", "nic-on-wrong-rail", "A NIC is cabled to a switch that does not serve its rail",
     "NIC r of every host belongs on a rail-r switch: that is what keeps same-rank traffic one hop away."),
    ("RAIL011", "nic-on-other-segment", "A NIC is cabled to a switch of another segment",
     "Hosts connect to the rail switches of their own segment."),
    ("RAIL012", "nic-outside-port-block", "A NIC lands outside its rail's port block",
     "When a switch model declares rail port blocks, each rail's hosts use that block's ports."),
    ("RAIL013", "dual-homing-one-switch", "Both ports of a dual-homed NIC land on one switch",
     "Dual homing only protects against a switch failure when the two ports land on two switches."),
    ("REF004", "unknown-cable-end", "A cabling entry names a host, NIC port or switch that does not exist",
     "Entries under `cabling:` name hosts and switches by hostname."),
    ("PORT004", "speed-mismatch", "The two ends of a link run at different speeds",
     "Both ends of a link need the same speed."),
    ("PORT005", "port-disabled-link-off", "A link is left out because its generated port is disabled",
     "Ports are a function of identity, so a disabled port keeps its place: the link(s) it would carry are taken off "
     "and no other cable moves. A host NIC port goes back on the fabric with a `cabling:` entry (the hint names a "
     "free port); an uplink comes back when the port is repaired and re-enabled."),
    ("PORT006", "bad-lane", "A cable's lane does not exist in the port's breakout mode",
     "A port running at its native speed has no lanes (lane 0); a broken-out port has lanes 1..n of its mode; the "
     "speed must be the native one or a breakout's."),
    ("PORT007", "cable-on-disabled-port", "A cable lands on a disabled port",
     "Ports under devices.<switch>.disabled_ports are kept down; an explicit cable on one would never come up."),
    ("TOPO005", "dense-downlinks", "Spine or super-spine downlinks are not pinned per segment or pod",
     "Without spines.ports_per_segment (super_spines.ports_per_pod) downlinks are dense, in id order: inserting a "
     "segment (pod) with a lower id, or growing an earlier one, re-cables the upper end of every later cable. A "
     "stride reserves a fixed port range per id; the hint gives one that fits today's fabric with room to grow."),
    ("HW003", "serdes-lanes", "serdes_lanes does not divide into the model's breakout lanes",
     "Each breakout lane takes serdes_lanes / lanes electrical lanes (SONiC lanes, interface names); the division "
     "must be exact."),
    ("HW004", "model-too-few-ports", "A switch model's port count is too small for the switches of two or more tiers",
     "Switches of this model run out of ports (PORT001) under two or more of the objects that declare them (the "
     "super-spines, a spine block, a segment): the model's own port count is the common cause (often a typo such "
     "as ports: 32). It is reported once at the model's ports, and every PORT001 and the port clashes that follow "
     "are folded under it (root cause first: `fabric validate --all` lists them, json and sarif link them by "
     "caused_by)."),
    ("HW006", "no-asic-family", "A switch model's ASIC family is needed but not given",
     "Some platforms write per-queue QoS differently per switch family: EOS uses `uc-tx-queue` and a `platform "
     "trident mmu queue profile` on Trident/Tomahawk switches and `tx-queue` on Sand (Jericho) switches. Rather "
     "than guess a form the switch may refuse or read differently, railfabric asks for switch_models.<name>.asic "
     "on the models those switches use."),
    ("HW007", "asic-family-unsupported", "The platform has no per-queue QoS form for the model's ASIC family",
     "The family is known, but railfabric knows no form of this platform for it (an EOS switch on a Spectrum "
     "family, or a family whose forms were not found in the vendor's documentation). The forms and their sources "
     "are in railfabric/platforms/<platform>_asic.py."),
    ("PLAT001", "platform-capability", "The platform cannot express a requested feature",
     "Each platform has a record (railfabric/platforms/<name>.py); a feature it cannot express is refused instead of "
     "being silently left out of the configuration."),
    ("PLAT002", "not-rendered", "railfabric does not render this feature yet",
     "The platform could express the feature, but railfabric does not generate its configuration yet; rather than "
     "accept it and render something that behaves differently (for dual homing: the same gateway on two switches "
     "with no MLAG/EVPN between them), the inventory is refused."),
    ("PLAT030", "ecn-percent-only", "The platform sets ECN thresholds as queue fill percentages, not bytes",
     "Junos drop profiles take fill levels in percent of the queue (`interpolate fill-level [a b]`), so the byte "
     "thresholds of qos.ecn cannot be carried over. railfabric renders Juniper's AI JVD fill levels for QFX5240 "
     "(55 % / 90 %) with the inventory's marking probability; check the marking point on the switch (`show "
     "class-of-service drop-profile`) against the hosts' DCQCN tuning."),
    ("PLAT040", "release-not-rendered", "railfabric does not render that release of the switch OS",
     "A platform whose forms change between releases lists the releases it renders (railfabric/platforms/<name>.py; "
     "NVUE: Cumulus Linux 5.9-5.18, what differs in railfabric/platforms/nvue_release.py); each rendered file is "
     "checked against the vendor's schema of its release. A release outside the list has no schema here and may move "
     "forms again (Cumulus Linux 5.15 moved interface addresses, DNS, NTP and most booleans), so it is refused rather "
     "than rendered in forms the switch could reject. A platform with one form set takes no release at all."),
    ("PLAT041", "unnumbered-not-rendered", "The platform's BGP unnumbered form is not rendered",
     "routing.addressing: unnumbered runs eBGP over the IPv6 link-local address of each fabric link (RFC 8950). "
     "railfabric renders it only on platforms whose form it confirmed in the vendor's documentation and checks "
     "(railfabric/platforms/<name>.py says which and why not); on the others it refuses rather than render a guess. "
     "Keep these switches numbered (routing.addressing: numbered) or move them to a platform that renders it."),
    # --- the rollout's drain (DRAIN001-DRAIN009, issue 30): routing.drain, railfabric/plan/drain.py
    ("DRAIN001", "graceful-shutdown-unsupported", "Graceful shutdown asked for on a fabric with a platform lacking it",
     "routing.drain: graceful-shutdown drains a switch by sending the RFC 8326 GRACEFUL_SHUTDOWN community "
     "(65535:0); every platform of the fabric must be able to send it (a switch of the platform lacking it could not "
     "be drained that way). Use routing.drain: auto (graceful shutdown where every platform supports it, else AS-path "
     "prepending for the whole fabric) or as-path-prepend."),
    ("MLAG001", "no-peer-link", "An MLAG pair has no peer link",
     "Both switches of an MLAG pair answer for the same gateway and announce the same rail subnets. When a host "
     "loses one of its two links, the traffic for it that the spines send to the switch it lost must cross the peer "
     "link; without one that traffic is blackholed (and the MLAG control session has nowhere to run)."),
    ("MLAG002", "pair-mismatch", "The two switches of an MLAG pair differ in platform or model",
     "An MLAG pair is one logical switch: both run the same platform (MLAG does not interoperate across vendors) "
     "and, for the same port layout and peer link, the same model."),
    ("MLAG003", "peer-vlan-clash", "A rail VLAN of an MLAG segment is the peer VLAN",
     "The peer VLAN (4094; 3967 on NX-OS, whose 4094 is reserved) carries the MLAG control session and the pair's "
     "iBGP session over the peer link; a rail VLAN cannot use it."),
    ("MLAG004", "thin-peer-link", "The MLAG peer link is a single point of failure or thinner than a host port",
     "After one host link fails, up to half of that NIC's traffic (what the spines hash to the switch that lost the "
     "link) crosses the peer link. A one-port peer link blackholes it on one more failure; a peer link slower than "
     "a host port congests."),
    # --- underlay addressing (UND001-UND009): routing.addressing
    ("UND001", "no-link-pool", "A numbered link needs pools.fabric_links",
     "pools.fabric_links may be left out only when no link needs a /31: with routing.addressing: unnumbered and no "
     "MLAG pair (the pair's iBGP session over its peer VLAN stays numbered, a /31 from the pool)."),
    # --- GPU hosts (HOST001-HOST019): the host model's NIC names, rendered into hosts/<host>/netplan.yaml and the
    # host group's RoCE script and NCCL environment
    ("HOST001", "netdev-count", "A host model's netdevs do not name every NIC port",
     "host_models.<m>.netdevs lists the Linux interface name of every NIC port, NIC by NIC (NIC 0 port 1, NIC 0 "
     "port 2, NIC 1 port 1, ...): nics x ports_per_nic names. With fewer or more, NIC r's address, routing table "
     "and RoCE settings would land on another NIC's port, which is the rail miswiring railfabric exists to prevent."),
    ("HOST002", "rdma-device-count", "A host model's rdma_devices do not name every NIC port",
     "host_models.<m>.rdma_devices lists the RDMA device of every NIC port in the order of netdevs (mlx5 gives each "
     "port of a ConnectX its own PCI function and RDMA device): NCCL_IB_HCA is built from it in rail order and the "
     "RoCE script sets each device's RDMA-CM type of service."),
    ("HOST003", "duplicate-nic-name", "A host model names one interface or RDMA device twice",
     "Two NIC ports with one Linux name (or two NICs with one RDMA device) would get two addresses and routing "
     "tables on one interface and none on the other."),
    ("HOST004", "bond-name-clash", "A NIC port is named like one of the host's bonds",
     "Under dual_homing: mlag both ports of NIC n form the LACP bond bond<n> (the rail map's name); a NIC port "
     "already called so would make netplan define the interface twice."),
    ("HOST005", "nic-speed-unrunnable", "A host model's NIC speed runs on none of its rail switch models",
     "No rail switch model the host model is placed on runs its nic_speed, natively or as a breakout lane, so "
     "every one of its host links is wrong the same way: the speed itself is the fault (often a typo such as "
     "4000G). It is reported once at nic_speed, and the port, capacity and buffer findings derived from the speed "
     "are folded under it (root cause first: `fabric validate --all` lists them, json and sarif link them by "
     "caused_by). A speed that only some of its rail switch models run is HW001 at the segment instead."),
    ("HOST006", "nic-layout-fits-no-segment", "A host model's NIC count or ports per NIC fits none of its segments",
     "Every segment the host model is placed in disagrees with it the same way: its nics differ from each "
     "segment's rails (RAIL001), or its ports_per_nic from each segment's dual_homing (TOPO004). The model's fact is "
     "the likely fault, reported once at its own line; the segments' findings are folded under it (root cause "
     "first: `fabric validate --all` lists them)."),
    ("HOST007", "spraying-toward-in-order-nics", "Packet spraying toward NICs that cannot take reordering",
     "routing.ecmp.mode packet sprays each flow's packets over every uplink, so one queue pair's packets arrive out "
     "of order. A RoCE NIC without out-of-order data placement takes a gap as loss and retransmits from it "
     "(go-back-N): spraying then lowers goodput. NVIDIA documents out-of-order data placement for ConnectX-5 and "
     "later on RC/XRC QPs and DC, enabled per QP (NCCL_IB_ADAPTIVE_ROUTING=1, set by the host files under packet "
     "mode). A host model in a pod with spines says so with accepts_out_of_order: true."),
    ("HOST008", "reserved-nic-name", "A host model names a NIC port with a name Linux keeps for itself",
     "host_models.<m>.netdevs cannot hold lo (the loopback interface of every network namespace), all or default "
     "(the sysctl directories /proc/sys/net/ipv4/conf/all and default; systemd-networkd, netplan's renderer, refuses "
     "them), bonding_masters (the bonding driver's file in /sys/class/net) or a name of digits only (read as an "
     "interface index). netplan would configure the loopback or fail to apply the file on the server."),
    ("VLAN001", "vlan-range", "Rail VLAN outside 2-4094", "VLAN ids 1 and 4095 are reserved."),
    ("VLAN002", "vlan-reserved", "A rail VLAN is in the platform's reserved VLAN block",
     "Some switches keep a block of VLANs for internal use and refuse to configure them: NX-OS reserves 3968-4094 "
     "by default (Cisco Nexus 9000 Layer 2 Switching Configuration Guide, VLAN ranges; moving the block with "
     "`system vlan <n> reserve` needs a reload, and railfabric renders the default). Rail VLANs of switches on such a "
     "platform must stay below the block."),
    ("FAIL001", "single-homed-nics", "A rail switch failure disconnects single-homed NICs",
     "A NIC whose ports all land on one rail switch loses the fabric while that switch is down: that rail of "
     "every host on the switch stops. This is how single-homed rails work (information, not an error); dual-port "
     "NICs with dual_homing keep the NIC up through one switch failure."),
    ("SUM001", "summarization-blackhole", "A single link failure can blackhole traffic under a summary",
     "A spine that advertises its pod's rail block as a summary-only aggregate keeps advertising it after losing its "
     "only link to a rail switch, so traffic for that switch's subnets sent to this spine is dropped (RFC 7938 "
     "section 8.2). Rail switch aggregates cover their own rails only and are safe."),
    ("LAT001", "latency-budget", "Worst-case one-way GPU-to-GPU latency above the budget",
     "Latency = the switches on the path (switch_models.*.latency_ns) + cable propagation (solver.cable lengths x "
     "solver.fiber_ns_per_m); the budget is solver.latency_budget_ns."),
    ("BIS001", "bisection", "Bisection bandwidth below the hosts' bandwidth",
     "The max-flow between two halves of the fabric (by pod, segment or host) is below what the hosts of the "
     "smaller half can send: the fabric is blocking across that cut."),
    ("ECMP001", "ecmp-width", "ECMP width below a switch's uplink next hops: some uplinks stay idle",
     "BGP installs at most routing.ecmp.width (maximum-paths) next hops per prefix; a routed link is one next hop, an "
     "L3 port-channel is one. A switch with more next hops up than that leaves the rest idle, and the capacity "
     "checks count only min(width, next hops) x the per-next-hop speed."),
    ("REACH001", "unreachable-segments", "Segments of one pod cannot reach each other",
     "Hosts reach each other only through cables: a rail-only pod (no spines) with several segments is as many "
     "islands, so a job cannot span them. Add spines or make each segment a pod of its own."),
    # --- lossless buffers on SONiC (BUF001-BUF049)
    ("BUF001", "no-buffer-facts", "A SONiC switch's model has no buffer facts",
     "SONiC gets its whole config_db.json from railfabric, buffer tables included (a full replace would delete "
     "anything else): the lossless PG of the RoCE priority needs headroom computed from the ASIC's buffer facts "
     "(switch_models.<m>.buffers: pool sizes, cell size, pipeline latency, ...). Without them the port would pause "
     "its peer too late and drop: PFC without headroom is not lossless."),
    ("BUF002", "headroom-exceeds-buffer", "The lossless headroom of a switch does not fit its buffer",
     "Each lossless PG reserves its headroom (xon + xoff, from speed, cable length and MTU: "
     "railfabric/plan/buffers.py). Together (plus any shared headroom pool) they must fit in what the shared buffer "
     "leaves after the ingress pools: total_bytes - ingress_lossless_pool - ingress_lossy_pool. Otherwise the ASIC "
     "cannot reserve them."),
    ("BUF003", "no-pause-quanta", "No headroom figure for a port speed",
     "The peer's response time to PAUSE comes from IEEE 802.3 Annex 31B.3.7's pause quanta per speed; railfabric "
     "knows 10G-800G. A lossless port at another speed gets no headroom, so it is refused."),
    ("SEC005", "secret-in-plain-text", "A secret field holds a value instead of a vault reference",
     "Passwords, TACACS+/RADIUS keys and SNMPv3 passphrases are written as {vault: NAME}: NAME is an Ansible variable "
     "kept in an ansible-vault encrypted file. Generated files carry the placeholder %%vault.NAME%%, which the push "
     "resolves on the controller just before sending. A plain value (or a hash: hashes are cracked offline) would "
     "be published with inventory/ and generated/; the finding never repeats the refused value."),
    # --- management plane (MGMT): the push must keep its own way in
    ("MGMT001", "no-local-user", "EOS switches would have no local account after the push",
     "The EOS running-config is pushed as a full replace (configuration session + rollback clean-config): accounts "
     "it does not list are deleted, including the one the push logs in with. Declare the users under system: "
     "(fabric-wide) or devices.<name>.system:, with a push_user."),
    ("MGMT002", "no-push-user", "EOS switches have users but no push_user",
     "system.push_user names the account the push logs in as; the push refuses to send a config that does not keep "
     "it, so it must be declared."),
    ("MGMT003", "unknown-push-user", "push_user is not one of the users",
     "push_user must name an account under system.users (after the per-device override is applied)."),
    ("MGMT004", "push-user-not-admin", "push_user does not have the network-admin role",
     "Replacing the whole configuration needs an administrator: role network-admin."),
    ("MGMT005", "push-user-no-credential", "push_user has neither a password nor an SSH key",
     "Nobody could log in as an account without a password hash reference or an SSH public key."),
    ("MGMT006", "login-method-without-servers", "A login method names TACACS+ or RADIUS without servers",
     "aaa.login lists tacacs or radius but aaa.tacacs / aaa.radius is not configured, so the method could never "
     "answer."),
    ("MGMT007", "no-local-fallback", "Login order has no local fallback",
     "When the AAA servers are unreachable (the management network is down, or the push broke it) only local "
     "accounts can log in; aaa.login must contain local."),
    ("MGMT008", "no-management-access", "EOS switches with neither eAPI nor SSH",
     "After a full replace the switch could only be reached on its console."),
    ("MGMT009", "management-server-in-fabric-pool", "A management server address lies in a fabric pool",
     "NTP, DNS, syslog and AAA servers are reached through the management VRF; an address from the loopback, "
     "fabric-link or rail pools is a fabric address and is not reachable there."),
    ("MGMT010", "eos-user-without-password", "An EOS user has no password reference",
     "An EOS account without a secret exists only as 'nopassword', which accepts a login with no password at all; "
     "every EOS user needs password: {vault: NAME} (SSH keys may be added on top). SONiC accounts are Linux accounts "
     "the playbook creates and may be key-only."),
    ("SKIP001", "checks-skipped", "Checks of an inventory item were skipped because it does not validate",
     "An item (pod, segment, host group, device override, cable, switch or host model, the super_spines block, the "
     "system section) with a schema error (an unknown or invalid key) or an unknown reference is left out, with "
     "what depends on it (the items that name a left-out model, the pods with spines under left-out super-spines), "
     "and every later check runs on the rest, so all findings come at once. A device override or cable that names "
     "a switch or host of a left-out item is folded under the error that left it out (root cause first). Nothing "
     "is rendered while any error remains."),
    # --- BGP session options (issue 30): BFD timers per session tier (BFD001-BFD009), session keys (AUTH001-AUTH009,
    # PLAT046-PLAT052); railfabric/checks/rules/session_rules.py
    ("BFD001", "bfd-interval-out-of-range", "A BFD interval the platform of a tier's switches cannot run",
     "routing.bfd_timers (or its tiers.<tier>) sets the transmit/receive interval every switch of the tier "
     "configures; each platform documents its own range for the form railfabric writes (NX-OS interface timers "
     "50-999 ms, FRR profiles 10-60000 ms, ...: railfabric/platforms/<name>.py). Rather than render a line the "
     "switch refuses, or let one end of a session run other timers than the other, the inventory is refused."),
    ("BFD002", "bfd-multiplier-out-of-range", "A BFD detect multiplier the platform of a tier's switches cannot run",
     "As BFD001, for the detect multiplier (EOS 3-50, NX-OS 1-50, FRR and NVUE 2-255, Junos 1-255)."),
    ("BFD003", "bfd-timers-without-bfd", "BFD timers set while BFD is off",
     "routing.bfd is false, so no session runs BFD and routing.bfd_timers would change nothing: turn BFD on or "
     "remove the timers."),
    ("BFD004", "bfd-tier-without-sessions", "BFD timers of a session tier the fabric has no session of",
     "The tier's timers apply to nothing (no super-spines for spine_super_spine, no MLAG pair for mlag_peer): a "
     "warning, since a fabric-wide policy may name every tier."),
    ("AUTH001", "key-tier-without-sessions", "A session key of a tier the fabric has no session of",
     "routing.authentication names a tier no BGP session of this fabric belongs to, so the key is rendered nowhere: "
     "a warning, since a fabric-wide policy may name every tier."),
    ("AUTH002", "md5-key-rollover", "A second key on a TCP MD5 tier",
     "routing.authentication.<tier>.next holds the key a tier rolls over to. TCP MD5 (RFC 2385) signs each segment "
     "with the one key of the connection: a switch cannot accept two, and changing the key resets the session (FRR: "
     "a BGP Cease on every session of the group, measured in the FRR lab). Only TCP-AO (RFC 5925) keeps several keys "
     "per connection, told apart by KeyID, so railfabric renders a rollover on TCP-AO tiers only (EOS, Junos). For "
     "md5, change the password itself, switch by switch behind the rollout's drain."),
    ("AUTH003", "md5-key-id", "A key id on a TCP MD5 tier",
     "routing.authentication.<tier>.key_id is the TCP-AO KeyID (SendID = RecvID) the switches put in each segment; "
     "TCP MD5 has no key ids, so the value would change nothing: remove it or use tcp-ao."),
    ("AUTH004", "rollover-key-id-clash", "The next key has the current key's KeyID",
     "During a TCP-AO rollover every switch of the tier holds both keys, and a receiver picks the key of a segment "
     "by its KeyID (RFC 5925 3.1: the MKTs of a connection differ in their IDs; Juniper's key chain refuses a "
     "send-id/recv-id another key of the chain uses). Give the next key another KeyID; after the rollover it "
     "becomes the tier's key_id."),
    ("AUTH005", "rollover-same-key", "The next key is the current key",
     "routing.authentication.<tier>.next.password names the same vault variable as password: the rollover would "
     "change the KeyID and nothing else. A warning: rotating to a new KeyID alone is legal but rarely meant."),
    ("PLAT046", "tcp-ao-not-expressible", "TCP-AO on a platform without a TCP-AO form",
     "routing.authentication.<tier>.algorithm: tcp-ao (RFC 5925) needs both ends of every session of the tier to "
     "speak it. railfabric renders it on EOS (shared-secret profiles) and Junos (key chains with algorithm ao); "
     "FRR 8.4 (SONiC), NVUE and NX-OS have no form railfabric could verify, so the tier is refused rather than "
     "rendered without its key. Use md5 for that tier, or move the tier's switches to a platform with TCP-AO."),
    # --- per-device pins of the address plan (PIN001-PIN009): railfabric/checks/rules/pin_rules.py
    ("PIN001", "loopback-pin-clash", "A pinned loopback is another switch's loopback",
     "devices.<name>.loopback replaces one switch's computed loopback; another switch (pinned or computed) with the "
     "same address would announce the same /32, and the fabric would split the traffic for it between the two."),
    ("PIN002", "router-id-clash", "Two switches have the same BGP router-id",
     "The router-id is the loopback address unless devices.<name>.router_id pins it. BGP identifiers must be unique: "
     "a speaker refuses an OPEN carrying its own identifier (RFC 4271 section 6.2, Bad BGP Identifier: the MLAG "
     "pair's iBGP session), and RFC 6286 asks for uniqueness within an AS (the spines of a pod share one)."),
    ("PIN003", "loopback-pin-outside-pool", "A pinned loopback is outside pools.loopbacks",
     "A warning: every switch announces its own /32 (the redistribution prefix-list names the address, not the "
     "pool), so the loopback works, and keeping an address from before the migration is what a pin is for. But the "
     "pool no longer holds every loopback: the ip plan shows no pool for it and the pool checks (POOL001, MGMT009) do "
     "not cover it. Widen the pool to cover it, or keep it knowingly."),
    ("PIN004", "loopback-pin-in-other-pool", "A pinned loopback is inside another pool",
     "pools.fabric_links, rail_subnets and management are handed out by the plan (/31s, rail subnets and their "
     "hosts, management addresses): a loopback there would clash with an address the plan gives now or later."),
    ("PIN005", "asn-pin-ibgp", "An ASN pin gives a switch the ASN of one of its BGP neighbours",
     "Sessions are configured with remote-as = the neighbour's ASN; when it is the switch's own, the session is "
     "iBGP: it adds no AS to the path and iBGP-learned routes are not passed to the other iBGP peers (RFC 4271 "
     "section 9.2), so the switch stops carrying routes between the tiers (RFC 7938: each tier its own ASNs)."),
    ("PIN006", "asn-pin-loop", "An ASN pin gives a switch the ASN of another switch whose routes reach it",
     "BGP drops an UPDATE whose AS_PATH holds the receiver's own ASN (loop prevention, RFC 4271 section 9.1.2). Two "
     "switches outside one RFC 7938 group (the super-spines, a pod's spines, an MLAG pair) that share an ASN drop "
     "each other's routes and every route passing through the other: a rail switch with another rail switch's ASN "
     "loses that switch's rail subnets, one with the super-spines' ASN loses every other pod. Switches in parts of "
     "the fabric that exchange no routes (rail-only pods) may share one."),
    ("PIN007", "asn-pin-splits-group", "An ASN pin splits the super-spines, a pod's spines or an MLAG pair",
     "RFC 7938 section 5.2.1 gives the spines of a pod one ASN and the super-spines one. A pin that splits them is a "
     "warning: multipath-relax (rendered on every platform) keeps ECMP across different neighbour ASNs, but the "
     "shared ASN is what stops a spine from accepting a path through another spine and a lower switch, so after a "
     "link failure a lower switch can become transit and withdrawals hunt through longer paths. An MLAG pair with "
     "two ASNs is an error: the pair is one speaker for its rail subnets and its iBGP session would not come up."),
    ("PIN008", "asn-pin-reserved", "An ASN pin is reserved or not private",
     "Reserved ASNs are errors: AS_TRANS 23456 (RFC 6793), documentation 64496-64511 and 65536-65551 (RFC 5398), "
     "65535 (RFC 7300), 65552-131071 (reserved by IANA); the schema refuses 0 and 4294967295. A public ASN (outside "
     "RFC 6996's 64512-65534 and 4200000000-4294967294) is a warning: use it only if it is yours."),
    ("PIN009", "pin-unusable-address", "A pinned loopback or router-id is an address no switch can use",
     "A loopback cannot be in 0.0.0.0/8, 127.0.0.0/8 (the host loopback), 224.0.0.0/4 (multicast), 240.0.0.0/4 or "
     "255.255.255.255; a BGP Identifier is a non-zero 32-bit number (RFC 6286 section 2.1), so router_id 0.0.0.0 "
     "is refused."),
    # --- SONiC YANG validation of rendered config_db.json (YANG001-YANG019): `fabric sonic-yang`
    ("YANG001", "unmodelled-table", "config_db table without a YANG model",
     "SONiC's Generic Config Updater (config replace / apply-patch) refuses changes to tables no YANG model "
     "defines. Leave the table out or use the table name SONiC's models define."),
    ("YANG002", "unmatched-row-key", "Row key fits no list or container of the table's model",
     "Each row goes into the model list whose key has as many leaves as the row key has '|'-separated parts "
     "(or into the container it names, e.g. DEVICE_METADATA|localhost). A row that fits none cannot be loaded."),
    ("YANG003", "unknown-field", "Field not in the table's YANG model",
     "The model's list or container has no leaf of that name: a misspelt field, or one of another SONiC release."),
    ("YANG004", "bad-shape", "config_db.json value of the wrong JSON shape",
     "Tables and rows are JSON objects, values strings (leaf-lists JSON lists of strings); no control characters."),
    ("YANG005", "leaf-list-as-string", "A leaf-list written as one string",
     "The model says leaf-list: config_db.json needs a JSON list (SONiC splits a string only for a few fields)."),
    ("YANG006", "empty-table", "Empty table",
     "GCU rejects a target config that leaves a table empty; leave the table out instead."),
    ("YANG007", "invalid-value", "Value does not fit its YANG type",
     "The value breaks the leaf's type: pattern, range, length, enumeration or boolean (yanglint's message)."),
    ("YANG008", "unresolved-reference", "Reference to a row that does not exist (leafref)",
     "The field refers to a row of another table (a port, a map, a profile ...) that the config does not hold."),
    ("YANG009", "missing-mandatory", "Mandatory field missing",
     "The model requires this field in every row of the table."),
    ("YANG010", "condition-failed", "YANG must/when condition not satisfied",
     "A cross-field or cross-table rule of the model fails (yanglint quotes the condition)."),
    ("YANG011", "yang-rule", "Other YANG validation error",
     "yanglint refused the data with a message of the model's own (error-message) or another error; "
     "its text is quoted."),
    ("YANG012", "too-many-errors", "Too many YANG errors in one file",
     "Each error costs one more yanglint run to look past it; after this many the rest are not shown."),
    # --- raw configuration (RAW001-RAW009): the escape hatch, railfabric/inventory/intent_raw.py
    ("RAW001", "raw-control-characters", "Raw text contains a control character",
     "Raw configuration text is lines: only newline and tab may appear. A CR, NUL, ESC or another control character "
     "could end a CLI session early, hide a line from review or change what a terminal shows; it is refused."),
    ("RAW002", "raw-block-too-large", "A raw block is larger than the limit",
     "A raw block is a few hand-written lines, not a second configuration: at most 64 KiB of text or of data (as "
     "JSON). Model what is this large in railfabric instead, or split it where it belongs."),
    ("RAW003", "raw-device-too-large", "The raw blocks of one switch are larger than the limit together",
     "All raw blocks that apply to one switch add at most 256 KiB to its files."),
    ("RAW004", "raw-form-mismatch", "A raw block's form does not fit its platform",
     "Text goes to the text platforms (EOS, NX-OS, Junos; SONiC: frr.conf lines), data to the data platforms (SONiC "
     "config_db.json tables, NVUE `set` paths). NVUE takes no text (its file is YAML data) and EOS, NX-OS and Junos "
     "take no data."),
    ("RAW005", "raw-ends-config", "A raw line would end or break the configuration early",
     "Raw text is placed inside the rendered file, so a line that ends the configuration mode (EOS/NX-OS/FRR `end`, "
     "EOS/NX-OS `exit` at the top level) would make every later line run in the wrong mode, and unbalanced Junos "
     "braces or quotes would swallow or break the rest of the hierarchy. A line holding `railfabric raw ` "
     "(railfabric's own block marker) is refused too: `fabric verify` pairs the markers."),
    ("RAW006", "raw-bad-data", "A raw data block has the wrong shape or value type",
     "Data values are strings, integers, booleans, mappings and lists only (no null, no floats). SONiC data is "
     "TABLE → key → field → value (a value a string, integer or boolean, written as a string, or a list of them); "
     "NVUE data is the `set` tree as startup.yaml writes it."),
    ("RAW007", "raw-unknown-selector", "A raw block's selector names nothing in the fabric",
     "Each pod, segment (POD/SEGMENT) and device (pattern name, hostname or shell pattern) a raw block names must "
     "exist, so that a typo never makes a block apply silently nowhere."),
    ("RAW008", "raw-applies-nowhere", "A raw block applies to no switch",
     "The block's selector matches no switch of its platform: it renders nowhere. A warning: the block may be "
     "prepared for switches that are not there yet."),
    # --- dual-stack loopbacks and rail subnets (issue 30, V6001-V6009, PLAT047-PLAT052):
    # railfabric/checks/rules/ipv6_rules.py, railfabric/plan/allocate_v6.py
    ("V6001", "ipv6-without-pools", "Dual-stack without the IPv6 pools",
     "routing.address_families with ipv6 gives every switch an IPv6 /128 loopback from pools.loopbacks_v6 and every "
     "rail VLAN an IPv6 /64 from pools.rail_subnets_v6; both pools are needed."),
    ("V6002", "ipv6-pool-too-small", "An IPv6 pool is too small for the plan",
     "Allocation strides by identity, as for IPv4 (POOL002): a switch's /128 is at its loopback slot, a segment's "
     "/56 of rail subnets at its segment slot. The pool must reach the highest slot in use."),
    ("V6003", "ipv6-segment-too-many-subnets", "A segment has more rail subnets than its IPv6 /56 holds",
     "Each segment owns a /56 of pools.rail_subnets_v6: 256 /64s, one per rail subnet (RFC 4291 section 2.5.1: a "
     "LAN is a /64). The /64 of a rail subnet is numbered as its IPv4 subnet within the segment's IPv4 block, so a "
     "segment whose block holds more than 256 rail subnets cannot be mirrored."),
    ("V6004", "ipv6-pool-overlap", "The IPv6 pools overlap",
     "pools.loopbacks_v6 and pools.rail_subnets_v6 must be disjoint, or a loopback /128 would sit inside a rail "
     "/64 (the IPv4 POOL001 rule)."),
    ("V6005", "ipv6-only", "IPv6-only (or a family listed twice) is not rendered",
     "routing.address_families is [ipv4] or [ipv4, ipv6]: the BGP router-id is derived from the IPv4 loopback and "
     "the hosts' RoCE addresses, routes and NCCL settings are planned on IPv4, so an IPv6-only fabric would leave "
     "them without addresses."),
    ("V6006", "ipv6-pool-unused", "An IPv6 pool on an IPv4-only fabric",
     "A warning: pools.loopbacks_v6 or rail_subnets_v6 is set but routing.address_families has no ipv6, so nothing "
     "is allocated from it."),
    ("PLAT047", "dual-stack-not-rendered", "The platform's dual-stack forms are not rendered",
     "routing.address_families: [ipv4, ipv6] needs an IPv6 address on the loopback and on each rail VLAN interface "
     "and the BGP IPv6 unicast address family activated on the fabric sessions (IPv6 routes over the IPv4 or "
     "link-local sessions, with the link-local next hop of the fabric link). railfabric renders it where each form "
     "was confirmed from the vendor's documentation or run (railfabric/platforms/<name>.py); elsewhere the fabric "
     "is refused rather than rendered half dual-stack."),
    ("RAW009", "raw-overrides-managed", "A raw value replaces a value railfabric manages",
     "The raw line or data path sets a value railfabric writes itself (same place, same command words, another "
     "value), so the switch runs the raw value and railfabric's checks, expected state and verify describe the "
     "other. A warning: an override may be intended; model it in the inventory where railfabric can."),
    # --- load balancing beyond flow hashing (issue 30, lb30: LB001-LB009, PLAT053-PLAT058): routing.ecmp,
    # railfabric/checks/rules/lb_rules.py
    ("LB001", "ecmp-option-without-mode", "An ECMP option set with a mode that ignores it",
     "routing.ecmp.flowlet_inactivity_us is the pause after which flowlet mode may move a flow; "
     "link_utilization_threshold is when per-packet adaptive routing considers a port loaded. With another mode the "
     "switch never reads them, so the inventory says something the fabric does not do: set the mode or drop the "
     "option."),
    ("LB002", "ecmp-hash-bad-list", "An ECMP hash field list that is empty or names a field twice",
     "routing.ecmp.hash lists the header fields the hash includes: an empty list would hash nothing (every flow on "
     "one next hop) and a repeated field says nothing more. Leave hash out for the platform's default."),
    ("LB003", "ecmp-hash-without-roce-entropy", "An ECMP hash without the L4 source port, RoCE's entropy",
     "RoCEv2 packets go to UDP port 4791 with a source port the NIC varies per queue pair: between two NICs the "
     "addresses, protocol and destination port are the same for every queue pair, so a hash without l4_src_port puts "
     "all of them on one path (NCCL's channels between two GPUs collide). A warning: add l4_src_port, unless the "
     "fabric carries no RoCE."),
    ("PLAT053", "ecmp-hash-field-not-expressible", "An ECMP hash field a platform of the fabric cannot select",
     "Each platform renders the hash fields whose form railfabric confirmed in its documents "
     "(railfabric/platforms/<name>.py): SONiC and NVUE the five-tuple, the IPv6 flow label and the ingress port; "
     "Junos (QFX5000) the five-tuple; NX-OS addresses and ports; EOS none (its forms differ per ASIC family). A "
     "field one platform hashes and another cannot would make the fabric hash unevenly per tier, so it is refused."),
    ("PLAT054", "ecmp-hash-set-not-expressible", "An ECMP hash field set a platform takes only as whole sets",
     "NX-OS selects the hash with `ip load-sharing address source-destination [port source-destination]`: source "
     "and destination address, optionally with both ports. Another set of those fields has no confirmed form there."),
    ("PLAT055", "flowlet-interval-not-expressible", "A flowlet inactivity interval on a platform that cannot set it",
     "routing.ecmp.flowlet_inactivity_us is rendered where the platform has a confirmed form (Junos ecmp-dlb flowlet "
     "inactivity-interval). Elsewhere the switch keeps its own interval, so flowlets would split at different "
     "pauses per tier and the reordering bound the interval stands for would not hold fabric-wide: an error rather "
     "than a warning. Leave the interval out to let every switch keep its default."),
    ("PLAT056", "adaptive-threshold-not-expressible", "An adaptive-routing threshold on a platform without one",
     "routing.ecmp.link_utilization_threshold is NVUE adaptive routing's link-utilization-threshold. Another "
     "platform's per-packet mode (Junos ecmp-dlb per-packet) has no such setting in the forms railfabric renders: "
     "the fabric's switches would judge load differently, so it is refused."),
    ("PLAT057", "dlb-over-port-channel", "Dynamic load balancing with a port-channel among the ECMP members",
     "Junos DLB (ecmp-dlb flowlet or per-packet) is not supported when a LAG is one of the egress ECMP members "
     "(Juniper, Dynamic Load Balancing). With spines.port_channel_members the rail-spine links are bundles: route "
     "them one by one, or keep flow hashing."),
    # --- InfiniBand (IB): fabric.kind infiniband (issue 31): Ethernet-only keys refused, the subnet's limits
    ("IB001", "ib-no-ip-routing", "routing: on an InfiniBand fabric",
     "The BGP/OSPF underlay has no meaning on InfiniBand: the subnet manager programs every switch's forwarding "
     "table (infiniband.routing_engine). Remove the routing section."),
    ("IB002", "ib-no-roce-qos", "The RoCE qos: section on an InfiniBand fabric",
     "DSCP, PFC and ECN are Ethernet. InfiniBand's QoS is service levels mapped to virtual lanes: infiniband.qos."),
    ("IB003", "ib-no-pools", "IP pools on an InfiniBand fabric",
     "An InfiniBand subnet addresses ports by LIDs the subnet manager assigns; there is no IP plan. Remove pools."),
    ("IB004", "ib-no-system", "The switch management baseline on an InfiniBand fabric",
     "system: is rendered into the Ethernet platforms' configs; railfabric renders no switch config for "
     "InfiniBand (the subnet manager's files instead). Remove it."),
    ("IB005", "ib-no-raw", "Raw Ethernet configuration on an InfiniBand fabric",
     "raw: blocks go into the Ethernet platforms' configs, which an InfiniBand fabric does not have."),
    ("IB006", "ib-no-limits", "Address-plan limits on an InfiniBand fabric",
     "limits: is the geometry of the IP address plan; an InfiniBand fabric has none."),
    ("IB007", "ib-no-platform", "An Ethernet switch platform or release on an InfiniBand fabric",
     "fabric.platform and fabric.releases choose the Ethernet switch OS whose configs are rendered."),
    ("IB008", "ib-no-mtu", "An Ethernet MTU on an InfiniBand fabric",
     "fabric.mtu and fabric.host_mtu are Ethernet MTUs in bytes; InfiniBand negotiates its MTU per link."),
    ("IB009", "ib-no-vlans", "Rail VLANs on an InfiniBand fabric",
     "InfiniBand has no VLANs; partitions (infiniband.partitions, PKeys) isolate tenants."),
    ("IB010", "ib-no-rail-subnets", "A rail subnet prefix length on an InfiniBand fabric",
     "rail_prefix_len sizes the rails' IP subnets; an InfiniBand fabric has none."),
    ("IB011", "ib-no-dual-homing", "Ethernet dual homing on an InfiniBand fabric",
     "dual_homing (MLAG, ESI, two VLANs) and the MLAG peer link are Ethernet; an HCA port connects to one switch."),
    ("IB012", "ib-no-port-channels", "Port-channels on an InfiniBand fabric",
     "InfiniBand has no L3 port-channels: the subnet manager spreads routes over parallel links itself."),
    ("IB013", "ib-no-address-pins", "A pinned ASN, loopback, router-id or management address on InfiniBand",
     "Device pins replace values of the Ethernet address plan, which an InfiniBand fabric does not have."),
    ("IB014", "ib-no-device-platform", "An Ethernet platform, release or system on an InfiniBand switch",
     "A pod, segment, spine tier, super-spine tier or device override chose an Ethernet switch OS or its settings."),
    ("IB015", "ib-section-on-ethernet", "An infiniband: section on an Ethernet fabric",
     "The infiniband: section describes an InfiniBand subnet. Set fabric.kind: infiniband, or remove the section."),
    ("IB016", "ib-section-missing", "An InfiniBand fabric without its infiniband: section",
     "fabric.kind: infiniband needs the infiniband: section: at least the subnet managers."),
    ("IB020", "ib-single-sm", "A single subnet manager",
     "With one SM the subnet cannot be re-swept or changed while it is down. Plan two (master and standby, on "
     "different switches or hosts, different priorities)."),
    ("IB021", "ib-sm-unknown", "A subnet manager on a node the plan does not have",
     "infiniband.subnet_managers names a switch by hostname, or a host and its HCA by rail index."),
    ("IB022", "ib-sm-priority", "Subnet managers with equal priorities",
     "OpenSM elects the master by priority, then by the lowest port GUID: with equal priorities the master is not "
     "the planned one."),
    ("IB023", "ib-partition", "A partition OpenSM would refuse",
     "PKeys are unique, within 0x0001-0x7ffe (0x7fff is the default partition); names are letters, digits, '-', '_'."),
    ("IB024", "ib-partition-host", "A partition naming a host the fabric does not have",
     "Partition members are hosts of the fabric (names or Slurm host lists such as dgx[01-16])."),
    ("IB025", "ib-lmc", "An LMC the routing engine cannot use",
     "ftree does not support LMC > 0 (OpenSM falls back to minhop); use lmc 0, or updn."),
    ("IB026", "ib-lid-space", "More LIDs than the unicast LID space",
     "Each end port (every HCA port and every switch) takes 2^lmc LIDs; unicast LIDs are 0x0001-0xbfff (IBTA)."),
    ("IB027", "ib-not-connected", "HCAs the subnet cannot reach",
     "One subnet manager sweeps one connected subnet: HCAs on switches with no path between them (for example "
     "the leaves of a rail-only pod) cannot reach each other and the SM sees only its own island."),
    ("IB028", "ib-port", "A cable on a port the switch does not have, or a port cabled twice",
     "Every cable end is a port of its switch model (1..ports) and each port carries one cable."),
    ("IB029", "ib-nvidia-engine", "A routing engine only NVIDIA's subnet manager has",
     "ar_ftree and ar_updn (adaptive routing) are NVIDIA's SM (UFM / MLNX OpenSM) engines; upstream OpenSM refuses "
     "them, so the generated opensm.conf needs NVIDIA's SM and the lab cannot run it."),
    ("IB030", "ib-qos", "A QoS plan OpenSM would refuse",
     "The SL-to-VL map has 16 entries within the data VLs in use (max_vls); VL arbitration entries are VL 0-14 "
     "with weights 0-255."),
    ("IB031", "ib-subnet", "A subnet OpenSM would refuse", "railfabric.infiniband.model.problems() said so."),
    ("IB032", "ib-ftree-rank", "A fat tree ftree cannot rank",
     "OpenSM's ftree routes trees of rank 2 to 8 (FAT_TREE_MIN_RANK / FAT_TREE_MAX_RANK, linux-rdma/opensm "
     "opensm/osm_ucast_ftree.c: a rank-1 tree has only trivial paths); the rank is the number of switch tiers. "
     "Use minhop or updn for a single switch tier."),
    ("IB033", "ib-switch-radix", "An InfiniBand switch model with more than 255 ports",
     "OpenSM keeps a switch's port numbers in 8 bits: ftree notes that 'each switch can have at max 255 up/down "
     "ports' (linux-rdma/opensm opensm/osm_ucast_ftree.c)."),
    ("IB034", "ib-no-buffers", "SONiC lossless buffer facts on an InfiniBand switch model",
     "switch_models.<model>.buffers sizes SONiC's PFC (lossless) buffers of an Ethernet ASIC. InfiniBand's "
     "link-level flow control is credit based: there is no PFC headroom to plan. Remove it."),
    ("IB035", "ib-no-hwsku", "A SONiC HwSKU on an InfiniBand switch model",
     "hwsku is written into a SONiC switch's DEVICE_METADATA; no switch config is rendered on InfiniBand."),
    ("IB036", "ib-no-asic", "An Ethernet ASIC family on an InfiniBand switch model",
     "asic (spectrum-4, tomahawk, jericho) chooses the QoS forms an Ethernet platform writes; an InfiniBand "
     "switch's model name (QM9700, Q3400) is what its outputs key on."),
    ("IB037", "ib-no-model-releases", "Ethernet switch OS releases on an InfiniBand switch model",
     "switch_models.<model>.releases picks an Ethernet switch OS release per platform (as fabric.releases, IB007)."),
    ("IB038", "ib-no-peer-link-ports", "MLAG peer-link ports on an InfiniBand switch model",
     "port_blocks.peer_link places the MLAG peer link, which InfiniBand does not have (as peer_link_ports, IB011); "
     "port_blocks.rails and port_blocks.uplinks still place the cables."),
    ("IB039", "ib-no-serdes-lanes", "SerDes lanes on an InfiniBand switch model",
     "serdes_lanes names Ethernet interfaces (Ethernet<n> by lane) and SONiC port lanes; an InfiniBand port is a "
     "number, 1..ports."),
    ("IB040", "ib-no-breakouts", "Breakout modes on an InfiniBand switch model",
     "The subnet numbers an InfiniBand switch's logical ports 1..ports with one cable each; a split port is its own "
     "logical port. Describe a split switch by its logical ports: a QM9700 (64 ports of 400G, each OSFP cage 2 "
     "ports) with every port split to NDR200 is ports: 128, speed: 200G."),
    ("IB050", "ib-quantum2-vl-high", "The QoS plan uses the high-priority VL arbitration table on Quantum-2",
     "NVIDIA's Quantum-2 firmware release notes (31.2010.x, known issue 955641): VL_HIGH_LIMIT does not affect the "
     "VL arbiter as expected; the workaround is to set the arbitration using only the low-priority table. Plan "
     "vlarb_high: [] and high_limit: 0 with the weights in vlarb_low."),
    ("IB051", "ib-quantum2-vl-weight-zero", "A VL arbitration weight of 0 on Quantum-2",
     "NVIDIA's Quantum-2 firmware release notes (31.2010.x, known issue 1249608): configuring weight 0 for a VL "
     "results in unexpected behavior; the workaround is weights other than 0. Leave the VL out of the table."),

]

CODES: dict[str, Code] = {code: Code(name, title, expl) for code, name, title, expl in _TABLE}
