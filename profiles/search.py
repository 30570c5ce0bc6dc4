"""Hybrid memory search: the index (one MemoryVector per chunk) and the ``memory_search`` selector.

Index services (writes, transactional):

- :func:`memory_index_refresh` — make the user's item vectors match the current
  items (adds new ones, re-embeds changed text or a changed model, drops vectors
  of superseded items). Consolidation calls it after each run; ``memory_search``
  also calls it when it finds the index stale, so the index heals itself.
- :func:`index_chunks_create` — embed and store chunks; the pipeline's session index
  (``consolidation.session_index``) writes the ``scope="sessions"`` chunks with it.

Search (read): :func:`memory_search` ranks the user's own chunks by two retrievers,
fused by reciprocal rank fusion (Cormack et al. 2009, k = 60):

- lexical: BM25 (k1 = 1.2, b = 0.75) over terms that work for Chinese without a
  segmenter — CJK character bigrams — and lowercased Latin words, read from an inverted
  index (``LexicalPosting``: one row per chunk and term with its count, written with the
  chunk, deleted with it; the chunk's term count in ``MemoryVector.terms_count``). A query
  reads only the postings of its own terms plus one ``COUNT``/``SUM`` over the user's
  chunks (N, average length); the scores equal BM25 over the whole corpus (the
  in-memory reference in ``tests/test_search.py`` checks it). Chunks written before the index existed (``terms_count`` NULL)
  get their postings on the user's next search;
- vector: cosine similarity of embeddings (``profiles.embeddings``), hits under
  the similarity threshold dropped. PostgreSQL ranks with pgvector in SQL;
  SQLite and MySQL/MariaDB compute it in numpy over the user's rows (id and embedding
  columns only).

Questions about keys (issue 17): a memory query also gets the zh and en label terms of the keys it
asks about (``profiles.taxonomy.query_keys``: "where does the user live" → city → ``city``, ``城市``),
each counted only in items of that key's kind, so "住在哪" finds "City: Manchester". Asking words
(``how``, 什么, 哪, 吗, 用户) leave the query. A chunk with no lexical match needs a vector similarity
of at least ``SEARCH_VECTOR_ONLY_MIN_SIMILARITY`` (the floor; USE 0.45): below it, it is only
the nearest item ("Reykjavik" → "City: Lisbon" is 0.29). Figures: benchmarks/search_keys.py.

Only the candidates' metadata is read, and the text only of the ``top_k`` hits returned.

The vector list's weight in the fusion is ``SEARCH_VECTOR_WEIGHT_MEMORY`` (default 1.0)
or ``SEARCH_VECTOR_WEIGHT_SESSIONS`` (default 0.05: on LoCoMo conversations USE vectors
alone reach evidence recall@5 0.10 against 0.48 for the lexical list, and any larger
weight lowered the fused recall — see benchmarks/search_quality.py — so for past
messages vectors only break ties and bring in cross-language hits the lexical list misses).

Then time decay: a chunk ``age`` days old keeps ``floor + (1 - floor) * 2**(-age / half_life)``
of its score (``SEARCH_DECAY_FLOOR`` 0.8, ``SEARCH_DECAY_HALF_LIFE_DAYS`` 180: older
items lose at most a fifth, enough to reorder near-equals), unless the query carries a time cue
(``之前``, ``去年``, ``last month``, ``ago``…), when no decay applies. Every query is
filtered by ``user_id`` first: there is no code path that searches across users.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone

from audit.sanitizer import analyze, mask
from audit.services import sensitive_words_active

from .access import memory_access_reason
from .embeddings import EmbedderError, from_bytes, get_embedder, to_bytes
from .item_text import item_text
from .models import LexicalPosting, MemoryItem, MemoryVector, VectorSource
from .ports import conversations
from .taxonomy import query_keys

logger = logging.getLogger("bizmemory.search")

RRF_K = 60
SCOPES = ("memory", "sessions")
TERM_MAX_CHARS = 64  # LexicalPosting.term max_length: longer terms are cut (in documents and queries alike)
TF_MAX = 32767  # LexicalPosting.tf is a PositiveSmallIntegerField
_POSTINGS_BATCH = 2000

# A query with one of these asks about the past: older chunks then keep their full score.
_TIME_CUE = re.compile(
    r"之前|以前|从前|过去|去年|前年|上个月|上月|上周|上星期|那时|当时|曾经|那年|\d{4}\s*年"
    r"|\b(?:last\s+(?:year|month|week|time)|before|ago|previously|earlier|used\s+to|back\s+then|"
    r"in\s+(?:19|20)\d{2})\b",
    re.IGNORECASE,
)
_TERMS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+|[a-z0-9]+(?:'[a-z]+)?")
_STOP = frozenset(
    "a an and are as at be but by do does did for from has have i in is it its me my of on or our she he so that the "
    "their them they this to was we were what when where which who why will with you your user user's".split()
)
# Query words that only ask (never name a value): dropped from queries, kept in documents.
_QUERY_STOP = frozenset("any about can could her hers him his how many much should tell there whose would".split())
_CJK_ASKING = re.compile(r"用户|什么|[什么哪吗呢谁]")


def has_time_cue(query: str) -> bool:
    """True when ``query`` refers to the past (``之前``, ``去年``, ``上个月``, ``last month``, ``ago``…)."""
    return bool(_TIME_CUE.search(query or ""))


def lexical_terms(text: str, *, query: bool = False) -> list[str]:
    """Index terms of ``text``: CJK character bigrams and lowercased Latin/digit words minus a few
    English stop words, with a plural ``s`` stripped. Documents (``query`` False) also get CJK
    unigrams, so a one-character query term (``猫``) matches; a query uses a CJK run's bigrams,
    or the character itself when the run is one character long, without the words that only ask
    (``how``, ``whose``; 什么, 哪, 吗, 呢, 谁, 用户 and the single characters they leave)."""
    out: list[str] = []
    for m in _TERMS.finditer((text or "").lower()):
        run = m.group()
        if "\u3400" <= run[0] <= "\u9fff":
            # A query run loses its asking words and the single characters they leave ("的").
            pieces = [p for p in _CJK_ASKING.split(run) if len(p) > 1 or p == run] if query else [run]
            for piece in pieces:
                out.extend([piece] if len(piece) == 1 else [piece[i : i + 2] for i in range(len(piece) - 1)])
            if not query and len(run) > 1:
                out.extend(run)
        elif run not in _STOP and not (query and run in _QUERY_STOP):
            out.append(run[:-1] if len(run) > 3 and run.endswith("s") and not run.endswith("ss") else run)
    return out


# --------------------------------------------------------------------------
# Index (writes)
# --------------------------------------------------------------------------


def _item_text(item: MemoryItem) -> str:
    return item_text(item)


def _item_date(item: MemoryItem) -> dt.datetime:
    if item.fact_date:
        return dt.datetime.combine(item.fact_date, dt.time(), tzinfo=dt.timezone.utc)
    return item.valid_from


def _embed(texts: list[str]) -> tuple[str, int, list[bytes | None]]:
    """Embed texts; on an embedder failure store no vector (lexical search still works) and log."""
    emb = get_embedder()
    try:
        m = emb.embed(texts)
    except EmbedderError as exc:
        logger.warning("embedding failed, chunks stored without vectors: %s", exc)
        return "", 0, [None] * len(texts)
    return emb.name, emb.dim, [to_bytes(row) for row in m]


def _pg_store(vectors: list[MemoryVector]) -> None:
    """PostgreSQL only: mirror the float32 bytes into the pgvector column (migration 0004)."""
    if connection.vendor != "postgresql":
        return
    rows = [
        ("[" + ",".join(repr(float(x)) for x in from_bytes(v.embedding, v.dim)) + "]", v.pk)
        for v in vectors
        if v.dim and v.pk
    ]
    if rows:
        with connection.cursor() as cur:
            cur.executemany("UPDATE profiles_memoryvector SET embedding_pg = %s::vector WHERE id = %s", rows)


def _doc_terms(text: str) -> tuple[int, Counter]:
    """``(length, counts)`` of a chunk for the index: the number of :func:`lexical_terms` of ``text``
    (the BM25 document length) and term → occurrences, terms cut to ``TERM_MAX_CHARS``."""
    terms = lexical_terms(text)
    return len(terms), Counter(t[:TERM_MAX_CHARS] for t in terms)


def _postings(vector_id: int, user_id: int, source: str, counts: Counter) -> list[LexicalPosting]:
    return [LexicalPosting(user_id=user_id, vector_id=vector_id, source=source, term=t, tf=min(tf, TF_MAX))
            for t, tf in counts.items()]


def _create_vectors(rows: list[dict], embedded: tuple[str, int, list[bytes | None]] | None = None) -> int:
    """Insert one MemoryVector per row dict and its lexical postings; call inside a transaction.
    ``embedded`` is :func:`chunks_embed` of the rows' texts, computed by the caller outside the
    transaction (embedded here when None)."""
    if not rows:
        return 0
    model, dim, blobs = embedded if embedded is not None else _embed([r["text"] for r in rows])
    docs = [_doc_terms(r["text"]) for r in rows]
    objs = [MemoryVector(model=model, dim=dim, embedding=blob or b"", terms_count=length, **r)
            for r, blob, (length, _) in zip(rows, blobs, docs)]
    MemoryVector.objects.bulk_create(objs)  # PostgreSQL, SQLite ≥ 3.35 and MariaDB ≥ 10.5 return the ids
    if any(o.pk is None for o in objs):  # a backend that cannot return them: look them up (item/message are unique)
        field = "item_id" if objs[0].source == VectorSource.ITEM else "message_id"
        ids = dict(MemoryVector.objects.filter(**{f"{field}__in": [getattr(o, field) for o in objs]})
                   .values_list(field, "id"))
        for o in objs:
            o.pk = ids[getattr(o, field)]
    postings = [p for o, (_, counts) in zip(objs, docs) for p in _postings(o.pk, o.user_id, o.source, counts)]
    LexicalPosting.objects.bulk_create(postings, batch_size=_POSTINGS_BATCH)
    _pg_store(objs)
    return len(objs)


def _postings_backfill(user_id: int, source: str, batch: int = _POSTINGS_BATCH) -> int:
    """Write the postings and ``terms_count`` of ``user_id``'s ``source`` chunks that have none
    (``terms_count`` NULL: written before migration 0007 or by a bulk loader); returns how many
    chunks were indexed. Each batch of ``batch`` chunks is one transaction; rows are locked
    (``SELECT … FOR UPDATE``) so two concurrent searches cannot index a chunk twice."""
    pending = MemoryVector.objects.filter(user_id=user_id, source=source, terms_count__isnull=True)
    done = 0
    while pending.exists():
        with transaction.atomic():
            rows = list(pending.select_for_update().order_by("id").values_list("id", "text")[:batch])
            if not rows:
                break
            ids = [vid for vid, _ in rows]
            LexicalPosting.objects.filter(vector_id__in=ids).delete()  # none expected; keeps it idempotent
            by_length: dict[int, list[int]] = {}
            postings = []
            for vid, text in rows:
                length, counts = _doc_terms(text)
                by_length.setdefault(length, []).append(vid)
                postings.extend(_postings(vid, user_id, source, counts))
            LexicalPosting.objects.bulk_create(postings, batch_size=_POSTINGS_BATCH)
            for length, vids in by_length.items():
                MemoryVector.objects.filter(pk__in=vids).update(terms_count=length)
        done += len(rows)
    if done:
        logger.info("lexical postings built for %d %s chunks of user %s", done, source, user_id)
    return done


@dataclass
class IndexRefreshResult:
    """Counts of vectors ``added`` and ``removed`` by an index refresh."""

    added: int = 0
    removed: int = 0


def memory_index_refresh(*, user_id: int) -> IndexRefreshResult:
    """Make ``user_id``'s item vectors match the current memory items.

    Adds a vector for each current item without one; replaces vectors whose text
    changed or that another embedder made (``model`` differs); deletes vectors of
    items no longer current (superseded or retracted; deleted items cascade).
    Returns an :class:`IndexRefreshResult`. Embeds with the configured embedder
    (USE: ~3 ms per item); an embedder failure stores the chunk without a vector.
    The write path calls it after each change commits (``profiles.derived``). Embedding happens
    before the short write transaction, never inside it.
    """
    model = get_embedder().name
    current = {i.pk: i for i in MemoryItem.objects.current().filter(user_id=user_id)}
    stale, have = [], set()
    for vid, item_id, text, vmodel in MemoryVector.objects.filter(user_id=user_id, source=VectorSource.ITEM).values_list(
        "id", "item_id", "text", "model"
    ):
        item = current.get(item_id)
        if item is None or _item_text(item) != text or vmodel != model:
            stale.append(vid)
        else:
            have.add(item_id)
    rows = [
        {"user_id": user_id, "source": VectorSource.ITEM, "item_id": i.pk, "kind": i.kind, "text": _item_text(i), "date": _item_date(i)}
        for pk, i in sorted(current.items())
        if pk not in have
    ]
    embedded = chunks_embed([r["text"] for r in rows]) if rows else None
    with transaction.atomic():
        if stale:
            MemoryVector.objects.filter(pk__in=stale).delete()
        # A concurrent refresh may have indexed some of these meanwhile: skip what exists now.
        taken = set(MemoryVector.objects.filter(item_id__in=[r["item_id"] for r in rows]).values_list("item_id", flat=True))
        if taken:
            keep = [n for n, r in enumerate(rows) if r["item_id"] not in taken]
            rows = [rows[n] for n in keep]
            embedded = (embedded[0], embedded[1], [embedded[2][n] for n in keep])
        added = _create_vectors(rows, embedded) if rows else 0
    return IndexRefreshResult(added=added, removed=len(stale))


def index_heal(*, user_id: int) -> bool:
    """Fallback for rows written outside the write path (a shell, a data migration) or a
    derived-state refresh that failed after commit: re-index ``user_id``'s items when the index
    is stale (an item without its chunk, or a chunk of an item no longer current). Returns
    whether it re-indexed. The write path keeps the index fresh (``profiles.derived``); this
    check costs two EXISTS queries per search (issue 16 removes it)."""
    if not _index_is_stale(user_id):
        return False
    memory_index_refresh(user_id=user_id)
    return True


def _index_is_stale(user_id: int) -> bool:
    missing = MemoryItem.objects.current().filter(user_id=user_id, vector__isnull=True).exists()
    return missing or MemoryVector.objects.filter(
        user_id=user_id, source=VectorSource.ITEM, item__valid_until__isnull=False
    ).exists()


def chunks_embed(texts: list[str]) -> tuple[str, int, list[bytes | None]]:
    """Embed chunk texts with the configured embedder: ``(model name, dim, [float32 bytes or
    None])``, one entry per text (None for all when the embedder reports ``EmbedderError``: the
    chunks are then stored for lexical search only). Call it outside any write transaction: a
    remote embedder is an HTTP call. Other exceptions propagate."""
    return _embed(texts)


def index_chunks_create(*, rows: list[dict], embedded: tuple[str, int, list[bytes | None]]) -> int:
    """Store search chunks with their postings; returns how many were stored.

    ``rows`` are ``{"user_id", "source", "item_id" | "message_id", "kind", "text", "date"}``
    (``text`` already masked by the caller); ``embedded`` is :func:`chunks_embed` of their texts,
    computed before the caller's transaction. Used by the item index here and by the pipeline's
    session index (``consolidation.session_index``). Call inside a transaction.
    """
    return _create_vectors(rows, embedded)


# --------------------------------------------------------------------------
# Search (read)
# --------------------------------------------------------------------------


@dataclass
class SearchHit:
    """One result. ``id`` is the memory item id (scope ``memory``) or the message id (scope
    ``sessions``); ``kind`` is profile/preference/fact or user/assistant; ``date`` is when the
    chunk refers to; ``score`` the fused, decayed rank score (higher is better);
    ``similarity`` the cosine similarity (None without a vector) and ``lexical`` the BM25 score."""

    id: int
    kind: str
    text: str
    date: dt.datetime
    score: float
    similarity: float | None = None
    lexical: float = 0.0
    session: str | None = None


@dataclass
class SearchResult:
    """``hits`` best first (at most ``top_k``); ``reason`` (:data:`profiles.readers.READ_REASONS`)
    is ``ok`` (searched: hits, or none matched), ``no_memory`` (nothing stored in the scope) or why
    nothing was searched (``memory_off``, ``expert_off``, ``temporary_session``)."""

    hits: list[SearchHit] = field(default_factory=list)
    reason: str = "ok"
    time_cue: bool = False


# Candidate metadata: (item_id, message_id, kind, date) of a chunk, by vector id.
_Meta = tuple


def _vector_scores_pg(
    user_id: int, source: str, qvec: np.ndarray, model: str, limit: int, meta: dict[int, _Meta],
) -> dict[int, float]:
    # Exact cosine over the user's own rows: ordering by the uncast column keeps the planner on the
    # (user, source) b-tree instead of a global HNSW scan that a user filter would starve.
    q = "[" + ",".join(repr(float(x)) for x in qvec) + "]"
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, 1 - (embedding_pg <=> %s::vector), item_id, message_id, kind, date FROM profiles_memoryvector "
            "WHERE user_id = %s AND source = %s AND model = %s AND embedding_pg IS NOT NULL "
            "ORDER BY embedding_pg <=> %s::vector LIMIT %s",
            [q, user_id, source, model, q, limit],
        )
        sims = {}
        for vid, sim, item_id, message_id, kind, date in cur.fetchall():
            sims[vid] = float(sim)
            meta[vid] = (item_id, message_id, kind, date)
        return sims


def _chunks(user_id: int, source: str, since: dt.datetime | None):
    qs = MemoryVector.objects.filter(user_id=user_id, source=source)
    return qs if since is None else qs.filter(date__gte=since)


def _corpus_stats(user_id: int, source: str, since: dt.datetime | None) -> tuple[int, int, int]:
    """One aggregate over ``user_id``'s ``source`` chunks: ``(N, total terms)`` of those dated ``since``
    or later, and how many chunks (any date) still lack postings (``terms_count`` NULL)."""
    window = Q() if since is None else Q(date__gte=since)
    agg = MemoryVector.objects.filter(user_id=user_id, source=source).aggregate(
        n=Count("id", filter=window), total=Sum("terms_count", filter=window),
        pending=Count("id", filter=Q(terms_count__isnull=True)),
    )
    return agg["n"] or 0, int(agg["total"] or 0), agg["pending"] or 0


def _bm25_index(
    user_id: int, source: str, query_terms: list[str], *, since: dt.datetime | None = None,
    meta: dict[int, _Meta] | None = None, kind_terms: dict[str, set[str]] | None = None,
    k1: float = 1.2, b: float = 0.75,
) -> tuple[int, dict[int, float]]:
    """BM25 of ``user_id``'s ``source`` chunks (dated ``since`` or later) for ``query_terms``, from the index.

    Reads the postings of the query terms only, and N / total length with one aggregate.
    Returns ``(N, {vector id: score > 0})``: the same scores as in-memory BM25 over all those
    chunks' :func:`lexical_terms` (df per term within them, average length over them).
    ``kind_terms`` (term → chunk kinds) adds terms that count only in chunks of those kinds (a
    key's labels, :func:`_key_terms`); their df is taken within those kinds.
    Fills ``meta`` (when given) with each scored chunk's ``(item_id, message_id, kind, date)``.
    Chunks without postings get them first (:func:`_postings_backfill`, a write).
    """
    n, total, pending = _corpus_stats(user_id, source, since)
    if pending:
        _postings_backfill(user_id, source)
        n, total, pending = _corpus_stats(user_id, source, since)
    terms = {t[:TERM_MAX_CHARS] for t in query_terms}
    kinds = {t[:TERM_MAX_CHARS]: ks for t, ks in (kind_terms or {}).items() if t[:TERM_MAX_CHARS] not in terms}
    if not n or not (terms or kinds):
        return n, {}
    avgdl = total / n or 1.0
    postings = LexicalPosting.objects.filter(user_id=user_id, source=source, term__in=terms | set(kinds))
    if since is not None:
        postings = postings.filter(vector__date__gte=since)
    by_term: dict[str, list[tuple[int, int, int]]] = {}
    for vid, term, tf, dl, item_id, message_id, kind, date in postings.values_list(
        "vector_id", "term", "tf", "vector__terms_count", "vector__item_id", "vector__message_id", "vector__kind",
        "vector__date",
    ):
        # (a case-/accent-insensitive collation, MySQL, may match another term: skipped too)
        if term not in terms and kind not in kinds.get(term, ()):
            continue
        by_term.setdefault(term, []).append((vid, tf, dl or 0))
        if meta is not None:
            meta[vid] = (item_id, message_id, kind, date)
    scores: dict[int, float] = {}
    for term in terms | set(kinds):
        posts = by_term.get(term)
        if not posts:
            continue
        df = len(posts)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for vid, tf, dl in posts:
            scores[vid] = scores.get(vid, 0.0) + idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
    return n, {vid: sc for vid, sc in scores.items() if sc > 0}


def _key_terms(query: str) -> dict[str, set[str]]:
    """The terms of the zh and en labels of the keys ``query`` asks about
    (:func:`profiles.taxonomy.query_keys`), each with the item kinds it may match there:
    "where does the user live" → ``{"city": {"profile"}, "城市": {"profile"}}``."""
    out: dict[str, set[str]] = {}
    for spec in query_keys(query):
        for term in lexical_terms(f"{spec.label_en} {spec.label_zh}", query=True):
            out.setdefault(term, set()).add(spec.kind)
    return out


def _thresholds(emb, min_similarity: float | None) -> tuple[float, float]:
    """``(vector threshold, vector-only floor)``: the argument or ``SEARCH_MIN_SIMILARITY``, and
    ``SEARCH_VECTOR_ONLY_MIN_SIMILARITY``, each defaulting to the embedder's own value."""
    cfg = settings.BIZMEMORY
    if min_similarity is None:
        min_similarity = cfg["SEARCH_MIN_SIMILARITY"]
    floor = cfg["SEARCH_VECTOR_ONLY_MIN_SIMILARITY"]
    return (emb.default_threshold if min_similarity is None else min_similarity,
            emb.default_floor if floor is None else floor)


def search_chunks(
    *, user_id: int, query: str, source: str, top_k: int, min_similarity: float | None = None,
    now: dt.datetime | None = None, since: dt.datetime | None = None,
) -> tuple[list[SearchHit], bool]:
    """Rank ``user_id``'s chunks of ``source`` (``item``/``message``) for ``query``; no switches, no masking.

    Returns ``(hits, time_cue)`` with at most ``top_k`` hits, best first. ``since`` drops
    chunks dated before it (message retention). ``min_similarity`` (cosine) defaults to
    ``BIZMEMORY['SEARCH_MIN_SIMILARITY']`` or the embedder's own default. Items also match the
    labels of the keys the query asks about (:func:`_key_terms`); a chunk with no lexical match
    needs ``SEARCH_VECTOR_ONLY_MIN_SIMILARITY`` (the floor, issue 17). Builds missing
    lexical postings first (:func:`_postings_backfill`, a write).
    """
    now = now or timezone.now()
    emb = get_embedder()
    cfg = settings.BIZMEMORY
    min_similarity, floor = _thresholds(emb, min_similarity)
    cue = has_time_cue(query)
    meta: dict[int, _Meta] = {}
    keyed = _key_terms(query) if source == VectorSource.ITEM else None
    n, lex = _bm25_index(user_id, source, lexical_terms(query, query=True), since=since, meta=meta, kind_terms=keyed)
    if not n:
        return [], cue
    try:
        qvec = emb.embed([query])[0]
    except EmbedderError as exc:
        logger.warning("query embedding failed, lexical search only: %s", exc)
        qvec = None
    sims: dict[int, float] = {}
    if qvec is not None:
        if connection.vendor == "postgresql":
            vmeta: dict[int, _Meta] = {}
            sims = _vector_scores_pg(user_id, source, qvec, emb.name, max(50, top_k * 10), vmeta)
            if since is not None:
                sims = {k: v for k, v in sims.items() if vmeta[k][3] >= since}
            meta.update((k, vmeta[k]) for k in sims)
        else:
            rows = list(_chunks(user_id, source, since).filter(model=emb.name, dim=emb.dim).values_list(
                "id", "embedding", "item_id", "message_id", "kind", "date"
            ))  # no texts
            if rows:
                mat = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype="<f4").reshape(len(rows), emb.dim)
                for r, sim in zip(rows, mat @ qvec):
                    sims[r[0]] = float(sim)
                    if sim >= min_similarity:
                        meta.setdefault(r[0], r[2:])
    fused: dict[int, float] = {}
    scope = "MEMORY" if source == VectorSource.ITEM else "SESSIONS"
    weight = float(cfg[f"SEARCH_VECTOR_WEIGHT_{scope}"])
    vec_ranked = sorted((vid for vid, s in sims.items() if s >= min_similarity), key=lambda vid: (-sims[vid], vid))
    for rank, vid in enumerate(vec_ranked):
        fused[vid] = fused.get(vid, 0.0) + weight / (RRF_K + rank + 1)
    for rank, vid in enumerate(sorted(lex, key=lambda vid: (-lex[vid], vid))):
        fused[vid] = fused.get(vid, 0.0) + 1.0 / (RRF_K + rank + 1)
    # The floor: a chunk with no lexical evidence needs a close vector, or it is only the nearest one.
    fused = {vid: sc for vid, sc in fused.items() if vid in lex or sims[vid] >= floor}
    missing = [vid for vid in fused if vid not in meta]  # none expected: every candidate's metadata came above
    for i in range(0, len(missing), 500):
        for vid, *m in MemoryVector.objects.filter(pk__in=missing[i : i + 500]).values_list(
            "id", "item_id", "message_id", "kind", "date"
        ):
            meta[vid] = tuple(m)
    half_life = float(cfg["SEARCH_DECAY_HALF_LIFE_DAYS"])
    floor = float(cfg["SEARCH_DECAY_FLOOR"])
    ranked = []
    for vid, score in fused.items():
        item_id, message_id, kind, date = meta[vid]
        if not cue:
            age = max(0.0, (now - date).total_seconds() / 86400)
            score *= floor + (1 - floor) * 2 ** (-age / half_life)
        ranked.append((score, vid, item_id if source == VectorSource.ITEM else message_id, kind, date))
    ranked.sort(key=lambda r: (-r[0], -r[4].timestamp(), r[2]))
    ranked = ranked[:top_k]
    texts = dict(MemoryVector.objects.filter(pk__in=[r[1] for r in ranked]).values_list("id", "text"))
    hits = [
        SearchHit(id=hid, kind=kind, text=texts[vid], date=date, score=score, similarity=sims.get(vid),
                  lexical=float(lex.get(vid, 0.0)))
        for score, vid, hid, kind, date in ranked
    ]
    return hits, cue


