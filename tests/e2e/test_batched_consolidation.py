"""E2E layer 3 — batched consolidation through the running stack.

With ``BIZMEMORY_CONSOLIDATION_BATCH_TOKENS`` small, a journal over the budget is
consolidated in several batches (and, with ``_MAX_BATCHES=2``, several runs that the
task chains by itself); nothing is left pending and every fact arrives.
"""

import pytest
import requests
from django_q.models import Task

from consolidation.models import JournalEntry, JournalStatus
from profiles.models import MemoryItem

from .conftest import wait_for

pytestmark = pytest.mark.e2e

SKILLS = ["Python", "Rust", "Go", "Java", "Kotlin", "Scala", "SQL", "Haskell", "Elixir", "Ruby", "Swift", "TypeScript"]


def test_a_journal_over_the_budget_is_consolidated_in_several_batches(stack_factory, api_keys):
    st = stack_factory(Q_SAVE_LIMIT="0",  # the test reads the task results
        BIZMEMORY_CONSOLIDATION_BATCH_TOKENS="12",
        BIZMEMORY_CONSOLIDATION_MAX_BATCHES="2",
        BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0",
    )
    messages = []
    for skill in SKILLS:
        messages += [{"role": "user", "content": f"I use {skill} at work."}, {"role": "assistant", "content": "OK."}]
    body = {"user": "batch-user", "session": "batch-s1", "end_session": True, "messages": messages}
    r = requests.post(f"{st.url}/api/v1/messages", json=body, headers={"X-Api-Key": api_keys["ingest"]}, timeout=10)
    assert r.status_code == 201, r.text

    journal = JournalEntry.objects.filter(user__username="batch-user")
    wait_for(lambda: journal.count() >= len(SKILLS), what=lambda: f"extraction\n{st.logs()}")
    assert sum(e.tokens for e in journal) > 12 * 2  # over one run's budget
    wait_for(
        lambda: not journal.filter(status=JournalStatus.PENDING).exists()
        and MemoryItem.objects.current().filter(user__username="batch-user").count() >= len(SKILLS),
        timeout=120, what=lambda: f"the whole journal to be consolidated\n{st.logs()}",
    )
    assert journal.filter(status=JournalStatus.ARCHIVED).count() == journal.count()
    values = set(MemoryItem.objects.current().filter(user__username="batch-user").values_list("value", flat=True))
    assert set(SKILLS) <= values

    def runs():
        done = [t.result for t in Task.objects.filter(func="consolidation.tasks.consolidate_user")]
        return [r for r in done if isinstance(r, dict) and r.get("status") == "done"]

    # The journal is consolidated before the last run's result row is saved: wait for the rows.
    applied = wait_for(lambda: runs() if sum(r["batches"] for r in runs()) >= 3 else None,
                       what=lambda: f"task results of >= 3 batches, got {runs()}")
    assert sum(r["batches"] for r in applied) >= 3
    assert len(applied) >= 2  # MAX_BATCHES=2: the task chained further runs itself
    assert sum(r["entries"] for r in applied) == journal.count()
