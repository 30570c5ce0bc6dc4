"""Guards learned from blind 15 a+b (stop 29), each with the case it was learned from and a
look-alike it must leave alone: through the pure check where there is one, and end to end through
the shipped extractor (candidates_extract with the trained model)."""
import datetime as dt

import pytest

from consolidation.extraction_zh import _resolve_date_zh
from consolidation.extractor.misreads import job_change_misread, profile_misread, role_misread
from consolidation.extractor.service import candidates_extract
from consolidation.extractor.text import around_sentence
from tests.extraction_rules_helpers import span_where

AT = dt.datetime(2026, 3, 10, 10, 0, tzinfo=dt.timezone.utc)


def _turn(text):
    return candidates_extract([(text, AT)])[0]


def _values(text, kind=None, key=None):
    return [c.value for c in _turn(text).candidates
            if (kind is None or c.kind == kind) and (key is None or c.key.split(":")[0] == key or c.key.startswith(key))]


# --- pure checks -------------------------------------------------------------------------------

def test_the_one_work_is_handed_to_is_not_the_users_title():
    text = "我上个月升执行制片了，通告单之后交给新来的助理弄。"
    assert role_misread(text, *span_where(text, "助理")) == "third_party"
    text = "Handed the rota over to the new coordinator last week."
    assert role_misread(text, *span_where(text, "coordinator")) == "third_party"
    kept = "我是做制片助理的，主要跑通告。"
    assert role_misread(kept, *span_where(kept, "制片助理")) is None


def test_a_signature_starts_with_the_signers_name():
    text = "Kindly end it with my signature: Ngozi Eze, Programmes Officer, Hope Springs Foundation, Abuja"
    assert profile_misread(text, *span_where(text, "Ngozi Eze"), "company") == "name"
    assert profile_misread(text, *span_where(text, "Programmes Officer"), "city") == "shape"
    assert profile_misread(text, *span_where(text, "Hope Springs Foundation"), "company") is None
    assert profile_misread(text, *span_where(text, "Abuja"), "city") is None


def test_a_generic_employer_word_is_no_company():
    text = "我2019年进的公司，之前在华为"
    assert profile_misread(text, *span_where(text, "年进的公司"), "company") == "shape"
    kept = "我在华为上班"
    assert profile_misread(kept, *span_where(kept, "华为"), "company") is None


def test_a_chinese_job_change_names_its_change():
    text = "我上个月升执行制片了，通告单之后交给新来的助理弄。"
    assert job_change_misread(text, *span_where(text, "通告单")) == "shape"
    for kept, value in (("我月初调去配载组了", "配载组"), ("去年跳槽到了字节", "字节"), ("调咗去番禺做店长啦", "店长"),
                        ("上周正式升了风控策略组的组长，现在手下带4个人", "组长"), ("上礼拜俺升了，现在是造价部主管", "造价部主管")):
        assert job_change_misread(kept, *span_where(kept, value)) is None
    assert job_change_misread("I moved to the fraud team", *span_where("I moved to the fraud team", "fraud team")) is None


def test_the_cue_window_of_a_short_turn_is_the_turn():
    text = "以后回我别老是您您您的 看的累 直接说就行"
    assert "以后回我" in around_sentence(text, span_where(text, "直接说")[0])
    long = ("First sentence here about nothing much at all. " * 3) + "Bullet points work best for me. Skip the pleasantries. Next."
    window = around_sentence(long, span_where(long, "Skip the pleasantries")[0])
    assert "Bullet points work best for me" in window and "First sentence" not in window


def test_month_start_and_two_digit_years():
    assert _resolve_date_zh("我月初调去配载组了", AT) == (dt.date(2026, 3, 1), "month")
    assert _resolve_date_zh("上个月初调的", AT) == (dt.date(2026, 2, 1), "month")
    assert _resolve_date_zh("我是18年进的报社", AT) == (dt.date(2018, 1, 1), "year")
    assert _resolve_date_zh("我在这干了18年了", AT) is None or _resolve_date_zh("我在这干了18年了", AT)[0].year != 2018


# --- end to end ------------------------------------------------------------------------------

@pytest.mark.parametrize("text,key,value", [
    ("以后回我别老是您您您的 看的累 直接说就行", "pref:tone", "直接说"),
    ("Right. Bullet points work best for me, I read these on my phone between bays. And skip the pleasantries, "
     "no 'great question' stuff.", "pref:instruction", "skip the pleasantries"),
    ("pls answer in english even if i write german sometimes. and SI units, nm not Å.", "pref:units", "SI units"),
    ("另外，以后凡涉及录取分数线的内容，请务必注明年份和科类，避免引起误解。", "pref:instruction", "注明年份和科类"),
    ("回复能不能短点 我都手机上看 一屏看完最好", "pref:answer_length", "短点"),
])
def test_a_standing_answer_style_with_its_cue_in_a_neighbouring_sentence(text, key, value):
    assert any(value in v for v in _values(text, "preference", key)), _turn(text)


