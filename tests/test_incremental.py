"""Incremental builds: each chapter's result cached (pipeline/cache.py), the database
built from the cache the database built afresh, table by table, row by row."""

from __future__ import annotations

import pickle
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import pipeline.build as pipeline_build
from pipeline.build import ChapterResult, ChapterSummary, build
from pipeline.cache import ChapterCache, chapter_digest, pipeline_version
from pipeline.clean.book import BOOK_BUCKETS, CHAPTER_COUNTS, book_delta, book_evidence, book_mappings, count_corpus
from pipeline.corpus import chapter_files
from pipeline.ingest import ingest
from pipeline.records import BuildReport, Diagnostic, RawChapter
from pipeline.resources import Consulted, Evidence, Resources, Views, remembered
from tests.helpers import CORPUS, assert_same_database

CHANGED = "003_f61ce87bf6c7524e.txt"


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus, ignore=shutil.ignore_patterns("__pycache__", "proofs"))
    return corpus


@pytest.mark.slow  # five builds of the corpus
def test_a_build_from_the_cache_is_the_build_made_afresh(tmp_path):
    corpus = _corpus(tmp_path)
    db, cache = tmp_path / "out" / "academie.db", tmp_path / "out" / "cache"
    first = build(corpus, db)
    assert (first.cached, first.up_to_date) == (0, False)
    assert len(list(cache.glob("*/*.chapter"))) == 5

    again = build(corpus, db)  # nothing changed: no chapter processed, no model loaded, nothing written
    assert (again.cached, again.up_to_date, again.spacy) == (5, True, None)
    assert set(again.times) == {"cache", "total"}  # decided before any chapter is read
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))

    # one chapter changed, its words' counts not: a space before a comma taken out
    _edit(corpus / CHANGED, "plus ou moins , qu'il", "plus ou moins, qu'il")
    changed = build(corpus, db)
    assert (changed.cached, changed.up_to_date) == (4, False)
    # its passages read as they did: their rules are the previous build's, spaCy not loaded
    assert changed.spacy is None
    assert_same_database(db, _afresh(corpus, tmp_path / "b"))

    # the text of its article 52 changed: that passage's rule is read again
    _edit(corpus / CHANGED, "Les trois matadors ne peuvent", "Les trois matadors ne doivent")
    assert build(corpus, db).spacy is not None
    assert_same_database(db, _afresh(corpus, tmp_path / "c"))


def _written(tmp_path: Path, texts: dict[str, str]) -> Path:
    """A corpus folder of these chapter files (name → text)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in texts.items():
        (corpus / name).write_text(text, encoding="utf-8")
    return corpus


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def _afresh(corpus: Path, out: Path) -> Path:
    """The database built with an empty cache of its own."""
    report = build(corpus, out / "academie.db", res=Resources(corpus), full=True)
    assert report.cached == 0
    return out / "academie.db"


@pytest.mark.slow  # three builds of the corpus
def test_chapters_whose_evidence_changed_are_processed_again(tmp_path):
    """One chapter's misreading corrected: the book's counts of 'cartes', 'six',
    'trente' and 'caries' change, and of the pairs around them. A chapter is processed
    again when a count it looked up reads otherwise, rounded as the engine reads it
    (pipeline/clean/rounded.py): 'trente', 11 then 12, reads 10 then 14, and 000
    looked it up; 'cartes' (38, 39), 'six' (10, 11) and 'caries' (19, 18) stay in
    their buckets, and the pairs the edit makes are printed fewer than three times, as
    none. So 001, 002 and 004, which looked up 'cartes', are kept, and the database is
    the one built afresh."""
    corpus = _corpus(tmp_path)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    read = _evidence(db)
    assert all("cartes" in read[n]["clean.counts"] for n in read)
    assert {n[:3] for n in read if "trente" in read[n]["clean.counts"] | read[n]["clean.sequence.words"]} == {"000", "003"}
    entries = {p.stem: p.stat().st_mtime_ns for p in (db.parent / "cache").glob("*/*.chapter")}
    _edit(corpus / CHANGED, "trentesix caries", "trente-six cartes")
    assert build(corpus, db).cached == 3
    newest = {}
    for e in sorted(_entries(db), key=lambda e: e.mtime):
        newest[e.source_file] = e  # an edited chapter's old entry stays, under its old key
    kept = {n[:3] for n, e in newest.items() if entries.get(e.key) == e.mtime}
    assert kept == {"001", "002", "004"}
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


# three made-up chapters, each of its own game: what one reads of the book is its own words and pairs
BOOK = {
    "a.txt": "1. Au piquet, le premier en cartes écarte cinq cartes, et le second trois. "
             "2. Celui qui a le point le plus haut le compte.\n",
    "b.txt": "1. Au reversis, celui qui fait le moins de levées gagne la partie. "
             "2. Le quinola est le valet de coeur.\n",
    "c.txt": "1. Au boston, chaque joueur reçoit treize cartes. "
             "2. Celui qui demande une couleur doit faire cinq levées.\n",
}


@dataclass(frozen=True)
class _Entry:
    source_file: str
    key: str
    mtime: int


def _entries(db: Path) -> list[_Entry]:
    """The cache entries beside ``db``: whose chapter, under which key, written when."""
    store = ChapterCache(db.parent / "cache", "")
    return [_Entry(store.load(p.stem).source_file, p.stem, p.stat().st_mtime_ns)
            for p in (db.parent / "cache").glob("*/*.chapter")]


def _evidence(db: Path) -> dict[str, dict]:
    """The keys each chapter looked up of each book mapping, from its cache entry beside
    ``db`` (one build's: an entry a chapter each)."""
    store = ChapterCache(db.parent / "cache", "")
    entries = [store.load(p.stem) for p in (db.parent / "cache").glob("*/*.chapter")]
    return {r.source_file: {name: set(e.keys()) for name, e in r.evidence.items()} for r in entries if r is not None}


@pytest.mark.slow  # five builds of three short chapters
def test_a_changed_word_redoes_the_chapters_that_read_its_counts_only(tmp_path):
    """A word of one chapter changed: the book's counts of its words and pairs change
    (the pairs its neighbours start, everything normalised by the book's total under a
    model that read them); each chapter is processed again only if what it read of
    them changed, and the database is the one built afresh."""
    corpus = _written(tmp_path, BOOK)
    db = tmp_path / "out" / "academie.db"
    assert build(corpus, db).cached == 0
    read = _evidence(db)
    assert set(read) == set(BOOK) and all(  # (and the chapter's own counts, where a word's change depended on them)
        set(e) - {CHAPTER_COUNTS} == {"clean.counts", "clean.sequence.words", "clean.sequence.pairs", BOOK_BUCKETS}
        for e in read.values())
    # 'demande' → 'annonce': a word no other chapter prints, between words the others print ('qui', 'une')
    assert not any(("qui", "annonce") in read[n]["clean.sequence.pairs"] for n in ("a.txt", "b.txt"))
    _edit(corpus / "c.txt", "qui demande une", "qui annonce une")
    again = build(corpus, db)
    assert again.cached == 2  # a.txt and b.txt, though they read the book's counts of 'qui' and 'une'
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))

    # a word another chapter read: 'reçoit' → 'compte', which a.txt prints
    _edit(corpus / "c.txt", "reçoit", "compte")
    assert build(corpus, db).cached == 1  # b.txt only
    assert_same_database(db, _afresh(corpus, tmp_path / "b"))


