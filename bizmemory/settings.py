"""Django settings for BizMemory.

Every environment variable is declared once, in the schema ``bizmemory/conf.py`` (name, type,
default, limit, help, secret or not); :func:`bizmemory.conf.load` reads them strictly and a value
that does not parse stops start-up naming the variable. The defaults give a laptop set-up: a
SQLite file under ``var/``, django-q2 on the ORM broker. The README's configuration table is
generated from the schema (``manage.py settings_table``).

Database selection: ``DATABASE_URL`` (one variable), for example
``sqlite:////abs/path/db.sqlite3``, ``postgres://postgres@127.0.0.1:5432/bizmemory``
or ``mysql://root@127.0.0.1:3306/bizmemory`` (MySQL/MariaDB). A malformed value
or an unknown scheme stops start-up with a message that names ``DATABASE_URL``. The connection's
timeouts and keepalives (``DB_*``) are applied by ``bizmemory/database.py``.
"""

from bizmemory import conf, database

BASE_DIR = conf.BASE_DIR
VAR_DIR = conf.VAR_DIR

_conf = conf.load()
_v = _conf.values

DEBUG = _v["DEBUG"]
# The default is for a laptop (DEBUG=true) only: with DEBUG off the web server refuses to start
# without a key of its own (bizmemory/wsgi.py, asgi.py; check bizmemory.E050 under --deploy).
# Management commands and workers still run (migrate, replay, export, qcluster sign nothing).
INSECURE_DEV_SECRET_KEY = conf.INSECURE_DEV_SECRET_KEY
SECRET_KEY = _v["SECRET_KEY"]
ALLOWED_HOSTS = _v["ALLOWED_HOSTS"]


def _proxy_ssl_header(value: str) -> tuple[str, str] | None:
    """``SECURE_PROXY_SSL_HEADER`` from ``HEADER,value`` (None when empty). Raises
    ImproperlyConfigured naming the variable for another shape."""
    if not value:
        return None
    header, _, expected = (part.strip() for part in value.partition(","))
    if not header.startswith("HTTP_") or not expected or "," in expected:
        raise ImproperlyConfigured(
            "SECURE_PROXY_SSL_HEADER must be HEADER,value with the header as Django names it, "
            f"e.g. HTTP_X_FORWARDED_PROTO,https (got {value!r})"
        )
    return header, expected


# HTTPS, all from the environment (README "Running in production"; off by default so a laptop serves plain HTTP).
SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(_v["SECURE_PROXY_SSL_HEADER"])
SECURE_SSL_REDIRECT = _v["SECURE_SSL_REDIRECT"]
SECURE_HSTS_SECONDS = _v["SECURE_HSTS_SECONDS"]
SECURE_HSTS_INCLUDE_SUBDOMAINS = _v["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
SECURE_HSTS_PRELOAD = _v["SECURE_HSTS_PRELOAD"]
SESSION_COOKIE_SECURE = _v["SESSION_COOKIE_SECURE"]
CSRF_COOKIE_SECURE = _v["CSRF_COOKIE_SECURE"]
# A load balancer probes the servers directly, over plain HTTP: the health endpoint answers it
# rather than redirecting to HTTPS (SecurityMiddleware matches the path without its leading slash).
SECURE_REDIRECT_EXEMPT = [r"^api/v1/health$"]

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
    "bizmemory.http_errors.ApiQueryStringLimitMiddleware",  # an over-long /api/ query string → 414 JSON
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


# Parsed from DATABASE_URL, with the DB_* timeouts and keepalives mapped onto each engine's options
# (bizmemory/database.py explains each one, per engine).
DATABASES = {"default": database.database_settings(_v)}
# The timeouts in force, also listed on the staff page's guardrails.
DB_CONNECT_TIMEOUT = _v["DB_CONNECT_TIMEOUT"]
DB_STATEMENT_TIMEOUT = _v["DB_STATEMENT_TIMEOUT"]
DB_LOCK_TIMEOUT = _v["DB_LOCK_TIMEOUT"]
DB_IDLE_IN_TRANSACTION_TIMEOUT = _v["DB_IDLE_IN_TRANSACTION_TIMEOUT"]
DB_READ_TIMEOUT = _v["DB_READ_TIMEOUT"]
DB_WRITE_TIMEOUT = _v["DB_WRITE_TIMEOUT"]
DB_KEEPALIVES_IDLE = _v["DB_KEEPALIVES_IDLE"]
DB_KEEPALIVES_INTERVAL = _v["DB_KEEPALIVES_INTERVAL"]
DB_KEEPALIVES_COUNT = _v["DB_KEEPALIVES_COUNT"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]  # our translations (compiled .mo files are committed)
# The zone pages show times in (each time is printed with its zone name); storage is always UTC.
TIME_ZONE = _v["TIME_ZONE"]  # an IANA zone (conf.load checks it)
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
    "writes conversations, scope 'read' reads memory. Errors: {\"error\": {\"code\", \"message\", \"field\"}}. "
    "Ids (user, session, message, agent) are compared exactly and never trimmed: a user or session id with "
    "leading or trailing whitespace is a 400 naming the field. Session ids are unique per user. A query "
    "parameter given more than once is a 400 naming it.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "APPEND_COMPONENTS": {"securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
    "SECURITY": [{"ApiKey": []}],
    # GET /api/v1/health's status fields, and the reads' reason words (profiles.readers: one vocabulary
    # for HTTP and MCP), one enum each.
    "ENUM_NAME_OVERRIDES": {"HealthStatusEnum": ["ok", "error"],
                            "ReadReasonEnum": "profiles.readers.READ_REASONS",
                            "ContextReasonEnum": "profiles.readers.CONTEXT_REASONS"},
}
API_KEY_CUSTOM_HEADER = "HTTP_X_API_KEY"

