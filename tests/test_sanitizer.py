"""Tests for audit.sanitizer: the engine, overlaps, thresholds, masking, sensitive words, and
nothing found in business text. What each recognizer finds is in the other ``test_sanitizer_*.py``.

Plain pytest, no database, no Django settings. Test data is written inline or
generated with a seeded Faker zh_CN.
"""

import dataclasses
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from audit import sanitizer
from audit.sanitizer import Hit, analyze, mask, warm_up
from tests.ci import require_module
from tests.sanitizer_helpers import found, types

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- PII-free business text


@pytest.mark.parametrize(
    "text",
    [
        "query_expense(user=current, range=last_14d) → 单号 BX-20260224-0117，金额 2,386.00，状态：待部门负责人审批",
        "日期 2026-03-19，会议 10:40 开始",
        "上月流水 412331.20，本月目标 500台",
        "内部价每台3860元",
        "Our price floor is USD 182 per unit.",
        "升级到 5.2.1 版本后重启，build 20260319.3",
        "SELECT id, amount FROM orders WHERE id = 1767123456789012345 AND created_at > '2026-03-01' LIMIT 100;",
        "2026-03-19 10:22:31,443 INFO [worker-3] pid=41233 user_id=8812 latency_ms=1234 status=200",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
        "发票代码031001900111 发票号码45128830，税额 1,320.55 元",
        "统一社会信用代码 91310000MA1FL2XX0X",
        "ticket INC-204917 opened at 2026-03-02 09:15:00",
        "返点从3%下调到2.5%，单季销量超过500台的额外奖励1%",
        "Q3 revenue was $12,480k, up 15% year over year",
        "epoch 1710000000 / 1710000000000 ms",
        "股票代码600519.SH 收盘价 1688.00",
        "I'm flying on the 10:40 flight on Tuesday, switching to a 7-to-3 schedule.",
    ],
)
def test_it_finds_nothing_in_business_text(text):
    assert analyze(text) == []


# ---------------------------------------------------------------- sensitive words


def test_it_flags_sensitive_words_glued_to_chinese():
    text = "这份供应商底价表先发你看看"
    assert found(text, sensitive_words=["底价表"]) == [("SENSITIVE_WORD", "底价表")]


def test_it_matches_sensitive_words_case_insensitively_everywhere():
    text = "Internal Price list; the INTERNAL PRICE is fixed"
    hits = analyze(text, sensitive_words=["internal price"])
    assert [text[h.start : h.end] for h in hits] == ["Internal Price", "INTERNAL PRICE"]
    assert all(h.score == 1.0 for h in hits)


def test_it_merges_overlapping_sensitive_words():
    text = "our internal price floor"
    assert found(text, sensitive_words=["internal price", "price floor", " ", ""]) == [
        ("SENSITIVE_WORD", "internal price floor")
    ]


def test_it_refuses_a_single_string_as_sensitive_words():
    with pytest.raises(TypeError):
        analyze("绝密", sensitive_words="绝密")


# ---------------------------------------------------------------- overlaps


def test_it_keeps_one_result_for_a_card_two_recognizers_find():
    text = "card 4111 1111 1111 1111 exp"
    assert found(text) == [("BANK_CARD", "4111 1111 1111 1111")]


def test_it_prefers_higher_score_then_longer_span():
    resolve = sanitizer._resolve_overlaps
    long_low = Hit("CN_ADDRESS", 0, 20, 0.6)
    short_high = Hit("CN_MOBILE", 5, 16, 1.0)
    assert resolve([long_low, short_high]) == [short_high]
    longer = Hit("SENSITIVE_WORD", 0, 12, 1.0)
    shorter = Hit("CN_MOBILE", 1, 12, 1.0)
    assert resolve([shorter, longer]) == [longer]
    apart = Hit("EMAIL_ADDRESS", 30, 40, 0.9)
    assert resolve([apart, long_low]) == [long_low, apart]