# three chapters printing 'cartes' 19 times in all; 'quinze cartes blanches' is c.txt's alone
CARDS = {
    "a.txt": "1. Au piquet, on donne douze cartes à chaque joueur, et le talon garde huit cartes. "
             "2. Le premier écarte cinq cartes au plus. 3. Les cartes écartées ne se montrent pas. "
             "4. Celui qui a les plus hautes cartes compte le point. 5. Les cartes de même couleur font une "
             "séquence, et trois as font un brelan.\n",
    "b.txt": "1. Au reversis, on donne onze cartes à chaque joueur. 2. Les quatre cartes du talon sont le panier. "
             "3. Celui qui prend le moins de cartes gagne. 4. Le valet de coeur est le quinola; il faut le placer "
             "sur des cartes d'une autre couleur. 5. On compte les cartes des levées, et les cartes du panier "
             "vont au dernier.\n",
    "c.txt": "1. Au boston, chaque joueur reçoit treize cartes. 2. Celui qui demande une couleur doit faire cinq "
             "levées avec ses cartes. 3. Les cartes basses comptent peu. 4. On annonce les cartes avant de jouer, "
             "et toutes les cartes se jouent. 5. Le donneur mêle les cartes, et il coupe une seule fois. "
             "6. Qui renonce paye quinze cartes blanches.\n",
}


@pytest.mark.slow  # three builds of three short chapters
def test_a_count_changed_within_its_bucket_redoes_no_other_chapter(tmp_path):
    """'cartes' of c.txt changed to 'fiches': every chapter looked up the count of
    'cartes', which goes from 19 to 18; read to two binary digits, both are 20, so
    only c.txt is processed again (exactly read, a and b would be too), and the
    database is the one built afresh."""
    from pipeline.clean.rounded import rounded

    corpus = _written(tmp_path, CARDS)
    assert sum(t.count("cartes") for t in CARDS.values()) == 19 and rounded(19, 2) == rounded(18, 2) == 20
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    read = _evidence(db)
    assert all("cartes" in read[n]["clean.counts"] and "cartes" in read[n]["clean.sequence.words"] for n in CARDS)
    _edit(corpus / "c.txt", "quinze cartes blanches", "quinze fiches blanches")
    assert build(corpus, db).cached == 2
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


# 'basto' (a card of the ombre, rare in French: zipf 1.5) printed once in c.txt, and
# misread once there ('bosto') and once in b.txt ('baslo'); a.txt prints none of them
BASTO = {
    "a.txt": BOOK["a.txt"],
    "b.txt": "1. A l'hombre, le baslo est l'as de trèfle. 2. Le quinola est le valet de coeur.\n",
    "c.txt": "1. Au quadrille, le basto est le troisième matador. 2. Après le spadille vient le bosto, "
             "qui est l'as de trèfle.\n",
}


@pytest.mark.slow  # two builds of three short chapters, and one afresh
def test_a_word_the_book_adds_to_the_candidates_redoes_the_chapters_that_looked_where_it_goes(tmp_path):
    """'bosto' corrected to 'basto': printed twice now, 'basto' is one of the words the
    book adds to the correction engine's index (rarer than the lexicon's own), so the
    book's candidates are not what every entry was cleaned with. Only b.txt, whose
    misread 'baslo' looked in the bucket 'basto' joins ('=' and its glyph skeleton), is
    processed again with c.txt; a.txt looked elsewhere and is kept, and the database
    is the one built afresh."""
    from pipeline.clean.book import book_buckets
    from pipeline.clean.correct import ChannelModel

    corpus = _written(tmp_path, BASTO)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    res = Resources(corpus)
    count_corpus(res, [ingest(corpus / n) for n in BASTO], corpus)
    assert "basto" not in {w for words in book_buckets(res).values() for w in words}
    bucket = "=" + ChannelModel.default().skeleton("basto")
    read = _evidence(db)
    assert bucket in read["b.txt"][BOOK_BUCKETS] and bucket not in read["a.txt"][BOOK_BUCKETS]
    _edit(corpus / "c.txt", "le bosto", "le basto")
    again = build(corpus, db)
    res = Resources(corpus)
    count_corpus(res, [ingest(corpus / n) for n in BASTO], corpus)
    assert book_buckets(res)[bucket] == ("basto",)
    assert again.cached == 1  # a.txt
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


@pytest.mark.slow  # a build of three short chapters
def test_an_entry_the_last_build_used_is_checked_against_what_changed_since_as_against_all(tmp_path):
    """The book's counts a word's change changes, from the chapters changed since the
    last build; each entry that build used is then checked against those only, and is
    used or not as the check of all it read decides."""
    corpus = _written(tmp_path, BOOK)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    _edit(corpus / "c.txt", "reçoit", "compte")
    res = Resources(corpus)
    raws = {f.name: ingest(f) for f in chapter_files(corpus)}
    count_corpus(res, raws.values(), corpus)
    store = ChapterCache(db.parent / "cache", pipeline_version(res))
    keys = {name: store.key(raw, None) for name, raw in raws.items()}
    since = store.book_since(corpus, keys, {n: r.text for n, r in raws.items()}, book_delta)
    assert since is not None and since.entries.keys() == keys.keys() and since.entries["a.txt"] == keys["a.txt"]
    assert since.changed == {"clean.counts": {"reçoit", "compte"}, "clean.sequence.words": {"reçoit", "compte"},
                             "clean.sequence.pairs": {("joueur", "reçoit"), ("reçoit", "treize"),
                                                      ("joueur", "compte"), ("compte", "treize")}}
    quick = store.validity(*book_evidence(res), book_mappings(res), since)
    whole = store.validity(*book_evidence(res), book_mappings(res))
    entries = {name: store.load(since.entries[name]) for name in ("a.txt", "b.txt")}
    assert {n: quick(e, keys[n]) for n, e in entries.items()} == {n: whole(e, keys[n]) for n, e in entries.items()} \
        == {"a.txt": False, "b.txt": True}


@pytest.mark.slow  # three builds of the corpus
def test_full_ignores_the_cache_and_cache_dir_moves_it(tmp_path):
    corpus = _corpus(tmp_path)
    cache = tmp_path / "elsewhere"
    build(corpus, tmp_path / "academie.db", cache=cache)
    assert len(list(cache.glob("*/*.chapter"))) == 5 and not (tmp_path / "cache").exists()
    assert build(corpus, tmp_path / "academie.db", cache=cache, full=True).cached == 0
    assert build(corpus, tmp_path / "academie.db", cache=cache).cached == 5


