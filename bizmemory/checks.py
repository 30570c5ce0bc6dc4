"""System checks for BizMemory settings (ids ``bizmemory.E0xx`` / ``W0xx``).

They run at start of every management command and of the web server, so a bad
setting stops the process with a message that names it.
"""

import os
import re

from django.conf import settings
from django.core import checks

from audit.crypto import quarantine_key_problem

_POSITIVE = [
    "EXTRACTION_LEASE_SECONDS",
    "CONSOLIDATION_BATCH_TOKENS",
    "CONSOLIDATION_MAX_BATCHES",
    "MEMORY_DOCUMENT_TOKENS",
    "CONTEXT_DEFAULT_TOKENS",
    "LLM_TIMEOUT_SECONDS",
    "LLM_MAX_ATTEMPTS",
]
_NON_NEGATIVE = ["EXTRACTION_WINDOW_SECONDS", "CONSOLIDATION_MIN_INTERVAL_SECONDS", "EXTRACTION_QUIET_SECONDS"]
# DRF throttle rate syntax: "<number>/<period>", period by its first letter (s, m, h, d).
_RATE = re.compile(r"\d+/(s|sec|second|m|min|minute|h|hour|d|day)")
_RETENTION = ["JOURNAL_RETENTION_DAYS", "QUARANTINE_RETENTION_DAYS", "ARCHIVE_RETENTION_DAYS", "MESSAGE_RETENTION_DAYS"]


@checks.register()
def check_bizmemory_settings(app_configs=None, **kwargs):
    """Validate ``settings.BIZMEMORY``; returns a list of ``checks.Error``/``Warning``."""
    cfg = settings.BIZMEMORY
    errors = []
    policy = cfg["EXTRACTION_POLICY"]
    if policy not in ("always", "throttled", "never"):
        errors.append(checks.Error(
            f"BIZMEMORY_EXTRACTION_POLICY must be always, throttled or never (got {policy!r}).",
            id="bizmemory.E001",
        ))
    for name in _POSITIVE:
        if cfg[name] <= 0:
            errors.append(checks.Error(f"BIZMEMORY_{name} must be > 0 (got {cfg[name]}).", id="bizmemory.E002"))
    for name in _NON_NEGATIVE:
        if cfg[name] < 0:
            errors.append(checks.Error(f"BIZMEMORY_{name} must be >= 0 (got {cfg[name]}).", id="bizmemory.E003"))
    for name in _RETENTION:
        if cfg[name] < 1:
            errors.append(checks.Error(f"BIZMEMORY_{name} must be >= 1 day (got {cfg[name]}).", id="bizmemory.E004"))
    if cfg["SNAPSHOTS_KEEP"] < 2:
        errors.append(checks.Error(
            f"BIZMEMORY_SNAPSHOTS_KEEP must be >= 2 (got {cfg['SNAPSHOTS_KEEP']}): a restore needs its rollback point.",
            id="bizmemory.E005",
        ))
    if cfg["TOKENIZER"] not in ("o200k_base", "cl100k_base"):
        errors.append(checks.Error(
            f"BIZMEMORY_TOKENIZER must be o200k_base or cl100k_base (got {cfg['TOKENIZER']!r}).", id="bizmemory.E006"
        ))
    if cfg.get("EMBEDDER", "use") not in ("use", "openai", "hashing"):
        errors.append(checks.Error(f"BIZMEMORY_EMBEDDER must be use, openai or hashing (got {cfg.get('EMBEDDER')!r}).",
                                   id="bizmemory.E030"))
    if cfg.get("EMBEDDER") == "openai" and not (cfg.get("EMBEDDER_OPENAI_BASE_URL") and cfg.get("EMBEDDER_OPENAI_MODEL")):
        errors.append(checks.Error("BIZMEMORY_EMBEDDER=openai needs BIZMEMORY_EMBEDDER_OPENAI_BASE_URL and _MODEL.",
                                   id="bizmemory.E031"))
    for name in ("API_RATE_READ", "API_RATE_INGEST"):
        rate = cfg.get(name)
        if rate and not _RATE.fullmatch(str(rate)):  # empty = no rate limit
            errors.append(checks.Error(f"BIZMEMORY_{name} must look like 1200/min (number/s|sec|m|min|h|hour|d|day) or be empty, got {rate!r}.",
                                       id="bizmemory.E032"))
    sim = cfg.get("SEARCH_MIN_SIMILARITY")
    if sim is not None and not -1.0 <= sim <= 1.0:
        errors.append(checks.Error(f"BIZMEMORY_SEARCH_MIN_SIMILARITY must be a cosine in [-1, 1] (got {sim}).", id="bizmemory.E033"))
    floor = cfg.get("SEARCH_DECAY_FLOOR", 0.8)
    if not 0.0 <= floor <= 1.0:
        errors.append(checks.Error(f"BIZMEMORY_SEARCH_DECAY_FLOOR must be in [0, 1] (got {floor}).", id="bizmemory.E034"))
    for name in ("SEARCH_VECTOR_WEIGHT_MEMORY", "SEARCH_VECTOR_WEIGHT_SESSIONS", "SEARCH_DECAY_HALF_LIFE_DAYS"):
        if name in cfg and cfg[name] < 0:
            errors.append(checks.Error(f"BIZMEMORY_{name} must be >= 0 (got {cfg[name]}).", id="bizmemory.E035"))
    words_file = cfg.get("SENSITIVE_WORDS_FILE")
    if words_file and not os.path.isfile(words_file):
        errors.append(checks.Error(f"BIZMEMORY_SENSITIVE_WORDS_FILE names a missing file: {words_file}", id="bizmemory.E007"))
    problem = quarantine_key_problem()
    if problem:
        errors.append(checks.Error(problem, id="bizmemory.E010"))
    return errors


@checks.register(checks.Tags.security, deploy=True)
def check_secret_key(app_configs=None, **kwargs):
    """``manage.py check --deploy``: warn when SECRET_KEY is the development default."""
    if settings.SECRET_KEY == settings.INSECURE_DEV_SECRET_KEY:
        return [checks.Warning("SECRET_KEY is the development default; set SECRET_KEY.", id="bizmemory.W001")]
    return []


@checks.register()
def check_consolidation_loss_share(app_configs=None, **kwargs):
    """``BIZMEMORY_CONSOLIDATION_MAX_LOSS_SHARE`` must lie in (0, 1] (issue #5 loss guard)."""
    share = settings.BIZMEMORY.get("CONSOLIDATION_MAX_LOSS_SHARE", 0.25)
    if not isinstance(share, (int, float)) or not 0 < share <= 1:
        return [checks.Error(
            f"BIZMEMORY_CONSOLIDATION_MAX_LOSS_SHARE must be in (0, 1] (got {share!r}).", id="bizmemory.E020"
        )]
    return []
