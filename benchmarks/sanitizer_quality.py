"""Quality figures for audit.sanitizer: recall per entity type and false-positive rate.

Usage (from the project root):

    .venv/bin/python benchmarks/sanitizer_quality.py [--shared ../shared] [--n 400]

Prints one JSON object per line, one per figure:

* ``presidio_synth_recall`` - per gold entity type of presidio-research's
  synth_dataset_v2.json that we detect, the share of gold spans overlapped by a
  hit of a matching type; plus precision of our hits on that set.
* ``faker_zh_recall`` - per type, the share of seeded Faker zh_CN values
  (mobiles, resident IDs, bank cards, emails, addresses) embedded in Chinese
  sentences that are fully covered by a hit of the right type.
* ``dev_fp_rate`` - share of PII-free user messages of shared/eval/dev.jsonl
  (cases without a ``pii`` forbid; messages holding a ``pii``/``sensitive``
  forbid text excluded) with at least one hit; same for tool/assistant
  messages (business text: order numbers, prices, dates, versions).
* ``dev_pii_message_recall`` - share of user messages holding a ``pii`` forbid
  text that get at least one hit.
* ``open_chat_hit_rate`` - share of utterances of the public chat corpora
  (MADial-Bench zh/en, DuLeMon, LoCoMo; casual conversation with essentially no
  PII) with at least one hit: a false-positive check on natural text.
* ``business_fp_rate`` - share of seeded, generated PII-free business lines
  (order/ticket/invoice numbers, prices, dates, versions, SQL, log lines, in
  Chinese and English) with at least one hit.

The data sets live outside the repository (licenses differ); when
``../shared/datasets`` is missing the script prints a ``skipped`` line and
exits 0.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Gold type in presidio-research -> our entity types that count as finding it.
SYNTH_TYPES = {
    "CREDIT_CARD": {"CREDIT_CARD", "BANK_CARD"},
    "EMAIL_ADDRESS": {"EMAIL_ADDRESS"},
    "PHONE_NUMBER": {"PHONE_NUMBER", "CN_MOBILE", "CN_LANDLINE"},
    "US_SSN": {"US_SSN"},
    "IBAN_CODE": {"IBAN_CODE"},
    "IP_ADDRESS": {"IP_ADDRESS"},
    "STREET_ADDRESS": {"EN_STREET_ADDRESS", "CN_ADDRESS"},
}


def emit(figure: str, **data) -> None:
    print(json.dumps({"figure": figure, **data}, ensure_ascii=False), flush=True)


def overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start < b_end and b_start < a_end


def presidio_synth(path: Path) -> None:
    from audit.sanitizer import analyze

    records = json.loads(path.read_text(encoding="utf-8"))
    gold_total, gold_found = Counter(), Counter()
    ours = set().union(*SYNTH_TYPES.values())
    pred_total = pred_correct = 0
    for rec in records:
        text = rec["full_text"]
        hits = analyze(text)
        spans = rec["spans"]
        for span in spans:
            accepted = SYNTH_TYPES.get(span["entity_type"])
            if not accepted:
                continue
            gold_total[span["entity_type"]] += 1
            if any(
                h.entity_type in accepted
                and overlaps(h.start, h.end, span["start_position"], span["end_position"])
                for h in hits
            ):
                gold_found[span["entity_type"]] += 1
        for h in hits:
            if h.entity_type not in ours:
                continue
            pred_total += 1
            # Any overlapping gold PII span counts: e.g. a phone number inside
            # a gold STREET_ADDRESS is still personal data.
            if any(overlaps(h.start, h.end, s["start_position"], s["end_position"]) for s in spans):
                pred_correct += 1
    emit(
        "presidio_synth_recall",
        recall={t: round(gold_found[t] / gold_total[t], 4) for t in sorted(gold_total)},
        support=dict(sorted(gold_total.items())),
        precision=round(pred_correct / pred_total, 4) if pred_total else None,
        predicted=pred_total,
        sentences=len(records),
    )


def _luhn_complete(prefix: str, length: int, rnd: random.Random) -> str:
    body = prefix + "".join(rnd.choice("0123456789") for _ in range(length - len(prefix) - 1))
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def faker_zh(n: int) -> None:
    try:
        from faker import Faker
    except ImportError:
        emit("faker_zh_recall", skipped="faker is not installed")
        return
    from audit.sanitizer import analyze

    Faker.seed(20260319)
    fake = Faker("zh_CN")
    rnd = random.Random(20260319)

    def mobile() -> str:
        m = fake.phone_number()
        style = rnd.randrange(5)
        if style == 1:
            return f"{m[:3]} {m[3:7]} {m[7:]}"
        if style == 2:
            return f"{m[:3]}-{m[3:7]}-{m[7:]}"
        if style == 3:
            return f"+86 {m[:3]}-{m[3:7]}-{m[7:]}"
        if style == 4:
            return "+86" + m
        return m

    def card() -> str:
        kind = rnd.randrange(4)
        if kind == 0:
            number = _luhn_complete("62" + str(rnd.randrange(10, 99)), rnd.choice((16, 19)), rnd)
        elif kind == 1:
            number = _luhn_complete(rnd.choice(("6222", "6217", "6228", "6212")), 19, rnd)
        else:
            number = fake.credit_card_number(card_type=rnd.choice(("unionpay", "visa", "mastercard")))
        if rnd.random() < 0.3:
            number = " ".join(number[i : i + 4] for i in range(0, len(number), 4))
        return number

    def address() -> str:
        district = fake.district()
        district += "" if district.endswith(("区", "县")) else rnd.choice(("区", "县"))
        addr = f"{fake.province()}{fake.city()}{district}{fake.street_name()}{rnd.randint(1, 999)}号"
        if rnd.random() < 0.7:
            addr += f"{rnd.randint(1, 30)}号楼{rnd.randint(1, 6)}单元{rnd.randint(1, 33)}{rnd.randint(1, 4):02d}室"
        return addr

    makers = {
        "CN_MOBILE": (mobile, ["我手机是{v}，有事打给我", "{n}的电话：{v}", "联系人{n} {v}", "回拨{v}谢谢"]),
        "CN_RESIDENT_ID": (fake.ssn, ["我身份证号是{v}，帮我查下", "{n}，证件号码{v}", "身份证{v}已经上传"]),
        "BANK_CARD": (card, ["工资卡卡号{v}，报销打这张", "我的银行卡是{v}，{n}的", "退款请退到{v}"]),
        "EMAIL_ADDRESS": (fake.email, ["邮箱{v}不要发错", "把合同发到 {v} 就行", "{n}的邮件地址是{v}。"]),
        "CN_ADDRESS": (address, ["快递寄到{v}，收件人{n}", "我家住在{v}", "地址：{v}，电话联系"]),
    }
    recall, examples = {}, {}
    for entity, (make, templates) in makers.items():
        found = 0
        misses = []
        for i in range(n):
            value = make()
            sentence = templates[i % len(templates)].format(v=value, n=fake.name())
            start = sentence.index(value)
            end = start + len(value)
            if any(h.entity_type == entity and h.start <= start and h.end >= end for h in analyze(sentence)):
                found += 1
            elif len(misses) < 3:
                misses.append(sentence)
        recall[entity] = round(found / n, 4)
        if misses:
            examples[entity] = misses
    emit("faker_zh_recall", recall=recall, per_type=n, misses=examples)


def _dev_messages(path: Path):
    """Yield (case, message, forbid texts by reason) for every message of the dev set."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        for session in case["sessions"]:
            for message in session["messages"]:
                yield case, message


