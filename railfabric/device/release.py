"""Which release of its OS a switch's files are rendered for: the device's `release`, else its model's
`releases.<platform>`, else `fabric.releases.<platform>`, else the platform's default (railfabric/platforms/base.py).
Whether the release is one the platform renders is a validation rule (railfabric/checks/rules/release_rules.py,
PLAT040)."""

from __future__ import annotations

from railfabric.inventory.intent import Inventory
from railfabric.platforms import PLATFORMS
from railfabric.topology import Switch


def declared_release(inv: Inventory, key: str, model: str, platform: str) -> str | None:
    """The release the inventory names for a switch (override key `key`), or None."""
    ov = inv.devices.get(key)
    if ov is not None and ov.release:
        return ov.release
    sm = inv.switch_models.get(model)
    if sm is not None and platform in sm.releases:
        return sm.releases[platform]  # type: ignore[index]
    return inv.fabric.releases.get(platform)  # type: ignore[call-overload]


def release_of(inv: Inventory, sw: Switch) -> str:
    return PLATFORMS[sw.platform].release(declared_release(inv, sw.key, sw.model, sw.platform))
