"""One renderer of a memory item (``profiles.item_text``, issue 17): label and value, and a fact's
date at the precision it was stated — year, month or day, in Chinese and English — the same line
in MEMORY.md, the context agents get, memory_get / memory_items, the search index, the user's
page, the version diff and the export."""

import datetime as dt

import pytest

from consolidation.consolidate import consolidation_run
from profiles.item_text import date_text, fact_precision, item_text
from profiles.models import MemoryDocument, MemoryItem
from profiles.page_selectors import export_markdown, snapshot_diff
from profiles.readers import memory_get_answer, memory_items_answer
from profiles.selectors import memory_context, search_index_chunks
from tests.helpers import post_and_extract


@pytest.fixture
def said(alice, t0):
    """Real rows: both languages through extraction and consolidation."""
    post_and_extract("alice", "s-en", [("user", "I like green tea. My son was born in 2021. I got married in May 2019."),
                                       ("assistant", "ok")], start=t0)
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(hours=1))  # version 1
    post_and_extract("alice", "s-zh", [("user", "我儿子是2021年出生的。我2019年5月结婚了。"), ("assistant", "好的")],
                     start=t0 + dt.timedelta(hours=2))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(hours=3))  # version 2
    return {f"{i.key}/{i.value}": i for i in MemoryItem.objects.current().filter(user=alice)}


def test_year_and_month_facts_read_at_their_precision_in_both_languages(said):
    lines = sorted(item_text(i) for i in said.values())
    assert lines == sorted([
        "Drink: green tea", "Birth: son was born (2021)", "Marriage: got married (May 2019)",
        "生育：儿子出生（2021年）", "婚姻：结婚（2019年5月）",
    ])
    assert [fact_precision(text=said[k].text, fact_date=said[k].fact_date)
            for k in ("fact:birth:son/son was born", "fact:marriage/got married", "fact:marriage/结婚")] \
        == ["year", "month", "month"]


def test_a_day_precise_date_reads_as_a_day_in_both_languages(alice, t0):
    """A date the user gave to the day (no year / month mark; a staff edit here) keeps its day."""
    item = MemoryItem.objects.create(user=alice, kind="fact", key="fact:marriage", value="got married",
                                     text="got married", fact_date=dt.date(2019, 5, 3), valid_from=t0, confirmed_at=t0)
    assert item_text(item) == "Marriage: got married (3 May 2019)"
    assert item_text(item, lang="zh") == "婚姻：got married（2019年5月3日）"
    assert fact_precision(text=item.text, fact_date=item.fact_date) == "day"


@pytest.mark.parametrize(("precision", "en", "zh"), [
    ("year", "2021", "2021年"), ("month", "March 2021", "2021年3月"), ("day", "9 March 2021", "2021年3月9日"),
])
def test_dates_are_written_at_their_precision(precision, en, zh):
    assert date_text(date=dt.date(2021, 3, 9), precision=precision, lang="en") == en
    assert date_text(date="2021-03-09", precision=precision, lang="zh") == zh


def test_the_same_line_reaches_every_place(said, alice, client):
    wanted = [item_text(i) for i in said.values()]
    md = MemoryDocument.objects.get(user=alice).markdown
    ctx = memory_context(user=alice, agent_slug="main", budget=2000).text
    items = memory_items_answer(user=alice, agent_slug="main")["items"]
    one = memory_get_answer(user=alice, agent_slug="main", item_id=said["fact:birth:son/son was born"].pk)["item"]
    chunks = {c["text"] for c in search_index_chunks(user=alice)}
    client.force_login(alice)
    page = client.get("/memory/").content.decode()
    export = export_markdown(user=alice)
    for line in wanted:
        assert f"- {line}\n" in md and f"- {line}" in ctx and line in chunks and line in page and line in export, line
    assert sorted(i["text"] for i in items) == sorted(wanted)
    assert one["text"] == "Birth: son was born (2021)" and one["fact_precision"] == "year"
    for text in (md, ctx, page, export):
        assert "2021-01-01" not in text and "2019-05-01" not in text and "Preference ·" not in text and "事实·" not in text


def test_the_version_diff_uses_the_same_line(said, alice):
    """The staff diff of versions (``page_selectors.snapshot_diff``)."""
    added = snapshot_diff(user=alice, old=1, new=2)["added"]
    assert "[fact] 生育：儿子出生（2021年）" in added and "[fact] 婚姻：结婚（2019年5月）" in added
    assert not any("Drink" in line or "2021-01-01" in line for line in added)
