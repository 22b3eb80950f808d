"""A small SVG writer for the pictures: boxes, lines and text at whole-pixel coordinates, every text escaped.

Byte-deterministic by construction: elements come out in the order they are drawn, coordinates are integers, no
ids, no timestamps. Text is set in a monospace font so that its width is known without measuring it (CHAR_W per
character at FONT px): boxes are sized from their text and nothing overflows on any renderer.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from xml.sax.saxutils import escape, quoteattr

FONT = 12  # px, body text
CHAR_W = 7.3  # px per character of FONT px monospace (DejaVu Sans Mono, Menlo, Consolas: 0.6 em; a little room)
LINE_H = 16  # px between text lines
FONTS = "DejaVu Sans Mono, Menlo, Consolas, monospace"

# One colour per rail (rail r takes RAIL_COLOURS[r % 12]): Paul Tol's "muted" and "bright" qualitative schemes,
# told apart by people with colour-vision deficiencies and readable as thin lines on white.
RAIL_COLOURS = ("#332288", "#CC6677", "#117733", "#DDAA33", "#88CCEE", "#AA4499", "#44AA99", "#999933",
                "#882255", "#4477AA", "#EE6677", "#228833")
INK = "#222222"
GREY = "#777777"


def text_width(text: str, size: int = FONT) -> int:
    return int(len(text) * CHAR_W * size / FONT + 0.999)


def rail_colour(rail: int) -> str:
    return RAIL_COLOURS[rail % len(RAIL_COLOURS)]


@cache
def tint(colour: str, amount: float = 0.18) -> str:
    """`colour` (`#rrggbb`) mixed into white: `amount` of the colour (a cell's background, text in ink on it)."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(round(255 - (255 - c) * amount) for c in (r, g, b)))


@cache
def on_colour(colour: str) -> str:
    """Text colour that reads on a `#rrggbb` fill: ink on light colours, white on dark ones (relative luminance)."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return INK if 0.2126 * r + 0.7152 * g + 0.0722 * b > 140 else "#ffffff"


class Svg:
    """An SVG document being drawn; `text()` gives the finished file."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.parts: list[str] = []

    def rect(self, x: int, y: int, w: int, h: int, fill: str = "#ffffff", stroke: str = INK, width: float = 1,
             rx: int = 4, dash: bool = False, tip: str = "") -> None:
        extra = ' stroke-dasharray="5 3"' if dash else ""
        body = f"<title>{escape(tip)}</title>" if tip else ""
        end = f">{body}</rect>" if body else "/>"
        self.parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" '
                          f'stroke="{stroke}" stroke-width="{width:g}"{extra}{end}')

    def polyline(self, points: Sequence[tuple[int, int]], stroke: str = INK, width: float = 1,
                 dash: bool = False) -> None:
        """Straight segments through `points` (the pictures route their edges as vertical and horizontal runs)."""
        extra = ' stroke-dasharray="4 4"' if dash else ""
        at = " ".join(f"{x},{y}" for x, y in points)
        self.parts.append(f'<polyline points="{at}" fill="none" stroke="{stroke}" stroke-width="{width:g}"{extra}/>')

    def text(self, x: int, y: int, text: str, size: int = FONT, bold: bool = False, anchor: str = "start",
             fill: str = INK) -> None:
        """`text` with its baseline at y."""
        attrs = f' font-size="{size}"' if size != FONT else ""
        attrs += ' font-weight="bold"' if bold else ""
        attrs += f' text-anchor="{anchor}"' if anchor != "start" else ""
        attrs += f' fill="{fill}"' if fill != INK else ""
        self.parts.append(f'<text x="{x}" y="{y}"{attrs}>{escape(text)}</text>')

    def document(self, width: int, height: int, margin: int = 16) -> str:
        w, h = width + 2 * margin, height + 2 * margin
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="{-margin} {-margin} '
                f'{w} {h}" font-family={quoteattr(FONTS)} font-size="{FONT}" fill="{INK}">\n'
                f"<title>{escape(self.title)}</title>\n"
                f'<rect x="{-margin}" y="{-margin}" width="{w}" height="{h}" fill="#ffffff"/>\n')
        return head + "\n".join(self.parts) + "\n</svg>\n"
