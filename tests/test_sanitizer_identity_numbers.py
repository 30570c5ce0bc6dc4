"""Tests for audit.sanitizer: Chinese resident ids, passports, and identity numbers of other places.

Plain pytest, no database, no Django settings; helpers in ``tests/sanitizer_helpers.py``.
"""

import random

import pytest

from tests.sanitizer_helpers import found, types


def id_check_digit(body17):
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return "10X98765432"[sum(int(d) * w for d, w in zip(body17, weights)) % 11]


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


# ---------------------------------------------------------------- identity numbers of other places


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
