"""Data the browser tests put in the database before driving the pages (real services, no stubs)."""

import datetime as dt

from audit.sanitizer import analyze
from audit.services import quarantine_file, sensitive_words_active
from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry, Session
from profiles.services import agent_ensure, user_ensure

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
LONG_ZH = "我周末经常带着孩子去城郊的湿地公园观鸟，尤其喜欢在清晨拍摄白鹭和苍鹭，已经坚持了三年多，还加入了一个观鸟摄影俱乐部"
# One very long Chinese value with no punctuation or space at all (about 190 characters), and a
# long unbroken Latin token: both must wrap inside the page, never widen it.
LONG_ZH_UNBROKEN = "我最喜欢的周末活动是带着全家人去城郊的国家湿地公园观察和拍摄各种候鸟" * 5
LONG_TOKEN = "https://photos.example.org/birdwatching/albums/2026-03-02-wetland-park-egrets-and-herons-morning-series"


def user_make(username: str, staff: bool = False, officer: bool = False):
    """A user (``profiles.services.user_ensure``) whose password is ``pw``; ``staff`` sets is_staff,
    ``officer`` also puts the account in the "memory officers" group (reveal, restore, audit log).
    Returns the saved ``User``."""
    from tests.helpers import officer_make

    if officer:
        return officer_make(username)
    user = user_ensure(external_id=username)
    user.set_password("pw")
    user.is_staff = staff
    user.save()
    return user


def memory_fill(user, long_values: bool = False) -> None:
    """Give ``user`` a real memory through consolidation: city 北京 then 深圳 (a pending
    confirmation), a role, a preference, a long Chinese fact, and one quarantined message (a
    phone number). With ``long_values``, also a ~190-character Chinese fact with no break
    opportunity but ideographs, and a kept-out record in a session with a long external id."""
    rows = [("profile", "city", "北京", "城市：北京", T0), ("profile", "role", "产品经理", "职位：产品经理", T0),
            ("preference", "answer_style", "简洁", "偏好：回答简洁，多用表格", T0),
            ("fact", "award", "观鸟", LONG_ZH, T0), ("profile", "city", "深圳", "城市：深圳", T0 + dt.timedelta(days=30))]
    if long_values:
        # The value is what the pages show (profiles.item_text), so the long run is the value.
        rows.append(("fact", "home", LONG_ZH_UNBROKEN, LONG_ZH_UNBROKEN + LONG_TOKEN,
                     T0 + dt.timedelta(days=31)))
    for n, (kind, key, value, text, at) in enumerate(rows):
        JournalEntry.objects.create(user=user, kind=kind, key=key, value=value, text=text, observed_at=at,
                                    created_at=at, tokens=20)
        if n + 1 == len(rows) or rows[n + 1][4] != at:  # one consolidation per point in time
            consolidation_run(user_id=user.pk, now=at)
    original = "我的手机是13912345678"
    quarantine_file(user=user, session_id=None, message_ids=[], original=original, now=T0,
                    hits=analyze(original, sensitive_words=sensitive_words_active()))
    if long_values:
        agent = agent_ensure(slug="main", is_entry=True)
        session = Session.objects.create(external_id="wechat-miniprogram-session-" + "0123456789abcdef" * 4,
                                         user=user, agent=agent, started_at=T0)
        original = LONG_ZH_UNBROKEN + "，我的手机是13912345678，邮箱 li.wei.birdwatching.club@example.com"
        quarantine_file(user=user, session_id=session.pk, session_external_id=session.external_id, message_ids=[1, 2, 3], original=original, now=T0,
                        hits=analyze(original, sensitive_words=sensitive_words_active()))
