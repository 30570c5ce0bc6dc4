"""Tests for audit.sanitizer: PII detection in Chinese and English text, offline.

Plain pytest, no database, no Django settings. Test data is written inline or
generated with a seeded Faker zh_CN.
"""

import dataclasses
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from audit import recognizers, sanitizer
from audit.sanitizer import Hit, analyze, mask, warm_up
from tests.ci import require_module

ROOT = Path(__file__).resolve().parents[1]


def found(text, **kwargs):
    """(entity_type, matched text) pairs, in order."""
    return [(h.entity_type, text[h.start : h.end]) for h in analyze(text, **kwargs)]


def types(text, **kwargs):
    return {h.entity_type for h in analyze(text, **kwargs)}


def id_check_digit(body17):
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return "10X98765432"[sum(int(d) * w for d, w in zip(body17, weights)) % 11]


def luhn_complete(body):
    """Append the Luhn check digit to ``body``."""
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def luhn_break(number):
    """Same number with a wrong last digit."""
    return number[:-1] + str((int(number[-1]) + 1) % 10)


# ---------------------------------------------------------------- CN_MOBILE


@pytest.mark.parametrize(
    "text, value",
    [
        ("我手机号13912345678谢谢", "13912345678"),
        ("电话 139 1234 5678 找我", "139 1234 5678"),
        ("联系方式：139-1234-5678。", "139-1234-5678"),
        ("手机+86 139-1234-5678", "+86 139-1234-5678"),
        ("请打0086 18612345678", "0086 18612345678"),
        ("my mobile 18114608806 for 2FA", "18114608806"),
        ("回拨+8615012345678", "+8615012345678"),
    ],
)
def test_it_finds_chinese_mobile_numbers(text, value):
    assert ("CN_MOBILE", value) in found(text)


@pytest.mark.parametrize(
    "text",
    [
        "流水号201391234567899",  # a mobile-looking run inside a longer number
        "单号BX-13912345678",  # part of an identifier
        "编码13912345678-01",
        "订单13912345678已签收",  # labelled as an order number
        "余额 1391234567.50 元",
        "12912345678",  # 12x is not a mobile prefix
    ],
)
def test_it_ignores_mobile_lookalikes(text):
    assert "CN_MOBILE" not in types(text)


# ---------------------------------------------------------------- CN_RESIDENT_ID


def test_it_finds_resident_id_with_x_check_digit_glued_to_chinese():
    text = "我身份证号是61011319870524867X，你帮我看看"
    assert found(text) == [("CN_RESIDENT_ID", "61011319870524867X")]


def test_it_finds_generated_resident_ids():
    rnd = random.Random(3)
    for _ in range(30):
        body = f"{rnd.randint(110000, 659999)}{rnd.randint(1950, 2010)}{rnd.randint(1, 12):02d}{rnd.randint(1, 28):02d}{rnd.randint(0, 999):03d}"
        number = body + id_check_digit(body)
        assert ("CN_RESIDENT_ID", number) in found(f"证件号{number}已登记")


def test_a_context_word_is_enough_for_a_resident_id_with_a_wrong_check_digit():
    # Issue 14: people mistype their own id; right after "身份证号" it is one whatever its checksum.
    body = "11010519491231002"
    good = body + id_check_digit(body)
    bad = body + ("0" if good[-1] != "0" else "1")
    assert ("CN_RESIDENT_ID", good) in found(f"身份证{good}")
    assert ("CN_RESIDENT_ID", bad) in found(f"身份证号{bad}")
    assert ("CN_RESIDENT_ID", bad) in found(f"my ID card number is {bad}")


def test_an_id_shaped_number_without_a_context_word_needs_a_province_and_a_birth_date():
    body = "11010519491231002"
    bad = body + ("0" if id_check_digit(body) != "0" else "1")
    assert types(f"记一下 {bad}") == {"CN_RESIDENT_ID"}  # province 11, born 1949-12-31
    assert types("记一下 991051194912310021") == set()  # no province 99
    assert types("记一下 110105194913310021") == set()  # month 13


