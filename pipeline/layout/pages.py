"""Printed pages: the running heads, their page numbers read as a sequence, and the
pages whose head the OCR lost."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

import regex

from ..markers import article_markers, heading_marker, run_on_articles
from ..numbers import DIGITS, DigitModel, Reading, best_path, implied_values
from ..records import Diagnostic, Page
from ..resources import Resources
from ..text import fold
from .lines import Line
from .settings import Heads, InlineNumbers, PageNumbers

TOKEN_DEBRIS = ".,»«'\"*\\·:;-—–()[]"


@dataclass
class Head:
    line: Line
    title: str
    token: str | None  # the page number as printed, None for a head without one


def upper_ratio(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(c.isupper() for c in letters) / len(letters)


def _number_token(tok: str, digits: DigitModel, s: Heads) -> bool:
    t = tok.strip(TOKEN_DEBRIS)
    if not t or len(t) > s.number_max_glyphs:
        return False
    real = sum(c in DIGITS for c in t)
    likeness = digits.digit_likeness(t)
    if real and likeness >= s.digit_likeness:
        return True
    return len(t) >= 2 and likeness >= s.digit_likeness and real == 0


def parse_head(line: Line, res: Resources, s: Heads) -> Head | None:
    """A line that reads as a running head: a short title and a page number, either order."""
    text = line.stripped
    if len(text) > s.max_length or heading_marker(text):
        return None
    tokens = [t for t in text.split() if t.strip(TOKEN_DEBRIS)]
    if not tokens or len(tokens) > s.max_tokens:
        return None
    if fold(tokens[0].strip(TOKEN_DEBRIS)) in res.vocabulary.division_words:
        return None  # 'ARTICLE II', 'CHAPITRE III': a title and its number
    digits = res.digits
    for side in (-1, 0):
        tok = tokens[side]
        if not _number_token(tok, digits, s):
            continue
        rest = tokens[:-1] if side == -1 else tokens[1:]
        title = " ".join(rest)
        clean_tok = tok.strip(TOKEN_DEBRIS)
        real = sum(c in DIGITS for c in clean_tok)
        if not rest:
            if real == len(clean_tok) and len(clean_tok) >= 1:
                return Head(line, "", clean_tok)  # a bare page number
            continue
        letters = sum(c.isalpha() for c in title)
        if letters > s.max_title_letters or len(rest) > s.max_title_words:
            continue
        names_game = bool(res.catalogue.head_games(title))
        if upper_ratio(title) >= s.min_upper or names_game:
            if not real and upper_ratio(title) < s.min_upper_no_digit and not names_game:
                continue
            return Head(line, title, clean_tok)
    return None


def find_heads(lines: list[Line], res: Resources, s: Heads) -> list[Head]:
    candidates = [l for l in lines if l.kind == "text"]
    heads = {}
    for line in candidates:
        h = parse_head(line, res, s)
        if h:
            heads[line.index] = h
    titles = {_title_key(h.title) for h in heads.values() if h.title}
    for pos, line in enumerate(candidates):
        if line.index in heads:
            continue
        text = line.stripped
        if (len(text.split()) > s.bare_max_words or len(text) > s.bare_max_length or text.endswith(".")
                or upper_ratio(text) < s.bare_min_upper or heading_marker(text)):
            continue
        # a line of capitals alone: the chapter's first line, or the title of a head seen with a number
        if pos == 0 or _title_key(text) in titles:
            heads[line.index] = Head(line, text, None)
    return [heads[i] for i in sorted(heads)]


_CAPS_WORD = r"[\p{Lu}][\p{Lu}'’\-]+"
# A running head left inside the text by an export without line breaks: a page number
# and a title of capitals, either order ('… au jeu. 88 LANSQUENET. Lorsque …').
_INLINE_HEAD = regex.compile(
    rf"(?<=\s)(?:(?P<num1>\S{{1,4}})\s+(?P<title1>{_CAPS_WORD}(?:\s+{_CAPS_WORD}){{0,3}})\.?"
    rf"|(?P<title2>{_CAPS_WORD}(?:\s+{_CAPS_WORD}){{0,3}})\.?\s+(?P<num2>\S{{1,4}}))(?=\s)"
)


def inline_heads(lines: list[Line], res: Resources, s: Heads) -> list[Head]:
    """The running heads inside the lines of a chapter with no line breaks: a number and
    a title that names a game, or a title found more than once so. Each is a ``Head``
    on a ``Line`` of its own span, so that pages are made of them as of any head."""
    found: list[tuple[Line, str, str]] = []
    for line in lines:
        if line.kind != "text":
            continue
        for m in _INLINE_HEAD.finditer(line.text):
            title, tok = (m["title1"], m["num1"]) if m["title1"] else (m["title2"], m["num2"])
            tok = tok.strip(TOKEN_DEBRIS)
            if not _number_token(tok, res.digits, s) or fold(title.split()[0]) in res.vocabulary.division_words:
                continue
            span = Line(-1, line.start + m.start(), line.start + m.end(), m.group(), "head")
            found.append((span, title, tok))
    seen = Counter(_title_key(t) for _, t, _ in found)
    return [Head(span, title, tok) for span, title, tok in found
            if res.catalogue.head_games(title) or seen[_title_key(title)] > 1]


_SENTENCE_END = regex.compile(r"[.!?][»\"')]*$")
_APOSTROPHE = regex.compile(r"['’]")


def _cue(word: str) -> str:
    """A word as the cue lists give it: folded, without its punctuation, the part after an
    elision ('l'article' → 'article', 'jusqu'à' → 'a')."""
    parts = [p for p in _APOSTROPHE.split(fold(word).strip(TOKEN_DEBRIS + "?!")) if p]
    return parts[-1] if parts else ""


@dataclass
class _Bare:
    line: Line  # its own span, kind 'head'
    readings: dict[int, float]
    article_place: bool  # after a sentence end, before a capital: where an article without its stop stands


# a short token with a digit in it, standing apart (the standard re: several times faster here)
_BARE_TOKEN = re.compile(r"(?<!\S)\S{0,3}\d\S{0,3}(?!\S)")
_WORD_AFTER = re.compile(r"\s+(\S+)")
_WORD_BEFORE = re.compile(r"(\S+)\s+$")


def _bare_candidates(lines: list[Line], res: Resources, s: InlineNumbers, h: Heads) -> list[_Bare]:
    """Numbers standing alone between words, as a page number run into the text
    stands; not those a cue word makes a quantity or a reference ('en 1718', 'article
    12', '10 livres'), nor those that continue the articles' numbering ('… au jeu. 4 Si
    …' after article 3)."""
    digits = res.digits
    not_after, not_before = frozenset(map(_cue, s.not_after)), frozenset(map(_cue, s.not_before))
    out: list[_Bare] = []
    for line in lines:
        if line.kind != "text":
            continue
        for m in _BARE_TOKEN.finditer(line.text):
            tok = m.group()
            if len(tok) > h.number_max_glyphs or digits.digit_likeness(tok) < 1.0:
                continue
            before = _WORD_BEFORE.search(line.text, max(0, m.start() - 80), m.start())
            after = _WORD_AFTER.match(line.text, m.end())
            if before is None or after is None:
                continue  # a number opening or closing its line stands between no words
            before, after = before[1], after[1]
            if _cue(before) in not_after or _cue(after) in not_before:
                continue
            readings = digits.readings(tok, max_cost=s.max_cost)
            if readings:
                place = bool(_SENTENCE_END.search(before)) and after.lstrip("«\"")[:1].isupper()
                out.append(_Bare(Line(-1, line.start + m.start(), line.start + m.end(), tok, "head"), readings, place))
    if any(b.article_place for b in out):
        out = _not_articles(out, lines, res)
    return out


def _not_articles(found: list[_Bare], lines: list[Line], res: Resources) -> list[_Bare]:
    """The candidates without those that continue the articles' numbering after a
    sentence end ('… toutes. 7 Celui …' after article 6): those are articles that lost
    their full stops."""
    markers: list[tuple[int, set[int]]] = []  # raw offset, values of every number that may open an article
    for line in lines:
        if line.kind == "text":
            markers += [(line.start + pos, values) for pos, values in _article_values(line.text, res).items()]
    at_candidate = {b.line.start for b in found}
    markers = [(pos, values) for pos, values in markers if pos not in at_candidate]
    out, last_article, k = [], set(), 0
    for b in found:
        while k < len(markers) and markers[k][0] < b.line.start:
            last_article = markers[k][1]
            k += 1
        if b.article_place and any(v - 1 in last_article for v in b.readings):
            last_article = set(b.readings)  # the next article, its full stop lost: no page
            continue
        out.append(b)
    return out


def _article_values(text: str, res: Resources) -> dict[int, set[int]]:
    """Where the numbers that may open an article stand in a line, and what each reads as."""
    found = [(0, article_markers(text, res.digits, res.vocabulary.ordinal_words))]
    found += run_on_articles(text, res.digits, res.vocabulary.ordinal_words)
    out: dict[int, set[int]] = {}
    for pos, markers in found:
        values = set()
        for m in markers:
            if m.kind == "number":
                values |= set(res.digits.readings(m.token))
            elif m.value is not None:
                values.add(m.value)
        if values:
            out[pos] = values
    return dict(sorted(out.items()))


def inline_page_numbers(lines: list[Line], res: Resources, s: InlineNumbers,
                        h: Heads) -> tuple[list[Head], list[tuple[int | None, str | None]]]:
    """Bare page numbers run into the text ('… la main 407 doit jouer …'): the
    candidates read together as a sequence (Viterbi), accepted only as a run of
    consecutive pages (one may be missing) at roughly regular distances, so that a lone
    number is never a page. Each page number is a ``Head`` on a ``Line`` of its own
    span, cut out of the text as a running head is; with it, (its number, its status)."""
    found = _bare_candidates(lines, res, s, h)
    if not found:
        return [], []
    candidates = [[Reading("page", v, c) for v, c in b.readings.items()] + [Reading("none", None, s.no_page)]
                  for b in found]

    def step(state, reading, index):
        if reading.kind == "none":
            return state, 0.0
        v, x = reading.value, found[index].line.start
        if state is not None:
            last_v, last_x, first_v, first_x = state
            if v - last_v in (1, 2) and s.min_page_chars <= (x - last_x) / (v - last_v) <= s.max_page_chars:
                cost = s.skip_page if v - last_v == 2 else 0.0
                if last_v > first_v:
                    mean = (last_x - first_x) / (last_v - first_v)
                    cost += s.spread * abs(math.log((x - last_x) / (v - last_v) / mean))
                return (v, x, first_v, first_x), cost
        return (v, x, v, x), s.run_start

    path = best_path(candidates, None, step)
    pages = [(b, r) for b, r in zip(found, path) if r.kind == "page"]
    if pages and not _paginates(lines, [(b.line.start, r.value) for b, r in pages], s.max_page_chars):
        return [], []
    heads, numbers = [], []
    for b, r in pages:
        heads.append(Head(b.line, "", b.line.text))
        plain = all(c in DIGITS for c in b.line.text) and int(b.line.text) == r.value
        numbers.append((r.value, "read" if plain else "decoded"))
    return heads, numbers


def _paginates(lines: list[Line], breaks: list[tuple[int, int]], most: int) -> bool:
    """Whether page breaks (offset, page number) leave no page longer than ``most``
    characters, the first and the last pages included: a few small numbers in a
    row, pages apart, are found in any long text ('l'autre 4', 'fig. 5', 'gagnant
    6'), and a text they would leave a hundred thousand characters without a page
    is not paginated by them."""
    text = [l for l in lines if l.kind == "text"]
    if not text:
        return False
    (first, _), (last, _) = breaks[0], breaks[-1]
    if first - text[0].start > most or text[-1].end - last > most:
        return False
    return all(b - a <= most * max(1, w - v) for (a, v), (b, w) in zip(breaks, breaks[1:]))


def _title_key(title: str) -> str:
    return regex.sub(r"[^\p{L}]", "", title).upper()


def read_page_numbers(tokens: list[str | None], digits: DigitModel, s: PageNumbers) -> list[tuple[int | None, str | None]]:
    """Decode the page numbers of a chapter's heads together, as a sequence: each
    (number, status), status 'read', 'decoded', 'inferred' or None."""
    if not tokens:
        return []
    base = [digits.readings(t, max_cost=s.max_cost) if t else {} for t in tokens]
    implied = implied_values(digits, tokens, base, s.implied_window, s.implied_max_cost)
    candidates: list[list[Reading]] = []
    for tok, own, more in zip(tokens, base, implied):
        if tok is None:
            candidates.append([Reading("none", None, 0.0)])
            continue
        readings = [Reading("page", v, c) for v, c in {**own, **more}.items()]
        readings.append(Reading("none", None, s.no_number))
        candidates.append(readings)

    def step(state, reading, index):
        if reading.kind == "none":
            return (state + 1 if state is not None else None), 0.0
        v = reading.value
        if state is None:
            return v + 1, s.first
        if v == state:
            return v + 1, 0.0
        if state < v <= state + s.max_skip:
            return v + 1, s.skip_per_page * (v - state)
        return v + 1, s.out_of_sequence

    path = best_path(candidates, None, step)
    values: list[int | None] = [r.value for r in path]
    statuses: list[str | None] = []
    for tok, r in zip(tokens, path):
        if r.value is None:
            statuses.append(None)
        elif tok and all(c in DIGITS for c in tok) and int(tok) == r.value:
            statuses.append("read")
        else:
            statuses.append("decoded")
    _infer_unread(values, statuses)
    return list(zip(values, statuses))


def _infer_unread(values: list[int | None], statuses: list[str | None]) -> None:
    """Fill the numbers of heads read as having none from the nearest numbers read."""
    # the nearest read before and after each head, found in two passes (each head with
    # none searching both ways made a chapter of thousands of such heads quadratic)
    read = [v is not None and st != "inferred" for v, st in zip(values, statuses)]
    after: list[tuple[int, int] | None] = [None] * len(values)
    found: tuple[int, int] | None = None
    for k in range(len(values) - 1, -1, -1):
        after[k] = found
        if read[k]:
            found = (k, values[k])
    found = None
    for k in range(len(values)):
        if read[k]:
            found = (k, values[k])
        if values[k] is not None:
            continue
        prev, nxt = found, after[k]
        if prev:
            values[k] = prev[1] + (k - prev[0])
        elif nxt:
            values[k] = nxt[1] - (nxt[0] - k)
        if values[k] is not None and values[k] > 0:
            statuses[k] = "inferred"
        else:
            values[k] = None


def pages(lines: list[Line], heads: list[Head], numbers, res: Resources) -> list[Page]:
    body = [l for l in lines if l.kind in ("text", "head")]
    out: list[Page] = []
    if not body:
        return [Page(0, 0, None, None, None, None, None, None)]
    if not heads or heads[0].line.index != body[0].index:
        # content before the first head: the page the chapter opens on
        first_number = None
        status = None
        if heads and numbers[0][0] is not None:
            first_number = numbers[0][0] - 1 if numbers[0][0] > 1 else None
            status = "inferred" if first_number else None
        out.append(Page(0, body[0].start, first_number, None, status, None, None, None))
    for h, (number, status) in zip(heads, numbers):
        out.append(
            Page(
                seq=len(out),
                start=h.line.start,
                number=number,
                number_raw=h.token,
                number_status=status,
                running_head=h.line.text,
                head_title=h.title or None,
                head_game=res.catalogue.head_game(h.title) if h.title else None,
                head_end=h.line.end,
            )
        )
    return out


def infer_lost_pages(pages: list[Page], breaks: list[tuple[int, int]]) -> tuple[list[Page], list[tuple[Page, int]]]:
    """Place pages whose head the OCR lost: a gap in the numbers and as many
    paragraph breaks in mid-sentence (``breaks``: raw (gap start, gap end)) between
    the two heads as pages missing. Returns the pages and, for each placed, (the page
    before it, its number)."""
    out: list[Page] = []
    lost = []
    for k, page in enumerate(pages):
        out.append(page)
        if k + 1 >= len(pages):
            continue
        nxt = pages[k + 1]
        if page.number is None or nxt.number is None:
            continue
        missing = nxt.number - page.number - 1
        if missing < 1:
            continue
        between = [b for b in breaks if page.start <= b[0] < nxt.start]
        if len(between) != missing:
            continue
        for i, (_, gap_end) in enumerate(between, 1):
            number = page.number + i
            out.append(Page(0, gap_end, number, None, "inferred", None, None, None))
            lost.append((page, number))
    return [replace(p, seq=i) for i, p in enumerate(out)], lost


def form_feed_pages(pages: list[Page], lines: list[Line]) -> list[Page]:
    """A form feed (as in an Internet Archive _djvu.txt) starts a page: where no head
    follows it, a page without one, its number inferred from the page before."""
    out = list(pages)
    for line in lines:
        if "\f" not in line.text:
            continue
        start = line.start + line.text.index("\f") + 1
        nxt = next((l for l in lines[line.index:] if l.kind in ("text", "head") and l.end > start), None)
        if nxt is None or any(line.start <= p.start <= nxt.start for p in out):
            continue
        before = [p for p in out if p.start < start]
        prev = before[-1] if before else None
        number = prev.number + 1 if prev and prev.number is not None else None
        out.append(Page(0, max(start, nxt.start), number, None, "inferred" if number else None, None, None, None))
    out.sort(key=lambda p: p.start)
    return [replace(p, seq=i) for i, p in enumerate(out)]


def pagination(raw: str, heads: list[Head], inline: list[Head], bare: list[Head] = ()) -> str:
    """How the export marks its pages, as the build summary names it."""
    if "\f" in raw:
        return "form feeds"
    if bare:
        return "page numbers inside the text"
    if inline:
        return "running heads inside the text"
    if heads and all(not h.title for h in heads):
        return "page numbers alone on a line"
    return "running heads" if heads else "no pages"


def page_diagnostics(name: str, pages: list[Page]) -> list[Diagnostic]:
    """What the page sequence says that a reader should know: numbers inferred, pages missing."""
    out = []
    for page in pages:
        if page.running_head is not None and page.number_status == "inferred" and page.number_raw:
            out.append(Diagnostic(name, "info", f"page head {page.running_head!r}: number "
                                  f"unreadable, {page.number} inferred from the sequence"))
    for a, b in zip(pages, pages[1:]):
        if a.number is not None and b.number is not None and b.number != a.number + 1 and b.number_status != "inferred":
            out.append(Diagnostic(name, "warning", f"page {b.number} follows page {a.number}: "
                                  "pages are missing or a head is misread"))
    return out
