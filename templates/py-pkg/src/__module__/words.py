"""Words of a text and how often each occurs."""

import re
from collections import Counter

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The words of ``text``: runs of letters and digits, lower-cased."""
    return _WORD.findall(text.lower())


def word_counts(text: str) -> list[tuple[str, int]]:
    """How many times each word occurs, most frequent first (ties in first-seen order)."""
    return Counter(words(text)).most_common()