def dev_set(path: Path) -> None:
    from audit.sanitizer import analyze

    user_total = user_flagged = other_total = other_flagged = 0
    pii_total = pii_flagged = 0
    flagged_examples: list[str] = []
    for case, message in _dev_messages(path):
        text = message["content"]
        pii_forbids = [f["text"] for f in case["forbid"] if f["why"] == "pii"]
        private = [f["text"] for f in case["forbid"] if f["why"] in ("pii", "sensitive")]
        hits = analyze(text)
        if message["role"] == "user" and any(p in text for p in pii_forbids):
            pii_total += 1
            pii_flagged += bool(hits)
        if pii_forbids or any(p in text for p in private):
            continue
        if message["role"] == "user":
            user_total += 1
            user_flagged += bool(hits)
        else:
            other_total += 1
            other_flagged += bool(hits)
        if hits and len(flagged_examples) < 5:
            flagged_examples.append(
                "; ".join(f"{h.entity_type}:{text[h.start:h.end]}" for h in hits)
            )
    emit(
        "dev_fp_rate",
        user_messages=user_total,
        user_flagged=user_flagged,
        user_fp_rate=round(user_flagged / user_total, 4) if user_total else None,
        tool_assistant_messages=other_total,
        tool_assistant_flagged=other_flagged,
        tool_assistant_fp_rate=round(other_flagged / other_total, 4) if other_total else None,
        flagged=flagged_examples,
    )
    emit(
        "dev_pii_message_recall",
        messages=pii_total,
        flagged=pii_flagged,
        recall=round(pii_flagged / pii_total, 4) if pii_total else None,
    )


