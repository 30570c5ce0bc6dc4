"""Generate the PII recall set ``tests/data/pii_set.jsonl`` (seeded, reproducible).

    .venv/bin/python tools/pii_set.py [--seed 20261214] [--out tests/data/pii_set.jsonl]

One JSON object per line: ``{"id", "lang", "kind", "form", "text", "value", "start", "end"}``
where ``text[start:end] == value`` is one PII value stated in a natural Chinese or English
sentence. Kinds and forms are those of issue 14's attack run: mobiles and international phones
(full-width, spelled out in English and Chinese, grouped, ``+CC``), landlines, e-mail addresses
(plain, glued to Chinese, "at/dot" and "[at]/[dot]" spelled out, full-width), PRC resident ids
(valid, a wrong check digit after a context word and without one), bank cards (Luhn-valid
without a card word, Luhn-invalid with and without one), passports, IBANs (valid and with a
wrong check), WeChat and QQ ids, licence plates, Chinese addresses (road + number, estate +
room with no road) and English street addresses (Faker's USPS suffixes: Walks, Pines, Ferry…).

Values come from python-stdnum (check digits), Faker (names, international phones, US and UK
street addresses) and this script's own seeded random choices; sentences from the templates
below, written for this set. The output depends only on the seed and the locked Faker version.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from faker import Faker
from stdnum import iban, luhn
from stdnum.cn import ric

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "tests" / "data" / "pii_set.jsonl"
SLOT = "{v}"

ZH_DIGITS = "零幺二三四五六七八九"
ZH_DIGITS_PLAIN = "零一二三四五六七八九"
EN_DIGITS = "zero one two three four five six seven eight nine".split()
FULL = {c: chr(ord(c) + 0xFEE0) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz@.-+"}


def fullwidth(s: str) -> str:
    return "".join(FULL.get(c, c) for c in s)


# ------------------------------------------------------------------ values


class Values:
    """Seeded value generators, one method per kind; each returns ``(form, value)``."""

    def __init__(self, rnd: random.Random, seed: int) -> None:
        self.rnd = rnd
        self.fakers = {}
        self.seed = seed

    def faker(self, locale: str) -> Faker:
        if locale not in self.fakers:
            f = Faker(locale)
            f.seed_instance(self.seed + len(self.fakers))
            self.fakers[locale] = f
        return self.fakers[locale]

    def digits(self, n: int) -> str:
        return "".join(self.rnd.choice("0123456789") for _ in range(n))

    def mobile_digits(self) -> str:
        return "1" + self.rnd.choice("3456789") + self.digits(9)

    def cn_mobile(self):
        m = self.mobile_digits()
        form = self.rnd.choice(["plain", "spaced", "dashed", "plus86", "fullwidth", "zh_spelled", "zh_spelled_grouped",
                                "en_spelled", "fullwidth_dashed"])
        value = {
            "plain": m,
            "spaced": f"{m[:3]} {m[3:7]} {m[7:]}",
            "dashed": f"{m[:3]}-{m[3:7]}-{m[7:]}",
            "plus86": self.rnd.choice(["+86 ", "+86", "0086 ", "+86-"]) + m,
            "fullwidth": fullwidth(m),
            "fullwidth_dashed": fullwidth(f"{m[:3]}-{m[3:7]}-{m[7:]}"),
            "zh_spelled": "".join(self.rnd.choice([ZH_DIGITS, ZH_DIGITS_PLAIN])[int(d)] for d in m),
            "zh_spelled_grouped": " ".join("".join(ZH_DIGITS[int(d)] for d in g) for g in (m[:3], m[3:7], m[7:])),
            "en_spelled": " ".join(EN_DIGITS[int(d)] for d in m),
        }[form]
        return form, value

    INTL_LOCALES = ["en_IN", "pt_BR", "en_GB", "de_DE", "fr_FR", "ja_JP", "en_US", "es_ES", "it_IT", "en_AU",
                    "ko_KR", "ru_RU", "en_CA", "nl_NL", "pl_PL"]

    def intl_phone(self):
        r = self.rnd.random()
        if r < 0.55:
            loc = self.rnd.choice(self.INTL_LOCALES)
            return f"faker_{loc}", self.faker(loc).phone_number()
        if r < 0.8:  # "+CC" and national digits in groups, whether or not the number is valid
            cc = self.rnd.choice(["1", "7", "33", "44", "49", "55", "61", "81", "82", "86", "91", "852", "886", "971"])
            groups = [self.digits(self.rnd.choice([3, 4, 5])) for _ in range(self.rnd.choice([2, 3]))]
            sep = self.rnd.choice([" ", "-", " "])
            return "plus_cc_grouped", f"+{cc}{self.rnd.choice([' ', '-'])}" + sep.join(groups)
        if r < 0.9:  # (area) local-number, Brazil / India style
            return "paren_area", f"({self.digits(2)}) {self.rnd.choice('6789')}{self.digits(4)}-{self.digits(4)}"
        us = f"{self.rnd.randint(201, 989)}{self.rnd.randint(200, 999)}{self.digits(4)}"
        return "en_spelled_us", " ".join(EN_DIGITS[int(d)] for d in us)

    def cn_landline(self):
        area = self.rnd.choice(["010", "021", "020", "0571", "0755", "028", "027", "0512", "025", "023"])
        sub = self.rnd.choice("2345678") + self.digits(7 if len(area) == 3 else self.rnd.choice([6, 7]))
        form = self.rnd.choice(["dashed", "paren", "spaced", "plus86", "fullwidth"])
        value = {
            "dashed": f"{area}-{sub}",
            "paren": f"({area}){sub}",
            "spaced": f"{area} {sub[:4]} {sub[4:]}",
            "plus86": f"+86 {area[1:]} {sub[:4]} {sub[4:]}",
            "fullwidth": fullwidth(f"{area}-{sub}"),
        }[form]
        return form, value

    def email(self):
        f = self.faker(self.rnd.choice(["en_US", "en_GB"]))
        user = self.rnd.choice([f.user_name(), f.first_name().lower() + "." + f.last_name().lower(),
                                self.rnd.choice(["zhang", "li.na", "wang_fang", "liuyang", "chen.jie"]) + self.digits(2)])
        host = self.rnd.choice(["example.com", "qq.com", "163.com", "gmail.com", "outlook.com", "corp.example.cn",
                                "mail.example.org", "sina.com.cn", "foxmail.com"])
        form = self.rnd.choice(["plain", "plain", "at_dot_words", "bracket", "paren", "fullwidth", "curly", "mixed"])
        name, *rest = host.split(".")
        if form == "plain":
            return form, f"{user}@{host}"
        if form == "at_dot_words":
            return form, f"{user.replace('.', ' dot ')} at {name} dot " + " dot ".join(rest)
        if form == "bracket":
            return form, f"{user}[at]{name}[dot]" + "[dot]".join(rest)
        if form == "paren":
            return form, f"{user} (at) {name} (dot) " + " (dot) ".join(rest)
        if form == "curly":
            return form, f"{user}{{at}}{name}{{dot}}" + "{dot}".join(rest)
        if form == "mixed":
            return form, f"{user} at {host.replace('.', ' dot ')}"
        return form, fullwidth(f"{user}@{host}")

    def _ric_body(self) -> str:
        region = self.rnd.choice(["110105", "310104", "440106", "510107", "330106", "610113", "420111", "320102",
                                  "370202", "500103", "120101", "210102", "350203", "430104", "130102"])
        y = self.rnd.randint(1950, 2008)
        return f"{region}{y}{self.rnd.randint(1, 12):02d}{self.rnd.randint(1, 28):02d}{self.digits(3)}"

    def resident_id(self):
        body = self._ric_body()
        good = ric.calc_check_digit(body + "0")
        form = self.rnd.choice(["valid", "valid", "wrong_check", "wrong_check", "wrong_check_no_word", "spaced", "fullwidth"])
        check = good
        if form.startswith("wrong_check"):
            check = self.rnd.choice([c for c in "0123456789X" if c != good])
        value = body + check
        if form == "spaced":
            value = f"{value[:6]} {value[6:14]} {value[14:]}"
        elif form == "fullwidth":
            value = fullwidth(value)
        return form, value

    def card(self):
        prefix = self.rnd.choice(["6222", "6217", "6228", "6212", "6225", "4392", "4111", "5186", "5520", "6250", "3568"])
        length = self.rnd.choice([16, 16, 19]) if prefix.startswith("62") else 16
        body = prefix + self.digits(length - len(prefix) - 1)
        valid = body + luhn.calc_check_digit(body)
        form = self.rnd.choice(["luhn_valid", "luhn_valid_grouped", "luhn_invalid_card_word", "luhn_invalid_no_card_word",
                                "luhn_invalid_no_card_word_grouped", "luhn_invalid_card_word"])
        number = valid if form.startswith("luhn_valid") else body + str((int(luhn.calc_check_digit(body)) + 1 + self.rnd.randrange(8)) % 10)
        if form.endswith("grouped"):
            number = " ".join(number[i : i + 4] for i in range(0, len(number), 4))
        return form, number

    def passport(self):
        form = self.rnd.choice(["cn_e", "cn_g", "cn_ea", "us_9", "uk_9", "in_letter7", "de_alnum", "fr_2l"])
        value = {
            "cn_e": "E" + self.digits(8),
            "cn_g": "G" + self.digits(8),
            "cn_ea": "E" + self.rnd.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") + self.digits(7),
            "us_9": self.rnd.choice("123456789") + self.digits(8),
            "uk_9": self.rnd.choice("123456789") + self.digits(8),
            "in_letter7": self.rnd.choice("JKLMNPRSTUVWZ") + self.digits(7),
            "de_alnum": "C" + "".join(self.rnd.choice("0123456789CFGHJKLMNPRTVWXYZ") for _ in range(8)),
            "fr_2l": self.digits(2) + "".join(self.rnd.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2)) + self.digits(5),
        }[form]
        return form, value

    def iban(self):
        country, bban = self.rnd.choice([
            ("DE", lambda: self.digits(18)), ("GB", lambda: "NWBK" + self.digits(14)), ("FR", lambda: self.digits(10) + "X" + self.digits(11) + "7"),
            ("NL", lambda: "ABNA" + self.digits(10)), ("ES", lambda: self.digits(20)), ("IT", lambda: "X" + self.digits(10) + "X" + self.digits(11)),
        ])
        b = bban()
        check = iban.calc_check_digits(country + "00" + b)
        form = self.rnd.choice(["valid", "valid_grouped", "wrong_check"])
        if form == "wrong_check":
            check = f"{(int(check) + 1 + self.rnd.randrange(90)) % 97 + 2:02d}"
        value = country + check + b
        if form == "valid_grouped":
            value = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
        return form, value

    def wechat(self):
        f = self.faker("en_US")
        base = self.rnd.choice([f.user_name(), "zhang" + self.digits(4), "li_" + f.first_name().lower(), "wxid_" + "".join(
            self.rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12)), f.first_name().lower() + "-" + self.digits(3)])
        base = "".join(c for c in base if c.isalnum() or c in "_-")
        if not base[0].isalpha():
            base = "w" + base
        return "id", base[:20]

    def qq(self):
        return "number", self.rnd.choice("123456789") + self.digits(self.rnd.choice([4, 5, 6, 7, 8, 9]))

    def plate(self):
        prov = self.rnd.choice("京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼")
        letter = self.rnd.choice("ABCDEFGHJKLMNPQRSTUVWXY")
        form = self.rnd.choice(["digits", "mixed", "new_energy", "dot"])
        tail = {
            "digits": self.digits(5),
            "mixed": "".join(self.rnd.choice("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(4)) + self.digits(1),
            "new_energy": self.rnd.choice("DF") + self.digits(5),
            "dot": self.digits(5),
        }[form]
        return form, f"{prov}{letter}{'·' if form == 'dot' else ''}{tail}"

    ESTATES = ["南湖新村", "阳光花园", "翠苑小区", "金色家园", "碧桂园", "锦绣华庭", "幸福里小区", "枫林绿洲", "世纪公寓",
               "和平新村", "望江苑", "紫荆花园", "万科城市花园", "绿城桂花园", "东方明珠公寓", "梅园新村", "滨江花园"]
    CITIES = [("浙江省", "杭州市", "西湖区"), ("", "上海市", "浦东新区"), ("广东省", "深圳市", "南山区"),
              ("", "北京市", "朝阳区"), ("四川省", "成都市", "武侯区"), ("江苏省", "南京市", "鼓楼区"),
              ("湖北省", "武汉市", "洪山区"), ("", "天津市", "河西区")]
    ROADS = ["文三路", "中山北路", "建国路", "友谊路", "人民大道", "解放大街", "科技园南路", "长江路", "淮海中路", "珞喻路"]

    def cn_address(self):
        prov, city, district = self.rnd.choice(self.CITIES)
        estate = self.rnd.choice(self.ESTATES)
        form = self.rnd.choice(["full_road", "road_room", "estate_room", "estate_building_room", "estate_dash",
                                "district_estate_room"])
        room = f"{self.rnd.randint(1, 30)}{self.rnd.randint(1, 4):02d}室"
        value = {
            "full_road": f"{prov}{city}{district}{self.rnd.choice(self.ROADS)}{self.rnd.randint(1, 999)}号",
            "road_room": f"{self.rnd.choice(self.ROADS)}{self.rnd.randint(1, 999)}号{self.rnd.randint(1, 20)}栋{room}",
            "estate_room": f"{estate}{self.rnd.randint(1, 60)}{self.rnd.randint(1, 6)}{self.rnd.randint(1, 4)}室",
            "estate_building_room": f"{estate}{self.rnd.randint(1, 40)}幢{room}",
            "estate_dash": f"{estate}{self.rnd.randint(1, 40)}-{self.rnd.randint(1, 6)}-{self.rnd.randint(1, 30)}0{self.rnd.randint(1, 4)}",
            "district_estate_room": f"{city}{district}{estate}{self.rnd.randint(1, 40)}号楼{room}",
        }[form]
        return form, value

    def en_street(self):
        loc = "en_US" if self.rnd.random() < 0.85 else "en_GB"
        addr = self.faker(loc).street_address().replace("\n", ", ")
        return f"faker_{loc}", addr


# ------------------------------------------------------------------ sentences

T = {
    ("CN_MOBILE", "zh"): ["我手机号是{v}，有事打我。", "你记一下我的电话：{v}", "联系方式{v}，工作日都在。", "快递员打{v}就能找到我",
                          "我换号了，新号码{v}", "有急事就打 {v} 吧", "我的手机 {v} 二十四小时开机"],
    ("CN_MOBILE", "en"): ["My mobile in China is {v}, text me there.", "You can reach me on {v} after six.", "Call {v} if the courier is late.",
                          "My phone number is {v}.", "New number: {v}"],
    ("PHONE_INTL", "zh"): ["我在国外的号码是{v}，打这个。", "我的电话 {v} 可以直接打", "WhatsApp 用 {v} 联系我", "号码{v}，晚上八点后打"],
    ("PHONE_INTL", "en"): ["You can reach me at {v} most evenings.", "My number over here is {v}.", "Call me on {v} when you land.",
                           "Text {v} if anything changes.", "My cell is {v}, leave a message.", "Ring {v} for the office."],
    ("CN_LANDLINE", "zh"): ["家里座机{v}，白天没人", "办公室电话是{v}转前台", "打我们公司的 {v} 就行"],
    ("CN_LANDLINE", "en"): ["Our office line is {v}.", "Call the front desk at {v}."],
    ("EMAIL", "zh"): ["我邮箱{v}，资料发这里", "请把简历发到{v}", "邮件联系：{v}", "我的邮箱是 {v} 别发错了", "发{v}就行"],
    ("EMAIL", "en"): ["Email me at {v} with the details.", "My address is {v}, send it there.", "Send the contract to {v} please.",
                      "Write to {v} if you need me.", "Contact: {v}"],
    ("CN_RESIDENT_ID", "zh"): ["我身份证号{v}，帮我填一下表", "身份证号是{v}，订票要用", "证件号码：{v}", "我的身份证 {v} 你核对下"],
    ("CN_RESIDENT_ID", "en"): ["My Chinese ID card number is {v}.", "For the hotel form, my resident ID is {v}.",
                               "ID number: {v}"],
    ("CN_RESIDENT_ID", "zh_no_word"): ["帮我记一下这个号{v}，明天要用", "号码是{v}别弄丢了"],
    ("CN_RESIDENT_ID", "en_no_word"): ["Note this down for me: {v}", "Keep {v} somewhere safe for tomorrow."],
    ("BANK_CARD", "zh"): ["我的银行卡号{v}，工资打这里", "卡号是{v}，招行的", "信用卡{v}帮我查下额度", "退款到我的储蓄卡 {v}"],
    ("BANK_CARD", "en"): ["My card number is {v}, expiry next May.", "Charge my credit card {v} for the booking.",
                          "The debit card ending the form is {v}."],
    ("BANK_CARD", "zh_no_word"): ["转账到{v}就行", "钱打到{v}，户名张伟", "帮我记下{v}，下周还款用"],
    ("BANK_CARD", "en_no_word"): ["Pay it into {v}, that's mine.", "Use {v} for the refund.", "Put it on {v} please."],
    ("PASSPORT", "zh"): ["我护照号是{v}，你先帮我填上", "护照号码：{v}，办签证用", "我的护照 {v} 明年到期"],
    ("PASSPORT", "en"): ["My passport number is {v}.", "For the booking profile, passport {v}.", "Passport no. {v}, expires 2031."],
    ("IBAN", "zh"): ["我的IBAN是{v}，欧元汇这里", "汇款账户 IBAN：{v}"],
    ("IBAN", "en"): ["My IBAN is {v}.", "Please wire it to IBAN {v}.", "Bank account (IBAN): {v}"],
    ("WECHAT_ID", "zh"): ["加我微信{v}，方便联系", "我的微信号是 {v}", "微信：{v}，备注一下名字", "vx {v} 加一下", "我微信号{v}"],
    ("WECHAT_ID", "en"): ["Add me on WeChat: {v}", "My WeChat ID is {v}.", "WeChat {v} is the easiest way to reach me."],
    ("QQ", "zh"): ["我QQ号{v}，晚上在线", "加我扣扣 {v}", "QQ：{v}，验证写名字", "我的qq是{v}"],
    ("QQ", "en"): ["My QQ is {v}.", "Add me on QQ {v}."],
    ("LICENSE_PLATE", "zh"): ["我的车牌号是{v}，帮我登记一下", "车是{v}，白色的", "{v}是我的车，停在B2", "我开的车{v}今天限行吗"],
    ("LICENSE_PLATE", "en"): ["My car's licence plate is {v}.", "The plate number is {v}, a white SUV.", "Register {v} for parking please."],
    ("CN_ADDRESS", "zh"): ["我住在{v}，快递放门口", "寄到{v}，谢谢", "收货地址：{v}", "我家在{v}，离地铁很近", "地址是{v}"],
    ("CN_ADDRESS", "en"): ["My address in China is {v}.", "Ship it to {v} please."],
    ("EN_STREET_ADDRESS", "en"): ["I live at {v}, the blue door.", "Ship it to {v}.", "My home address is {v}.", "Send the parcel to {v} please.",
                                  "We moved to {v} last spring.", "The invoice goes to {v}."],
    ("EN_STREET_ADDRESS", "zh"): ["我在美国的地址是{v}", "寄到 {v}，谢谢"],
}

# Values per kind (and per language share): at least 1,000 values in all.
PLAN = {
    "CN_MOBILE": 140, "PHONE_INTL": 180, "CN_LANDLINE": 50, "EMAIL": 140, "CN_RESIDENT_ID": 120, "BANK_CARD": 120,
    "PASSPORT": 80, "IBAN": 50, "WECHAT_ID": 70, "QQ": 50, "LICENSE_PLATE": 60, "CN_ADDRESS": 100, "EN_STREET_ADDRESS": 100,
}
GEN = {
    "CN_MOBILE": "cn_mobile", "PHONE_INTL": "intl_phone", "CN_LANDLINE": "cn_landline", "EMAIL": "email",
    "CN_RESIDENT_ID": "resident_id", "BANK_CARD": "card", "PASSPORT": "passport", "IBAN": "iban", "WECHAT_ID": "wechat",
    "QQ": "qq", "LICENSE_PLATE": "plate", "CN_ADDRESS": "cn_address", "EN_STREET_ADDRESS": "en_street",
}
ZH_SHARE = {"CN_MOBILE": 0.6, "CN_LANDLINE": 0.7, "CN_RESIDENT_ID": 0.7, "WECHAT_ID": 0.7, "QQ": 0.7, "LICENSE_PLATE": 0.7,
            "CN_ADDRESS": 0.85, "EN_STREET_ADDRESS": 0.15, "PASSPORT": 0.4, "IBAN": 0.3, "PHONE_INTL": 0.35}


def _template(rnd: random.Random, kind: str, lang: str, form: str) -> str:
    if ("no_word" in form or "no_card_word" in form) and (kind, lang + "_no_word") in T:
        return rnd.choice(T[(kind, lang + "_no_word")])
    return rnd.choice(T[(kind, lang)])


def generate(seed: int) -> list[dict]:
    """The records of the set for ``seed``, in a stable order."""
    rnd = random.Random(seed)
    values = Values(rnd, seed)
    out: list[dict] = []
    for kind, n in PLAN.items():
        for _ in range(n):
            form, value = getattr(values, GEN[kind])()
            lang = "zh" if rnd.random() < ZH_SHARE.get(kind, 0.5) else "en"
            if form.startswith(("zh_spelled", "en_spelled")):
                lang = form[:2]  # digits spelled out in the sentence's own language
            template = _template(rnd, kind, lang, form)
            start = template.index(SLOT)
            text = template.replace(SLOT, value)
            out.append({"id": len(out) + 1, "lang": lang, "kind": kind, "form": form, "text": text, "value": value,
                        "start": start, "end": start + len(value)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261214)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    records = generate(args.seed)
    with args.out.open("w", encoding="utf-8") as fh:
        for r in records:
            assert r["text"][r["start"] : r["end"]] == r["value"]
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} values to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
