"""Skips that become failures under CI (issue 18).

On a laptop a test may skip, saying why, when a component it needs is absent: Debian's
chromium, the ``../shared`` folder (``BIZMEMORY_SHARED_DIR``), an installed package. CI
(``CI`` set to ``true``, ``1`` or ``yes``, as ``.ci/run`` is run) installs all of them, so
there a missing one is a broken set-up and fails the test with the same message instead of
leaving a silent skip. Pure Python: usable without Django set up.
"""

from __future__ import annotations

import importlib
import os

import pytest


def under_ci() -> bool:
    """True when the environment variable ``CI`` is ``true``, ``1`` or ``yes`` (any case)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def absent(reason: str):
    """Skip the calling test because a component is missing — or, under CI, fail it."""
    if under_ci():
        pytest.fail(f"CI: a component the test suite needs is missing: {reason}", pytrace=False)
    pytest.skip(reason)


def require_module(name: str, reason: str):
    """Import and return module ``name``; when it cannot be imported, :func:`absent` with
    ``reason`` (``pytest.importorskip`` that fails under CI)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        absent(f"{reason} ({exc})")