def test_it_rejects_id_shaped_number_with_impossible_birth_month():
    body = "11010519491331002"  # month 13
    assert "CN_RESIDENT_ID" not in types(body + id_check_digit(body))


def test_it_needs_context_for_old_15_digit_ids():
    old = "110105491231002"
    assert "CN_RESIDENT_ID" not in types(f"编码 {old}")
    assert ("CN_RESIDENT_ID", old) in found(f"老身份证号码 {old}")


# ---------------------------------------------------------------- BANK_CARD / CREDIT_CARD


def test_it_finds_unionpay_card_glued_to_chinese():
    text = "新卡号是6225880356383362835，招商银行的"
    assert found(text) == [("BANK_CARD", "6225880356383362835")]


def test_it_finds_cards_with_separators():
    assert ("BANK_CARD", "6225 8803 5638 3362 835") in found("卡号 6225 8803 5638 3362 835 谢谢")
    assert ("BANK_CARD", "4111-1111-1111-1111") in found("card 4111-1111-1111-1111 exp 09/28")


def test_it_takes_card_shaped_numbers_failing_luhn_without_a_card_word():
    # Issue 14: a mistyped card with no "card" word reached memory. 16 or 19 digits with an
    # issuer's prefix, or grouped 4-4-4-4, are a card whatever the check digit...
    number = luhn_complete("622588035638336283")
    assert ("BANK_CARD", number) in found(f"转账到{number}")
    assert ("BANK_CARD", luhn_break(number)) in found(f"转账到{luhn_break(number)}")
    assert ("BANK_CARD", "4392 4761 0528 9857") in found("Use 4392 4761 0528 9857 for the refund.")
    # ... unless labelled as another identifier, or without an issuer's prefix.
    assert found(f"ref {luhn_break('4111111111111111')} ok") == []
    assert found(f"编号 {luhn_break('4111111111111111')}") == []
    assert found("ts 8812345678901234 us") == []


@pytest.mark.parametrize(
    "text, value",
    [
        ("银行卡号6222021234567890123", "6222021234567890123"),  # 19 digits, Luhn fails
        ("卡号：6222 0212 3456 7890 123，工行", "6222 0212 3456 7890 123"),
        ("借记卡 6217-0012-3456-7890", "6217-0012-3456-7890"),
        ("信用卡4367421234567891235已挂失", "4367421234567891235"),
        ("my bank card 6222021234567890123 was swallowed", "6222021234567890123"),
        ("card number: 4111 1111 1111 1112", "4111 1111 1111 1112"),
        ("Card no. 3782 822463 10006", "3782 822463 10006"),
        ("1234567890123 是我的信用卡", "1234567890123"),
    ],
)
def test_it_takes_any_13_to_19_digit_run_next_to_a_card_word_for_a_card(text, value):
    assert not recognizers._luhn_ok(value) or value.startswith("3782")
    assert found(text) == [("BANK_CARD", value)]
    assert value not in mask(text, analyze(text))


@pytest.mark.parametrize(
    "text",
    [
        "订单号 202611301234567890",  # order number, no card word
        "卡号格式是16位",  # a card word, no digits
        "信用卡额度 50000 元，账单日 2026-03-19",
        "银行卡绑定的手机号要和预留的一致",
        "运单 6222021234567890123 已签收",  # Luhn fails, no card word
    ],
)
def test_a_card_word_alone_or_a_bare_number_is_not_a_card(text):
    assert analyze(text) == []


def test_it_ignores_luhn_valid_order_and_hash_numbers():
    # Order numbers starting with a year and labelled identifiers are not cards.
    assert found("订单" + luhn_complete("202603190001234")) == []
    assert found("订单号 " + luhn_complete("622588035638336283") + " 已发货") == []
    assert found("order #" + luhn_complete("411111111111111")) == []
    assert found("checksum " + luhn_complete("453201511283036")) == []