# --- django-q2 ------------------------------------------------------------
# One validated dict, as django-q2 documents. ORM broker by default; set
# Q_BROKER=redis and REDIS_URL for the production topology.
Q_BROKER = _v["Q_BROKER"]  # orm or redis (conf.load checks it)
Q_CLUSTER = {
    "name": _v["Q_CLUSTER_NAME"],
    "workers": _v["Q_WORKERS"],
    # A task stuck on a dead connection: SIGALRM at `timeout` raises in the task, the guard kills a
    # worker still busy at timeout + 3 s and starts a fresh one (a new connection), and the
    # unacknowledged task comes back after `retry` (> timeout). The database timeouts end what
    # they can sooner; on PostgreSQL a frozen path only this does (README "Database timeouts").
    "timeout": _v["Q_TIMEOUT"],
    "retry": _v["Q_RETRY"],
    "max_attempts": 3,
    "catch_up": False,
    "sync": _v["Q_SYNC"],
    "poll": 0.5,
    "save_limit": _v["Q_SAVE_LIMIT"],
    "recycle": _v["Q_RECYCLE"],
}
if _v["Q_MAX_RSS_MB"]:
    Q_CLUSTER["max_rss"] = _v["Q_MAX_RSS_MB"] * 1024  # django-q2 counts kilobytes
if Q_BROKER == "orm":
    Q_CLUSTER["orm"] = "default"
else:
    Q_CLUSTER["redis"] = _v["REDIS_URL"]

# --- cache -----------------------------------------------------------------
# Shared by every process (gunicorn workers, qcluster, commands), so the per-key API rate limits
# (profiles.ratelimit) hold across them; Django's per-process default (locmem) would give each
# worker its own count. Redis when the deployment has it, else a table of the database.


def cache_config(kind: str, redis_url: str) -> dict:
    """The ``default`` entry of CACHES for ``CACHE`` ``kind`` (``redis`` or ``database``)."""
    if kind == "redis":
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "bizmemory",
            # A Redis that stops answering must not hang every request (the rate limit then lets it pass).
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    return {
        "BACKEND": "bizmemory.cache.DatabaseCache",  # Django's, with an incr that is atomic across processes
        "LOCATION": conf.CACHE_TABLE,
        # Culling deletes live rows too once the table is full (a rate count would restart): keep it large.
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    }


CACHE = _v["CACHE"] if _v["CACHE"] != "auto" else ("redis" if Q_BROKER == "redis" else "database")
CACHES = {"default": cache_config(CACHE, _v["REDIS_URL"])}

# --- BizMemory ------------------------------------------------------------
# Every key of bizmemory/conf.py's group BIZMEMORY, defaults filled: read settings.BIZMEMORY["KEY"].
# Limits are enforced at start by each app's system checks (ids bizmemory.E0xx).
BIZMEMORY = _conf.group(conf.BIZMEMORY)
# Fernet key (urlsafe base64, 32 bytes) that encrypts quarantined originals: BIZMEMORY_QUARANTINE_KEY,
# else the file BIZMEMORY_QUARANTINE_KEY_FILE (default var/quarantine.key), which audit.crypto
# also reads later when it is created after start (generate_quarantine_key).
QUARANTINE_KEY = _v["QUARANTINE_KEY"]
QUARANTINE_KEY_FILE = _conf.files["QUARANTINE_KEY"]

TIKTOKEN_CACHE_DIR = _v["TIKTOKEN_CACHE_DIR"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "bizmemory": {"handlers": ["console"], "level": _v["LOG_LEVEL"]},
        # Server errors (with their traceback) reach the console even with DEBUG off.
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
        "presidio-analyzer": {"level": "ERROR"},
    },
}
