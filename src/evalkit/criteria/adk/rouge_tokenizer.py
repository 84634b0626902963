"""Unicode-aware ROUGE tokenizer matching the one ADK 2.13 uses for `response_match_score`.

rouge_score's default tokenizer drops every character outside ``[a-z0-9]``, so text in
most non-Latin scripts would tokenize to nothing. The tokenizer here (a reimplementation
of ADK's documented behaviour, kept token-for-token identical) works in three steps:

1. NFKC-normalise the text, then lower-case it.
2. Rewrite it character by character: a CJK character becomes a token of its own; in
   Thai, Lao, Khmer and Myanmar a combining mark stays glued to the preceding
   character while any other character opens a new token; other alphanumeric
   characters and combining marks are kept; everything else becomes a space.
3. Split on whitespace. A pure-ASCII chunk goes through rouge_score's own tokenizer
   (Porter stemming of tokens longer than 3 characters); a chunk holding any non-ASCII
   character stays a single token, unstemmed, so ``café`` never matches ``cafe``.

rouge_score and nltk are imported on first use only: together they cost a noticeable
part of a second and most commands never score ROUGE.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable

# Upper bound on memoised ASCII chunks; a chunk is a single word, so this covers a
# large vocabulary while keeping memory bounded on long runs.
_ASCII_CHUNK_CACHE_SIZE = 1 << 14  # about 4 MB when full


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF  # CJK Unified Ideographs
        or 0x3040 <= code <= 0x309F  # Hiragana
        or 0x30A0 <= code <= 0x30FF  # Katakana
        or 0xAC00 <= code <= 0xD7AF  # Hangul Syllables
    )


def _is_unspaced_cluster_script(code: int) -> bool:
    """Scripts written without spaces whose tokens are base char + combining marks."""
    return (
        0x0E00 <= code <= 0x0E7F  # Thai
        or 0x0E80 <= code <= 0x0EFF  # Lao
        or 0x1780 <= code <= 0x17FF  # Khmer
        or 0x1000 <= code <= 0x109F  # Myanmar
    )


def _is_combining_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


def _rewrite_char(char: str) -> str:
    """What one (normalised, lower-cased) character turns into before splitting.

    The rewrite depends on the character alone, never on its neighbours, which is
    what lets `_CharRewriteTable` cache it and `str.translate` apply it in C.
    """
    code = ord(char)
    if _is_cjk(code):
        return f" {char} "
    if _is_unspaced_cluster_script(code):
        # A combining mark extends the current cluster; anything else starts one.
        return char if _is_combining_mark(char) else f" {char}"
    if char.isalnum() or _is_combining_mark(char):
        return char
    return " "


class _CharRewriteTable(dict):
    """`str.translate` table that classifies each code point once, on first sight."""

    def __missing__(self, code: int) -> str:
        rewritten = _rewrite_char(chr(code))
        self[code] = rewritten
        return rewritten


# Shared by every tokenizer: the rewrite is a pure function of the code point.
_CHAR_REWRITES = _CharRewriteTable()


class UnicodeRougeTokenizer:
    """Tokenizer usable by `rouge_score.rouge_scorer.RougeScorer` (it has `tokenize`)."""

    def __init__(self, use_stemmer: bool = True) -> None:
        self._use_stemmer = use_stemmer
        self._ascii_chunk_tokenizer: Callable[[str], tuple[str, ...]] | None = None

    def tokenize(self, text: str) -> list[str]:
        normalised = unicodedata.normalize("NFKC", text).lower()
        chunks = normalised.translate(_CHAR_REWRITES).split()
        tokenize_ascii = self._ascii_chunk_tokenizer or self._build_ascii_chunk_tokenizer()
        tokens: list[str] = []
        for chunk in chunks:
            if chunk.isascii():
                tokens.extend(tokenize_ascii(chunk))
            else:
                tokens.append(chunk)
        return tokens

    def _build_ascii_chunk_tokenizer(self) -> Callable[[str], tuple[str, ...]]:
        # Deferred heavy import (see module docstring).
        from rouge_score import tokenizers

        default_tokenizer = tokenizers.DefaultTokenizer(use_stemmer=self._use_stemmer)

        # Porter stemming dominates the cost of scoring and responses repeat their
        # words constantly, so each distinct chunk is tokenized (and stemmed) once.
        @functools.lru_cache(maxsize=_ASCII_CHUNK_CACHE_SIZE)
        def tokenize_ascii_chunk(chunk: str) -> tuple[str, ...]:
            return tuple(default_tokenizer.tokenize(chunk))

        self._ascii_chunk_tokenizer = tokenize_ascii_chunk
        return tokenize_ascii_chunk