# -- entries: whole and this key's, or made again ---------------------------------------------------

RAW = RawChapter("x.txt", "Le piquet.", "ab" * 32, "utf-8", 10)


def _entry(tmp_path: Path) -> tuple[ChapterCache, str, Path]:
    store = ChapterCache(tmp_path, "version 1")
    key = store.key(RAW, None)
    store.save(key, ChapterResult("x.txt", None, "why", evidence={"piquet": 3}))
    return store, key, next(tmp_path.glob("*/*.chapter"))


def test_an_entry_is_read_back_as_it_was_saved(tmp_path):
    store, key, _ = _entry(tmp_path)
    assert store.load(key) == ChapterResult("x.txt", None, "why", evidence={"piquet": 3})
    summary, stamp = store.summary(key)
    assert summary == ChapterSummary("x.txt", False, "why", {"piquet": 3}, ("", ""))
    assert store.load(key, stamp) == store.load(key)


def test_a_result_packed_by_a_worker_is_saved_as_the_result_itself_would_be(tmp_path):
    """A worker sends its result packed (``cache.pack``: pickled and digested there); the
    build writes those bytes: the same entry, stamp and side file as the result saved
    where it was made, and its summary read back from the packed bytes."""
    from pipeline.cache import pack

    result = ChapterResult("x.txt", None, "why", evidence={"piquet": 3}, cleaned=b"reads", times={"clean": 0.5})
    here, there = ChapterCache(tmp_path / "here", "version 1"), ChapterCache(tmp_path / "there", "version 1")
    key = here.key(RAW, None)
    packed = pickle.loads(pickle.dumps(pack(result)))  # as it crosses from a worker
    assert (packed.processed, packed.summary()) == (False, result.summary())
    assert packed.times["clean"] == 0.5 and packed.times["cache"] > 0  # (the packing's time is the cache's)
    assert here.save(key, result) == there.save(key, packed)
    for name in ("*/*.chapter", "*/*.paragraphs"):
        (a,), (b,) = (store.folder.glob(name) for store in (here, there))
        assert a.read_bytes() == b.read_bytes()
    assert there.load(key) == replace(result, cleaned=None)


def test_an_entry_replaced_since_its_summary_was_taken_is_not_loaded_for_it(tmp_path):
    """A build of another book sharing the cache may replace an entry (the same
    chapter, cleaned with other counts) between the summary a build took and its
    publishing: the stamp tells."""
    store, key, _ = _entry(tmp_path)
    _, stamp = store.summary(key)
    other = store.save(key, ChapterResult("x.txt", None, "why", evidence={"piquet": 4}))
    assert other != stamp and store.summary(key)[1] == other
    assert store.load(key, stamp) is None
    assert store.load(key, other) == ChapterResult("x.txt", None, "why", evidence={"piquet": 4})


@pytest.mark.parametrize("damage", ["truncated", "a byte changed", "empty", "not a pickle", "another key's"])
def test_a_corrupt_or_foreign_entry_is_not_used(tmp_path, damage):
    store, key, path = _entry(tmp_path)
    data = path.read_bytes()
    other = store.key(RAW, '{"a decision": 1}')
    if damage == "truncated":
        path.write_bytes(data[:-5])
    elif damage == "a byte changed":
        path.write_bytes(data[:-5] + bytes([data[-5] ^ 1]) + data[-4:])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "not a pickle":
        payloads = [b"not a pickle", b"nor this"]
        import hashlib

        sizes = b" ".join(b"%d %s" % (len(p), hashlib.sha256(p).hexdigest().encode()) for p in payloads)
        path.write_bytes(data[: data.index(b"\n", 30) + 1] + sizes + b"\n" + b"".join(payloads))
    else:  # an entry copied under another key: its header names its own
        (tmp_path / other[:2]).mkdir(exist_ok=True)
        shutil.copyfile(path, tmp_path / other[:2] / f"{other}.chapter")
        assert store.load(other) is None and store.summary(other) is None
        return
    assert store.load(key) is None
    # the summary is the entry's first part: read alone, it is whole unless the damage is in it
    assert (store.summary(key) is None) == (damage not in ("truncated", "a byte changed"))


def test_an_entry_whose_result_is_damaged_after_its_summary_was_read_is_processed_again(tmp_path):
    """A build reads an entry's summary to take it, and its result when it publishes
    the chapter: a result found damaged then (the summary whole) is made again, and the
    database is the one built afresh."""
    corpus = _written(tmp_path, BOOK)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    store = ChapterCache(db.parent / "cache", pipeline_version(Resources(corpus)))
    path = next(p for p in (db.parent / "cache").glob("*/*.chapter") if store.load(p.stem).source_file == "b.txt")
    data = path.read_bytes()
    path.write_bytes(data[:-5] + bytes([data[-5] ^ 1]) + data[-4:])
    assert store.summary(path.stem) is not None and store.load(path.stem) is None
    _edit(corpus / "a.txt", "cinq cartes,", "cinq cartes ,")  # the database written again
    report = build(corpus, db)
    assert report.cached == 2  # b.txt's taken by its summary, its result made again when published
    assert store.load(path.stem) is None  # (made again, not saved: the entry's summary stood for it)
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


def test_an_entry_another_build_replaces_while_this_one_runs_is_not_published(tmp_path, monkeypatch):
    """Between the summary a build takes of an entry and its publishing, a build of
    another book sharing the cache replaces it (here: with its passages' search text
    other): the chapter is processed again, and the database is the one built afresh."""
    corpus = _written(tmp_path, BOOK)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    _edit(corpus / "a.txt", "cinq cartes,", "cinq cartes ,")  # the database written again
    taken = ChapterCache.summary

    def summary_then_replaced(store, key):
        read = taken(store, key)
        result = store.load(key)
        if result is not None and result.source_file == "b.txt":
            store.save(key, replace(result, search=tuple("autre" for _ in result.search)))
        return read

    monkeypatch.setattr(ChapterCache, "summary", summary_then_replaced)
    assert build(corpus, db).cached == 2
    monkeypatch.setattr(ChapterCache, "summary", taken)
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


def test_a_key_changes_with_the_chapter_its_decisions_and_the_version(tmp_path):
    store = ChapterCache(tmp_path, "version 1")
    keys = {store.key(RAW, None), store.key(RAW, ""), store.key(RAW, "{}"),
            store.key(RawChapter("x.txt", "Le piquet.", "cd" * 32, "utf-8", 10), None),
            store.key(RawChapter("y.txt", "Le piquet.", "ab" * 32, "utf-8", 10), None),
            ChapterCache(tmp_path, "version 2").key(RAW, None)}
    assert len(keys) == 6


