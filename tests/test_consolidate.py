"""Consolidation service: latest value wins, batches under a token budget, snapshots."""

import datetime as dt

import pytest

from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry, JournalStatus
from profiles.models import ConsolidationProposal, Snapshot
from profiles.models import MemoryDocument, MemoryItem


def _entry(user, key, value, at, kind="profile", text=None, tokens=5, op="set", stage="", sources=()):
    return JournalEntry.objects.create(
        user=user, kind=kind, key=key, value=value, text=text or f"{key}: {value}", observed_at=at,
        created_at=at, tokens=tokens, operation=op, stage=stage, source_message_ids=list(sources),
    )


def test_latest_value_wins_and_history_is_kept(alice, t0):
    _entry(alice, "city", "成都", t0)
    _entry(alice, "city", "上海", t0 + dt.timedelta(days=30))
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=30))
    assert res.status == "done"
    current = MemoryItem.objects.current().get(user=alice, key="city")
    assert current.value == "上海"
    old = MemoryItem.objects.get(user=alice, key="city", value="成都")
    assert old.valid_until == t0 + dt.timedelta(days=30)
    doc = MemoryDocument.objects.get(user=alice)
    assert "上海" in doc.markdown and "成都" not in doc.markdown
    assert not JournalEntry.objects.filter(status=JournalStatus.PENDING).exists()


@pytest.mark.parametrize("stage, wins", [
    ("model:2026.12-m5:0.43", "宁波"),   # an unsure model span ("昆山那家审完了") keeps the held city
    ("model:2026.12-m5:0.91", "昆山"),   # a sure one replaces it
    ("rule:r1", "昆山"),                 # rules are not scored: they replace as always
])
def test_an_unsure_model_span_does_not_replace_a_held_value(alice, t0, stage, wins):
    _entry(alice, "city", "宁波", t0, stage="model:2026.12-m5:0.90")
    _entry(alice, "city", "昆山", t0 + dt.timedelta(days=3), stage=stage)
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=3))
    assert MemoryItem.objects.current().get(user=alice, key="city").value == wins


def test_an_unsure_model_span_fills_an_empty_key_and_replaces_when_the_message_says_a_move(alice, t0):
    _entry(alice, "role", "QA engineer", t0, stage="model:2026.12-m5:0.45")
    _entry(alice, "city", "Dublin", t0, stage="rule:r1", sources=[1])
    _entry(alice, "fact:relocation", "move to the Lisbon office", t0 + dt.timedelta(days=9), kind="fact", sources=[7],
           stage="model:2026.12-m5:0.80")
    _entry(alice, "city", "Lisbon", t0 + dt.timedelta(days=9), stage="model:2026.12-m5:0.48", sources=[7])
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=9))
    current = dict(MemoryItem.objects.current().filter(user=alice, kind="profile").values_list("key", "value"))
    assert current == {"role": "QA engineer", "city": "Lisbon"}


def test_the_same_value_twice_is_one_item(alice, t0):
    _entry(alice, "pref:format", "表格", t0, kind="preference")
    _entry(alice, "pref:format", "表格", t0 + dt.timedelta(days=1), kind="preference")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    item = MemoryItem.objects.get(user=alice)
    assert item.confirmed_at == t0 + dt.timedelta(days=1)


def test_retract_closes_the_current_value(alice, t0):
    _entry(alice, "role", "team lead", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "role", "team lead", t0 + dt.timedelta(days=2), op="retract")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=2))
    assert not MemoryItem.objects.current().filter(user=alice).exists()


def test_an_over_budget_journal_is_split_into_batches_and_drained(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, CONSOLIDATION_BATCH_TOKENS=20, CONSOLIDATION_MAX_BATCHES=2)
    for i in range(10):
        _entry(alice, f"skill:{i}", f"skill{i}", t0, tokens=10)
    first = consolidation_run(user_id=alice.pk, now=t0)
    assert first.batches == 2 and first.entries == 4 and first.pending_left == 6
    later = t0
    while JournalEntry.objects.filter(status=JournalStatus.PENDING).exists():
        later += dt.timedelta(hours=1)
        consolidation_run(user_id=alice.pk, now=later)
    assert MemoryItem.objects.current().filter(user=alice).count() == 10


