"""``python manage.py train_extractor [--check] [--report]`` — rebuild the trained extractor.

Trains on ``consolidation/extractor/corpus/*.jsonl`` minus the calibration split, writes
``consolidation/extractor/model/extractor.joblib`` and its metadata (``extractor.json``: model
version, corpus sha256, per-key report on the calibration split). Deterministic: the same corpus
gives the same predictions. ``--check`` only compares the artifact's corpus hash with the corpus
(exit 1 when stale); ``--report`` prints the calibration report of the shipped artifact.
"""
import json
import time

from django.core.management.base import BaseCommand, CommandError

from consolidation.extractor import model as M
from consolidation.extractor.report import key_report
from consolidation.extractor.service import _encoder, extractor_reset


class Command(BaseCommand):
    help = "Train the extractor from the corpus (deterministic) and write the model artifact with its report."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="exit 1 when the artifact is stale (corpus changed)")
        parser.add_argument("--report", action="store_true", help="print the shipped artifact's calibration report")

    def handle(self, *args, **opts):
        sha = M.corpus_hash()
        if opts["check"]:
            meta = json.loads(M.ARTIFACT.with_suffix(".json").read_text()) if M.ARTIFACT.with_suffix(".json").exists() else {}
            if meta.get("corpus_sha256") != sha:
                raise CommandError("the model artifact is stale: run manage.py train_extractor", returncode=1)
            self.stdout.write(f"artifact current (corpus {sha[:12]})")
            return
        encode = _encoder()
        if opts["report"]:
            ext = M.load(encode=encode)
            self.stdout.write(json.dumps(key_report(ext, M.corpus_rows(calibration=True)), indent=1))
            return
        rows = M.corpus_rows(calibration=False)
        if not rows:
            raise CommandError("no corpus rows under consolidation/extractor/corpus", returncode=2)
        t0 = time.monotonic()
        ext = M.train(rows, encode=encode, corpus_sha=sha,
                      progress=lambda msg: self.stdout.write(f"[{time.monotonic() - t0:6.1f}s] {msg}"))
        report = key_report(ext, M.corpus_rows(calibration=True))
        ext.meta["calibration"] = {"micro": report["micro"], "negatives": report["negatives"],
                                   "labels": {k: {"precision": v["precision"], "recall": v["recall"],
                                                  "support": v["tp"] + v["fn"]} for k, v in report["labels"].items()}}
        ext.meta["training_messages"] = len(rows)
        ext.save()
        extractor_reset()
        size = M.ARTIFACT.stat().st_size / 1e6
        self.stdout.write(f"wrote {M.ARTIFACT} ({size:.1f} MB), corpus {sha[:12]}, {len(rows)} training messages")
        self.stdout.write("calibration micro: " + json.dumps(report["micro"]))
        for label, v in report["labels"].items():
            self.stdout.write(f"  {label:28s} P {v['precision']:.2f}  R {v['recall']:.2f}  (tp {v['tp']} fp {v['fp']} fn {v['fn']})")