def test_what_a_chapter_consulted_holds_while_each_value_read_is_the_same():
    counts = {"piquet": 3, "de": 40, "robre": 2}
    view = Consulted(counts)
    assert (view.get("piquet", 0), view.get("hombre", 0), view["robre"]) == (3, 0, 2)
    assert view.read == {"piquet": 3, "hombre": None, "robre": 2}
    assert Consulted.holds(view.read, counts | {"carte": 7})
    assert not Consulted.holds(view.read, counts | {"hombre": 1})
    assert not Consulted.holds(view.read, counts | {"piquet": 4})
    assert Consulted.holds(view.read, counts | {"de": 41})  # not read
    max(view.values())
    assert not Consulted.holds(view.read, counts | {"de": 41})  # read now: the largest count


def test_many_keys_read_at_once_are_recorded_as_read_one_by_one():
    """``Consulted.get_many``: what an unknown word's hundreds of candidates look up at once."""
    counts = {"piquet": 3, "de": 40, "robre": 2}
    one, many = Consulted(counts, "counts"), Consulted(counts, "counts")
    memo: dict = {}
    keys = ["robre", "hombre", "piquet", "robre"]
    alone = remembered(memo, "one", lambda: [one.get(k, 0) for k in keys], {"counts": one})
    together = remembered(memo, "many", lambda: many.get_many(keys, 0), {"counts": many})
    assert together == alone == [2, 0, 3, 2]
    assert list(many.read.items()) == list(one.read.items()) == [("robre", 2), ("hombre", None), ("piquet", 3)]
    # the computation under way notes them alike: another chapter taking the decision reads them again
    again = Consulted(counts, "counts")
    assert remembered(memo, "many", lambda: [], {"counts": again}) == [2, 0, 3, 2]
    assert set(again.read.items()) == set(one.read.items())
    assert many.get_many([]) == [] and many.get_many(["de"]) == [40]


def test_evidence_keeps_the_keys_read_and_holds_as_the_lookups_did():
    """As kept in the cache: the words and pairs read, in order, checked as ``Consulted.holds`` checks."""
    pairs = {("le", "roi"): 3, ("la", "dame"): 2}
    view = Consulted(pairs)
    assert (view[("le", "roi")], view.get(("de", "pique"))) == (3, None)
    kept = pickle.loads(pickle.dumps(Evidence(view.read)))
    assert kept == Evidence(view.read) and kept.keys() == [("le", "roi"), ("de", "pique")]
    assert kept.columns == ("le\nde", "roi\npique")
    assert kept.holds(pairs | {("la", "dame"): 5})
    assert not kept.holds(pairs | {("de", "pique"): 1})
    assert not kept.holds({("la", "dame"): 2})
    assert not kept.read_any({("la", "dame"), ("pique", "roi")}) and not kept.read_any(set())
    assert kept.read_any({("de", "pique")}) and kept.read_any({("la", "dame"), ("le", "roi")})
    assert not kept.read_any({("de", "roi")})  # 'de' begins a pair read and 'roi' ends one: not the same pair
    assert not kept.read_any({("le", "valet")})  # 'le' begins a pair read, but none ends on 'valet'

    words = Consulted({"piquet": 3, "de": 40})
    words.get("piquet"), words.get("hombre"), max(words.values())
    kept = pickle.loads(pickle.dumps(Evidence(words.read)))
    assert (kept.keys(), kept.columns, kept.top) == (["piquet", "hombre"], "piquet\nhombre", 40)
    assert kept.holds({"piquet": 3, "de": 40, "robre": 1})
    assert not kept.holds({"piquet": 3, "de": 41})  # the largest count read, changed
    assert not kept.holds({"piquet": 3, "de": 40, "hombre": 2})
    assert kept.read_any({"hombre", "robre"}) and not kept.read_any({"robre", "pique", "hom"})
    assert Evidence({}).keys() == [] and Evidence({}).holds({"de": 1})

    odd = Evidence({"a\nb": 1, "c": None})  # a key a newline would split: kept as it is
    assert (odd.columns, odd.keys()) == (None, ["a\nb", "c"])
    assert odd.holds({"a\nb": 1}) and not odd.holds({"a\nb": 2})
    assert odd.read_any({"c"}) and not odd.read_any({"a", "b"})


def test_where_the_engine_looked_among_the_book_s_words_holds_while_those_there_are_the_same():
    """A word the book adds to the engine's candidates matters to a lookup of its bucket,
    and to one of a common word's rivals only if as frequent as they must be: 'tieu'
    (zipf 1.31, a misreading of 'lieu' printed twice) is in the bucket of one of 'lieu''s glyph
    skeletons, below the floor of its rivals (4), within reach of a misread word's
    lookup (no floor)."""
    from pipeline.clean.correct import Corrector
    from pipeline.lexicon import Lexicon

    lexicon = Lexicon.default()
    without, with_tieu = Corrector(lexicon), Corrector(lexicon, book_words=["tieu"])
    sk = with_tieu.model.skeleton("tieu")  # one of the skeletons of 'lieu' ('li' may be a 'b' too)
    assert with_tieu.model.skeletons("lieu") == {sk, "bcn"} and with_tieu.book_buckets() == {"=" + sk: ("tieu",)}
    read = {}
    for floor in (4.0, 1.0):
        view = Consulted(without.book_buckets())
        without.index.consulted = view
        without.index.same_skeleton("lieu", floor)
        read[floor] = Evidence(view.read)
    without.index.consulted = None
    assert sorted(read[4.0].keys()) == ["=bcn>4.00", f"={sk}>4.00"]
    assert sorted(read[1.0].keys()) == ["=bcn>1.00", f"={sk}>1.00"]
    assert read[4.0].holds(with_tieu.book_buckets()) and not read[1.0].holds(with_tieu.book_buckets())
    assert with_tieu.book_buckets().get(f"={sk}>1.31") == ("tieu",)  # zipf 1.31
    assert with_tieu.book_buckets().get(f"={sk}>1.32") is None


def test_the_edition_changes_with_any_chapter_decision_size_limit_or_corpus_file(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "pages").mkdir(parents=True)
    (corpus / "a.txt").write_text("Le piquet.", encoding="utf-8")
    (corpus / "pages" / "p1.xml").write_text("<alto/>", encoding="utf-8")
    db = tmp_path / "academie.db"
    store = ChapterCache(tmp_path / "cache", "version 1")

    def edition(version: str = "version 1", limit: int = 1000, decisions: str | None = None) -> str:
        chapters = {p.name: chapter_digest(p, decisions if p.name == "a.txt" else None)
                    for p in (corpus / "a.txt", corpus / "pages")}
        return ChapterCache(store.folder, version).edition_key(chapters, corpus, db, limit)

    editions = [edition(), edition("version 2"), edition(limit=2000), edition(decisions="{}")]
    (corpus / "a.txt").write_text("Le piquet!", encoding="utf-8")
    editions.append(edition())
    (corpus / "pages" / "p1.xml").write_text("<alto></alto>", encoding="utf-8")
    editions.append(edition())
    (corpus / "manifest.toml").write_text("[editions]\n", encoding="utf-8")
    editions.append(edition())
    assert len(set(editions)) == len(editions) and edition() == editions[-1]


