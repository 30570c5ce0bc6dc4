"""Tests for audit.sanitizer: email addresses, Chinese addresses and English street addresses.

Plain pytest, no database, no Django settings; helpers in ``tests/sanitizer_helpers.py``.
"""

import pytest

from tests.sanitizer_helpers import found, types


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
        ("我手机不方便，住南开区鞍山西道华苑小区，快递寄这儿就行", "南开区鞍山西道华苑小区"),
        ("家在浦东张杨路金桥新村，离公司近", "浦东张杨路金桥新村"),
        ("广东省深圳市南山区科技园南区深南大道9988号", "广东省深圳市南山区科技园南区深南大道9988号"),
    ],
)
def test_it_finds_chinese_address_forms(text, value):
    assert ("CN_ADDRESS", value) in found(text)


@pytest.mark.parametrize(
    "text",
    ["我知道27号要开会", "3月27号截止", "坐地铁3号线", "会议在5号楼", "5号楼301会议室见", "走这条路线",
     "我们小区门口的中山路最近在修", "公司在南京路步行街附近"],
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


# An address the user says is theirs, in a shape no street pattern knows (blind 15: an Indian
# tower-and-society address). The value is what follows "address is"; e-mail and IP addresses are not it.
@pytest.mark.parametrize(
    "text, value",
    [
        ("New address is Flat 1204, Tower B, Sunrise Heights, Kalyan Shil Road, Dombivli East 421204. Pls draft the mail.",
         "Flat 1204, Tower B, Sunrise Heights, Kalyan Shil Road, Dombivli East 421204"),
        ("my home address: Plot 17, Sector 21, Kharghar, Navi Mumbai 410210", "Plot 17, Sector 21, Kharghar, Navi Mumbai 410210"),
    ],
)
def test_it_finds_an_address_the_user_says_is_theirs(text, value):
    assert ("EN_STREET_ADDRESS", value) in found(text)


@pytest.mark.parametrize("text", ["My email address is: see below 2 lines", "what's the IP address: 10.0.0.1 or so",
                                  "Address is the first field of the form, then 2 more"])
def test_an_address_word_without_an_address_is_no_hit(text):
    assert "EN_STREET_ADDRESS" not in types(text)
