"""What the settings schema shows: the staff page's guardrails and the README's table
(bizmemory/conf_docs.py), both generated from bizmemory/conf.py."""

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from bizmemory import conf, conf_docs


@pytest.fixture
def staff_client(client, db):
    client.force_login(get_user_model().objects.create_user("reviewer", password="pw", is_staff=True))
    return client


def test_the_guardrails_list_every_setting_with_a_limit_or_a_check_and_its_id(settings):
    rows = {r["name"]: r for r in conf_docs.guardrails()}
    expected = {s.env for s in conf.SETTINGS if s.limit or conf.checks_of(s.name)}
    assert set(rows) == expected
    with translation.override("en"):
        for s in conf.SETTINGS:
            if s.checked:
                assert f"({s.limit.check.split('.')[1]})" in str(rows[s.env]["limit"]), s.name
        for c in conf.CHECKS:
            assert f"({c.id.split('.')[1]})" in str(rows[conf.BY_NAME[c.settings[0]].env]["limit"]), c.id
        assert str(rows["BIZMEMORY_EXTRACTION_WINDOW_SECONDS"]["limit"]) == "seconds, ≥ 0 (E003)"
        assert str(rows["BIZMEMORY_CONSOLIDATION_MAX_LOSS_SHARE"]["limit"]) == "share of items, in (0, 1] (E020)"
        assert str(rows["BIZMEMORY_EXTRACTION_POLICY"]["limit"]) == "always, throttled or never (E001)"


def test_the_guardrails_never_show_a_secret(settings, client, db):
    settings.QUARANTINE_KEY = "V6c4ZVdRSWRsS0lPcU5RMndxUjhpWmpzb0dQQ1E0Zm8="
    settings.SECRET_KEY = "a-secret-key-that-must-stay-on-the-server-0123456789"  # before the login it signs
    rows = {r["name"]: r for r in conf_docs.guardrails()}
    assert str(rows["BIZMEMORY_QUARANTINE_KEY"]["value"]) == "set"
    client.force_login(get_user_model().objects.create_user("reviewer", password="pw", is_staff=True))
    html = client.get("/staff/").content.decode()
    assert settings.QUARANTINE_KEY not in html and settings.SECRET_KEY not in html
    assert "BIZMEMORY_QUARANTINE_KEY" in html


def test_the_guardrails_are_translated(staff_client):
    html = staff_client.get("/staff/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "秒，≥ 0（E003）" in html and "每个用户保留的版本数，≥ 2（E005）" in html and "条目比例，取值 (0, 1]（E020）" in html


def test_the_table_has_one_row_per_variable_with_default_limit_and_secret_file():
    table = conf_docs.settings_table()
    rows = table.splitlines()[2:]
    assert len(rows) == len(conf.SETTINGS)
    by_var = {r.split("|")[1].strip().split(" ")[0].strip("`"): r for r in rows}
    assert "| `300` | integer, seconds, ≥ 0 (E003) |" in by_var["BIZMEMORY_EXTRACTION_WINDOW_SECONDS"]
    assert "`BIZMEMORY_LLM_API_KEY` or `BIZMEMORY_LLM_API_KEY_FILE`" in by_var["BIZMEMORY_LLM_API_KEY"]
    assert "`true`" not in by_var["DEBUG"] and "`false`" in by_var["DEBUG"]
    assert str(conf.BASE_DIR) not in table  # machine-independent: paths are documented, not printed


def test_the_table_goes_between_the_markers_and_nowhere_else():
    text = f"# R\n\nbefore\n{conf_docs.TABLE_START}\nstale | table\n{conf_docs.TABLE_END}\nafter\n"
    new = conf_docs.readme_with_table(text)
    assert new.startswith("# R\n\nbefore\n") and new.endswith(f"{conf_docs.TABLE_END}\nafter\n")
    assert "stale" not in new and conf_docs.settings_table() in new
    assert conf_docs.readme_with_table(new) == new
    with pytest.raises(ValueError):
        conf_docs.readme_with_table("no markers")
