"""The settings schema (bizmemory/conf.py): strict parsing, secrets from files, defaults for every
key, and the per-app system checks it drives."""

from pathlib import Path

import pytest
from django.apps import apps
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from bizmemory import conf

ROOT = Path(__file__).resolve().parents[1]

# The system checks include the identifier-collation checks (bizmemory.E040/E041), which read
# information_schema on MySQL/MariaDB: tests that run every check need the test database there.
pytestmark = pytest.mark.django_db


def test_every_key_has_a_default_and_settings_bizmemory_holds_exactly_the_schema(settings):
    loaded = conf.load({})
    assert set(loaded.values) == {s.name for s in conf.SETTINGS}
    assert all(loaded.values[s.name] == s.default for s in conf.SETTINGS if not s.secret)
    group = {s.name for s in conf.SETTINGS if s.group == conf.BIZMEMORY}
    assert set(loaded.group()) == group == set(settings.BIZMEMORY)
    assert len(group) == 41


def test_the_schema_is_consistent():
    names = [s.name for s in conf.SETTINGS]
    variables = [s.env for s in conf.SETTINGS] + [s.file_env for s in conf.SETTINGS if s.secret]
    assert len(set(names)) == len(names) and len(set(variables)) == len(variables)
    labels = {c.label for c in apps.get_app_configs()}
    for s in conf.SETTINGS:
        assert s.help and s.app in labels, s.name
        assert s.default is None or s.limit is None or s.limit.ok(s.default), s.name
    for c in conf.CHECKS:
        assert c.app in labels and all(n in conf.BY_NAME for n in c.settings), c.id
    ids = [c.id for c in conf.CHECKS]
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {s.limit.check for s in conf.SETTINGS if s.checked}


def test_each_declared_check_is_emitted_by_its_apps_checks_module():
    for c in conf.CHECKS:
        source = (ROOT / c.app / "checks.py").read_text(encoding="utf-8")
        assert f'"{c.id}"' in source, (c.id, c.app)
    for app in {s.app for s in conf.SETTINGS if s.checked}:
        assert f'limit_errors("{app}")' in (ROOT / app / "checks.py").read_text(encoding="utf-8"), app


@pytest.mark.parametrize("env,expected", [
    ({"DEBUG": "true"}, ("DEBUG", True)),
    ({"DEBUG": "False"}, ("DEBUG", False)),
    ({"Q_WORKERS": " 3 "}, ("Q_WORKERS", 3)),
    ({"BIZMEMORY_SEARCH_DECAY_FLOOR": "0.5"}, ("SEARCH_DECAY_FLOOR", 0.5)),
    ({"BIZMEMORY_SEARCH_MIN_SIMILARITY": ""}, ("SEARCH_MIN_SIMILARITY", None)),
    ({"BIZMEMORY_SEARCH_MIN_SIMILARITY": "0.3"}, ("SEARCH_MIN_SIMILARITY", 0.3)),
    ({"DB_CONN_MAX_AGE": "0"}, ("DB_CONN_MAX_AGE", 0)),
    ({"BIZMEMORY_SENSITIVE_WORDS": " 绝密, ,internal price "}, ("SENSITIVE_WORDS", ["绝密", "internal price"])),
    ({"BIZMEMORY_API_RATE_READ": ""}, ("API_RATE_READ", "")),
    ({"TIME_ZONE": "Asia/Shanghai"}, ("TIME_ZONE", "Asia/Shanghai")),
    ({"DB_STATEMENT_TIMEOUT": "0"}, ("DB_STATEMENT_TIMEOUT", 0)),  # 0 = not set
    ({"DB_KEEPALIVES_COUNT": "1"}, ("DB_KEEPALIVES_COUNT", 1)),
    # An out-of-limit value parses: its app's system check reports it (below).
    ({"BIZMEMORY_SNAPSHOTS_KEEP": "1"}, ("SNAPSHOTS_KEEP", 1)),
])
def test_values_parse(env, expected):
    name, value = expected
    assert conf.load(env).values[name] == value


@pytest.mark.parametrize("var,value", [
    ("DEBUG", "yes"), ("DEBUG", "1"), ("Q_SYNC", ""),
    ("Q_WORKERS", "zero"), ("Q_WORKERS", "1.5"), ("Q_WORKERS", "1_000"), ("Q_WORKERS", ""),
    ("BIZMEMORY_LLM_TIMEOUT_SECONDS", "inf"), ("BIZMEMORY_SEARCH_DECAY_FLOOR", "nan"),
    ("BIZMEMORY_CONTEXT_DEFAULT_TOKENS", "abc"),
    ("TIME_ZONE", "Mars/Olympus_Mons"), ("Q_BROKER", "kafka"),
    # settings.py builds DATABASES from these: their limits are enforced when they are read.
    ("DB_STATEMENT_TIMEOUT", "-1"), ("DB_LOCK_TIMEOUT", "1.5"), ("DB_KEEPALIVES_INTERVAL", "0"),
    ("DB_KEEPALIVES_COUNT", "0"),
])
def test_a_value_that_does_not_parse_stops_loading_naming_the_variable(var, value):
    with pytest.raises(ImproperlyConfigured) as exc:
        conf.load({var: value})
    assert var in str(exc.value)


def test_a_parse_time_range_says_what_it_wanted(monkeypatch):
    # A Range without a check id is enforced by load(), like a Choices without one.
    monkeypatch.setattr(conf, "SETTINGS", conf.SETTINGS + (
        conf.Setting("PROBE", "int", 1, "A probe.", "bizmemory", group="", limit=conf.Range("", 0, low_open=True)),))
    assert conf.load({"PROBE": "2"}).values["PROBE"] == 2
    with pytest.raises(ImproperlyConfigured, match=r"PROBE must be > 0, not 0"):
        conf.load({"PROBE": "0"})
    assert conf.Range("", 0, 1, low_open=True).plain() == "in (0, 1]"


