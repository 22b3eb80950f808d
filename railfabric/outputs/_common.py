"""Helpers shared by the artifact builders: natural sort keys, CSV text and interface lookups.

Everything here returns text or plain values; nothing writes files.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cache
from itertools import pairwise, starmap
from operator import itemgetter

from railfabric.core.address import address_of
from railfabric.core.order import natural_key as natural_key
from railfabric.core.textsafe import FORMULA_PREFIXES, csv_row
from railfabric.device import DeviceConfig

# natural_order: ASCII digits moved below every other character a text may hold (the line separator and the other
# control characters excepted: a text holding one takes the slow path), and every low digit made one (a skeleton)
_LOW_DIGITS = str.maketrans({str(d): chr(0x10 + d) for d in range(10)})
_SKELETON = str.maketrans({chr(0x10 + d): "\x10" for d in range(10)})
_LOW_RUN = re.compile("\x10+")
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f]")


def natural_order(texts: Sequence[str]) -> list[int]:
    """The positions of `texts` in the order of sorted(texts, key=natural_key) (stable), without a natural_key
    per text (a third of a million link ids at 131,072 GPUs).

    Each text's key is the text with its digits moved below every other character and each run of digits padded
    on the left with zeros to the longest run's width: comparing two such keys compares text as text and runs as
    numbers (equal width: the digits decide; a leading zero pads like any other), and a text ending before the
    other's (a prefix) comes first in both. Texts with the same skeleton (the text with every digit the same) have
    their runs at the same places, so one itemgetter and one format string pad them all. Non-ASCII text or a
    control character (Unicode digits, a line break) goes through natural_key."""
    keys = _padded_keys(texts)
    if keys is None:
        return sorted(range(len(texts)), key=lambda i: natural_key(texts[i]))
    return sorted(range(len(texts)), key=keys.__getitem__)


def natural_order_by_heads(texts: Sequence[str], heads: Sequence[str]) -> list[int]:
    """natural_order(texts), where most texts begin with one of a few heads (`heads`: each text's, such as a link
    id's lower device) and end in one of a few tails: each distinct head and tail is padded once and a text's key is
    its head's key and its tail's joined (at 131,072 GPUs 30,000 pieces padded instead of 393,000 link ids).

    The joined key is the text's own padded key when no run of digits spans the cut (a head ending in a digit and
    a tail starting with one: then, or when a text does not begin with its head, or a piece cannot be padded, every
    text goes through natural_order) and both pieces are padded to one width, the longest run of all the pieces,
    which are the runs of all the texts."""
    if len(texts) != len(heads) or not all(map(str.startswith, texts, heads)):
        return natural_order(texts)
    tails = list(map(str.removeprefix, texts, heads))  # the text after its head (startswith: the head is removed)
    head_texts, tail_texts = list(dict.fromkeys(heads)), list(dict.fromkeys(tails))
    if any(h[-1:].isdigit() for h in head_texts) and any(t[:1].isdigit() for t in tail_texts):
        return natural_order(texts)
    keys = _padded_keys([*head_texts, *tail_texts])
    if keys is None:
        return natural_order(texts)
    head_key = dict(zip(head_texts, keys, strict=False))
    tail_key = dict(zip(tail_texts, keys[len(head_texts):], strict=True))
    joined = list(map(str.__add__, map(head_key.__getitem__, heads), map(tail_key.__getitem__, tails)))
    return sorted(range(len(texts)), key=joined.__getitem__)


def _padded_keys(texts: Sequence[str]) -> list[str] | None:
    """Each text's padded key (natural_order), or None for a text holding a non-ASCII or control character."""
    low = "\n".join(texts)
    if not low.isascii() or _CONTROL.search(low) or low.count("\n") != max(len(texts) - 1, 0):
        return None
    low = low.translate(_LOW_DIGITS)
    lows, skeletons = low.split("\n"), low.translate(_SKELETON).split("\n")
    if not texts:
        return []
    groups: dict[str, list[int]] = {}
    for i, skeleton in enumerate(skeletons):
        groups.setdefault(skeleton, []).append(i)
    runs = {s: [m.span() for m in _LOW_RUN.finditer(s)] for s in groups}
    width = max((end - start for spans in runs.values() for start, end in spans), default=0)
    keys = lows  # padded in place, group by group
    for skeleton, members in groups.items():
        spans = runs[skeleton]
        if not spans:
            continue
        cuts = [0, *(start for start, _ in spans), len(skeleton)]
        pieces = itemgetter(*(slice(a, b) for a, b in pairwise(cuts)))
        padded = "{}" + "".join("\x10" * (width - (end - start)) + "{}" for start, end in spans)
        for i, key in zip(members, starmap(padded.format, map(pieces, map(lows.__getitem__, members))), strict=True):
            keys[i] = key
    return keys


# csv.writer's output with every cell start made visible: a line break becomes a delimiter, quotes go (a quoted cell
# then starts right after its delimiter) and the formula characters become NUL, so a cell that starts with one is
# ",\0" (or a NUL first); a false alarm (inside a quoted cell) costs only time. str.translate's ASCII path reads
# 23 MB in a few hundredths of a second, a regular expression in a few tenths.
_CELL_STARTS = str.maketrans({**{c: "\0" for c in FORMULA_PREFIXES}, "\n": ",", '"': None})