def test_a_database_is_up_to_date_only_as_its_edition_wrote_it(tmp_path):
    db = tmp_path / "academie.db"
    db.write_bytes(b"a database")
    store = ChapterCache(tmp_path / "cache", "version 1")
    report = BuildReport(chapters=2, articles=3, shapes={"a.txt": "wrapped"}, published=True, cached=1,
                         diagnostics=[Diagnostic("a.txt", "warning", "no running heads")], times={"total": 1.0})
    store.mark_published(db, "edition 1", report)
    kept = store.published_report(db, "edition 1")
    assert kept == replace(report, cached=2, up_to_date=True, times={})  # both chapters, none processed
    assert store.published_report(db, "edition 2") is None
    store.mark_published(db, "edition 1", None)  # a chapter failed: tried again
    assert store.published_report(db, "edition 1") is None
    store.mark_published(db, "edition 1", report)
    db.write_bytes(b"a database written by another")
    assert store.published_report(db, "edition 1") is None


@pytest.mark.slow  # two builds of three short chapters
def test_the_database_is_written_a_chapter_at_a_time_each_read_back_from_its_entry(tmp_path, monkeypatch):
    """Publishing holds one chapter at a time: each is read back from its cache entry,
    written, and let go before the next (a library's chapters do not fit in memory
    together); an entry gone by then (another process cleared the cache) has its
    chapter processed again. Either way, the database is the one built afresh."""
    import gc
    import weakref

    from pipeline.publish import write

    corpus = _written(tmp_path, BOOK)
    written: list[weakref.ref] = []
    alive: list[int] = []
    real = write.Writer.chapter

    def chapter(self, c, search=None):
        gc.collect()
        alive.append(sum(ref() is not None for ref in written))  # the chapters written before this one
        written.append(weakref.ref(c.seg))
        return real(self, c, search)

    monkeypatch.setattr(write.Writer, "chapter", chapter)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    assert alive == [0, 0, 0]
    reference = _afresh(corpus, tmp_path / "a")

    # every entry gone once the chapters are processed: each chapter is processed again to be written
    processed: list[str] = []
    monkeypatch.setattr(ChapterCache, "load", lambda self, key, stamp=None: None)
    real_work = pipeline_build.work_chapter
    monkeypatch.setattr(pipeline_build, "work_chapter", lambda raw, res: processed.append(raw.source_file) or real_work(raw, res))
    report = build(corpus, db, full=True)
    assert report.published and sorted(processed) == sorted([*BOOK, *BOOK])  # for the cache, then to be written
    assert_same_database(db, reference)


@pytest.mark.slow  # a build of the corpus
def test_memos_emptied_between_chapters_change_nothing(tmp_path, monkeypatch):
    """The process's memos are emptied once they pass a size (pipeline/memos.py), so
    that a library's misreadings do not pile up in memory: a build that empties every
    one before each chapter makes the database a build with them all kept makes."""
    from pipeline import memos

    corpus = _corpus(tmp_path)
    emptied = []
    real = memos.trim
    monkeypatch.setattr(memos, "LIMIT", 0)
    monkeypatch.setattr(memos, "trim", lambda *m: emptied.append(sum(map(len, m))) or real(*m))
    db = tmp_path / "out" / "academie.db"
    build(corpus, db, res=Resources(corpus), full=True)
    assert len(emptied) >= 5 * 4 and sum(emptied) > 100_000  # each chapter found the memos the ones before filled
    monkeypatch.undo()
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


@pytest.mark.slow  # two builds of a corpus with a file it cannot read
def test_a_corpus_with_an_unreadable_file_is_up_to_date_when_nothing_changed(tmp_path):
    """A file that cannot be read is reported at every build; the chapters that can
    are all from the cache the second time, and the database they made is not written
    again."""
    corpus = _written(tmp_path, BOOK)
    (corpus / "empty.txt").write_text("", encoding="utf-8")
    db = tmp_path / "out" / "academie.db"
    first = build(corpus, db)
    again = build(corpus, db)
    assert [(d.file, d.message) for d in again.errors] == [(d.file, d.message) for d in first.errors] \
        == [("empty.txt", "empty file: no text to read")]
    assert (first.up_to_date, again.cached, again.up_to_date) == (False, 3, True)


def test_a_decision_another_chapter_made_is_recorded_as_read_by_this_one():
    """``remembered``: made once, its reads of the book kept with it and read again
    through the views of each chapter that uses it, and of a computation that uses it."""
    from pipeline.resources import remembered

    book = {"piquet": 3, "de": 40, "jeu": 7}
    memo: dict = {}
    made = []

    def decide(views):
        def compute():
            made.append(1)
            return views["counts"].get("piquet", 0) + views["counts"].get("rien", 0)
        return remembered(memo, "piquet?", compute, views)

    first = {"counts": Consulted(book, "counts")}
    second = {"counts": Consulted(book, "counts")}
    assert decide(first) == decide(second) == 3 and len(made) == 1
    assert first["counts"].read == second["counts"].read == {"piquet": 3, "rien": None}
    # inside another remembered computation, the decision's reads are that one's too
    third = {"counts": Consulted(book, "counts")}
    assert remembered(memo, "outer", lambda: decide(third) + third["counts"].get("jeu", 0), third) == 10
    fourth = {"counts": Consulted(book, "counts")}
    assert remembered(memo, "outer", lambda: 0, fourth) == 10
    assert fourth["counts"].read == {"piquet": 3, "rien": None, "jeu": 7} and len(made) == 1


def test_a_decision_taken_inside_another_is_held_by_reference_and_read_once_a_chapter():
    """A decision taken from the memo inside another computation is one of its
    ``parts``: its keys are not copied into the other's reads, its tree is in the
    other's (the same tuple), and a chapter that takes both reads each key once."""
    from pipeline.resources import noted, read_again_tree, remembered, tree_reads

    book = {"piquet": 3, "de": 40, "jeu": 7}
    memo: dict = {}
    first = Views()
    first["counts"] = Consulted(book, "counts")

    def inner():
        return remembered(memo, "inner", lambda: first["counts"].get("piquet", 0), first)

    inner()
    outer = noted(lambda: inner() + inner() + first["counts"].get("jeu", 0), first)
    assert outer.value == 13
    assert outer.reads == (("counts", ("jeu",)),)  # its own read alone
    assert outer.parts == (memo["inner"],)  # taken twice, held once
    tree = outer.tree()
    assert tree[1][0] is memo["inner"].tree()
    assert list(tree_reads(tree)) == [(("counts", ("jeu",)),), (("counts", ("piquet",)),)]
    # another chapter taking the outer decision reads the inner's keys too, each once
    memo["outer"] = outer
    second = Views()
    second["counts"] = Consulted(book, "counts")
    assert remembered(memo, "outer", lambda: 0, second) == 13
    assert second["counts"].read == {"jeu": 7, "piquet": 3}
    assert memo["inner"].into == second.serial  # read with the outer: not read again when taken alone
    third = {"counts": Consulted(book, "counts")}
    read_again_tree(tree, third)  # (a paragraph taken as the last build cleaned it)
    assert third["counts"].read == {"jeu": 7, "piquet": 3}