def test_minimum_interval_is_respected(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, CONSOLIDATION_MIN_INTERVAL_SECONDS=60)
    _entry(alice, "city", "广州", t0)
    assert consolidation_run(user_id=alice.pk, now=t0).status == "done"
    _entry(alice, "city", "深圳", t0)
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(seconds=30))
    assert res.status == "too_soon" and res.retry_at == t0 + dt.timedelta(seconds=60)
    assert consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(seconds=60)).status == "done"  # at retry_at


def test_every_change_snapshots_items_and_document(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SNAPSHOTS_KEEP=2)
    for day, city in enumerate(["北京", "广州", "深圳"]):
        _entry(alice, "city", city, t0 + dt.timedelta(days=day))
        consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=day))
    snaps = list(Snapshot.objects.filter(user=alice).order_by("version"))
    assert [s.version for s in snaps] == [2, 3]
    assert snaps[-1].items[0]["value"] == "深圳"
    assert "深圳" in snaps[-1].memory_md


def test_the_document_respects_its_token_cap(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, MEMORY_DOCUMENT_TOKENS=40)
    for i in range(30):
        _entry(alice, f"skill:{i}", f"skill number {i}", t0 + dt.timedelta(minutes=i))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(hours=1))
    from bizmemory.tokens import count_tokens

    doc = MemoryDocument.objects.get(user=alice)
    assert 0 < count_tokens(doc.markdown) <= 40
    assert "skill number 29" in doc.markdown  # most recently confirmed stays
    assert "skill number 0\n" not in doc.markdown
    assert MemoryItem.objects.current().filter(user=alice).count() == 30


def test_a_batch_cap_leaves_the_rest_pending(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, CONSOLIDATION_BATCH_TOKENS=10, CONSOLIDATION_MAX_BATCHES=3)
    for i in range(8):
        _entry(alice, f"skill:s{i}", f"Skill{i}", t0, tokens=10)
    res = consolidation_run(user_id=alice.pk, now=t0)
    assert res.batches == 3 and res.entries == 3 and res.pending_left == 5
    assert consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(seconds=1)).status == "too_soon"


def test_an_entry_larger_than_the_budget_forms_its_own_batch(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, CONSOLIDATION_BATCH_TOKENS=5, CONSOLIDATION_MAX_BATCHES=2)
    _entry(alice, "city", "成都", t0, tokens=50)
    _entry(alice, "role", "产品经理", t0, tokens=50)
    _entry(alice, "department", "市场部", t0, tokens=50)
    res = consolidation_run(user_id=alice.pk, now=t0)
    assert (res.batches, res.entries, res.pending_left) == (2, 2, 1)


def test_preferences_merge_by_topic_whatever_the_key_spelling(alice, t0):
    _entry(alice, "answer_length", "简短", t0, kind="preference")
    _entry(alice, "pref:answer_length", "三句话以内", t0 + dt.timedelta(days=1), kind="preference")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    current = list(MemoryItem.objects.current().filter(user=alice))
    assert [(i.key, i.value) for i in current] == [("pref:answer_length", "三句话以内")]


def test_a_fact_said_again_keeps_its_date(alice, t0):
    JournalEntry.objects.create(
        user=alice, kind="fact", key="fact:marriage", value="结婚", text="事实·婚姻：结婚（2025年）",
        fact_date=dt.date(2025, 1, 1), observed_at=t0, created_at=t0, tokens=5,
    )
    JournalEntry.objects.create(
        user=alice, kind="fact", key="fact:marriage", value="结婚", text="事实·婚姻：结婚（2026年）",
        fact_date=dt.date(2026, 1, 1), observed_at=t0 + dt.timedelta(days=400), created_at=t0, tokens=5,
    )
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=400))
    item = MemoryItem.objects.current().get(user=alice)
    assert item.fact_date == dt.date(2025, 1, 1) and item.confirmed_at == t0 + dt.timedelta(days=400)


def test_a_near_duplicate_under_another_key_updates_rather_than_adds(alice, t0):
    _entry(alice, "skill:postgresql", "PostgreSQL", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "skill:postgres", "PostgreSQL 15", t0 + dt.timedelta(days=1))
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    current = list(MemoryItem.objects.current().filter(user=alice))
    assert [i.value for i in current] == ["PostgreSQL 15"]
    assert res.items_added == 1 and res.items_closed == 1


