"""The inventory's `raw:` section: the escape hatch, configuration railfabric's model does not know, added verbatim.

`raw:` is a list of blocks. Each block names its platform and says where it applies with a selector, and carries
either `text` (the text platforms: EOS and NX-OS running-config lines, Junos curly-brace hierarchy, SONiC frr.conf
lines) or `data` (SONiC config_db.json tables → keys → fields, NVUE `set` tree paths):

    raw:
      - name: lldp-tlvs                  # shown in `fabric plan`, `fabric show` and every finding
        platform: eos
        roles: [rail]                    # selector: every given key must match (a list matches any of its items);
        pods: [1]                        #   no selector at all: every switch of the platform
        text: |
          lldp tlv transmit system-description

Merge order, most general first: fabric-wide blocks, then role, pod, segment and device blocks (a block's level is
its most specific selector key), and inside one level the order of the list. Text blocks are placed in that order
at the platform's raw position (the end of the file, docs/underlay.md); data blocks are merged in that order
into the file's data, a later block's value replacing an earlier one's (and railfabric's own).

Raw text is data, never a template: it reaches the file as a value printed by the template, so `{{ 7*7 }}` stays
`{{ 7*7 }}` (tests/test_raw.py). What the rule checks refuse (railfabric/checks/rules/raw_rules.py, RAW001-RAW008):
control characters (only newline and tab may appear in raw text; the loader checks it, RAW001), blocks and devices
past the size limits below, a text block on a data platform or the reverse, lines that would end the configuration
early (EOS/NX-OS `end` or a top-level `exit`, FRR `end`, unbalanced Junos braces), data values of other types than
strings, integers, booleans, mappings and lists, and selectors that name nothing.
"""

from __future__ import annotations

import fnmatch
from typing import Annotated, Any

from pydantic import Field, model_validator

from railfabric.inventory.intent_types import StrictModel
from railfabric.platforms import PLATFORM_NAMES

# Limits: a raw block is a few hand-written lines, not a second configuration. 64 KiB per block is about 1,500
# lines; 256 KiB per device bounds what the escape hatch adds to one file.
BLOCK_MAX_BYTES = 64 * 1024
DEVICE_MAX_BYTES = 256 * 1024
DATA_MAX_DEPTH = 16  # nesting of a data block (tables → keys → fields is 3; NVUE paths go about 10 deep)

LEVELS = ("fabric", "role", "pod", "segment", "device")  # merge order, most general first
ROLES = ("super-spine", "spine", "rail")

RawName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
                               description="the block's name: shown in `fabric plan`, `fabric show` and findings")]
SegmentRef = Annotated[str, Field(pattern=r"^[0-9]{1,4}/[0-9]{1,4}$", description="POD/SEGMENT, e.g. '1/2'")]
DevicePattern = Annotated[str, Field(pattern=r"^[A-Za-z0-9*?\[\]{}_.-]{1,80}$",
                                     description="a pattern name (the key of `devices:`) or hostname; `*`, `?` "
                                                 "and `[...]` match as shell patterns")]


class RawBlock(StrictModel):
    """One raw block: where it applies and what it adds."""

    name: RawName
    platform: Annotated[str, Field(json_schema_extra={"enum": list(PLATFORM_NAMES)},
                                   description="the platform whose files take the block: it applies only to "
                                               "switches of this platform")]
    roles: list[Annotated[str, Field(json_schema_extra={"enum": list(ROLES)})]] = Field(
        default_factory=list, description="switch roles (rail, spine, super-spine)")
    pods: list[Annotated[int, Field(ge=1, le=4096)]] = Field(default_factory=list, description="pod ids")
    segments: list[SegmentRef] = Field(default_factory=list, description="segments as POD/SEGMENT")
    devices: list[DevicePattern] = Field(default_factory=list, description="pattern names or hostnames")
    text: str | None = Field(None, description="configuration text for a text platform (EOS, NX-OS, Junos; SONiC: "
                             "frr.conf lines), printed verbatim at the platform's raw position")
    data: dict[str | int, Any] | None = Field(None, description="configuration data for a data platform (SONiC: "
                                        "config_db.json TABLE → key → field → value; NVUE: the `set` tree), merged "
                                        "into the file's data")

    @model_validator(mode="before")
    @classmethod
    def _known_platform(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("platform"), str) \
                and data["platform"] not in PLATFORM_NAMES:
            raise ValueError(f"unknown platform {data['platform']!r}; known: {', '.join(PLATFORM_NAMES)}")
        for key in ("roles",):
            values = data.get(key) if isinstance(data, dict) else None
            for v in values if isinstance(values, list) else ():
                if isinstance(v, str) and v not in ROLES:
                    raise ValueError(f"unknown role {v!r}; roles are {', '.join(ROLES)}")
        return data

    @model_validator(mode="after")
    def _one_form(self) -> RawBlock:
        if (self.text is None) == (self.data is None):
            raise ValueError("a raw block holds exactly one of `text` and `data`")
        return self

    @property
    def level(self) -> int:
        """The block's merge level (an index of LEVELS): its most specific selector key."""
        if self.devices:
            return 4
        if self.segments:
            return 3
        if self.pods:
            return 2
        return 1 if self.roles else 0

    def selects(self, platform: str, role: str, pod: int | None, segment: int | None, names: tuple[str, ...]) -> bool:
        """Whether the block applies to a switch of `platform` and `role` in `pod`/`segment` named `names` (its
        pattern name and hostname)."""
        if platform != self.platform:
            return False
        if self.roles and role not in self.roles:
            return False
        if self.pods and pod not in self.pods:
            return False
        if self.segments and f"{pod}/{segment}" not in self.segments:
            return False
        return not self.devices or any(device_matches(p, n) for p in self.devices for n in names)


def device_matches(pattern: str, name: str) -> bool:
    """A `devices:` entry against a pattern name or hostname: exactly, or as a shell pattern when it has one."""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return pattern == name


def ordered(blocks: list[RawBlock]) -> list[tuple[int, RawBlock]]:
    """(index in `raw:`, block) in merge order: by level, most general first, then list order."""
    return sorted(enumerate(blocks), key=lambda ib: (ib[1].level, ib[0]))


def blocks_for(blocks: list[RawBlock], platform: str, role: str, pod: int | None, segment: int | None,
               names: tuple[str, ...]) -> list[tuple[int, RawBlock]]:
    """The blocks that apply to one switch, in merge order, each with its index in `raw:`."""
    if not blocks:
        return []
    return [(i, b) for i, b in ordered(blocks) if b.selects(platform, role, pod, segment, names)]
