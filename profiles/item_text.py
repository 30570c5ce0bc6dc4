"""The one renderer of a memory item as people and agents read it (issue 17, issue 12).

MEMORY.md (:mod:`profiles.rendering`), the context lines agents receive
(:mod:`profiles.selectors`), the items of ``memory_get`` / ``memory_items``, the search index,
the user's pages, the version diff and the Markdown export all call :func:`item_text`. A line is
the key registry's label and the value, and for a dated fact the date at the precision it was
stated: ``Birth: son was born (2021)``, ``Marriage: got married (May 2019)``,
``生育：儿子出生（2021年）``, ``婚姻：结婚（2019年5月3日）``. No kind prefix ("Preference ·"):
every place that shows items groups them by kind already.

Precision. ``fact_date`` is a full date even when only a year or a month was said (the rules
store 1 January / the 1st). How precisely it is known is written in the item's stored ``text``
by the candidate renderer (``consolidation.extraction_common._render``: ``(2021)``,
``(2019-05)``, ``（2021年）``, ``（2019年5月）``), which is the only place the pipeline keeps it:
``Candidate.precision`` is not a column of the journal or of ``MemoryItem``. :func:`fact_precision`
reads it from there. Without that mark (a fact first said undated and dated later keeps its first
text; a row written by staff) the pipeline's own convention decides: a date on 1 January is a
year, on another month's 1st a month, any other day a day — showing less than was said rather
than a day nobody said.
"""

from __future__ import annotations

import datetime as dt
import re

from .taxonomy import key_label, key_spec

_CJK = re.compile(r"[\u4e00-\u9fff]")
_EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
              "October", "November", "December")
# The date mark the candidate renderer ends a fact's text with: (2021), (2019-05), （2021年）, （2019年5月）.
_DATE_MARK = re.compile(r"[（(]\s*(\d{4})(?:-(\d{1,2})|年(?:(\d{1,2})月)?)?\s*[)）]\s*$")
PRECISIONS = ("year", "month", "day")


def _field(item, name: str):
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _as_date(value) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def item_lang(item) -> str:
    """``"zh"`` when the item's value (or, without one, its text) holds a CJK character, else ``"en"``:
    the language the user stated it in. Input: a ``MemoryItem`` or its dict (``as_dict``)."""
    return "zh" if _CJK.search(_field(item, "value") or _field(item, "text") or "") else "en"


def fact_precision(*, text: str | None, fact_date) -> str | None:
    """How precisely ``fact_date`` is known: ``"year"``, ``"month"``, ``"day"``, or None without a date.

    Inputs: the item's stored ``text`` and its ``fact_date`` (a date or an ISO string). Read from
    the date mark at the end of ``text`` when its year is the date's, else from the date's shape
    (module docstring). Never raises."""
    date = _as_date(fact_date)
    if date is None:
        return None
    m = _DATE_MARK.search(text or "")
    if m and int(m.group(1)) == date.year:
        return "month" if (m.group(2) or m.group(3)) else "year"
    if date.day != 1:
        return "day"
    return "year" if date.month == 1 else "month"


def date_text(*, date, precision: str | None, lang: str) -> str:
    """``date`` (a date or an ISO string) at ``precision`` in ``lang``: en ``2021`` / ``May 2019`` /
    ``3 May 2019``, zh ``2021年`` / ``2019年5月`` / ``2019年5月3日``. An unknown precision is a day.
    Returns "" without a date."""
    d = _as_date(date)
    if d is None:
        return ""
    if lang == "zh":
        return {"year": f"{d.year}年", "month": f"{d.year}年{d.month}月"}.get(precision, f"{d.year}年{d.month}月{d.day}日")
    month = _EN_MONTHS[d.month - 1]
    return {"year": f"{d.year}", "month": f"{month} {d.year}"}.get(precision, f"{d.day} {month} {d.year}")


def item_label(*, kind: str, key: str, lang: str) -> str:
    """The label of a stored key in ``lang``: the registry's (``profiles.taxonomy.key_label``),
    with a preference's term or tool category (``pref:terminology:SKU`` → ``Terminology "SKU"``),
    capitalised in English."""
    label = key_label(kind=kind, key=key, lang=lang)
    parts = (key or "").split(":")
    if kind == "preference" and len(parts) > 2 and parts[1] in ("terminology", "tool"):
        if parts[1] == "terminology":
            label += f"「{parts[2]}」" if lang == "zh" else f' "{parts[2]}"'
        else:
            label += f"（{parts[2]}）" if lang == "zh" else f" ({parts[2]})"
    return label[:1].upper() + label[1:] if lang != "zh" else label


def item_text(item, *, lang: str | None = None) -> str:
    """One item as a line of text, without a list marker: label, value and a fact's date at its precision.

    Input: a ``MemoryItem`` or its dict (``kind``, ``key``, ``value``, ``text``, ``fact_date`` —
    a date or an ISO string); ``lang`` ``"zh"`` / ``"en"`` for the label and the date (default: the
    item's own language, :func:`item_lang`). Whitespace is collapsed, so the line never holds a
    newline. A key the registry does not know (rows written by hand or before the registry) has no
    label to render: its stored text stands, without the date mark it may end with. Returns str."""
    lang = "zh" if (lang or item_lang(item)).startswith("zh") else "en"
    kind, key = _field(item, "kind") or "", _field(item, "key") or ""
    value = " ".join(str(_field(item, "value") or "").split())
    text = " ".join(str(_field(item, "text") or "").split())
    if key_spec(kind=kind, key=key) is None or not value:
        line = _DATE_MARK.sub("", text).rstrip() or f"{key}: {value}"
    else:
        label = item_label(kind=kind, key=key, lang=lang)
        line = f"{label}：{value}" if lang == "zh" else f"{label}: {value}"
    date = _field(item, "fact_date") if kind == "fact" else None
    when = date_text(date=date, precision=fact_precision(text=text, fact_date=date), lang=lang)
    if when:
        line += f"（{when}）" if lang == "zh" else f" ({when})"
    return line