def test_a_decision_shared_by_two_paragraphs_is_judged_once_and_fails_both():
    """``tree_holds``: a node two paragraphs' trees share (a decision both took) is
    judged once for both, and where it no longer holds, neither paragraph does."""
    from pipeline.resources import tree_holds

    shared = ((("counts", ("piquet",)),), ())
    one = ((("counts", ("de",)),), (shared,))
    two = ((("counts", ("jeu",)),), (shared,))
    alone = ((("counts", ("jeu",)),), ())
    asked = []

    def holds(reads):
        asked.append(reads)
        return all("piquet" not in keys for _, keys in reads)  # 'piquet''s count changed

    judged: dict = {}
    assert [tree_holds(t, holds, judged) for t in (one, two, alone)] == [False, False, True]
    assert asked.count(shared[0]) == 1
    asked.clear()
    assert tree_holds(one, lambda reads: True, {}) and len(asked) == 0


def test_a_chapter_records_what_it_would_read_deciding_alone(tmp_path):
    """The decisions of the correction engine and of the sentence are the book's, made
    once for its chapters: each chapter's evidence is what it reads when it decides
    alone, the book's counts otherwise the same (its result cached holds while they do)."""
    from pipeline.build import CHAPTER_STAGES, _ingest, process_chapter

    def evidence(res: Resources, raw: RawChapter) -> dict:
        res.consulted = Views()
        try:
            process_chapter(raw, res, None, CHAPTER_STAGES[1:])
            return {name: dict(view.read) for name, view in res.consulted.items()}
        finally:
            res.consulted = None

    files = chapter_files(CORPUS)
    together = Resources(CORPUS)
    raws = {f.name: _ingest(f, together) for f in files}
    count_corpus(together, raws.values(), CORPUS)
    shared = {name: evidence(together, raw) for name, raw in raws.items()}
    for name, raw in raws.items():
        alone = Resources(CORPUS)
        count_corpus(alone, raws.values(), CORPUS)
        assert evidence(alone, raw) == shared[name], name


def test_a_correction_made_where_its_words_are_terms_is_made_again_where_they_are_not(res):
    """The correction engine's decisions are kept for chapters about other games when
    the words they asked about are terms of both or of neither."""
    from pipeline.clean.book import corrector
    from pipeline.clean.correct import BookContext

    cor = corrector(res)
    counts = {"carte": 5}
    about = BookContext(counts, terms=frozenset({"carte"}), term_bonus=5.0)
    again = BookContext(counts, terms=frozenset({"carte"}), term_bonus=5.0)
    other = BookContext(counts, terms=frozenset({"cartes"}), term_bonus=5.0)
    d = cor.decide("carle", about)
    key = ("carle", False, 0, 1.0)
    memo = next(m for m in cor._memo.values() if key in m and m.made_from((counts,)))
    assert cor.decide("carle", again) is d and len(memo[key]) == 1
    cor.decide("carle", other)  # 'carte' a term of one chapter and not of the other
    assert len(memo[key]) == 2


def test_the_counts_an_edit_moves_are_those_read_otherwise_now(tmp_path):
    """What the cache checks an edit against: of the counts the edited chapter's text
    changes, those whose value as the engine reads it changed ('fiches' 0 → 1), not
    those that stay in their bucket ('cartes' 19 → 18, both read 20) or below what is
    read at all (the pair 'quinze fiches', printed once: a pair counts from three)."""
    from pipeline.clean.book import book_moved

    before = CARDS["c.txt"]
    after = before.replace("quinze cartes blanches", "quinze fiches blanches")
    corpus = _written(tmp_path, {**CARDS, "c.txt": after})
    res = Resources(corpus)
    count_corpus(res, [ingest(f) for f in chapter_files(corpus)], corpus)
    delta, moved = book_delta([before], [after]), book_moved(res, [before], [after])
    assert {"cartes", "fiches"} <= delta["clean.counts"] and ("quinze", "fiches") in delta["clean.sequence.pairs"]
    assert "fiches" in moved["clean.counts"] and "cartes" not in moved["clean.counts"]
    assert "cartes" not in moved["clean.sequence.words"] and ("quinze", "fiches") not in moved["clean.sequence.pairs"]
    assert moved["clean.counts"] < delta["clean.counts"]


# a.txt misprints 'temps' once, in its second paragraph of three: 'tempz', which the engine corrects
PARAGRAPHS = {
    "a.txt": "1. Au piquet, le premier en cartes écarte cinq cartes, et le second trois.\n\n"
             "2. Celui qui gagne le tempz marque deux points.\n\n3. Le talon garde huit cartes.\n",
    "b.txt": BOOK["b.txt"],
    "c.txt": BOOK["c.txt"],
}


@pytest.mark.slow  # four builds of three short chapters, and two afresh
def test_a_chapter_cleaned_again_takes_the_paragraphs_the_change_left_alone_as_they_were(tmp_path):
    """c.txt's 'reçoit' made 'tempz': printed twice, 'tempz' is a word of the book
    (an unknown word it prints again and again, dearer to explain than the OCR's
    commonest confusions, and whose reading *temps* the book does not print: no
    misreading made again), so a.txt, which read its count, is cleaned again; of its
    paragraphs, the one that read the count is cleaned anew (and now keeps 'tempz'),
    the two that did not are taken from the cache as they were. Without the record of
    what each paragraph read (damaged), the chapter is cleaned whole: the same database."""
    corpus = _written(tmp_path, PARAGRAPHS)
    db = tmp_path / "out" / "academie.db"

    def second(path: Path) -> str:
        import sqlite3

        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT text_clean FROM passages WHERE text_raw LIKE '2. Celui qui gagne%'").fetchone()[0]

    assert build(corpus, db).paragraphs_kept == 0
    assert second(db) == "2. Celui qui gagne le temps marque deux points."
    _edit(corpus / "c.txt", "reçoit", "tempz")
    again = build(corpus, db)
    assert (again.cached, again.paragraphs_kept) == (1, 2)  # b.txt; a.txt's first and third paragraphs
    assert second(db) == "2. Celui qui gagne le tempz marque deux points."
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))

    for side in (db.parent / "cache").glob("*/*.paragraphs"):
        side.write_bytes(side.read_bytes()[:-1] + b"x")
    _edit(corpus / "c.txt", "tempz", "reçoit")
    back = build(corpus, db)
    assert (back.cached, back.paragraphs_kept) == (2, 0)  # b.txt, and c.txt as the first build made it
    assert second(db) == "2. Celui qui gagne le temps marque deux points."
    assert_same_database(db, _afresh(corpus, tmp_path / "b"))