def test_distinct_short_values_are_not_merged(alice, t0):
    _entry(alice, "skill:java", "Java", t0)
    _entry(alice, "skill:javascript", "JavaScript", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    assert MemoryItem.objects.current().filter(user=alice).count() == 2


def test_a_retract_only_closes_the_matching_value(alice, t0):
    _entry(alice, "responsibility", "华南渠道", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "responsibility", "海外市场", t0 + dt.timedelta(days=1), op="retract")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert MemoryItem.objects.current().get(user=alice).value == "华南渠道"


def test_self_correction_removes_a_planted_project_detail_and_audits_it(alice, t0):
    from audit.models import AuditLog

    _entry(alice, "city", "杭州", t0)
    _entry(alice, "role", "后端工程师", t0)
    _entry(alice, "skill:python", "Python", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    planted = MemoryItem.objects.create(  # e.g. let in by an older rule version or an import
        user=alice, kind="profile", key="responsibility", value="Project Phoenix 的支付模块，JIRA-4521 下周五提测",
        text="负责：Project Phoenix 的支付模块", valid_from=t0, confirmed_at=t0,
    )
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "done" and res.items_removed == 1
    assert not MemoryItem.objects.filter(pk=planted.pk).exists()
    assert MemoryItem.objects.current().filter(user=alice).count() == 3
    log = AuditLog.objects.get(action="memory.item_removed")
    assert log.target_id == str(planted.pk) and log.details["reason"] in {"project", "id_token", "deadline"}
    assert "Phoenix" not in str(log.details)
    assert "Phoenix" not in MemoryDocument.objects.get(user=alice).markdown


@pytest.mark.parametrize("value,text", [
    ("Project Phoenix 的支付模块，JIRA-4521 下周五提测", "负责：支付模块"),
    ("支付模块", "负责：Project Phoenix 的支付模块，JIRA-4521 下周五提测"),
], ids=["in-the-value", "in-the-text"])
def test_self_correction_reads_both_the_value_and_the_text(alice, t0, value, text):
    _entry(alice, "city", "杭州", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    planted = MemoryItem.objects.create(user=alice, kind="profile", key="responsibility", value=value, text=text,
                                        valid_from=t0, confirmed_at=t0)
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "done" and res.items_removed == 1
    assert not MemoryItem.objects.filter(pk=planted.pk).exists()


def test_the_loss_guard_holds_a_run_that_would_remove_half_the_items(alice, bob, t0):
    from audit.models import AuditLog
    from profiles.models import ConsolidationProposal

    for key, value in [("city", "杭州"), ("role", "后端工程师"), ("skill:python", "Python"), ("skill:go", "Go")]:
        _entry(alice, key, value, t0)
    consolidation_run(user_id=alice.pk, now=t0)
    before = sorted(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True))
    _entry(alice, "skill:python", "Python", t0 + dt.timedelta(days=1), op="retract")
    _entry(alice, "skill:go", "Go", t0 + dt.timedelta(days=1), op="retract")
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "held" and res.pending_left == 2
    assert sorted(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True)) == before
    proposal = ConsolidationProposal.objects.get(pk=res.proposal_id)
    assert (proposal.items_at_start, proposal.removed) == (4, 2)
    assert AuditLog.objects.filter(action="memory.consolidation_held", target_id=str(proposal.pk)).exists()
    # While it waits for an admin, later runs apply nothing, not even new entries, and open no
    # second proposal; another user's consolidations are not held by it.
    _entry(alice, "department", "支付组", t0 + dt.timedelta(days=2))
    _entry(bob, "city", "苏州", t0 + dt.timedelta(days=2))
    again = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=2))
    assert (again.status, again.proposal_id, again.pending_left) == ("held", proposal.pk, 3)
    assert ConsolidationProposal.objects.filter(user=alice).count() == 1
    assert sorted(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True)) == before
    assert consolidation_run(user_id=bob.pk, now=t0 + dt.timedelta(days=2)).status == "done"


def _planted(user, at, values):
    """Items that break the memory policy (an unregistered key), as an older rule version or an
    import may have left them: the next run's self-correction removes them."""
    return [
        MemoryItem.objects.create(user=user, kind="profile", key="favourite_colour", value=v, text=f"favourite colour: {v}",
                                  valid_from=at, confirmed_at=at)
        for v in values
    ]