def test_it_needs_a_card_word_for_2_series_and_short_cards():
    two_series = luhn_complete("230866727532243")
    maestro = luhn_complete("50186466790")
    assert found(f"ref {two_series}") == []
    assert "BANK_CARD" in types(f"My credit card {two_series} has been lost")
    assert found(f"ref {maestro}") == []
    assert ("BANK_CARD", maestro) in found(f"What is the limit for card {maestro}?")


def test_it_ignores_microsecond_timestamps_that_pass_luhn():
    rnd = random.Random(5)
    for _ in range(200):
        stamp = luhn_complete(str(1_700_000_000_000_00 + rnd.randrange(10**13)))
        assert found(f"ts {stamp} us") == []


# ---------------------------------------------------------------- EMAIL_ADDRESS


@pytest.mark.parametrize(
    "text, value",
    [
        ("邮箱zhang@example.com不要发错", "zhang@example.com"),
        ("They registered marco.bellini@example.com, and more", "marco.bellini@example.com"),
        ("发到li_si+hr@corp.example.com.cn。", "li_si+hr@corp.example.com.cn"),
    ],
)
def test_it_finds_email_addresses(text, value):
    assert ("EMAIL_ADDRESS", value) in found(text)


@pytest.mark.parametrize("text", ["把 icon@2x.png 换掉", "加上 @Lazy 注解", "npm i @babel/core@7.24.0", "user@localhost"])
def test_it_ignores_email_lookalikes(text):
    assert "EMAIL_ADDRESS" not in types(text)


# ---------------------------------------------------------------- passports


def test_it_finds_chinese_passport_by_its_letter_prefix():
    assert found("我护照号是E62995058，你先帮我填上") == [("CN_PASSPORT", "E62995058")]
    assert ("CN_PASSPORT", "EA1234567") in found("证件 EA1234567")


def test_it_needs_context_for_other_chinese_passport_prefixes():
    assert found("型号 D12345678 已上架") == []
    assert found("公务护照 D12345678") == [("CN_PASSPORT", "D12345678")]


def test_it_finds_generic_passport_only_next_to_passport_word():
    assert found("For the booking profile, my passport number is 677429026.") == [
        ("PASSPORT", "677429026")
    ]
    assert found("Invoice 677429026 was paid.") == []
    assert found("护照：123456789") == [("PASSPORT", "123456789")]


# ---------------------------------------------------------------- CN_LANDLINE


@pytest.mark.parametrize(
    "text, value",
    [
        ("座机010-62345678", "010-62345678"),
        ("办公室电话(0571)88886666", "(0571)88886666"),
        ("总机 0755 2345 6789 转前台", "0755 2345 6789"),
        ("+86 10 6234 5678", "+86 10 6234 5678"),
        ("电话01062345678", "01062345678"),
    ],
)
def test_it_finds_landlines(text, value):
    assert ("CN_LANDLINE", value) in found(text)


def test_it_needs_context_for_contiguous_landlines():
    assert found("编码 01062345678") == []


# ---------------------------------------------------------------- CN_ADDRESS


def test_it_finds_full_chinese_street_address():
    text = "直接寄到我家：天津市河西区友谊路27号5号楼2单元1103室。帮我写条消息发给供应商。"
    assert found(text) == [("CN_ADDRESS", "天津市河西区友谊路27号5号楼2单元1103室")]


def test_it_trims_leading_words_from_address_glued_to_text():
    text = "寄到我家天津市河西区友谊路27号5号楼2单元1103室"
    assert found(text) == [("CN_ADDRESS", "天津市河西区友谊路27号5号楼2单元1103室")]


@pytest.mark.parametrize(
    "text, value",
    [
        ("北京市朝阳区建国路88号", "北京市朝阳区建国路88号"),
        ("门店在中山北路1088号", "中山北路1088号"),
        ("住在阳光花园3栋2单元501", "阳光花园3栋2单元501"),
        ("广东省深圳市南山区科技园南区深南大道9988号", "广东省深圳市南山区科技园南区深南大道9988号"),
    ],
)
def test_it_finds_chinese_address_forms(text, value):
    assert ("CN_ADDRESS", value) in found(text)


