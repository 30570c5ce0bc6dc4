"""consolidation.extraction_rules: a change of value keeps its key; retractions.

Unit tests in pure Python, no database, no Django setup; helpers in ``tests/extraction_rules_helpers.py``.
"""
import pytest

from tests.extraction_rules_helpers import _fast_settings, blob, ex  # noqa: F401 (_fast_settings: autouse)


@pytest.mark.parametrize("first,second,key,new", [
    ("我是成都分公司的HRBP。", "我已经调回上海总部了。", "city", "上海"),
    ("我在苏州工作。", "我上个月调到了无锡。", "city", "无锡"),
    ("I'm an analyst based in London.", "I've relocated to Dublin.", "city", "Dublin"),
    ("I'm based in Austin.", "I moved to Denver, same job.", "city", "Denver"),
    ("我喜欢你用长段落把来龙去脉讲透。", "之前那种长段落的风格我现在不要了，以后都给我三句话以内的结论。", "pref:answer_length", "三句话"),
    ("我每天早上都要来杯美式。", "咖啡我也戒了，现在早上只喝茶。", "pref:drink", "茶"),
    ("We write everything in Confluence.", "Everything lives in Notion now.", "pref:tool:docs", "Notion"),
    ("I always want figures in GBP.", "Switch everything to EUR please.", "pref:currency", "EUR"),
    ("我是做电池研发的。", "我转岗了，现在做电机控制算法。", "role", "电机控制算法"),
])
def test_change_gives_same_key(first, second, key, new):
    a = [c for c in ex(first) if c.key == key]
    b = [c for c in ex(second) if c.key == key]
    assert a and b, (blob(ex(first)), blob(ex(second)))
    assert new.casefold() in b[-1].value.casefold()
    assert a[-1].value != b[-1].value


@pytest.mark.parametrize("text,key", [
    ("I no longer manage the team.", "responsibility"),
    ("I'm no longer a team lead.", "role"),
    ("我不再负责华东区域了。", "responsibility"),
])
def test_retract(text, key):
    cands = ex(text)
    assert any(c.operation == "retract" and c.key == key for c in cands), blob(cands)


# Kinds fixed against the blind3 set.
def test_a_retraction_and_a_new_value_of_one_key_both_stand():
    cands = ex("我现在不管招聘了，只负责培训。")
    assert any(c.key == "responsibility" and c.operation == "retract" and "招聘" in c.value for c in cands), blob(cands)
    assert any(c.key == "responsibility" and c.operation == "set" and "培训" in c.value for c in cands), blob(cands)


def test_a_negated_duty_with_le_is_a_retraction_not_a_set():
    cands = ex("我现在不带团队了，转成了纯技术岗。")
    assert not any(c.key == "responsibility" and c.operation == "set" for c in cands), blob(cands)
    assert any(c.key == "responsibility" and c.operation == "retract" for c in cands), blob(cands)


# Generalisation (rules 2026.11-r5): variants written for the kinds of mistakes found on the held-out
# conversations, not the held-out sentences themselves; each kind has look-alikes that must yield nothing.
@pytest.mark.parametrize("text,city", [("I no longer live in Berlin.", "Berlin"), ("I don't work in Paris anymore.", "Paris"),
                                       ("I don't live in London anymore.", "London")])
def test_leaving_a_city_is_a_retraction_never_a_set(text, city):
    cands = ex(text)
    assert [(c.key, c.value, c.operation) for c in cands] == [("city", city, "retract")], blob(cands)