PAINTED = {
    "a.txt": "1. Le roi de cœur est peint de rouge, et le valet de pique est peint de noir.\n\n"
             "2. La dame de carreau est peint de bleu, et l'as de trèfle est peint de vert au milieu de la carte.\n\n"
             "3. Le joueur qui a le point marque deux jetons, et celui qui a l'atout joue le premier. "
             "Le joueur qui fait la levée prend les cartes.\n",
    "b.txt": "1. Au reversis, celui qui fait le moins de levées gagne la partie; le point se compte à la fin, "
             "et le point le plus haut gagne, car un point de plus fait la partie. 2. Le quinola est le valet de "
             "coeur, et chaque point vaut un jeton; le point double au dernier tour, et le point du quinola vaut "
             "deux. Le dernier point se marque, et le point perdu se paye.\n",
}


@pytest.mark.slow  # four builds of two short chapters, and one afresh
def test_a_paragraph_that_read_the_chapter_s_own_counts_is_cleaned_again_with_its_chapter(tmp_path):
    """'peint', printed four times in a.txt against one 'point', is the chapter's own word
    (``[context] chapter_word_count``): kept, though the engine alone would read the
    game's 'point' (the book prints it nine times). a.txt's third paragraph edited to
    print 'point' thrice: no count the book reads moves ('point' 9 → 11, one bucket;
    the pairs new, printed twice, are not counted), but the chapter's own do, and its
    second paragraph, unchanged, read them: it is cleaned again, its 'peint' now the
    engine's to change. Taken as it was, it would keep 'peint': not the database built afresh."""
    import sqlite3

    corpus = _written(tmp_path, PAINTED)
    db = tmp_path / "out" / "academie.db"

    def second(path: Path) -> str:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT text_clean FROM passages WHERE text_raw LIKE '2. La dame%'").fetchone()[0]

    build(corpus, db)
    assert second(db) == "2. La dame de carreau est peint de bleu, et l'as de trèfle est peint de vert au milieu de la carte."
    # an edit that moves none of the chapter's counts its first two paragraphs read: both kept
    _edit(corpus / "a.txt", "celui qui a l'atout joue", "celui qui a l'atout  joue")
    assert build(corpus, db).paragraphs_kept == 2
    _edit(corpus / "a.txt", "le point marque deux", "le point point point marque deux")
    again = build(corpus, db)
    # b.txt from the cache; of a.txt's paragraphs, the two that read its counts and the one edited cleaned again
    assert (again.cached, again.paragraphs_kept) == (1, 0)
    assert second(db) == "2. La dame de carreau est point de bleu, et l'as de trèfle est point de vert au milieu de la carte."
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))
    # what a chapter read of its own counts holds while its text does: another chapter's
    # edit that moves no count leaves it in the cache
    _edit(corpus / "b.txt", "se paye.", "se  paye.")
    assert build(corpus, db).cached == 1


@pytest.mark.slow  # two builds of three short chapters, and one afresh
def test_past_the_limit_of_reads_kept_a_chapter_cleaned_again_is_cleaned_whole(tmp_path, monkeypatch):
    """The edit of the test above, with no reads of the book to spare for paragraphs
    kept (``KNOWN_READS_LIMIT``): a.txt is cleaned whole, and the database is the same."""
    import pipeline.build

    corpus = _written(tmp_path, PARAGRAPHS)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    monkeypatch.setattr(pipeline.build, "KNOWN_READS_LIMIT", 0)
    _edit(corpus / "c.txt", "reçoit", "tempz")
    again = build(corpus, db)
    assert (again.cached, again.paragraphs_kept) == (1, 0)
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


@pytest.mark.slow  # two builds of three short chapters, and one afresh
def test_an_edit_early_in_a_chapter_leaves_the_later_paragraphs_as_cleaned(tmp_path):
    """A space added in a.txt's first paragraph moves its second and third by one
    character of the raw text: they are taken as cleaned before all the same, their
    corrections' raw offsets moved with them ('tempz' → 'temps' now at 99, not 98: the raw
    text's offsets)."""
    import sqlite3

    corpus = _written(tmp_path, PARAGRAPHS)
    db = tmp_path / "out" / "academie.db"

    def tempz(path: Path) -> tuple:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT start, \"end\", before, after FROM corrections WHERE before = 'tempz'").fetchone()

    build(corpus, db)
    assert tempz(db) == (98, 103, "tempz", "temps")
    _edit(corpus / "a.txt", "écarte cinq", "écarte  cinq")
    again = build(corpus, db)
    assert (again.cached, again.paragraphs_kept) == (2, 2)  # b.txt and c.txt; a.txt's second and third paragraphs
    assert tempz(db) == (99, 104, "tempz", "temps")
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


def test_prune_keeps_the_live_entries_and_the_last_written_others_within_their_size(tmp_path):
    """Live: the entries of each book last built (of any pipeline: corpora may share the
    folder) and the last save of each chapter file a book has. The others are kept
    newest first while they fit in the live entries' bytes (315 here); the rest go, but
    never one written after the build began; a pointer to the last save of a file no
    book has goes with its entry."""
    import json
    import os

    store = ChapterCache(tmp_path, "v")
    now = 1_000_000.0

    def entry(key: str, size: int, mtime: float, suffix: str = ".chapter") -> None:
        path = tmp_path / key[:2] / f"{key}{suffix}"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"x" * size)
        os.utime(path, (mtime, mtime))

    (tmp_path / "book-1.json").write_text(json.dumps({"version": "v", "entries": {"a.txt": "k1", "b.txt": "k2"}}))
    (tmp_path / "book-2.json").write_text(json.dumps({"version": "w", "entries": {"a.txt": "k4"}}))
    (tmp_path / "book-3.json").write_text("not a mark")
    (tmp_path / "latest").mkdir()

    def pointer(source_file: str, text: str) -> Path:
        path = store._latest_path(source_file)
        path.write_text(text)
        os.utime(path, (now - 60, now - 60))
        return path

    pointer("a.txt", "v k3")
    pointer("b.txt", "w k5")
    gone = pointer("gone.txt", "v k6")  # a chapter file since removed from its book
    entry("k1", 100, now - 50)
    entry("k2", 100, now - 50)
    entry("k2", 50, now - 50, ".paragraphs")
    entry("k3", 50, now - 50)
    entry("k4", 5, now - 90)
    entry("k5", 10, now - 90)
    entry("n1", 10, now + 5)  # written during the build: kept, and counted
    entry("o1", 150, now - 10)
    entry("o1", 50, now - 10, ".paragraphs")
    entry("o2", 90, now - 20)
    entry("o3", 20, now - 30)  # 15 bytes of room left: it goes …
    entry("k6", 30, now - 35)  # … and the older with it: the removed file's last save …
    entry("o4", 1, now - 40)  # … and this one

    assert store.prune(set(), now) == (3, 51)
    left = sorted(p.name for p in tmp_path.glob("??/*"))
    assert left == ["k1.chapter", "k2.chapter", "k2.paragraphs", "k3.chapter", "k4.chapter", "k5.chapter",
                    "n1.chapter", "o1.chapter", "o1.paragraphs", "o2.chapter"]
    assert not gone.exists() and store._latest_path("b.txt").exists()
    # that book's entries no longer live, nor b.txt's last save (no book has it now), what
    # the build itself took is: 145 bytes of room, n1 (10) fits, o1 (200) does not, and
    # k2, k1 and k5, older, go with it, and b.txt's pointer with k5
    (tmp_path / "book-1.json").unlink()
    assert store.prune({"o2"}, now + 10) == (4, 460)
    assert sorted(p.stem for p in tmp_path.glob("??/*.chapter")) == ["k3", "k4", "n1", "o2"]
    assert [p.name for p in (tmp_path / "latest").iterdir()] == [store._latest_path("a.txt").name]