@pytest.mark.parametrize(
    "text",
    ["我知道27号要开会", "3月27号截止", "坐地铁3号线", "会议在5号楼", "5号楼301会议室见", "走这条路线"],
)
def test_it_ignores_dates_and_lines_that_look_like_addresses(text):
    assert "CN_ADDRESS" not in types(text)


# ---------------------------------------------------------------- EN_STREET_ADDRESS


@pytest.mark.parametrize(
    "text, value",
    [
        ("I live at 1600 Pennsylvania Avenue NW, Suite 200 now", "1600 Pennsylvania Avenue NW, Suite 200"),
        ("Ship it to 221B Baker Street, London", "221B Baker Street"),
        ("Office: 350 5th Ave, New York", "350 5th Ave"),
        ("Please send it to Feldstrasse 42 Suite 055, Zurich", "Feldstrasse 42 Suite 055"),
        ("David lives on Rue de Tanger 29 now", "Rue de Tanger 29"),
    ],
)
def test_it_finds_english_street_addresses(text, value):
    assert ("EN_STREET_ADDRESS", value) in found(text)


@pytest.mark.parametrize("text", ["It is a 10 min drive", "we ship 3 Ways to pay", "Chapter 3 covers the road map"])
def test_it_ignores_english_non_addresses(text):
    assert "EN_STREET_ADDRESS" not in types(text)


# ---------------------------------------------------------------- presidio predefined


def test_it_finds_us_ssn_iban_and_ip():
    assert ("US_SSN", "460-89-9847") in found("my SSN is 460-89-9847")
    assert ("IBAN_CODE", "GB56HXDO88167774656119") in found("IBAN GB56HXDO88167774656119")
    assert ("IP_ADDRESS", "179.177.214.91") in found("keep getting address 179.177.214.91 blocked")


def test_us_ssn_wins_over_phone_number_on_the_same_span():
    # 078-05-1120 is also a valid phone number for python-phonenumbers, and presidio
    # treats it as a published sample SSN; next to "SSN" it is an SSN.
    assert found("My SSN is 078-05-1120") == [("US_SSN", "078-05-1120")]
    assert found("social security number: 123-45-6789") == [("US_SSN", "123-45-6789")]
    assert found("SSN 219-09-9999 on file") == [("US_SSN", "219-09-9999")]
    # Without an SSN word the sample number stays whatever else it is.
    assert found("call me at 078-05-1120") == [("PHONE_NUMBER", "078-05-1120")]


def test_same_span_precedence_does_not_touch_other_overlaps():
    hits = [Hit("PHONE_NUMBER", 10, 21, 0.6), Hit("US_SSN", 10, 21, 0.5), Hit("PHONE_NUMBER", 30, 41, 0.6)]
    assert [h.entity_type for h in sanitizer._resolve_overlaps(hits)] == ["US_SSN", "PHONE_NUMBER"]
    assert sanitizer._resolve_overlaps([Hit("PHONE_NUMBER", 8, 21, 0.6), Hit("US_SSN", 10, 21, 0.5)]) == [
        Hit("PHONE_NUMBER", 8, 21, 0.6)
    ]


def test_it_does_not_take_version_numbers_or_ips_for_phones():
    assert found("please upgrade to v1.0.0.1 today") == []
    assert found("版本 10.2.0.3 已上线") == []
    assert found("host 48.90.248.226 down") == [("IP_ADDRESS", "48.90.248.226")]


@pytest.mark.parametrize(
    "text, value",
    [
        ("call me at 905-674-3793", "905-674-3793"),
        ("UK office +44 20 7946 0958", "+44 20 7946 0958"),
        ("Phone:\n60-56-85-91\n", "60-56-85-91"),
        ("Can someone call me on 9472 7916?", "9472 7916"),
        ("他的电话是44 20 7946 0958谢谢", "44 20 7946 0958"),
    ],
)
def test_it_finds_international_phone_numbers(text, value):
    assert ("PHONE_NUMBER", value) in found(text)


