"""consolidation.extraction_rules: its interface (types, errors) and equal candidates for one statement said twice.

Unit tests in pure Python, no database, no Django setup; helpers in ``tests/extraction_rules_helpers.py``.
"""
import datetime as dt

import pytest

from consolidation import extraction_rules as R
from tests.extraction_rules_helpers import AT, _fast_settings, ex  # noqa: F401 (_fast_settings: autouse)


@pytest.mark.parametrize("text", [
    "我是杭州的Java后端工程师。",
    "以后回答都用表格。",
    "I'm a technical writer in Chicago.",
    "My son started university last fall.",
])
def test_same_statement_twice_gives_equal_candidates(text):
    a = ex(text, at=AT)
    b = ex("好的。" + text if R._lang_of(text) == "zh" else "OK. " + text, at=AT + dt.timedelta(days=3))
    assert [(c.kind, c.key, c.value) for c in a] == [(c.kind, c.key, c.value) for c in b]
    assert a == ex(text, at=AT)


def test_interface_types_and_errors():
    cands = ex("我是广州的客户经理。")
    c = cands[0]
    assert isinstance(c, R.Candidate) and c.lang == "zh" and c.operation == "set"
    with pytest.raises(Exception):
        c.value = "x"  # frozen
    assert ex("") == [] and ex("   ") == []
    with pytest.raises(TypeError):
        R.extract_candidates(None, at=AT)
    with pytest.raises(TypeError):
        R.extract_candidates("hi", at="2026-01-01")
    assert isinstance(R.RULES_VERSION, str) and R.RULES_VERSION
    assert all(c.kind in ("profile", "preference", "fact") for c in ex("I'm a nurse in Leeds. Always be brief."))
