"""Every fix the pipeline can make to the text: the one list of them.

A *fix* is a named, explained step that edits the text (ftfy's word): joining a
paragraph across a page break, reading a long s, putting 'bouche' for the OCR's
'louche'. Each edit of a ``MappedText`` names the fix that made it, each row of the
database's ``corrections`` table too (column ``fix``; several joined by '+' when a
later fix edited what an earlier one wrote), and the table ``fixes`` is this list.
The reading room, ``academie explain``, ``academie fixes`` and the build's summary
read the kind and the explanation from here, and nowhere else.

"Rule" is kept for the rules of the games (the ``link`` stage).
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = {
    "layout": "the page made into paragraphs: running heads, line and page breaks, hyphens, spacing",
    "typography": "the printer's letters as plain text: ligatures, long s, letter spacing, stray marks",
    "spelling": "a word the OCR misread, put right",
    "number": "a number the OCR misread, read again (pages, articles, notes, lists)",
    "proof": "a reading decided by an editor",
}


@dataclass(frozen=True)
class Fix:
    name: str  # '<stage>.<what>': the stage that applies it, then what it does
    kind: str  # one of KINDS
    explanation: str  # one sentence, with an example

    @property
    def stage(self) -> str:
        return self.name.split(".", 1)[0]


FIXES: dict[str, Fix] = {f.name: f for f in (
    # layout: the page → paragraphs
    Fix("layout.reflow", "layout", "a line of a hard-wrapped paragraph joined to the line before it"),
    Fix("layout.continued", "layout",
        "a paragraph broken by a line end or a blank line in mid-sentence continued ('de' never ends one)"),
    Fix("layout.page_break", "layout",
        "a paragraph continued across a page break: the running head and the breaks between become one space"),
    Fix("layout.join_hyphenated", "layout", "a word hyphenated at a line end joined ('com-/mence' → 'commence')"),
    Fix("layout.keep_hyphen", "layout", "a word's own hyphen kept at a line end ('très-/facilement' → 'très-facilement')"),
    Fix("layout.stray_hyphen", "layout", "a stray mark between two words at a line end, or inside a line, read as a space ('dans-/toute', 'de- place')"),
    Fix("layout.drop_capital", "layout", "a drop capital printed apart joined to the word it begins ('L' + 'a partie' → 'La partie')"),
    Fix("layout.footnote_moved", "layout",
        "a footnote printed inside a paragraph that runs on set apart as a passage of its own"),
    # clean: the first layer
    Fix("clean.invisible", "typography",
        "characters that print nothing (zero-width spaces, bidirectional marks, soft hyphens) removed, so that the words they split are whole"),
    Fix("clean.typography", "typography", "ligatures and the long s written as plain letters ('ﬁ' → 'fi', 'ſ' → 's')"),
    Fix("clean.letter_spacing", "typography", "capitals spaced for display joined into their word ('Q U A D R I L L E' → 'QUADRILLE')"),
    Fix("clean.stray_mark", "typography", "marks standing alone that belong to no word removed ('■', '^', '|')"),
    Fix("clean.debris_mark", "typography",
        "a comma the OCR read as '»' (closing no '«'), and specks run into a word's end or between two words, put right ('ensuite» il' → 'ensuite, il', 'roi^ et' → 'roi et', 'vont.de' → 'vont de', 'la .dame' → 'la dame')"),
    Fix("clean.spacing", "layout", "one space between words, none before a punctuation mark or after an opening bracket, one before it ('mal , il' → 'mal, il', 'main(1)' → 'main (1)')"),
    Fix("clean.bracket_p", "spelling", "bracket debris the OCR made of a p read as p ('cou[)er' → 'couper')"),
    Fix("clean.bracket_q", "spelling", "bracket debris the OCR made of a q read as q ('«juatre' → 'quatre')"),
    Fix("clean.digits_in_number", "number", "letters read for digits inside a number ('2i' → '21', '1o5' → '105')"),
    # clean: the correction engine
    Fix("clean.number_in_list", "number", "letters read for digits among numbers ('par lo et 9' → 'par 10 et 9')"),
    Fix("clean.elision", "spelling", "the lost apostrophe of an elided word restored ('n ont' → 'n'ont')"),
    Fix("clean.stray_apostrophe", "spelling",
        "an apostrophe that elides nothing removed, or read as the accent of an é printed apart (\"un 'atout\" → 'un atout', \"donne'\" → 'donné')"),
    Fix("clean.split_word", "spelling", "a word the OCR cut in two joined again ('N ommant' → 'Nommant')"),
    Fix("clean.joined_words", "spelling", "two words the OCR ran together parted ('quitde' → 'quit de', 'peutêtre' → 'peut-être')"),
    Fix("clean.non_word", "spelling",
        "a word no lexicon knows replaced by the likeliest word the OCR could have misread as it ('pajer' → 'payer')"),
    Fix("clean.real_word", "spelling",
        "a real word replaced by a far likelier one that looks the same to the OCR ('louche' → 'bouche', 'porte' → 'perte')"),
    Fix("clean.long_s", "spelling", "an f read as the long s it was printed as ('fur' → 'sur', 'font' → 'sont' before 'dans')"),
    Fix("clean.context_word", "spelling",
        "a real word replaced by the word its neighbours call for among those that look the same to the OCR, or given back the accent the OCR lost on a final é or on à ('à voire tour' → 'à votre tour', 'celle fois' → 'cette fois', 'il a gagne' → 'il a gagné', 'aller a droite' → 'aller à droite')"),
    Fix("clean.context_nonword", "spelling",
        "a word no lexicon knows, misread in more letters than the engine alone replaces, or as like one reading as another, replaced by the word its neighbours call for ('une pelile carte' → 'une petite carte', 'une dangereue partie' → 'une dangereuse partie')"),
    Fix("clean.context_reading", "spelling",
        "a word the engine changes replaced by another of its readings, the one its neighbours call for (a misread 'pas' after 'il ne faut' read 'pas', not 'par', its cheaper reading alone)"),
    Fix("clean.segmentation", "spelling",
        "a space the OCR added or lost, or a line end's hyphen kept inside the line with a word misread across it, put right as the sentence decides ('par tie' → 'partie', 'dautre' → \"d'autre\", 'immédia-tcment' → 'immédiatement')"),
    # segment
    Fix("segment.article_heading", "layout", "a heading 'ARTICLE SIXIÈME.' on a line of its own joined to its article"),
    Fix("segment.article_number", "number",
        "an article's number read from its sequence and written as printed ('i7.' → '17.', '58.' between 52 and 54 → '53.')"),
    Fix("segment.article_end", "typography",
        "the full stop ending an article, where the next one starts, put back in place of a comma or a stray mark, or after its last word ('du coup, 66.' → 'du coup. 66.')"),
    Fix("segment.section_number", "number", "a section's Roman number read through OCR confusions ('y I I I.' → 'VIII.')"),
    Fix("segment.ordinal", "number", "an ordinal list item read from its sequence ('5o.' → '3°.')"),
    Fix("segment.note_mark", "number", "a footnote's mark or call read as its number ('(^i)' → '(1)')"),
    # proof: an editor's decisions (corpus/proofs/), applied after the engine
    Fix("proof.set", "proof", "a reading an editor typed for a span, what the page prints"),
    Fix("proof.accept", "proof", "a fix of the engine an editor checked against the page and kept"),
    Fix("proof.reject", "proof", "a fix of the engine an editor undid: the print was right"),
)}


def fix_names(fix: str) -> list[str]:
    """The fixes a correction names: 'clean.bracket_p+clean.non_word' → both."""
    return fix.split("+")


def kind_of(fix: str) -> str:
    """The kind of a correction: that of the last fix that is not layout, since a word
    mended across a line end and then corrected is a word fix; 'layout' if all are."""
    kinds = [FIXES[name].kind for name in fix_names(fix)]
    words = [k for k in kinds if k != "layout"]
    return words[-1] if words else "layout"


def unknown(fixes) -> list[str]:
    """Names among ``fixes`` (each possibly joined with '+') that are not registered."""
    return sorted({n for f in fixes for n in fix_names(f) if n not in FIXES})