def test_every_bad_variable_is_named_at_once():
    with pytest.raises(ImproperlyConfigured) as exc:
        conf.load({"DEBUG": "yes", "Q_WORKERS": "zero"})
    assert "DEBUG" in str(exc.value) and "Q_WORKERS" in str(exc.value)


def test_a_secret_is_read_from_its_file(tmp_path):
    (tmp_path / "key").write_text("sk-from-file\n")
    loaded = conf.load({"BIZMEMORY_LLM_API_KEY_FILE": str(tmp_path / "key")})
    assert loaded.values["LLM_API_KEY"] == "sk-from-file"
    assert loaded.files["LLM_API_KEY"] == str(tmp_path / "key")
    assert conf.load({"SECRET_KEY_FILE": str(tmp_path / "key")}).values["SECRET_KEY"] == "sk-from-file"
    # An empty variable counts as unset (compose files often declare both).
    both = {"BIZMEMORY_LLM_API_KEY": "", "BIZMEMORY_LLM_API_KEY_FILE": str(tmp_path / "key")}
    assert conf.load(both).values["LLM_API_KEY"] == "sk-from-file"


def test_a_secret_set_twice_or_from_a_missing_file_stops_loading_without_echoing_it(tmp_path):
    (tmp_path / "key").write_text("sk-from-file")
    with pytest.raises(ImproperlyConfigured) as exc:
        conf.load({"BIZMEMORY_LLM_API_KEY": "sk-in-env", "BIZMEMORY_LLM_API_KEY_FILE": str(tmp_path / "key")})
    assert "BIZMEMORY_LLM_API_KEY_FILE" in str(exc.value) and "sk-" not in str(exc.value)
    with pytest.raises(ImproperlyConfigured) as exc:
        conf.load({"DATABASE_URL_FILE": str(tmp_path / "missing")})
    assert "DATABASE_URL_FILE" in str(exc.value)


def test_the_quarantine_key_file_may_be_missing_until_generate_quarantine_key_writes_it(tmp_path):
    path = str(tmp_path / "quarantine.key")
    loaded = conf.load({"BIZMEMORY_QUARANTINE_KEY_FILE": path})
    assert loaded.values["QUARANTINE_KEY"] == "" and loaded.files["QUARANTINE_KEY"] == path
    assert conf.load({}).files["QUARANTINE_KEY"] == str(conf.VAR_DIR / "quarantine.key")
    assert conf.load({"BIZMEMORY_QUARANTINE_KEY": "k"}).values["QUARANTINE_KEY"] == "k"


def _setting_errors():
    return [e for e in checks.run_checks() if e.id.startswith("bizmemory.")]


def test_the_defaults_pass_every_check(settings):
    assert _setting_errors() == []


@pytest.mark.parametrize("setting", [s for s in conf.SETTINGS if s.checked], ids=lambda s: s.name)
def test_a_value_outside_its_limit_fails_its_apps_check_with_a_hint(settings, setting):
    # A wrong type is outside every kind of limit (Range, Choices, Pattern).
    settings.BIZMEMORY = dict(settings.BIZMEMORY, **{setting.name: "x!"})
    errors = _setting_errors()
    assert [(e.id, e.msg.split(" ")[0]) for e in errors] == [(setting.limit.check, setting.env)]
    assert errors[0].hint and setting.help in errors[0].hint


@pytest.mark.parametrize("name,bad,good", [
    ("CONSOLIDATION_MAX_LOSS_SHARE", 0, 1), ("SNAPSHOTS_KEEP", 1, 2), ("EXTRACTION_LEASE_SECONDS", 0, 1),
    ("EXTRACTION_WINDOW_SECONDS", -1, 0), ("SEARCH_MIN_SIMILARITY", 1.01, -1), ("SEARCH_DECAY_FLOOR", -0.1, 0),
    ("API_RATE_INGEST", "5/week", ""), ("EMBEDDER", "word2vec", "hashing"),
])
def test_limits_include_their_bounds(settings, name, bad, good):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, **{name: good})
    assert _setting_errors() == []
    settings.BIZMEMORY = dict(settings.BIZMEMORY, **{name: bad})
    assert [e.id for e in _setting_errors()] == [conf.BY_NAME[name].limit.check]


def test_the_checks_of_one_app_run_alone(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SNAPSHOTS_KEEP=1, CONTEXT_DEFAULT_TOKENS=0)
    consolidation = [e.id for e in checks.run_checks(app_configs=[apps.get_app_config("consolidation")])]
    assert "bizmemory.E005" in consolidation and "bizmemory.E002" not in consolidation


def test_the_openai_embedder_needs_its_endpoint_and_model(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="openai", EMBEDDER_OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    errors = _setting_errors()
    assert [e.id for e in errors] == ["bizmemory.E031"] and errors[0].hint
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER_OPENAI_MODEL="m")
    assert _setting_errors() == []


def test_a_missing_sensitive_word_file_and_no_quarantine_key_fail_the_audit_check(settings, tmp_path):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SENSITIVE_WORDS_FILE=str(tmp_path / "missing.txt"))
    settings.QUARANTINE_KEY, settings.QUARANTINE_KEY_FILE = "", str(tmp_path / "missing.key")
    assert sorted(e.id for e in _setting_errors()) == ["bizmemory.E007", "bizmemory.E010"]