@pytest.mark.parametrize("planted,retracted", [(["blue", "green"], []), (["blue"], ["Go"])],
                         ids=["two-self-corrections", "a-self-correction-and-a-retraction"])
def test_the_loss_guard_counts_self_correction_removals(alice, t0, planted, retracted):
    for key, value in [("city", "杭州"), ("role", "后端工程师"), ("skill:python", "Python"), ("skill:go", "Go")]:
        _entry(alice, key, value, t0)
    consolidation_run(user_id=alice.pk, now=t0)
    bad = _planted(alice, t0, planted)
    for value in retracted:
        _entry(alice, f"skill:{value.lower()}", value, t0 + dt.timedelta(days=1), op="retract")
    start = MemoryItem.objects.current().filter(user=alice).count()
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "held"  # 2 removals of 4 + len(planted) items: over the 0.25 share
    assert MemoryItem.objects.current().filter(user=alice).count() == start
    assert all(MemoryItem.objects.filter(pk=b.pk).exists() for b in bad)
    proposal = ConsolidationProposal.objects.get(pk=res.proposal_id)
    assert proposal.removed == 2
    assert sorted(r["reason"] for r in proposal.removals) == sorted(["key_family"] * len(planted) + ["retract"] * len(retracted))


@pytest.mark.parametrize("share,items,removed,status", [
    (0.5, 6, 2, "done"),    # under the share
    (0.5, 4, 2, "done"),    # exactly the share is not more than it
    (0.5, 4, 3, "held"),    # just over
    (0.1, 10, 2, "held"),   # a share below the default holds what 0.25 would apply
    (1.0, 4, 4, "done"),    # share 1: every item may go
    (0.05, 10, 1, "done"),  # one removal alone never trips the guard
], ids=["under", "at", "over", "below-default", "share-1", "one-removal"])
def test_the_loss_guard_honours_the_configured_share_at_the_boundary(alice, t0, settings, share, items, removed, status):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, CONSOLIDATION_MAX_LOSS_SHARE=share)
    names = [f"skill{i}" for i in range(items)]
    for name in names:
        _entry(alice, f"skill:{name}", name, t0)
    consolidation_run(user_id=alice.pk, now=t0)
    assert MemoryItem.objects.current().filter(user=alice).count() == items
    for name in names[:removed]:
        _entry(alice, f"skill:{name}", name, t0 + dt.timedelta(days=1), op="retract")
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == status
    left = MemoryItem.objects.current().filter(user=alice).count()
    assert left == (items - removed if status == "done" else items)


def test_one_replacement_in_a_small_memory_does_not_trip_the_loss_guard(alice, t0):
    _entry(alice, "city", "杭州", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "city", "苏州", t0 + dt.timedelta(days=1))
    assert consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1)).status == "done"


def test_a_run_with_no_change_takes_no_snapshot(alice, t0):
    _entry(alice, "city", "杭州", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert res.status == "nothing_pending" and Snapshot.objects.filter(user=alice).count() == 1


def test_a_new_employer_retires_the_duties_stated_for_the_old_one(alice, t0):
    from profiles.models import Snapshot

    _entry(alice, "company", "Acme Bank", t0)
    _entry(alice, "responsibility", "the banking client's mobile app", t0)
    _entry(alice, "responsibility", "release testing", t0)
    _entry(alice, "skill:python", "Python", t0)
    first = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    later = t0 + dt.timedelta(days=60)
    _entry(alice, "company", "Freshline Foods", later)
    _entry(alice, "responsibility", "test automation", later)  # said in the same message: kept
    res = consolidation_run(user_id=alice.pk, now=later)
    assert res.status == "done"  # two duties closed together are a change, not a loss to hold
    current = dict(MemoryItem.objects.current().filter(user=alice).values_list("value", "key"))
    assert set(current) == {"Freshline Foods", "test automation", "Python"}
    old = Snapshot.objects.get(user=alice, version=first)
    assert "banking client" not in old.memory_md and "release testing" not in old.memory_md


@pytest.mark.parametrize("job_change_in_that_message", [True, False])
def test_a_first_employer_named_retires_earlier_duties_only_when_that_message_says_it_is_a_change(alice, t0, job_change_in_that_message):
    # "I'm a field technician … mostly inverter swaps" then "I joined Northwind Grid two weeks ago
    # as a procurement lead" (heldout ho-en-001); without the job change it may be the same job.
    _entry(alice, "responsibility", "inverter swaps", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    later = t0 + dt.timedelta(days=30)
    company = _entry(alice, "company", "Northwind Grid", later)
    company.source_message_ids = [41]
    company.save()
    if job_change_in_that_message:
        JournalEntry.objects.create(user=alice, kind="fact", key="fact:job_change:northwind_grid", value="Northwind Grid",
                                    text="joined Northwind Grid", observed_at=later, created_at=later, tokens=5,
                                    source_message_ids=[41])
    consolidation_run(user_id=alice.pk, now=later)
    kept = MemoryItem.objects.current().filter(user=alice, key="responsibility").exists()
    assert kept is not job_change_in_that_message


def test_the_same_employer_again_keeps_the_duties(alice, t0):
    _entry(alice, "company", "Acme Bank", t0)
    _entry(alice, "responsibility", "release testing", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "company", "Acme Bank", t0 + dt.timedelta(days=5))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=5))
    assert MemoryItem.objects.current().filter(user=alice, key="responsibility").exists()


