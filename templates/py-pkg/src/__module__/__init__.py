"""{{name}}: a Python package."""

from {{module}}.words import word_counts, words

__all__ = ["word_counts", "words"]