def _message_retention_start(now: dt.datetime) -> dt.datetime | None:
    days = settings.BIZMEMORY["MESSAGE_RETENTION_DAYS"]
    return now - dt.timedelta(days=int(days)) if days else None


def memory_search(
    *, user, agent_slug: str, query: str, scope: str = "memory", top_k: int = 5,
    min_similarity: float | None = None, temporary: bool = False, now: dt.datetime | None = None,
) -> SearchResult:
    """Search ``user``'s own memory for ``query`` as agent ``agent_slug`` sees it.

    Inputs: ``scope`` ``memory`` (current long-term items) or ``sessions`` (the user's
    past messages within ``BIZMEMORY['MESSAGE_RETENTION_DAYS']``, when set); ``top_k``
    ≥ 1 results; ``min_similarity`` a cosine threshold (default from settings / the
    embedder). Returns a :class:`SearchResult`; switched-off memory, a switched-off
    expert or a temporary session give no hits and the reason; nothing stored in the scope
    ``no_memory`` (as for an unknown user), else ``ok`` (``profiles.readers.READ_REASONS``). Every returned text
    passes the sanitizer on the way out: PII is masked (``audit.sanitizer.mask``); a past
    message (scope ``sessions``: raw user turns) was indexed through the masking floor
    (``audit.floor.mask_floor``: every 7+ digit run, every e-mail or handle shape), whatever
    the detector says.
    Raises ``ValueError`` for an unknown scope or ``top_k`` < 1. Rule: issue #6.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}")
    if top_k < 1:
        raise ValueError("top_k must be >= 1")
    reason = memory_access_reason(user=user, agent_slug=agent_slug, temporary=temporary)
    if reason:
        return SearchResult(reason=reason)
    now = now or timezone.now()
    if scope == "memory":
        index_heal(user_id=user.pk)
        hits, cue = search_chunks(user_id=user.pk, query=query, source=VectorSource.ITEM, top_k=top_k,
                                  min_similarity=min_similarity, now=now)
    else:
        # The session index is kept by the pipeline after each extraction (consolidation.session_index).
        hits, cue = search_chunks(user_id=user.pk, query=query, source=VectorSource.MESSAGE, top_k=top_k,
                                  min_similarity=min_similarity, now=now, since=_message_retention_start(now))
        sessions = conversations().message_sessions(user_id=user.pk, message_ids=[h.id for h in hits])
        for h in hits:
            h.session = sessions.get(h.id)
    # What the scope reads: current items (not their index, which may lag) or past messages in retention.
    stored = (MemoryItem.objects.current().filter(user_id=user.pk) if scope == "memory"
              else _chunks(user.pk, VectorSource.MESSAGE, _message_retention_start(now)))
    if not hits and not stored.exists():  # asked only without hits
        return SearchResult(reason="no_memory", time_cue=cue)
    # A past message's chunk already passed the masking floor when it was indexed
    # (consolidation.session_index.chunk_text, the only writer of message chunks; migration
    # consolidation.0014 re-masked older ones): the floor is not run again per hit.
    words = sensitive_words_active()
    for h in hits:
        found = analyze(h.text, sensitive_words=words)
        if found:
            h.text = mask(h.text, found)
    return SearchResult(hits=hits, time_cue=cue)