@pytest.mark.parametrize("text", [
    "Some customers were perfectly polite about it. Short and sweet, the whole visit.",
    "我们组长说话贼直接 看的累",
])
def test_no_answer_style_without_any_cue_in_the_turn(text):
    assert not _values(text, "preference"), _turn(text)


def test_a_request_to_write_down_what_the_user_did_is_not_a_question():
    text = "Can you add to my LinkedIn summary that I passed IOSH Managing Safely back in 2023 and got the APM PFQ last autumn?"
    values = _values(text, "fact")
    assert any("IOSH" in v for v in values) and any("PFQ" in v for v in values)
    asked = "Can you tell me whether the IOSH Managing Safely course is worth it?"
    assert not _values(asked, "fact")


@pytest.mark.parametrize("text,title", [
    ("hey 👋 fyi im the new backend eng on the payments squad at Quidline, joined 2 wks ago.", "backend eng"),
    ("fyi I've been made Area Director of Revenue, now covering Dubai and Abu Dhabi, five hotels in total.",
     "Area Director of Revenue"),
    ("Hello, I am a postdoc in the protein crystallography lab at the Institute of Bioscience, Bengaluru.", "postdoc"),
])
def test_english_titles_by_abbreviation_or_with_of(text, title):
    assert title in _values(text, "profile", "role")


def test_as_of_today_starts_a_change_not_a_temporary_state():
    assert "fraud platform team" in _values("fyi got moved to the fraud platform team as of today, same role just diff squad.",
                                            "profile", "department")
    assert not _values("I'm working from the Leeds office today.", "profile", "city")


def test_a_promotion_with_a_handover_keeps_the_users_title():
    values = _values("跟你讲喔，我上个月升执行制片了，通告单之后交给新来的助理弄，我这边主要管预算跟协调场地。", "profile", "role")
    assert values == ["执行制片"]


def test_a_change_into_a_team_sets_the_department():
    assert "配载组" in _values("跟你说下，我月初调去配载组了，现在主要出bay plan", "profile", "department")


def test_signature_line_end_to_end():
    turn = _turn("Very good. Kindly end it with my signature: Ngozi Eze, Programmes Officer, Hope Springs Foundation, Abuja")
    got = {(c.key.split(":")[0], c.value) for c in turn.candidates if c.kind == "profile"}
    assert ("company", "Hope Springs Foundation") in got and ("city", "Abuja") in got
    assert not any(v in ("Ngozi Eze", "Programmes Officer") for _, v in got if _ in ("company", "city"))


def test_hypothetical_plan_and_past_titles_in_formal_chinese():
    assert not _values("若本人后续竞聘调控中心主任，需准备哪些材料？", "profile", "role")
    assert not _values("本人拟申报正高级工程师，请协助梳理个人业绩材料框架。", "profile", "role")
    assert "生鲜主管" not in _values("另作说明：本人2020年入职，原在苏州门店任生鲜主管，去年7月调至南京总部。", "profile", "role")
    assert "南京" in _values("另作说明：本人2020年入职，原在苏州门店任生鲜主管，去年7月调至南京总部。", "profile", "city")


def test_lower_case_move_sets_the_city():
    assert "montreal" in _values("switched engines. unreal 5 now, whole studio moved over. also moved to montreal last month.",
                                 "profile", "city")


def test_each_event_takes_the_date_of_its_own_clause():
    facts = {c.value: c.fact_date for c in _turn("我2018年进的报社，去年拿了省新闻奖三等奖").candidates if c.kind == "fact"}
    award = next(d for v, d in facts.items() if "省新闻奖" in v)
    assert award.year == 2025
    assert any(d.year == 2018 for v, d in facts.items() if "报社" in v)


def test_a_request_after_a_space_is_not_part_of_the_value():
    values = _values("还有 我上个月升了运营主管 带3个人 帮我写个周会议程", "profile")
    assert "运营主管" in values and not any("帮我" in v for v in values)


@pytest.mark.parametrize("text,bad,kept", [
    ("Haha thanks. It's not a huge deal, just a shift manager in my department.", "my department", None),
    ("Wow, learning and gaming sounds like a fantastic combination for coding education!", "combination", None),
    ("I work in the marketing department for an engineering firm.", "firm", "engineering firm"),
    ("I work in the construction industry", "construction industry", "construction"),
])
def test_a_bare_generic_head_is_no_profile_value(text, bad, kept):
    """MSC out-of-domain run (stop 29): generic heads stored as department, skill, industry or employer."""
    values = _values(text, "profile")
    assert bad not in values, values
    if kept:
        assert kept in values, values
