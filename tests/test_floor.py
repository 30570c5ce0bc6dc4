"""audit.floor.mask_floor: every 7+ digit run and every e-mail or handle shape, whatever detection says."""

import pytest

from audit.floor import mask_floor


@pytest.mark.parametrize(
    "text, secret",
    [
        ("手机１３８１２３４５６７８谢谢", "１３８１２３４５６７８"),
        ("电话 139 1234 5678", "1234"),
        ("(95) 94215-7906", "94215"),
        ("+91-39941 98087", "39941"),
        ("+86 11251 2534", "11251"),
        ("call one three eight one two three four five six seven eight", "three"),
        ("幺三八一二三四五六七八", "幺三八"),
        ("zhang at example dot com", "zhang"),
        ("zhang[at]example[dot]com", "example"),
        ("write user@localhost", "user"),
        ("ping @zhang_wei", "zhang_wei"),
        ("my wechat is wxid_abc123", "abc123"),
        ("card 6222 0212 3456 7890 123", "0212"),
        ("QQ 12345678", "12345678"),
        ("身份证号61011319870524867X", "6101131987"),
    ],
)
def test_it_masks_digit_runs_and_addresses(text, secret):
    out = mask_floor(text)
    assert secret not in out
    assert len(out) == len(text)


@pytest.mark.parametrize(
    "text",
    ["meet 2026-03-19 at 10:40", "订单 123456 金额 88", "I am 30, born 1994", "on 19/03/2026 we", "version 5.2.1", ""],
)
def test_it_leaves_short_numbers_and_dates(text):
    assert mask_floor(text) == text
