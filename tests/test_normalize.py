"""audit.normalize: full-width and spelled-out digits, spelled-out e-mail addresses, offsets back."""

import pytest

from audit.normalize import normalize


@pytest.mark.parametrize(
    "text, expected",
    [
        ("手机１３８１２３４５６７８谢谢", "手机13812345678谢谢"),
        ("ＡＢＣ＠ｅｘａｍｐｌｅ．ｃｏｍ", "ABC@example.com"),
        ("电话　010－62345678", "电话 010-62345678"),
        ("验证码１２３４５６，５分钟", "验证码123456，5分钟"),  # sentence punctuation is not folded
        ("call me on one three eight one two three four five six seven eight", "call me on 13812345678"),
        ("it is double five, one two three four", "it is 55 1234"),
        ("nine one one oh two five", "911025"),
        ("电话幺三八一二三四五六七八", "电话13812345678"),
        ("幺三八 一二三四 五六七八", "138 1234 5678"),
        ("号码是138一二三四5678", "号码是13812345678"),
        ("zhang at example dot com", "zhang@example.com"),
        ("write to zhang[at]example[dot]com please", "write to zhang@example.com please"),
        ("zhang (at) mail (dot) example (dot) org", "zhang@mail.example.org"),
        ("email me at zhang dot wei at gmail dot com", "email me at zhang.wei@gmail.com"),
        ("邮箱 zhang艾特qq点com", "邮箱 zhang@qq.com"),
    ],
)
def test_it_rewrites_obfuscated_forms(text, expected):
    assert normalize(text).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "look at example.com for details",  # a bare "at" needs a spelled-out dot
        "meet at home dot",  # no top-level domain
        "one or two",
        "I have two kids and one dog",
        "one two three",  # fewer than four digits
        "一五一十地说",
        "三三两两",
        "someone called",
        "plain zhang@example.com stays",
        "数字 12345678",
    ],
)
def test_it_leaves_ordinary_text_alone(text):
    assert normalize(text).text == text


def test_offsets_point_back_at_the_original_characters():
    text = "tel one three eight one two three four five six seven eight ok"
    norm = normalize(text)
    start = norm.text.index("138")
    lo, hi = norm.span(start, start + 11)
    assert text[lo:hi] == "one three eight one two three four five six seven eight"
    full = "邮箱ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ。"
    norm = normalize(full)
    s = norm.text.index("zhang")
    assert full[slice(*norm.span(s, s + len("zhang@example.com")))] == "ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ"


def test_identity_when_nothing_changes():
    norm = normalize("nothing here")
    assert not norm.changed and norm.span(2, 5) == (2, 5)
    with pytest.raises(TypeError):
        normalize(b"x")
