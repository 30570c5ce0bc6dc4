"""Django settings for BizMemory.

Everything is read from the environment (django-environ). The defaults give a
laptop set-up: a SQLite file under ``var/``, django-q2 on the ORM broker.

Database selection: ``DATABASE_URL`` (one variable), for example
``sqlite:////abs/path/db.sqlite3``, ``postgres://postgres@127.0.0.1:5432/bizmemory``
or ``mysql://root@127.0.0.1:3306/bizmemory`` (MySQL/MariaDB). A malformed value
or an unknown scheme stops start-up with a message that names ``DATABASE_URL``.
"""

import os
import zoneinfo
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

class _Env(environ.Env):
    """django-environ, but a value that does not parse (``Q_WORKERS=zero``) stops start-up
    with ImproperlyConfigured naming the variable instead of a bare ValueError."""

    def get_value(self, var, cast=None, default=environ.Env.NOTSET, parse_default=False):
        try:
            return super().get_value(var, cast=cast, default=default, parse_default=parse_default)
        except ValueError as exc:
            raise ImproperlyConfigured(f"{var} has an invalid value: {exc}") from exc


env = _Env()

DEBUG = env.bool("DEBUG", default=False)
# The default is for a laptop only; system check bizmemory.W001 warns when it is used with DEBUG off.
INSECURE_DEV_SECRET_KEY = "dev-insecure-change-me"
SECRET_KEY = env.str("SECRET_KEY", default=INSECURE_DEV_SECRET_KEY)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_api_key",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI / Redoc assets served locally, no CDN
    "django_q",
    "bizmemory.apps.BizMemoryConfig",
    "profiles",
    "consolidation",
    "audit",
]

