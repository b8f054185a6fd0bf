"""The numbers of the articles, decoded jointly: every numbered paragraph's OCR
readings, and those its neighbours imply, chosen together by a Viterbi search over
the sequence, so that the sequence corrects each reading ('58.' between 52 and 54 is
53). Ordinal list items ('1°.', OCR'd '5o.' for '3°.') are told apart in the same
search. Then the number as decided is written in place of the OCR's."""

from __future__ import annotations

from dataclasses import dataclass

from ..markers import Marker, roman_marker, run_on_articles
from ..numbers import DIGITS, Reading, best_path, implied_values
from ..resources import Resources
from ..text import MappedText
from .kinds import Draft
from .settings import Articles, SegmentSettings

ROMAN_NUMERALS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                  (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def _readings(markers: list[Marker], run_on: bool, res: Resources, s: Articles) -> list[Reading]:
    """A number's readings: as an article, as an ordinal item, or as none. A number
    run on inside a paragraph, or one that lost its full stop, is cheaply none: the
    sequence must make it an article."""
    digits = res.digits
    out: dict[tuple[str, int], float] = {}

    def add(kind: str, value: int, cost: float) -> None:
        if value and value > 0 and cost < out.get((kind, value), 99.0):
            out[(kind, value)] = cost

    none_cost = s.none_no_digit
    for m in markers:
        extra = s.loose if m.loose else 0.0
        if m.kind == "number":
            glyphs = m.token.replace(" ", "")
            real = sum(c in DIGITS for c in glyphs)
            none_cost = max(none_cost, s.none_all_digits if real == len(glyphs)
                            else s.none_some_digits if real else s.none_no_digit)
            for v, c in digits.readings(m.token, max_cost=s.max_cost).items():
                add("article", v, c + extra)
            if glyphs.endswith(("o", "O")) and len(glyphs) > 1:
                # '5o.' can be '3°.': the degree sign read as an o
                for v, c in digits.readings(glyphs[:-1], max_cost=s.degree_max_cost).items():
                    add("ordinal", v, c + s.degree_as_o)
        elif m.kind == "ordinal":
            none_cost = s.none_ordinal
            for v, c in digits.readings(m.token, max_cost=s.max_cost).items():
                add("ordinal", v, c)
        elif m.kind == "roman":
            none_cost = max(none_cost, s.none_roman)
            add("article", m.value, s.roman + extra)
        elif m.kind == "word":
            none_cost = s.none_word
            add("article", m.value, 0.0)
    if any(m.loose for m in markers):
        none_cost = min(none_cost, s.none_loose)
    if run_on:
        none_cost = min(none_cost, s.none_run_on)
    readings = [Reading(kind, v, c) for (kind, v), c in out.items()]
    readings.append(Reading("none", None, none_cost))
    return readings


@dataclass
class _Numbered:
    """A number to decide: a paragraph's opening one (``at`` None) or one run on
    inside it, at ``at``."""

    draft: Draft
    at: int | None
    markers: list[Marker]
    decided: Reading | None = None


def find_run_ons(drafts: list[Draft], res: Resources) -> None:
    """The numbers inside each paragraph and article that may open an article run on
    into it; the sequence decides which do."""
    for d in drafts:
        if d.kind not in ("article", "paragraph"):
            continue
        skip = max((m.end for m in d.markers), default=0)
        d.run_ons = [(at, markers) for at, markers in run_on_articles(d.text.text, res.digits, res.vocabulary.ordinal_words)
                     if at >= skip]


def decode_numbers(drafts: list[Draft], res: Resources) -> list[Draft]:
    """Choose every number's reading at once, by Viterbi over the sequence; then cut
    the paragraphs at the articles found run on inside them."""
    s = SegmentSettings.default().articles
    items: list[_Numbered] = []
    barriers: set[int] = set()  # indices of items a new game starts before
    for d in drafts:
        if d.barrier:
            barriers.add(len(items))
        if d.kind == "article":
            items.append(_Numbered(d, None, d.markers))
        if d.kind in ("article", "paragraph"):
            items.extend(_Numbered(d, at, markers) for at, markers in d.run_ons)
    if not items:
        return drafts
    base = [_readings(it.markers, it.at is not None, res, s) for it in items]
    tokens = [next((m.token for m in it.markers if m.kind == "number"), None) for it in items]
    implied = implied_values(
        res.digits, tokens,
        [{r.value: r.cost for r in readings if r.kind == "article"} for readings in base],
        s.implied_window, s.implied_max_cost, s.implied_source_max_cost,
        apart=lambda j, k: any(min(j, k) < b <= max(j, k) for b in barriers),
    )
    candidates = [own + [Reading("article", v, c) for v, c in more.items()] for own, more in zip(base, implied)]
    # a number run on inside a paragraph or without its full stop opens a sequence only
    # if the numbers after it continue it: alone, its position proves nothing
    unsure = [it.at is not None or any(m.loose for m in it.markers) for it in items]

    def step(state, reading, index):
        last_art, last_ord = state
        if index in barriers:
            last_art, last_ord = None, None
        if reading.kind == "none":
            return (last_art, last_ord), 0.0
        v = reading.value
        if reading.kind == "ordinal":
            if last_ord is None:
                cost = 0.0 if v == 1 else s.ordinal_first_other
            else:
                cost = 0.0 if v == last_ord + 1 else s.ordinal_out_of_sequence
            return (last_art, v), cost
        if last_art is None:
            cost = s.first_one if v == 1 else s.first_other
            if unsure[index]:
                cost += s.first_unsure
        elif v == last_art + 1:
            cost = 0.0
        elif v == 1:
            cost = s.restart
        elif last_art + 1 < v <= last_art + s.max_gap:
            cost = s.gap + s.gap_per_number * (v - last_art - 2)
        else:
            cost = s.out_of_sequence
        return (v, None), cost

    path = best_path(candidates, (None, None), step)
    for it, reading in zip(items, path):
        it.decided = reading
        if it.at is not None:
            continue
        d = it.draft
        d.decided = reading
        if reading.kind == "article":
            d.number = reading.value
        else:
            d.kind = "paragraph"  # an ordinal list item, or a number that is no article
    cuts: dict[int, list[_Numbered]] = {}
    for it in items:
        if it.at is not None and it.decided.kind == "article":
            cuts.setdefault(id(it.draft), []).append(it)
    return [piece for d in drafts for piece in _cut(d, cuts.get(id(d), []))]


def _cut(d: Draft, run_ons: list[_Numbered]) -> list[Draft]:
    """A paragraph cut where the articles run on inside it start: the passage of each
    starts at its number, even mid-line."""
    if not run_ons:
        return [d]
    ats = [it.at for it in run_ons]
    out = [d]
    rest = d.text
    pieces = []
    for at in reversed(ats):
        rest, piece = rest.split(at)
        pieces.append(piece)
    d.text = rest.strip()
    for it, piece in zip(run_ons, reversed(pieces)):
        art = Draft("article", piece.strip(), d.page_seq, markers=it.markers, game=d.game)
        art.decided = it.decided
        art.number = it.decided.value
        out.append(art)
    return out


# marks no article ends on, printed where one must: a full stop with a speck below it
# (','), or blotted into a mark that opens a quotation ('«')
_END_MISREAD = frozenset(",«")


def end_articles(drafts: list[Draft]) -> None:
    """The full stop ending an article where the next article starts: the sequence of
    numbers says a sentence ends there, so a comma or a stray mark printed in its place
    is the full stop misread, and a last word with no mark after it lost its own ('…
    du coup, 66.' → '… du coup. 66.'). Footnotes set apart do not part two articles."""
    body = [d for d in drafts if d.kind != "footnote"]
    confidence = SegmentSettings.default().articles.end_mark_confidence
    for d, nxt in zip(body, body[1:]):
        if d.kind != "article" or nxt.kind != "article":
            continue
        text = d.text.text.rstrip()
        if len(text) < 2 or not text[-2].isalpha():
            continue
        if text[-1] in _END_MISREAD:
            d.text = d.text.replace(len(text) - 1, len(text), ".", "segment.article_end", confidence)
        elif text[-1].isalpha():
            d.text = d.text.replace(len(text), len(text), ".", "segment.article_end", confidence)


def roman(n: int) -> str:
    out = []
    for v, s in ROMAN_NUMERALS:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)


