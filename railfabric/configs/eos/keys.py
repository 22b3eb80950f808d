"""The lifetimes of EOS TCP-AO shared secrets (`management security` / `session shared-secret profile <tier>` /
`secret <id> 0 <key> receive-lifetime ... transmit-lifetime ...`), decided here and printed by
templates/eos/_management.j2.

A tier's key without a rollover is accepted and sent forever: `receive-lifetime infinite transmit-lifetime
infinite`. During a rollover (routing.authentication.<tier>.next) the profile holds two secrets, both received
forever, whose transmit windows meet at `send_from`: the current key is sent from a fixed past start (KEY_EPOCH, so
the file stays byte-identical) until send_from, the next key from send_from until KEY_END. Forms as Arista AVD's
eos_cli_config_gen writes `management_security.shared_secret_profiles[].secrets[]` (`transmit-lifetime <start
date time> <end date time>`, dates `YYYY-MM-DD hh:mm:ss`, UTC unless `local-time` is added). NOT verified in the EOS
User Manual (not in the library): the date format and range (KEY_END), which secret EOS sends when two windows
hold the time (they never overlap here), and that an established session changes keys without a reset.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # railfabric.device imports the platform registry, which imports this package
    from railfabric.device.sessions import NextKey, SessionKey

KEY_EPOCH = "2020-01-01 00:00:00"  # the current key's transmit start during a rollover (a fixed past time)
KEY_END = "2099-12-31 23:59:59"  # the next key's transmit end: after the rollover the key is promoted (infinite)


def eos_time(at: datetime) -> str:
    """A lifetime bound in UTC: 2026-12-01T06:00:00Z → "2026-12-01 06:00:00"."""
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M:%S}"


def transmit_lifetime(key: SessionKey) -> str:
    """The current key's `transmit-lifetime`: infinite, or during a rollover until the next key's send_from."""
    return "infinite" if key.next is None else f"{KEY_EPOCH} {eos_time(key.next.send_from_utc)}"


def next_transmit_lifetime(key: NextKey) -> str:
    """The next key's `transmit-lifetime`: from its send_from on."""
    return f"{eos_time(key.send_from_utc)} {KEY_END}"