@pytest.mark.slow  # four builds of three short chapters
def test_a_change_of_the_pipeline_leaves_the_cache_within_twice_what_the_book_uses(tmp_path, monkeypatch):
    """Three versions of the pipeline built in turn: the first's entries go when the
    third's are written, the second's stay (as many bytes as the live ones), and a
    build of the second again takes every chapter from the cache."""
    corpus = _written(tmp_path, PARAGRAPHS)
    db = tmp_path / "out" / "academie.db"
    cache = db.parent / "cache"
    for version in ("v1", "v2", "v3"):
        monkeypatch.setattr(pipeline_build, "pipeline_version", lambda res, v=version: v)
        report = build(corpus, db, res=Resources(corpus))
        assert report.cached == 0
    assert report.pruned == 3
    assert report.pruned_bytes > 0
    assert len(list(cache.glob("*/*.chapter"))) == 6
    monkeypatch.setattr(pipeline_build, "pipeline_version", lambda res: "v2")
    assert build(corpus, db, res=Resources(corpus)).cached == 3
    # another corpus built into the same folder by another pipeline (a corpus's games
    # list is part of the version): this book's entries are its last build's, and stay
    (tmp_path / "o").mkdir()
    other = _written(tmp_path / "o", {"d.txt": BOOK["b.txt"]})
    monkeypatch.setattr(pipeline_build, "pipeline_version", lambda res: "w")
    assert build(other, tmp_path / "other.db", res=Resources(other), cache=cache).pruned == 0
    assert len(list(cache.glob("*/*.chapter"))) == 7  # v2's, v3's, and d.txt's
    monkeypatch.setattr(pipeline_build, "pipeline_version", lambda res: "v2")
    assert build(corpus, db, res=Resources(corpus)).cached == 3


# two chapters of one book (their export headers name it), a third of another: each prints
# four words that are words only with their f read as an s, too few to tell alone
_PLAIN_F = ("Le fils fait un effort pour offrir des fleurs à sa femme, sans faute. Il faut enfin finir la partie, "
            "et la fortune favorise le joueur qui fait son effort au profit de ses affaires.\n")
_SOME_LONG_S = "Le joueur met sa carte fous la figure; c'est une chofe prefque sûre, et il conferve son avantage.\n"


_OTHER_LONG_S = "La femme reste feule au jeu; elle a le fein plein de cartes, foit qu'elle gagne aufli bien.\n"


def _chapter(book: str, n: int, long_s: str) -> str:
    return f"‹ {book}Chapitre {n} sur 2 · PIQUET · texte numérisé non relu\n\n{_PLAIN_F}{long_s}"


LONG_S_BOOK = {"a.txt": _chapter("Traité des jeux de cartes", 1, _SOME_LONG_S),
               "b.txt": _chapter("Traité des jeux de cartes", 2, _OTHER_LONG_S),
               "c.txt": _chapter("Nouveau traité du piquet", 1, _SOME_LONG_S)}


def _clean_texts(db: Path) -> dict[str, str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT c.source_file, p.text_clean FROM passages p JOIN chapters c ON c.id = p.chapter_id "
                            "ORDER BY c.source_file, p.seq").fetchall()
    out: dict[str, str] = {}
    for name, text in rows:
        out[name] = out.get(name, "") + text + "\n"
    return out


@pytest.mark.slow  # two builds of three short chapters, and one afresh
def test_a_book_s_chapters_pool_their_long_s_evidence(tmp_path):
    """A chapter printed with the long s, which its OCR read as an f only now and then,
    holds too few words that are words only with an s to tell alone (four: six are
    asked); its book's chapters, those whose export header names the same edition,
    together hold enough (eight), and each is read as a long-s printing ('fous la
    figure' → 'sous la figure'); a chapter of another book, alone, is not. What the
    chapter read of its book's printing is recorded: the other chapter's edit that
    takes its words away makes its book no long-s printing, and the chapter is cleaned
    again, as a build made afresh cleans it."""
    from pipeline.clean.book import LONG_S_BOOKS

    corpus = _written(tmp_path, LONG_S_BOOK)
    db = tmp_path / "out" / "academie.db"
    build(corpus, db)
    clean = _clean_texts(db)
    assert "met sa carte sous la figure; c'est une chose presque sûre, et il conserve" in clean["a.txt"]
    assert "reste seule au jeu; elle a le sein plein de cartes, soit qu'elle gagne aussi bien" in clean["b.txt"]
    assert "met sa carte fous la figure" in clean["c.txt"] and "chofe prefque" in clean["c.txt"]
    read = _evidence(db)
    assert all(LONG_S_BOOKS in read[n] for n in ("a.txt", "b.txt", "c.txt"))
    # (what a.txt read of the book's counts, b.txt's edit below leaves as it was)
    assert not {"feule", "seule", "fein", "sein", "foit", "soit", "aufli", "aussi"} & read["a.txt"]["clean.counts"]

    _edit(corpus / "b.txt", "feule au jeu; elle a le fein plein de cartes, foit qu'elle gagne aufli",
          "seule au jeu; elle a le sein plein de cartes, soit qu'elle gagne aussi")
    again = build(corpus, db)
    assert again.cached == 1  # c.txt: a.txt read that its book was a long-s printing, and it is no more
    assert "met sa carte fous la figure" in _clean_texts(db)["a.txt"]
    assert_same_database(db, _afresh(corpus, tmp_path / "a"))


def test_a_book_memo_keeps_one_object_for_each_pair_read_and_counts_every_read():
    """A decision's reads as a book's memo keeps them (``memos.BookMemo.kept``): a pair
    read by two decisions, each made a tuple of its own, is kept as one object; a word,
    one object already (the index's, the tokens' memo), is kept as read; every read is
    counted against ``READS_LIMIT``."""
    from pipeline.memos import BookMemo
    from pipeline.resources import Noted

    memo = BookMemo(())
    word = "".join(["car", "te"])  # (a string of its own, as a read word is)
    first = memo.kept(Noted(1, (("clean.counts", (word, "roi")), ("pairs", (("la", "carte"),))), (), None))
    second = memo.kept(Noted(2, (("pairs", (("la", "carte"), ("de", "roi"))),), (), None))
    assert first.reads[1][1][0] is second.reads[0][1][0]  # the pair, one object
    assert first.reads[0][1][0] is word  # the word, as read
    assert memo.reads == 5