def write_number(d: Draft, res: Resources) -> MappedText:
    """Write the decoded number in place of the OCR'd one ('i7.' → '17.')."""
    settings = SegmentSettings.default()
    s = settings.articles
    t = d.text
    if d.kind == "article" and d.decided is not None:
        marker = _chosen_marker(d, res)
        d.number_raw = marker.token
        if marker.kind == "word":
            return t
        new = f"{d.number}." if marker.kind == "number" else f"{roman(d.number)}."
        return t.replace(0, marker.end, new, "segment.article_number", s.confidence(d.decided.cost))
    if d.kind == "paragraph" and d.decided is not None and d.decided.kind == "ordinal":
        marker = d.markers[0]
        return t.replace(0, marker.end, f"{d.decided.value}°.", "segment.ordinal", s.confidence(d.decided.cost))
    if d.kind == "section" and d.roman_value:
        m = roman_marker(t.text)
        if m:
            d.number = d.roman_value
            return t.replace(m.start, m.end, f"{roman(d.roman_value)}.", "segment.section_number",
                             settings.titles.section_number_confidence)
    return t


def _chosen_marker(d: Draft, res: Resources) -> Marker:
    """The marker the decided number was read from: an article word, a Roman
    numeral read as such ('IV.'), or an arabic number however damaged."""
    kinds = {m.kind: m for m in d.markers}
    if "word" in kinds:
        return kinds["word"]
    roman_, number = kinds.get("roman"), kinds.get("number")
    kept = SegmentSettings.default().articles.roman_kept
    if roman_ and roman_.value == d.number and (number is None or res.digits.cost(number.token, d.number) > kept):
        return roman_
    return number or roman_ or d.markers[0]
