"""Colours of the `-o html` picture: one categorical hue family per workload (a Deployment, a Job,
a PodGroup, ...), shades of it per pod, so that the pods of one workload read as one group and
different workloads never look alike.

The base colours are Tableau 10 without its grey, then darker and lighter companions: every two
of them (and the neutral OTHER) are at least 22 apart in CIELAB (CIE76 delta E), at least 22
from the page's white (free devices) and 15 from the hatching grey of unavailable devices
(tests/cli/test_report_html.py checks the palette, test_report_html_picture.py the legend as the
browser draws it). Workloads beyond the palette share OTHER, one legend entry says how many.
"""

from __future__ import annotations

BASE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
        "#1f3b63", "#8c4a00", "#7a1020", "#1d5c57", "#2a5a1e", "#7a6300", "#5a2d55", "#b33a6e", "#4a3020",
        "#9ecae9")
OTHER = "#8d8d8d"      # every workload beyond BASE (a neutral grey)
# Per pod of a workload: the base colour mixed with white (+) or black (-) by these fractions.
_SHADES = (0.0, 0.28, -0.22, 0.46, -0.38, 0.14, -0.1, 0.36)


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _hex(rgb) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def shade(colour: str, index: int) -> str:
    """The index-th pod's shade of a workload colour (the first pod gets the colour itself)."""
    mix = _SHADES[index % len(_SHADES)]
    target = 255 if mix > 0 else 0
    return _hex(c + (target - c) * abs(mix) for c in _rgb(colour))


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on `background` (WCAG relative luminance)."""
    def linear(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in _rgb(background))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#111111" if luminance > 0.22 else "#ffffff"


def assign(workloads: list[dict]) -> dict[str, str]:
    """workload id -> base colour; `workloads` ranked (most devices first), beyond BASE: OTHER."""
    return {w["id"]: BASE[i] if i < len(BASE) else OTHER for i, w in enumerate(workloads)}
