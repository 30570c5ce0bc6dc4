"""What may replace what in consolidation: rules that are pure functions of an entry's text or
stage, kept apart from the planner (:mod:`consolidation.consolidate`) that applies them."""
import re

# A one-value key ("latest": role, city, company…) is replaced by a newer statement. A model span
# the classifier scored under this bar fills an empty key but never replaces a held value: on the
# blind sets such spans were mostly junk ("昆山那家审完了" read as the city, role "短板",
# "need translator") that overwrote a value said plainly earlier. A message that also says the
# user changed jobs or moved ("from april i move to the Lisbon office", a job_change or relocation fact from the same message)
# is a change, so its weak spans still replace. Scores are the classifier's
# P(label) recorded in the stage ``model:<version>:<score>``; rules and the LLM refiner are exempt.
WEAK_MODEL_SCORE = 0.5


def weak_model_stage(stage: str) -> bool:
    """True when a journal entry's ``stage`` (``model:<version>:<score>``, ``rule:<version>``,
    ``llm:<prompt version>`` or empty) names the trained model with a score under
    :data:`WEAK_MODEL_SCORE`; False for every other stage and for a malformed score."""
    parts = (stage or "").split(":")
    if len(parts) != 3 or parts[0] != "model":
        return False
    try:
        return float(parts[2]) < WEAK_MODEL_SCORE
    except ValueError:
        return False


# A standing instruction worded about one answer style belongs to that style: a new answer length
# supersedes "give me super detailed answers" / "don't worry about length", a new format supersedes
# "put it in a table". Rule source: blind 10 (stop 24), where "keep it short going forward" left
# three instructions for long answers current.
STYLE_WORDS = {
    "pref:answer_length": re.compile(r"\b(?:long|longer|short|shorter|length|brief|briefly|concise|detail|detailed|details|deep[ -]dives?"
                                     r"|verbose|wordy|lines?|sentences?|words?|tl;?dr)\b|详细|简短|简洁|长|短|字数|篇幅|啰嗦|一句话", re.I),
    "pref:format": re.compile(r"\b(?:tables?|bullets?|bullet points?|lists?|numbered|markdown|headings?|paragraphs?|plain text|prose)\b"
                              r"|表格|列表|分点|要点|编号|段落|纯文本", re.I),
    "pref:language": re.compile(r"\b(?:in (?:english|chinese|french|german|spanish|japanese)|traditional|simplified)\b|繁体|简体|英文|中文|粤语", re.I),
}
