"""audit.sanitizer by kind (issue 14): each form the attack run got past detection, and the
look-alikes that must stay clean. Plain pytest, no database."""

import pytest

from audit import recognizers_kinds as kinds
from audit.sanitizer import analyze, mask
from audit.street_suffixes import SUFFIXES


def found(text):
    return [(h.entity_type, text[h.start : h.end]) for h in analyze(text)]


def covered(text, value):
    """Every non-space character of ``value`` (in ``text``) lies inside a hit."""
    start = text.index(value)
    inside = set()
    for h in analyze(text):
        inside.update(range(h.start, h.end))
    return all(i in inside or text[i].isspace() for i in range(start, start + len(value)))


@pytest.mark.parametrize(
    "text, value",
    [
        # WeChat and QQ ids, with their context word
        ("加我微信zhangwei_1988，方便联系", "zhangwei_1988"),
        ("我的微信号是 lily2024", "lily2024"),
        ("Add me on WeChat: mike-9087", "mike-9087"),
        ("vx abcdefg 加一下", "abcdefg"),
        ("我QQ号853729461，晚上在线", "853729461"),
        ("My QQ is 2837461923.", "2837461923"),
        # licence plates
        ("我的车牌号是京A12345，帮我登记一下", "京A12345"),
        ("粤BD12345是我的车", "粤BD12345"),
        ("The plate number is 沪B·C6789, a white SUV.", "沪B·C6789"),
        # full-width and spelled-out digits
        ("我换号了，新号码１３８１２３４５６７８", "１３８１２３４５６７８"),
        ("电话幺三八一二三四五六七八", "幺三八一二三四五六七八"),
        ("call me on one three eight one two three four five six seven eight", "one three eight one two three four five six seven eight"),
        # spelled-out e-mail addresses
        ("Email me at zhang at example dot com with the details.", "zhang at example dot com"),
        ("邮箱 zhang[at]example[dot]com", "zhang[at]example[dot]com"),
        ("write to li.na (at) mail (dot) example (dot) org", "li.na (at) mail (dot) example (dot) org"),
        ("ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ 是我的邮箱", "ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ"),
        # a Luhn-invalid card with no card word
        ("转账到6222021234567890124就行", "6222021234567890124"),
        ("Use 4392 4761 0528 9857 for the refund.", "4392 4761 0528 9857"),
        # 19 digits, wrong check digit, whose first 16 happen to pass Luhn: the whole number
        ("Pay it into 6225 5858 5308 9171 359, that's mine.", "6225 5858 5308 9171 359"),
        # passports
        ("My passport number is 677429026.", "677429026"),
        ("护照号码：E12345678，办签证用", "E12345678"),
        ("Passport no. C01X00T47, expires 2031.", "C01X00T47"),
        ("For the booking, passport J8369854.", "J8369854"),
        # PRC ids with a wrong check digit right after 身份证号
        ("我身份证号110105194912310021，帮我填一下表", "110105194912310021"),
        ("身份证号是370202 19610716 9311，订票要用", "370202 19610716 9311"),
        # international phones
        ("You can reach me at +91-39941 98087 most evenings.", "+91-39941 98087"),
        ("我在国外的号码是+86 11251 2534，打这个。", "+86 11251 2534"),
        ("Call me on (95) 94215-7906 when you land.", "(95) 94215-7906"),
        ("My number over here is +44(0)115 4960914.", "+44(0)115 4960914"),
        ("Ring 206.269.0743 for the office.", "206.269.0743"),
        # IBANs, valid and with a wrong check next to "IBAN"
        ("My IBAN is DE89370400440532013000.", "DE89370400440532013000"),
        ("Please wire it to IBAN DE89 3704 0044 0532 0130 01", "DE89 3704 0044 0532 0130 01"),
        # Chinese estate + room with no road, with and without the city
        ("我住在南湖新村521室，快递放门口", "南湖新村521室"),
        ("寄到万科城市花园28-3-2903，谢谢", "万科城市花园28-3-2903"),
        ("收货地址：深圳市南山区枫林绿洲28号楼2602室", "深圳市南山区枫林绿洲28号楼2602室"),
        # English streets with suffixes outside the old list
        ("I live at 52219 Roach Cove, the blue door.", "52219 Roach Cove"),
        ("Ship it to 08063 Swanson Pines.", "08063 Swanson Pines"),
        ("We moved to 344 Mathis Parkways Suite 907 last spring.", "344 Mathis Parkways Suite 907"),
        ("Send it to 12 Old Mill Walks please", "12 Old Mill Walks"),
        ("The invoice goes to 7 Lake Ferry.", "7 Lake Ferry"),
        ("我在美国的地址是4201 Ware Hollow", "4201 Ware Hollow"),
        ("Send it to Flat 17, Janet Meadows please", "Flat 17, Janet Meadows"),
    ],
)
def test_it_finds_every_form_the_attack_run_used(text, value):
    assert covered(text, value), found(text)


@pytest.mark.parametrize(
    "text, value",
    [
        ("我换号了，新号码１３８１２３４５６７８", "１３８１２３４５６７８"),
        ("电话幺三八一二三四五六七八", "幺三八一二三四五六七八"),
        ("Email me at zhang at example dot com with the details.", "zhang at example dot com"),
    ],
)
def test_masking_hits_the_original_characters(text, value):
    masked = mask(text, analyze(text))
    assert len(masked) == len(text) and value not in masked
    assert masked.startswith(text[: text.index(value)])  # the words before are untouched


@pytest.mark.parametrize(
    "text",
    [
        "I use WeChat every day",
        "WeChat payments are easy",
        "QQ音乐很好听",
        "我们有 5 个人",
        "A new Tesla Model 3 was parked there",
        "We visited 3 National Parks last year",
        "I walked 5 Miles today",
        "the score was 2019 2020",
        "I was born in 1990 and have 2 kids",
        "look at example.com for details",
        "one or two of them",
        "我在公园里跑了3圈",
        "我住在学校宿舍",
        "passport photos cost 20 dollars",
        "订单号 202611301234567890",
        "version 5.2.1 build 20260319.3",
    ],
)
def test_it_leaves_look_alikes_alone(text):
    assert analyze(text) == []


def test_checksums_come_from_python_stdnum():
    assert kinds.resident_id_ok("11010519491231002X") is True
    assert kinds.resident_id_ok("110105194912310021") is False
    assert kinds.resident_id_shaped("110105194912310021")
    assert kinds.luhn_ok("4111111111111111") and not kinds.luhn_ok("4111111111111112")
    assert kinds.card_shaped("4111111111111112") and not kinds.card_shaped("8812345678901234")
    assert kinds.iban_ok("DE89370400440532013000") and not kinds.iban_ok("DE89370400440532013001")
    assert kinds.iban_shaped("DE89370400440532013001") and not kinds.iban_shaped("DE8937040044053201300")


def test_the_street_suffixes_are_the_full_usps_list():
    faker = pytest.importorskip("faker.providers.address.en_US")
    assert set(faker.Provider.street_suffixes) <= set(SUFFIXES)
    assert {"Ave", "Blvd", "Pkwy", "Xing", "Close", "Quay"} <= set(SUFFIXES)
