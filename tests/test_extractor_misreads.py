"""Spans that look like a memory but say something else (consolidation/extractor/misreads.py),
and the lists and cues found beside them (blind 14 a+b, stop 28): each case through the pure check
and end to end through the shipped extractor."""
import datetime as dt

import pytest

from consolidation.extractor.misreads import left_behind, org_shaped, place_without_time, role_misread
from consolidation.extractor.service import candidates_extract
from tests.extraction_rules_helpers import span_where

AT = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.timezone.utc)


def _cands(text):
    return [(c.kind, c.key.split(":")[0] if c.kind == "profile" else c.key, c.value, c.operation)
            for c in candidates_extract([(text, AT)])[0].candidates]


# (code, misread example (text, value), kept example (text, value))
ROLE_CASES = [
    ("address_form", ("以后叫我老周就行，别一口一个周老师的，听着生分。", "周老师"), ("我是高中的周老师，教物理的。", "周老师")),
    ("address_form", ("Please just call me Doctor, everyone does.", "Doctor"), ("I'm a doctor at the county clinic.", "doctor")),
    ("level", ("Also passed my IADC WellSharp at supervisor level on the last hitch.", "supervisor"),
     ("I'm a supervisor on the night shift.", "supervisor")),
    ("verb", ("now they're asking me to lead the BRT corridor scheduling.", "lead"), ("They made me lead of the platform team.", "lead")),
]


@pytest.mark.parametrize("code,misread,kept", ROLE_CASES)
def test_a_title_used_otherwise_is_no_role(code, misread, kept):
    text, value = misread
    assert role_misread(text, *span_where(text, value)) == code
    text, value = kept
    assert role_misread(text, *span_where(text, value)) is None


@pytest.mark.parametrize("text,value,key,left", [
    ("Me I joined Mwangaza in 2021 in the Nairobi office, then came up to Lodwar January last year.", "Nairobi", "city", True),
    ("Me I joined Mwangaza in 2021 in the Nairobi office, then came up to Lodwar January last year.", "Mwangaza", "company", False),
    ("我先在东莞厂干了三年，后来调到长沙了。", "东莞", "city", True),
    ("I spent a year at Deloitte, then joined KPMG in Leeds.", "Deloitte", "company", True),
    ("I live in Leeds and then went to the gym.", "Leeds", "city", False),
    ("我在东莞上班，然后晚上去健身。", "东莞", "city", False),
])
def test_the_place_or_employer_the_user_moved_on_from(text, value, key, left):
    sent, _start, end = span_where(text, value)
    assert left_behind(text, sent, end, key) is left


def test_organisation_shapes_and_time_tails():
    assert org_shaped("Karoo Offshore Services") and org_shaped("恒丰银行") and not org_shaped("Saldanha Bay")
    assert place_without_time("Lodwar January") == "Lodwar" and place_without_time("Buenos Aires") == "Buenos Aires"


def test_end_to_end_a_junk_title_does_not_come_out():
    assert not [c for c in _cands("Anyway, I got my PMP last fall and now they're asking me to lead the BRT corridor scheduling.")
                if c[1] == "role"]
    assert not [c for c in _cands("顺嘴说一句，以后叫我老周就行，别一口一个周老师的，听着生分。") if c[1] == "role"]


def test_end_to_end_the_later_place_of_a_move_is_the_city():
    got = _cands("Ok. Me I joined Mwangaza in 2021 in the Nairobi office, then came up to Lodwar January last year.")
    cities = [c[2] for c in got if c[1] == "city"]
    assert cities == ["Lodwar"]
    assert ("profile", "company", "Mwangaza", "set") in got


def test_end_to_end_an_organisation_tagged_as_a_city_is_the_company():
    got = _cands("Howzit. Mud engineer here, Karoo Offshore Services, I work out of Saldanha Bay on the rig support side.")
    assert ("profile", "company", "Karoo Offshore Services", "set") in got
    assert [c[2] for c in got if c[1] == "city"] == ["Saldanha Bay"]


def test_end_to_end_every_language_of_a_list():
    got = {c[2].casefold() for c in _cands("I speak polish and german, if some leaflet is only in german I can read it myself.")
           if c[1] == "language"}
    assert got == {"polish", "german"}


@pytest.mark.parametrize("text", [
    "以后你回俺这种问题，先把规程条款号摆前头，再说咋做，俺们检查都要对条款的。",
    "Don't be putting emojis in anything, I forward this stuff to head office.",
])
def test_end_to_end_a_standing_instruction_in_dialect_or_idiom(text):
    assert [c for c in _cands(text) if c[0] == "preference"]


def test_end_to_end_the_year_the_user_joined():
    found = candidates_extract([("顺嘴说一句，我是2019年来的公司，一直待在张掖。", AT)])[0].candidates
    joined = [c for c in found if c.kind == "fact" and c.key.startswith("fact:job_change")]
    assert joined and joined[0].fact_date.year == 2019
    assert not [c for c in candidates_extract([("我们明年来的公司会更多", AT)])[0].candidates if c.kind == "fact"]
