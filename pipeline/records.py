"""The typed records that flow from one stage of the pipeline to the next.

ingest → ``RawChapter`` → layout → ``Layout`` → clean → ``Layout`` (blocks with
clean edits) → segment → ``Segmented``, per chapter; then, for the whole corpus,
``BuiltChapter`` (with citations) → link → publish. Each stage is a pure function of
the record before it (and of read-only resources: the games catalogue, the lexicon),
so a stage can be tested alone and chapters processed in parallel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .text import MappedText

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Diagnostic:
    """One line of the build log, always naming the file it is about."""

    file: str
    level: Level
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.level}: {self.message}"


class InputError(Exception):
    """A chapter file the pipeline cannot read; the message is one line naming the file."""

    def __init__(self, file: str, reason: str):
        super().__init__(f"{file}: {reason}")
        self.file = file
        self.reason = reason


@dataclass(frozen=True)
class AltoWord:
    """An ALTO ``String``: one word, or a whole line in some exports."""

    id: str | None
    start: int  # raw span of its CONTENT
    end: int
    confidence: float | None  # how sure the OCR was of it (0–1), from WC and CC; None if the file does not say
    whole: str | None = None  # SUBS_CONTENT: the whole word a hyphenated part belongs to


@dataclass(frozen=True)
class AltoLine:
    id: str | None
    start: int
    end: int
    hpos: float | None  # left edge, in the file's units
    height: float | None
    words: tuple[AltoWord, ...]


@dataclass(frozen=True)
class AltoBlock:
    id: str | None
    zone: str | None  # what the file says the block is: a SegmOnto zone type ('MainZone'), or a margin ('TopMargin')
    lines: tuple[AltoLine, ...]


@dataclass(frozen=True)
class AltoPage:
    id: str | None
    file: str  # the ALTO file the page comes from
    blocks: tuple[AltoBlock, ...]

    @property
    def lines(self) -> list[AltoLine]:
        return [line for b in self.blocks for line in b.lines]


@dataclass(frozen=True)
class AltoChapter:
    """The structure an ALTO chapter's file(s) give: pages, blocks, lines and words,
    each with its raw span."""

    pages: tuple[AltoPage, ...]
    tagged: bool  # the blocks carry zone types (SegmOnto tags)

    def words(self) -> list[AltoWord]:
        return [w for p in self.pages for line in p.lines for w in line.words]


@dataclass(frozen=True)
class RawChapter:
    source_file: str  # the file name in corpus/ (a folder's name for per-page ALTO files)
    text: str  # decoded, newlines as \n, Unicode NFC: the text every offset refers to
    sha256: str  # of the file's bytes (of a folder's files, in page order), so the file itself can be checked
    encoding: str  # 'utf-8', 'utf-8-sig' or 'cp1252'
    size: int  # bytes
    diagnostics: tuple[Diagnostic, ...] = ()
    alto: AltoChapter | None = None  # what an ALTO chapter's XML says of its pages, lines and words


@dataclass(frozen=True)
class Header:
    """The export's header line: '‹ <edition>Chapitre N sur M · <heading> · <note>'."""

    edition_title: str
    number: int
    total: int
    heading: str
    note: str
    start: int
    end: int


@dataclass(frozen=True)
class Page:
    """A printed page: where it starts in the raw text and what its head says."""

    seq: int  # 0, 1, 2 … in the chapter
    start: int  # raw offset where the page's content (or its head) begins
    number: int | None  # the printed page number, decoded or inferred from the sequence
    number_raw: str | None  # the number as the OCR read it
    number_status: str | None  # 'read' (printed digits), 'decoded' (glyphs read as digits), 'inferred' (from the sequence); None if unknown
    running_head: str | None  # the head line as printed, None for a page whose head was lost
    head_title: str | None  # the head without its number ('TRE', 'B O S')
    head_game: str | None  # the game the head names, if it names exactly one
    head_end: int | None = None
    status: str = "not proofread"  # as on Wikisource: not proofread, problematic, proofread, validated (corpus/proofs/)


def page_at(pages: tuple[Page, ...] | list[Page], offset: int) -> int:
    """The seq of the page a raw offset falls on: the last page starting at or before
    it (the first page, seq 0, if none does)."""
    seq = 0
    for p in pages:
        if p.start <= offset:
            seq = p.seq
        else:
            break
    return seq


@dataclass(frozen=True)
class Furniture:
    """Raw text that is not reading text: export header and footer, running heads."""

    kind: str  # 'export_header', 'running_head', 'export_footer'
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Block:
    """A paragraph of reading text, joined across line and page breaks."""

    text: MappedText
    page_seq: int  # the page where it starts
    footnote: int | None = None  # the note's number, for a footnote
    suggestions: tuple = ()  # clean.Suggestion: fixes the corrector proposed below its threshold