def business_fp(n: int) -> None:
    from audit.sanitizer import analyze

    rnd = random.Random(41)

    def digits(k: int, first: str = "123456789") -> str:
        return rnd.choice(first) + "".join(rnd.choice("0123456789") for _ in range(k - 1))

    def date() -> str:
        y, m, d = rnd.randint(2019, 2027), rnd.randint(1, 12), rnd.randint(1, 28)
        return rnd.choice((f"{y}-{m:02d}-{d:02d}", f"{y}/{m}/{d}", f"{y}年{m}月{d}日", f"{y}{m:02d}{d:02d}"))

    def amount() -> str:
        value = rnd.randint(1, 9_999_999) / 100
        return rnd.choice((f"{value:,.2f}", f"{value:.2f}", f"{int(value)}", f"{value / 10000:.1f}万"))

    def version() -> str:
        return ".".join(str(rnd.randint(0, 30)) for _ in range(rnd.randint(2, 4)))

    def when() -> str:
        return f"{date()} {rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}"

    templates = [
        lambda: f"单号 BX-{date().replace('-', '')[:8]}-{digits(4, '0123')}，金额 {amount()}，状态：待审批",
        lambda: f"订单{digits(rnd.randint(16, 19))}已发货，运单号SF{digits(13)}",
        lambda: f"报销单{amount()}元，{date()}提交，审批人：部门负责人",
        lambda: f"版本 {version()} 已发布，修复了{rnd.randint(1, 40)}个问题",
        lambda: f"发票代码{digits(12, '0')} 发票号码{digits(8)}，税额{amount()}元",
        lambda: f"统一社会信用代码 91{digits(4)}MA{digits(2)}XY{digits(6)}",
        lambda: f"股票代码{digits(6, '036')}.SH 收盘价{amount()}，涨幅{rnd.randint(1, 999) / 100}%",
        lambda: f"第{rnd.randint(1, 4)}季度销量{rnd.randint(10, 90000)}台，同比增长{rnd.randint(1, 300) / 10}%",
        lambda: f"工单 IT-{digits(5)} 已关闭，处理时长{rnd.randint(1, 600)}分钟",
        lambda: f"会议改到{rnd.randint(1, 30)}号楼{rnd.randint(1, 20)}层{digits(3)}会议室，{when()}开始",
        lambda: f"库存编码 SKU-{digits(8)}，批次{digits(10)}，共{rnd.randint(1, 5000)}箱",
        lambda: f"Invoice INV-{date()[:4]}-{digits(5)} total USD {amount()} due {date()}",
        lambda: f"Order {digits(rnd.randint(16, 19))} shipped on {date()}",
        lambda: f"SELECT * FROM orders WHERE id = {digits(19, '1')} AND created_at > '{date()}' LIMIT {rnd.randint(1, 500)};",
        lambda: f"{when()},{digits(3)} INFO [worker-{rnd.randint(1, 16)}] req={rnd.getrandbits(128):032x} "
        f"user_id={digits(rnd.randint(4, 9))} latency_ms={rnd.randint(1, 9000)} status=200",
        lambda: f"Upgrade to v{version()} (build {digits(5)}), then restart the service",
        lambda: f"Q{rnd.randint(1, 4)} revenue was ${amount()}k, up {rnd.randint(1, 400) / 10}% year over year",
        lambda: f"trace_id={rnd.getrandbits(128):032x} span_id={rnd.getrandbits(64):016x} duration={rnd.randint(1, 99999)}us",
        lambda: f"ticket INC-{digits(6)} opened at {when()}",
        lambda: f"Let's have a call at {rnd.randint(8, 18)}:{rnd.choice(('00', '30'))} on {date()} about the {amount()} budget",
        lambda: f"epoch {digits(10, '1')} / {digits(13, '1')} ms, checksum {digits(16)}",
        lambda: f"The batch moved {rnd.randint(1, 9)} {digits(3)} {digits(3)} rows in {rnd.randint(1, 99)}.{rnd.randint(0, 9)} s",
    ]
    flagged, examples = 0, []
    for i in range(n):
        text = templates[i % len(templates)]()
        hits = analyze(text)
        if hits:
            flagged += 1
            if len(examples) < 5:
                examples.append(text + " -> " + "; ".join(f"{h.entity_type}:{text[h.start:h.end]}" for h in hits))
    emit("business_fp_rate", lines=n, flagged=flagged, fp_rate=round(flagged / n, 4), flagged_examples=examples)


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _strings(value)