def _formula_cell(text: str) -> bool:
    """Whether a cell of `text` (csv.writer's output) may start with a formula character."""
    marked = text.translate(_CELL_STARTS)
    return marked.startswith("\0") or ",\0" in marked


def csv_lines_plain(title: str, header: Sequence[str], lines: Sequence[str]) -> str | None:
    """csv_text of rows already made as lines of cells joined with ',' (formatted in C, no tuple per row), or None
    when a line may not be what csv.writer writes for its cells: each line must hold exactly len(header) - 1
    commas and no line break (a cell holding either adds one), and every cell must pass plain_cells. On None the
    caller writes its rows of cells through csv_text."""
    text = "\n".join(lines)
    if (text.count(",") != len(lines) * (len(header) - 1) or text.count("\n") != max(len(lines) - 1, 0)
            or not plain_cells(text, ",\n")):
        return None
    return csv_text(title, header, []) + text + ("\n" if lines else "")


def format_template(*cells: str | None) -> str:
    """A str.format template of one CSV line: each None a field ('{}'), each text a fixed cell (its braces
    doubled, so that format writes it as it is), joined with ','."""
    return ",".join("{}" if c is None else c.replace("{", "{{").replace("}", "}}") for c in cells)


@cache
def _cell_marks(separators: str) -> bytes:
    """A bytes.translate table for plain_cells: 0 for what no plain cell holds, 2 for a formula's first character,
    3 for a separator, 1 for the rest."""
    marks = bytearray([1] * 256)
    for code in range(0x20):
        marks[code] = 0
    for char in '"\r\n,\x7f':
        marks[ord(char)] = 0
    for char in FORMULA_PREFIXES:
        marks[ord(char)] = 0 if ord(char) < 0x20 else 2
    for char in separators:
        marks[ord(char)] = 3
    return bytes(marks)


def plain_cells(text: str, separators: str) -> bool:
    """Whether `text`, cells separated by any of `separators`, is what csv.writer would write unchanged and csv_text
    would not escape: ASCII without a control character, a quote, a carriage return, a comma or a line break but
    the separators (whose count the caller checks), and no cell starting with a formula character (textsafe).
    One C pass: the text's bytes translated to marks (_cell_marks)."""
    if not text.isascii():
        return False
    marks = text.encode("ascii").translate(_cell_marks(separators))
    return b"\0" not in marks and not marks.startswith(b"\2") and b"\3\2" not in marks


def plain_values(values: Iterable[Hashable]) -> bool:
    """Whether every distinct value, written as str.format's '{}' writes it, passes plain_cells as a cell of its own:
    ASCII without a control character, quote, comma or line break, not starting with a formula character. A line
    made by a template of such cells (each fixed cell checked among the values) with such values in its fields then
    holds its template's separators only and is what csv.writer and csv_text write: its proof at the cost of the
    few thousand distinct names of a large fabric, not of the whole text."""
    texts = list(map("{}".format, set(values)))
    joined = "\n".join(texts)
    return joined.count("\n") == max(len(texts) - 1, 0) and plain_cells(joined, "\n")


def csv_text(title: str, header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A CSV document: one `# <title>` line (the schema version lives there), the header, the rows; '\\n' endings.
    None becomes an empty cell. A text cell that a spreadsheet would read as a formula (= + - @ TAB CR first) is
    escaped (textsafe.csv_cell): validation keeps such text out of the inventory, this is the second guard.
    The rows are written by csv.writer in one call and the text searched once for a cell that could need the
    escape; only when one might (never in a valid inventory) are they written again row by row through csv_row."""
    rows = rows if isinstance(rows, list) else list(rows)
    head = io.StringIO()
    head.write(f"# {title}\n")
    csv.writer(head, lineterminator="\n").writerow(header)
    body = io.StringIO()
    csv.writer(body, lineterminator="\n").writerows(rows)
    text = body.getvalue()
    if _formula_cell(text):
        body = io.StringIO()
        csv.writer(body, lineterminator="\n").writerows(map(csv_row, rows))
        text = body.getvalue()
    return head.getvalue() + text


def config_path(hostname: str, filename: str) -> str:
    """Where a rendered device file lives, relative to generated/."""
    return f"configs/{hostname}/{filename}"


def interface_names(devices: Mapping[str, DeviceConfig]) -> dict[tuple[str, int, int], str]:
    """(switch, physical port, lane) → platform interface name, as the device model (and so the configs) name it."""
    return {(name, i.port, i.lane): i.name for name, dev in devices.items() for i in dev.interfaces}


def routed_owners(devices: Mapping[str, DeviceConfig]) -> dict[int, tuple[str, str]]:
    """Every routed (/31) address → (device, interface or port-channel) that holds it."""
    owners: dict[int, tuple[str, str]] = {}
    for name, dev in devices.items():
        for i in dev.interfaces:
            if i.ipv4:
                owners[address_of(i.ipv4)] = (name, i.name)
        for pc in dev.port_channels:
            if pc.ipv4:
                owners[address_of(pc.ipv4)] = (name, pc.name)
        if dev.mlag is not None:  # the peer VLAN's interface of an MLAG pair (an SVI; NVUE: peerlink.4094)
            owners[address_of(dev.mlag.local_ip)] = (name, dev.mlag.interface)
    return owners


def host_bond(nic: int) -> str:
    """The host's name for the LACP bond of NIC `nic` under MLAG (rail map, IP plan, host files)."""
    return f"bond{nic}"