@dataclass(frozen=True)
class Layout:
    chapter: RawChapter
    header: Header | None
    pages: tuple[Page, ...]
    furniture: tuple[Furniture, ...]
    blocks: tuple[Block, ...]
    form: str  # 'blank-separated', 'line-per-paragraph', 'wrapped', 'run-on' or 'alto' (lines and pages from the XML)
    pagination: str = "running heads"  # 'running heads', 'running heads inside the text', 'page numbers alone on a line', 'page numbers inside the text', 'form feeds', 'no pages' or (ALTO) 'pages from the XML'
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def shape(self) -> str:
        """The export's shape, as the build summary names it: 'wrapped, form feeds'."""
        return f"{self.form}, {self.pagination}"

    def page_at(self, offset: int) -> int:
        return page_at(self.pages, offset)


PassageKind = Literal["heading", "section", "paragraph", "article", "gloss", "footnote"]


@dataclass(frozen=True)
class Passage:
    seq: int
    kind: PassageKind
    text: MappedText  # the clean text, mapped to raw
    page_seq: int
    page: int | None
    game: str | None
    number: int | None = None  # articles (and numbered sections)
    number_raw: str | None = None
    term: str | None = None  # glossary entries
    note: int | None = None  # footnotes: the note's number
    note_for: int | None = None  # footnotes: seq of the passage that calls them
    suggestions: tuple = ()  # clean.Suggestion: fixes the corrector proposed below its threshold
    status: str = "not proofread"  # an editor's mark of the passage (corpus/proofs/)


@dataclass(frozen=True)
class Game:
    slug: str
    name: str


@dataclass(frozen=True)
class Segmented:
    layout: Layout
    passages: tuple[Passage, ...]
    games: tuple[Game, ...]  # the games of the chapter, in order of appearance
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class Edition:
    id: str
    title: str
    year: int | None = None
    source: str | None = None
    header_title: str | None = None
    chapters: int | None = None


@dataclass(frozen=True)
class ChapterInfo:
    """What the manifest and the header say about a chapter file."""

    source_file: str
    edition_id: str
    edition_source: str  # 'header', 'manifest' or 'unknown'
    number: int | None
    total: int | None
    title: str | None
    key: str  # the chapter's name in citations of passages with no game: 'ch102'
    note: str | None = None


@dataclass(frozen=True)
class BuiltChapter:
    """A segmented chapter with its attribution and the citations of its passages
    (given once every chapter is segmented, so that they never depend on file order)."""

    info: ChapterInfo
    seg: Segmented
    citations: list[str]


@dataclass(frozen=True)
class CheckRecord:
    """One of the corpus's checks (pipeline.link.checks), run on the passage it cites."""

    name: str  # the check, module:function in the corpus's checks/ ('game:some_check')
    citation: str | None  # the passage checked; None if the citation names no passage
    game: str | None  # the passage's game
    claim: str  # what is checked, in words
    text_says: object = None  # the figure read from the passage's clean text (JSON-able)
    code_says: object = None  # the figure the check's code computes
    agrees: bool | None = None  # None if the check could not be run
    note: str | None = None  # the editor's note: how a disagreement is explained
    error: str | None = None  # why the check could not be run (also a build warning)


@dataclass
class BuildReport:
    chapters: int = 0
    games: int = 0
    articles: int = 0
    passages: int = 0
    corrections: dict[str, int] = field(default_factory=dict)  # kind of fix (pipeline.fixes.KINDS) → corrections
    rules: int = 0  # articles (and normative paragraphs) linked to a rule stub
    published: bool = False  # the database was written (not when no chapter could be read)
    decisions: int = 0  # an editor's decisions applied (corpus/proofs/): readings, checks, statuses
    checks: int = 0  # the corpus's checks that ran
    disagreements: int = 0  # of them, those where the text and the code disagree
    shapes: dict[str, str] = field(default_factory=dict)  # chapter file → the shape its export was read as (Layout.shape)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    cached: int = 0  # chapters taken from the build's cache
    paragraphs_kept: int = 0  # of the chapters processed, paragraphs taken as the last build cleaned them
    up_to_date: bool = False  # every chapter from the cache, and the database already this build's: not written again
    pruned: int = 0  # old entries the build removed from its cache (``ChapterCache.prune``)
    pruned_bytes: int = 0  # … their size
    spacy: tuple[str, ...] | None = None  # the model's components loaded besides its tokenizer; None: not loaded
    times: dict[str, float] = field(default_factory=dict)  # stage → seconds (pipeline.build.StageTimes)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.level == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.level == "warning"]