def test_it_needs_context_for_bare_digit_runs_as_phones():
    assert found("order 4155552671 closed") == []
    assert found("call on 2026-03-19 about it") == []


# ---------------------------------------------------------------- CREDENTIAL


@pytest.mark.parametrize(
    "text, value",
    [
        ("my password is hunter2", "hunter2"),
        ("我的密码是Abc123456", "Abc123456"),
        ("我的密码是Abc123456，别告诉别人", "Abc123456"),
        ("pwd: x9Yk!Lm", "x9Yk!Lm"),
        ("Password: S3cret-pass.", "S3cret-pass"),
        ("wifi 口令 abc12345", "abc12345"),
        ("银行卡取款密码 864213", "864213"),
        ("my PIN is 4821", "4821"),
        ("PIN码：0937", "0937"),
        ("验证码 123456", "123456"),
        ("你的验证码123456，5分钟内有效", "123456"),
        ("the verification code is 884120.", "884120"),
        ("api key sk-abcdefghijklmnopqrstuvwxyz12", "sk-abcdefghijklmnopqrstuvwxyz12"),
        ("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ("secret key = 9f8e7d6c5b4a39281706", "9f8e7d6c5b4a39281706"),
        ("密钥是 Zx81kLmq0PzT", "Zx81kLmq0PzT"),
    ],
)
def test_it_finds_the_secret_after_a_credential_keyword(text, value):
    hits = analyze(text)
    assert ("CREDENTIAL", value) in found(text)
    masked = mask(text, hits)
    assert value not in masked
    # Only the value is masked, never the keyword before it.
    for keyword in ("password", "密码", "pwd", "口令", "PIN", "验证码", "verification code", "api key", "token", "密钥"):
        if keyword in text:
            assert keyword in masked


@pytest.mark.parametrize(
    "text, value",
    [
        ("用这个 sk-proj-AbCdEfGhIjKlMnOpQrStUvWx 调接口", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx"),
        ("export GH=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
        ("aws id AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
         "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"),
    ],
)
def test_it_finds_well_known_secret_formats_anywhere(text, value):
    assert ("CREDENTIAL", value) in found(text)


def test_it_masks_credentials_completely_even_when_long():
    text = "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    masked = mask(text, analyze(text))
    assert masked == "token: " + "*" * (len(text) - 7)


@pytest.mark.parametrize(
    "text",
    [
        "password policy requires 12 characters",
        "我忘了密码怎么办",
        "the token bucket algorithm",
        "the password is correct now",
        "密码长度至少12位，必须包含字母",
        "验证码已发送，请查收",
        "reset your password at https://example.com/reset?id=123",
        "max_tokens: 4096, temperature 0.2",
        "PIN the tab to keep it open",
        "请输入 6 位验证码",
        "API key rotation is scheduled for Friday",
        # a signed image link someone shared (seen in LoCoMo): not a secret they typed
        "look https://images.example.com/f/d5.png?token=eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1cm46YXBw.3OweRTbk",
    ],
)
def test_it_does_not_take_talk_about_credentials_for_a_credential(text):
    assert analyze(text) == []


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


@pytest.mark.parametrize("text,value", [
    ("要填 onboarding form, my HKID is Z683365(5), which fields are mandatory?", "Z683365(5)"),  # wrong check digit: still an id
    ("My NRIC is S1234567D, update my file", "S1234567D"),
    ("NI number AB 12 34 56 C please", "AB 12 34 56 C"),
    ("我的身分證字號是A123456789", "A123456789"),
    ("Aadhaar 1234 5678 9012 for the KYC form", "1234 5678 9012"),
])
def test_identity_numbers_of_other_places_next_to_an_identity_word(text, value):
    assert ("NATIONAL_ID", value) in found(text)


@pytest.mark.parametrize("text", ["我们部门编号是A123456(7)", "Order A123456 shipped", "Part S1234567D is back in stock",
                                  "Invoice 1234 5678 9012 is paid"])
def test_id_shaped_codes_without_an_identity_word_are_not_ids(text):
    assert "NATIONAL_ID" not in types(text)
