"""Limits a setting's value must meet (``Range``, ``Choices``, ``Pattern``), used by the settings
schema in :mod:`bizmemory.conf`. Foundation: imports no domain app."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from django.utils.text import format_lazy, get_text_list
from django.utils.translation import gettext_lazy as _


def _or(values) -> str:
    # Plain English: settings.py calls load() before translations can be used.
    return ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else "".join(values)


def _fmt(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Range:
    """A numeric interval; ``low_open``/``high_open`` exclude the bound. ``check`` is the id of
    the system check reporting a value outside it, or "" when parsing enforces it (a setting
    settings.py needs to build other settings, as with :class:`Choices`)."""

    check: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def ok(self, value) -> bool:
        """True when ``value`` is a finite int/float (not a bool) inside the interval."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def _bounds(self) -> str:
        if self.high is None:
            return f"{'>' if self.low_open else '≥'} {_fmt(self.low)}"
        if self.low is None:
            return f"{'<' if self.high_open else '≤'} {_fmt(self.high)}"
        return f"{'(' if self.low_open else '['}{_fmt(self.low)}, {_fmt(self.high)}{')' if self.high_open else ']'}"

    def label(self):
        """The limit as lazy text: ``> 0``, ``≥ 2`` or ``in (0, 1]``."""
        if self.high is None or self.low is None:
            return self._bounds()
        return format_lazy(_("in {interval}"), interval=self._bounds())

    def plain(self) -> str:
        """:meth:`label` in plain English, for messages written before translations can be used."""
        return self._bounds() if self.high is None or self.low is None else f"in {self._bounds()}"


@dataclass(frozen=True)
class Choices:
    """One of ``values``; ``check`` is its system check's id, or "" when parsing enforces it
    (a setting settings.py needs to build other settings)."""

    values: tuple[str, ...]
    check: str = ""

    def ok(self, value) -> bool:
        """True when ``value`` is one of the choices."""
        return value in self.values

    def label(self):
        """``always, throttled or never`` (lazy, translated separators)."""
        return get_text_list(list(self.values), _("or"))

    def plain(self) -> str:
        """:meth:`label` in plain English, for messages written before translations can be used."""
        return _or(self.values)


@dataclass(frozen=True)
class Pattern:
    """A string matching ``regex`` in full, or empty when ``empty_ok``; ``text`` describes it."""

    regex: str
    text: Any
    check: str
    empty_ok: bool = True

    def ok(self, value) -> bool:
        """True when ``value`` is a str matching the pattern (or empty, when allowed)."""
        if not isinstance(value, str):
            return False
        return (self.empty_ok and value == "") or re.fullmatch(self.regex, value) is not None

    def label(self):
        """The description given with the pattern (lazy text)."""
        return self.text


