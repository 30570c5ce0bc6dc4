"""Tests for audit.sanitizer: bank and credit cards (Luhn, card words, numbers that only look like cards).

Plain pytest, no database, no Django settings; helpers in ``tests/sanitizer_helpers.py``.
"""

import random

import pytest

from audit import recognizers
from audit.sanitizer import analyze, mask
from tests.sanitizer_helpers import found, types


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