def test_it_lets_a_pii_hit_win_over_a_shorter_sensitive_word_inside_it():
    text = "卡号6225880356383362835"
    assert found(text, sensitive_words=["62258803"]) == [("BANK_CARD", "6225880356383362835")]


def test_it_returns_sorted_non_overlapping_hits_for_mixed_text():
    text = (
        "我是张伟，手机13912345678，身份证61011319870524867X，邮箱zhang@example.com，"
        "卡号6225880356383362835，地址天津市河西区友谊路27号5号楼2单元1103室，底价表别外传。"
    )
    hits = analyze(text, sensitive_words=["底价表"])
    assert [h.entity_type for h in hits] == [
        "CN_MOBILE", "CN_RESIDENT_ID", "EMAIL_ADDRESS", "BANK_CARD", "CN_ADDRESS", "SENSITIVE_WORD",
    ]
    for a, b in zip(hits, hits[1:]):
        assert a.end <= b.start


# ---------------------------------------------------------------- thresholds and errors


def test_it_applies_the_score_threshold():
    text = "住在阳光花园3栋2单元501"  # building-only form scores 0.55
    assert types(text) == {"CN_ADDRESS"}
    assert analyze(text, score_threshold=0.9) == []


def test_it_validates_its_arguments():
    with pytest.raises(TypeError):
        analyze(b"13912345678")
    with pytest.raises(ValueError):
        analyze("x", score_threshold=1.5)
    assert analyze("") == []
    assert analyze("   ", sensitive_words=["x"]) == []


def test_hit_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Hit("CN_MOBILE", 0, 1, 1.0).start = 2


# ---------------------------------------------------------------- mask


def test_it_masks_long_hits_keeping_3_and_4_characters():
    text = "手机13812345678"
    assert mask(text, analyze(text)) == "手机138****5678"


def test_it_masks_short_hits_completely():
    text = "我护照号是E62995058。"
    assert mask(text, analyze(text)) == "我护照号是*********。"


def test_mask_keeps_length_and_handles_overlaps_and_no_hits():
    text = "abcdefghijklmnop"
    assert mask(text, []) == text
    masked = mask(text, [Hit("X", 0, 12, 1.0), Hit("Y", 10, 16, 1.0)])
    assert len(masked) == len(text)
    # The first hit keeps "abc" and "ijkl"; the second (6 chars) masks "klmnop".
    assert masked == "abc*****ij******"


def test_mask_refuses_hits_outside_the_text():
    with pytest.raises(ValueError):
        mask("short", [Hit("X", 2, 9, 1.0)])


# ---------------------------------------------------------------- engine lifecycle


def test_it_builds_the_engine_once_across_threads():
    warm_up()
    engine = sanitizer._get_engine()
    errors = []

    def work():
        try:
            assert found("手机13912345678") == [("CN_MOBILE", "13912345678")]
            assert sanitizer._get_engine() is engine
        except AssertionError as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_it_imports_without_django():
    code = (
        "import sys, audit.sanitizer as s; "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'; "
        "import os; assert os.environ['TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS'] == ''"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env, timeout=120)


# ---------------------------------------------------------------- Faker zh_CN


def test_it_finds_faker_generated_chinese_pii_in_sentences():
    faker = require_module("faker", "the Faker package (requirements.txt) is not installed")
    faker.Faker.seed(2026)
    fake = faker.Faker("zh_CN")
    for _ in range(40):
        name, mobile, id_number = fake.name(), fake.phone_number(), fake.ssn()
        card, email = fake.credit_card_number(card_type="unionpay"), fake.email()
        text = f"{name}的手机{mobile}，身份证{id_number}，工资卡{card}，邮箱{email}。"
        got = found(text)
        assert ("CN_MOBILE", mobile) in got
        assert ("CN_RESIDENT_ID", id_number) in got
        assert ("BANK_CARD", card) in got
        assert ("EMAIL_ADDRESS", email) in got