def test_a_run_is_audited_with_its_counts_snapshotted_at_its_clock_and_indexed_in_the_same_run(alice, bob, t0, settings):
    from audit.models import AuditLog
    from profiles.selectors import search_index_chunks

    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=64)
    _entry(alice, "city", "杭州", t0)
    _entry(alice, "role", "后端工程师", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    later = t0 + dt.timedelta(days=1)
    _entry(alice, "city", "苏州", later)
    _entry(alice, "skill:go", "Go", later)
    _entry(bob, "city", "苏州", later)  # another user's pending entry is not in alice's count
    res = consolidation_run(user_id=alice.pk, now=later)
    assert res.status == "done" and res.pending_left == 0
    log = AuditLog.objects.filter(action="memory.consolidated").latest("id")
    doc = MemoryDocument.objects.get(user=alice)
    assert (log.subject_user, log.target_type, log.target_id) == (alice, "memory_document", str(doc.pk))
    assert log.details == {"entries": 2, "added": 2, "closed": 1, "removed": 0, "confirmations": 1,
                           "snapshot": res.snapshot_version}
    assert Snapshot.objects.get(user=alice, version=res.snapshot_version).created_at == later
    # The search index follows in the same run: no search is needed to bring it in line.
    current = set(MemoryItem.objects.current().filter(user=alice).values_list("pk", flat=True))
    assert {c["item_id"] for c in search_index_chunks(user=alice)} == current


def test_an_item_stored_under_a_bare_key_merges_with_its_topic(alice, t0):
    # e.g. imported or written by an older release: "answer_style", not "pref:answer_style"
    old = MemoryItem.objects.create(user=alice, kind="preference", key="answer_style", value="简短", text="回答：简短",
                                    valid_from=t0, confirmed_at=t0)
    _entry(alice, "pref:answer_style", "详细", t0 + dt.timedelta(days=1), kind="preference")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert list(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True)) == ["详细"]
    old.refresh_from_db()
    assert old.valid_until == t0 + dt.timedelta(days=1)


def test_a_new_answer_style_supersedes_instructions_worded_about_that_style(alice, t0):
    _entry(alice, "pref:instruction:go_deep", "go deep, long detailed write-ups welcome", t0, kind="preference")
    _entry(alice, "pref:instruction:cite", "always cite the regulation", t0, kind="preference")
    _entry(alice, "pref:instruction:tabular", "put comparisons in a table", t0, kind="preference")
    consolidation_run(user_id=alice.pk, now=t0)
    later = t0 + dt.timedelta(days=20)
    _entry(alice, "pref:answer_length", "two or three sentences", later, kind="preference")
    res = consolidation_run(user_id=alice.pk, now=later)
    assert res.status == "done"  # a superseded instruction is a change, not a loss to hold
    current = set(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True))
    assert current == {"two or three sentences", "always cite the regulation", "put comparisons in a table"}
    closed = MemoryItem.objects.get(user=alice, value__startswith="go deep")
    assert closed.valid_until == later
    _entry(alice, "pref:format", "plain paragraphs", later + dt.timedelta(days=1), kind="preference")
    consolidation_run(user_id=alice.pk, now=later + dt.timedelta(days=1))
    current = set(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True))
    assert current == {"two or three sentences", "always cite the regulation", "plain paragraphs"}
