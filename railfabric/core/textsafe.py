"""Text safety, written once: which characters user text may hold, how a finding quotes it, and how each output
format escapes it.

Three rules, used everywhere:
- names (identifiers, hostnames) are letters, digits and a few separators (`intent.Ident`); hostnames are stricter still
  (RFC 1123, railfabric/core/units.py);
- free text (`rack`, any descriptive string of the inventory), checked by `free_text_problem`: ASCII letters and
  digits, space and `_ . , : / ( ) + # @ & -`, starting with a letter or digit and not ending with a space.
  No braces (Ansible evaluates `{{`, `{%` and `{#` as Jinja on the controller), no quotes or backslash (they
  break a JSON or config quoting context), no `=`/`+`/`-`/`@` first (a spreadsheet reads a cell starting so as a
  formula), no control characters (those are refused at load already, SEC001);
- a finding quotes user text only through `quote`: repr-style escapes, at most `limit` characters, and no `##[`
  (see `log_line`);
- text read back from a file railfabric does not control (generated/: its manifest's findings text, a diff of a
  file there, the names of its files) is printed only through `log_text`/`log_line`: no control character, and no
  line a CI runner would take for a command.

The per-output escapers (`csv_cell`, `jinja_unsafe`) are the defence in depth behind validation:
validated text passes through them unchanged.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from railfabric.core.text import escape

FREE_TEXT_CHARS = r"A-Za-z0-9 _.,:/()+#@&\-"  # a regex character class body
# Control characters are not reported here: the loader refuses them in every string (SEC001), once.
_CONTROL_CHARS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_FREE_TEXT_BAD = re.compile(rf"[^{FREE_TEXT_CHARS}{_CONTROL_CHARS}]")
_CONTROL = re.compile(f"[{_CONTROL_CHARS}]")
FREE_TEXT_HINT = ("free text may hold letters, digits, spaces and _ . , : / ( ) + # @ & -, "
                  "starting with a letter or digit")

JINJA_OPENERS = ("{{", "{%", "{#")
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")  # OWASP CSV injection: the first character of a cell

# GitHub Actions' runner reads a workflow command from any line whose first non-space characters are `::`
# (`::error ...::`, `::add-mask::`; actions/runner src/Runner.Common/ActionCommand.cs, TryParseV2: TrimStart, then
# StartsWith("::")) and an older-form command from `##[` ANYWHERE in a line (TryParse: IndexOf("##[")), both
# dispatched by src/Runner.Worker/ActionCommandManager.cs TryProcessCommand. Indenting a line does not disarm either.
RUNNER_OLD_COMMAND = "##["
RUNNER_COMMAND = "::"

SUGGEST_MAX_WORD = 64  # did-you-mean: longer words are not compared (SequenceMatcher is quadratic in length)
SUGGEST_MAX_OPTIONS = 2000  # ... nor against more candidates than this


def quote(value: object, limit: int = 40) -> str:
    """User text as a finding shows it: repr-style (quotes, control and non-printable characters escaped) and cut
    to `limit` characters with an ellipsis. Non-strings are shown by their repr, bounded the same way."""
    text = value if isinstance(value, str) else repr(value)
    cut = len(text) > limit
    shown = repr(text[:limit]) if isinstance(value, str) else escape(text[:limit])
    if cut:
        shown = shown[:-1] + "…" + shown[-1] if isinstance(value, str) else shown + "…"
    return shown.replace(RUNNER_OLD_COMMAND, "##\\[")


def log_line(line: str) -> str:
    """One line of text read back from generated/, safe to print to a terminal or a CI log: every character that
    is not printable (ESC, CR, NUL, U+2028, ...; a tab is kept) escaped as repr does (`\\x1b`), every `##[` given a
    backslash (`##\\[`), and a line whose first non-blank characters are `::` a backslash before them. A line that
    needs none of this comes back unchanged."""
    if not line.isprintable():
        line = "".join(c if c.isprintable() or c == "\t" else escape(c) for c in line)
    if RUNNER_OLD_COMMAND in line:
        line = line.replace(RUNNER_OLD_COMMAND, "##\\[")
    body = line.lstrip(" \t")
    if body.startswith(RUNNER_COMMAND):
        line = line[:len(line) - len(body)] + "\\" + body
    return line


def log_text(text: str) -> str:
    """`log_line` on every line of `text` (split at "\\n" only: any other line break is escaped)."""
    return "\n".join(log_line(line) for line in text.split("\n"))


def free_text_problem(text: str) -> str | None:
    """Why `text` is not acceptable free text, or None."""
    if not text:
        return "is empty"
    for opener in JINJA_OPENERS:
        if opener in text:
            return f"contains {opener!r} (Ansible would evaluate it as a Jinja template)"
    first = text[0]
    if not (first.isascii() and first.isalnum()) and not _CONTROL.match(first):
        return f"starts with {quote(first)}; free text starts with a letter or digit"
    if text[-1] == " ":
        return "ends with a space"
    bad = _FREE_TEXT_BAD.search(text)
    return f"contains the character {quote(bad.group())}" if bad else None


def did_you_mean(word: object, options: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The closest option to `word`, or None. Bounded: a long word or a huge option list gives no suggestion
    instead of a quadratic comparison."""
    text = str(word)
    if len(text) > SUGGEST_MAX_WORD:
        return None
    pool = [o for o in options if len(o) <= SUGGEST_MAX_WORD]
    if len(pool) > SUGGEST_MAX_OPTIONS:
        return None
    close = difflib.get_close_matches(text, pool, n=1, cutoff=cutoff)
    return close[0] if close else None


class Suggestions:
    """`did_you_mean` over one list of options for many words, at most `limit` times: no more findings than the
    finding budget (railfabric.core.finding.MAX_FINDINGS) are ever shown, so a rule that reports thousands of unknown
    names suggests for the first `limit` of them (give it the words in the order findings are shown: file, line,
    column) and returns None for the rest. One 8 MB inventory of 200,000 unknown device names took 147 s to validate
    when each got its suggestion."""

    def __init__(self, options: Iterable[str], limit: int) -> None:
        self.options = sorted(options)
        self.left = limit

    def __call__(self, word: object, cutoff: float = 0.6) -> str | None:
        if self.left <= 0:
            return None
        self.left -= 1
        return did_you_mean(word, self.options, cutoff)


# --------------------------------------------------------------------------- per-output escapers


def csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet will not run: text starting with = + - @ TAB or CR gets a leading apostrophe
    (OWASP). Other values pass unchanged (numbers stay numbers)."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def csv_row(row: Sequence[object]) -> Sequence[object]:
    """`row` with every cell through `csv_cell` (the row itself when no cell needs it: the common case, kept cheap
    for the half-million-row cabling plan of a large fabric)."""
    for cell in row:
        if cell.__class__ is str and cell.startswith(FORMULA_PREFIXES):
            return [csv_cell(c) for c in row]
    return row


def has_jinja(text: str) -> bool:
    return any(opener in text for opener in JINJA_OPENERS)


def jinja_unsafe(yaml_scalar: str, text: str) -> str:
    """A YAML scalar for an Ansible inventory or vars file: marked `!unsafe` when the text holds a Jinja opener,
    so Ansible never templates it."""
    return f"!unsafe {yaml_scalar}" if has_jinja(text) else yaml_scalar
