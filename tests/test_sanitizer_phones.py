"""Tests for audit.sanitizer: Chinese mobiles and landlines, international phone numbers, and
presidio's predefined US SSN, IBAN and IP address.

Plain pytest, no database, no Django settings; helpers in ``tests/sanitizer_helpers.py``.
"""

import pytest

from audit import sanitizer
from audit.sanitizer import Hit
from tests.sanitizer_helpers import found, types


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