MIDDLEWARE = [
    "bizmemory.middleware.DatabaseUnavailableMiddleware",  # first: database errors anywhere → 503 JSON
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "bizmemory.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "bizmemory.wsgi.application"


def _database_from_env() -> dict:
    """Parse ``DATABASE_URL`` into a Django DATABASES entry.

    Returns the ``default`` database dict. Raises ImproperlyConfigured naming
    ``DATABASE_URL`` when the scheme is not sqlite, postgres or mysql.
    """
    default_url = f"sqlite:///{VAR_DIR / 'bizmemory.sqlite3'}"
    url = env.str("DATABASE_URL", default=default_url)
    try:
        db = environ.Env.db_url_config(url)
    except Exception as exc:  # django-environ raises several types on bad URLs
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL ({url!r}): {exc}") from exc
    engine = db.get("ENGINE", "")
    allowed = {
        "django.db.backends.sqlite3",
        "django.db.backends.postgresql",
        "django.db.backends.mysql",
    }
    if engine not in allowed:
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme selects {engine or 'nothing'!r}; use sqlite://, postgres:// or mysql://"
        )
    if engine == "django.db.backends.sqlite3":
        if db["NAME"] not in ("", ":memory:"):
            Path(db["NAME"]).parent.mkdir(parents=True, exist_ok=True)
        # A busy timeout lets the web process and qcluster workers share the file.
        db.setdefault("OPTIONS", {})["timeout"] = 20
        # BEGIN IMMEDIATE: a transaction takes the write lock up front, so it waits (timeout above)
        # instead of failing with "database is locked" when it upgrades from reading to writing
        # while a worker writes (benchmarks/soak.py measured 50% 503s on ingest without it).
        db["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
        # The test database is a file so end-to-end tests can share it with a real qcluster.
        # One file per test process, so concurrent runs on one machine do not collide.
        db.setdefault("TEST", {})["NAME"] = str(VAR_DIR / f"test-bizmemory-{os.getpid()}.sqlite3")
    elif engine == "django.db.backends.mysql":
        opts = db.setdefault("OPTIONS", {})
        opts.setdefault("charset", "utf8mb4")
        opts.setdefault("init_command", "SET sql_mode='STRICT_TRANS_TABLES'")
        db.setdefault("TEST", {})["CHARSET"] = "utf8mb4"
        db["TEST"]["COLLATION"] = "utf8mb4_unicode_ci"
    db["ATOMIC_REQUESTS"] = False
    # Persistent connections for the servers (a new PostgreSQL/MariaDB connection per request costs
    # more than the context request itself); health checks drop a connection that died, e.g. across a
    # database restart, before it is used. SQLite opens a file: nothing to keep.
    server = engine != "django.db.backends.sqlite3"
    db["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60 if server else 0)
    db["CONN_HEALTH_CHECKS"] = server
    return db


DATABASES = {"default": _database_from_env()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]  # our translations (compiled .mo files are committed)
# The zone pages show times in (each time is printed with its zone name); storage is always UTC.
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError) as _exc:
    raise ImproperlyConfigured(f"TIME_ZONE has an invalid value: {TIME_ZONE!r} is not an IANA time zone") from _exc
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/memory/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "bizmemory.api.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Per-API-key rate limits; rates are BIZMEMORY["API_RATE_READ"] / ["API_RATE_INGEST"].
    "DEFAULT_THROTTLE_CLASSES": ["profiles.permissions.ApiKeyRateThrottle"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "BizMemory API",
    "DESCRIPTION": "Long-term memory for AI agents. Send an API key as the X-Api-Key header: scope 'ingest' "
    "writes conversations, scope 'read' reads memory. Errors: {\"error\": {\"code\", \"message\", \"field\"}}.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "APPEND_COMPONENTS": {"securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
    "SECURITY": [{"ApiKey": []}],
}
API_KEY_CUSTOM_HEADER = "HTTP_X_API_KEY"

# --- django-q2 ------------------------------------------------------------
# One validated dict, as django-q2 documents. ORM broker by default; set
# Q_BROKER=redis and REDIS_URL for the production topology.
Q_BROKER = env.str("Q_BROKER", default="orm")
Q_CLUSTER = {
    "name": env.str("Q_CLUSTER_NAME", default="bizmemory"),
    "workers": env.int("Q_WORKERS", default=1),
    "timeout": env.int("Q_TIMEOUT", default=300),
    "retry": env.int("Q_RETRY", default=360),
    "max_attempts": 3,
    "catch_up": False,
    "sync": env.bool("Q_SYNC", default=False),
    "poll": 0.5,
    "save_limit": 500,
}
if Q_BROKER == "orm":
    Q_CLUSTER["orm"] = "default"
elif Q_BROKER == "redis":
    Q_CLUSTER["redis"] = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
else:
    raise ImproperlyConfigured(f"Q_BROKER must be 'orm' or 'redis', not {Q_BROKER!r}")

# --- BizMemory ------------------------------------------------------------
# Validated at start by system checks in bizmemory/checks.py (ids bizmemory.E0xx).
BIZMEMORY = {
    # Extraction throttle: "always" | "throttled" | "never"; per-user override on MemorySettings.
    "EXTRACTION_POLICY": env.str("BIZMEMORY_EXTRACTION_POLICY", default="throttled"),
    # Throttle window in seconds: at most one extraction run per user per window.
    "EXTRACTION_WINDOW_SECONDS": env.int("BIZMEMORY_EXTRACTION_WINDOW_SECONDS", default=300),
    # Per-session extraction lock lease in seconds (a dead worker's lock expires).
    "EXTRACTION_LEASE_SECONDS": env.int("BIZMEMORY_EXTRACTION_LEASE_SECONDS", default=120),
    # Quiet period: once a session has had no message for this many seconds, one more extraction
    # run picks up what is left (also an unanswered last user message); 0 turns it off.
    "EXTRACTION_QUIET_SECONDS": env.int("BIZMEMORY_EXTRACTION_QUIET_SECONDS", default=600),
    # Optional LLM refiner of rule candidates (OpenAI-compatible chat completions); off unless
    # both the base URL (e.g. https://api.openai.com/v1) and the model are set.
    "LLM_BASE_URL": env.str("BIZMEMORY_LLM_BASE_URL", default=""),
    "LLM_API_KEY": env.str("BIZMEMORY_LLM_API_KEY", default=""),
    "LLM_MODEL": env.str("BIZMEMORY_LLM_MODEL", default=""),
    "LLM_TIMEOUT_SECONDS": env.float("BIZMEMORY_LLM_TIMEOUT_SECONDS", default=20.0),
    "LLM_MAX_ATTEMPTS": env.int("BIZMEMORY_LLM_MAX_ATTEMPTS", default=2),
    # Minimum seconds between two consolidations of one user.
    "CONSOLIDATION_MIN_INTERVAL_SECONDS": env.int("BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS", default=60),
    # Tokens of journal text one consolidation batch reads (tiktoken o200k_base).
    "CONSOLIDATION_BATCH_TOKENS": env.int("BIZMEMORY_CONSOLIDATION_BATCH_TOKENS", default=2000),
    # Cap on consecutive batches per consolidation run.
    "CONSOLIDATION_MAX_BATCHES": env.int("BIZMEMORY_CONSOLIDATION_MAX_BATCHES", default=10),
    # Token cap of the rendered MEMORY.md.
    "MEMORY_DOCUMENT_TOKENS": env.int("BIZMEMORY_MEMORY_DOCUMENT_TOKENS", default=800),
    # Default token budget for the agent context endpoint.
    "CONTEXT_DEFAULT_TOKENS": env.int("BIZMEMORY_CONTEXT_DEFAULT_TOKENS", default=600),
    # Snapshots kept per user (the newest K).
    "SNAPSHOTS_KEEP": env.int("BIZMEMORY_SNAPSHOTS_KEEP", default=20),
    # Retention in days.
    "JOURNAL_RETENTION_DAYS": env.int("BIZMEMORY_JOURNAL_RETENTION_DAYS", default=30),
    "QUARANTINE_RETENTION_DAYS": env.int("BIZMEMORY_QUARANTINE_RETENTION_DAYS", default=30),
    # Consolidated (archived) journal entries and raw session messages (only those
    # already extracted, i.e. at or before their session's watermark).
    "ARCHIVE_RETENTION_DAYS": env.int("BIZMEMORY_ARCHIVE_RETENTION_DAYS", default=90),
    "MESSAGE_RETENTION_DAYS": env.int("BIZMEMORY_MESSAGE_RETENTION_DAYS", default=30),
    # Loss guard: a consolidation removing more than this share of current items
    # (removals without a replacement, see consolidation/consolidate.py) becomes a proposal.
    "CONSOLIDATION_MAX_LOSS_SHARE": env.float("BIZMEMORY_CONSOLIDATION_MAX_LOSS_SHARE", default=0.25),
    # Words that block a candidate wherever they occur (case-insensitive);
    # admins add more in the SensitiveWord table.
    "SENSITIVE_WORDS": env.list("BIZMEMORY_SENSITIVE_WORDS", default=[]),
    # Optional file with one more sensitive word per line (e.g. ../shared/eval/sensitive_words.txt).
    "SENSITIVE_WORDS_FILE": env.str("BIZMEMORY_SENSITIVE_WORDS_FILE", default=""),
    # Embedder for memory search: "use" (offline multilingual USE), "openai" (OpenAI-compatible
    # /embeddings endpoint) or "hashing" (deterministic character n-grams; tests, fallback).
    "EMBEDDER": env.str("BIZMEMORY_EMBEDDER", default="use"),
    "EMBEDDER_THREADS": env.int("BIZMEMORY_EMBEDDER_THREADS", default=2),
    "EMBEDDER_DIM": env.int("BIZMEMORY_EMBEDDER_DIM", default=0),  # 0 = the embedder's own
    "EMBEDDER_OPENAI_BASE_URL": env.str("BIZMEMORY_EMBEDDER_OPENAI_BASE_URL", default=""),
    "EMBEDDER_OPENAI_API_KEY": env.str("BIZMEMORY_EMBEDDER_OPENAI_API_KEY", default=""),
    "EMBEDDER_OPENAI_MODEL": env.str("BIZMEMORY_EMBEDDER_OPENAI_MODEL", default=""),
    # Minimum cosine similarity of a vector hit (unset = the embedder's default) and the
    # half-life in days of memory_search's time decay.
    "SEARCH_MIN_SIMILARITY": env.float("BIZMEMORY_SEARCH_MIN_SIMILARITY", default=None),
    "SEARCH_DECAY_HALF_LIFE_DAYS": env.float("BIZMEMORY_SEARCH_DECAY_HALF_LIFE_DAYS", default=180.0),
    # Share of the score an old item keeps at worst (0..1), and the vector list's weight in the
    # rank fusion per scope (profiles/search.py explains the sessions default).
    "SEARCH_DECAY_FLOOR": env.float("BIZMEMORY_SEARCH_DECAY_FLOOR", default=0.8),
    "SEARCH_VECTOR_WEIGHT_MEMORY": env.float("BIZMEMORY_SEARCH_VECTOR_WEIGHT_MEMORY", default=1.0),
    "SEARCH_VECTOR_WEIGHT_SESSIONS": env.float("BIZMEMORY_SEARCH_VECTOR_WEIGHT_SESSIONS", default=0.05),
    # Per-API-key request rates (DRF syntax "N/second|minute|hour|day"; empty = unlimited).
    "API_RATE_READ": env.str("BIZMEMORY_API_RATE_READ", default="1200/min"),
    "API_RATE_INGEST": env.str("BIZMEMORY_API_RATE_INGEST", default="1200/min"),
    # Tokenizer used for every token count (tiktoken encoding name).
    "TOKENIZER": env.str("BIZMEMORY_TOKENIZER", default="o200k_base"),
}
# Fernet key (urlsafe base64, 32 bytes) that encrypts quarantined originals.
QUARANTINE_KEY = env.str("BIZMEMORY_QUARANTINE_KEY", default="")
QUARANTINE_KEY_FILE = env.str("BIZMEMORY_QUARANTINE_KEY_FILE", default=str(VAR_DIR / "quarantine.key"))

TIKTOKEN_CACHE_DIR = env.str("TIKTOKEN_CACHE_DIR", default=str(VAR_DIR / "tiktoken"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "bizmemory": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
        # Server errors (with their traceback) reach the console even with DEBUG off.
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
        "presidio-analyzer": {"level": "ERROR"},
    },
}