def open_chat(datasets: Path) -> None:
    from audit.sanitizer import analyze

    files = sorted((datasets / "madial_bench").glob("*/*.json")) + [
        datasets / "dulemon" / "samples.json",
        datasets / "locomo" / "locomo10.json",
    ]
    total = flagged = 0
    by_type: Counter = Counter()
    examples: list[str] = []
    for path in files:
        if not path.is_file():
            continue
        raw = path.read_text(encoding="utf-8")
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:  # JSON Lines
            data = [json.loads(line) for line in raw.splitlines() if line.strip()]
        for text in _strings(data):
            if len(text) < 8:  # ids, dates, speaker names
                continue
            total += 1
            hits = analyze(text)
            flagged += bool(hits)
            by_type.update(h.entity_type for h in hits)
            if hits and len(examples) < 5:
                examples.append("; ".join(f"{h.entity_type}:{text[h.start:h.end]}" for h in hits))
    emit(
        "open_chat_hit_rate",
        strings=total,
        flagged=flagged,
        rate=round(flagged / total, 5) if total else None,
        by_type=dict(by_type),
        examples=examples,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--n", type=int, default=400, help="Faker values per entity type")
    args = parser.parse_args(argv)

    datasets = args.shared / "datasets"
    if not datasets.is_dir():
        emit("sanitizer_quality", skipped=f"{datasets} not found")
        return 0

    from audit.sanitizer import warm_up

    started = time.perf_counter()
    warm_up()
    synth = datasets / "presidio_research" / "synth_dataset_v2.json"
    if synth.is_file():
        presidio_synth(synth)
    else:
        emit("presidio_synth_recall", skipped=f"{synth} not found")
    faker_zh(args.n)
    dev = args.shared / "eval" / "dev.jsonl"
    if dev.is_file():
        dev_set(dev)
    else:
        emit("dev_fp_rate", skipped=f"{dev} not found")
    open_chat(datasets)
    business_fp(args.n * 5)
    emit("elapsed_seconds", value=round(time.perf_counter() - started, 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
