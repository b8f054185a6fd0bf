-- The public database contract of Académie (build/academie.db).
-- Users query these tables and columns by name: change them only with a migration note.
-- Migration notes:
-- * chapters.passages, articles, first_page, last_page added: what the reading room's
--   home page lists of each chapter, counted once at build time rather than at each
--   request (a library has thousands of chapters); nothing changed or removed.
-- * index passages_game_order added: a citation's page finds the articles before and
--   after it in its game without reading the game's others; nothing changed or removed.
-- * table chapter_games and index chapters_listing added: the games of each chapter with
--   their counts, and the chapters' list, as the reading room's home page lists them,
--   read without going through every passage or every chapter's raw text; nothing
--   changed or removed.
-- Offsets (raw_start, raw_end, start, end) are character offsets into chapters.raw_text.

CREATE TABLE editions (
    id TEXT PRIMARY KEY,            -- short id used in citations: 'aduj'
    title TEXT NOT NULL,
    year INTEGER,                   -- year of the printing, if known
    source TEXT,                    -- where the text comes from
    chapter_count INTEGER           -- chapters in the whole book, if known
);

CREATE TABLE chapters (
    id INTEGER PRIMARY KEY,
    edition_id TEXT NOT NULL REFERENCES editions(id),
    source_file TEXT NOT NULL UNIQUE,   -- the file name in corpus/
    number INTEGER,                     -- chapter number, from the export header
    total INTEGER,                      -- chapters in the book, from the header
    title TEXT,                         -- the header's heading field
    sha256 TEXT NOT NULL,               -- of the file's bytes (a folder's files in page order)
    raw_text TEXT NOT NULL,             -- the text as read (decoded, \n newlines, NFC)
    encoding TEXT NOT NULL,
    edition_source TEXT NOT NULL,       -- how the edition was known: header, manifest, unknown
    layout_form TEXT NOT NULL,          -- blank-separated, line-per-paragraph, wrapped, run-on, alto
    citation_key TEXT NOT NULL,         -- names the chapter in citations of passages with no game
    note TEXT,                          -- the manifest's note on the file
    passages INTEGER NOT NULL,          -- the chapter's passages
    articles INTEGER NOT NULL,          -- of them, numbered articles
    first_page INTEGER,                 -- the lowest printed page a passage of it starts on (NULL: none known)
    last_page INTEGER                   -- the highest
);
CREATE INDEX chapters_edition ON chapters(edition_id, id);
-- the columns the home page lists: a chapter's row holds its raw text before them
CREATE INDEX chapters_listing ON chapters(id, edition_id, number, title, source_file, passages, articles,
                                          first_page, last_page);

CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    chapter_id INTEGER NOT NULL REFERENCES chapters(id),
    seq INTEGER NOT NULL,               -- 0, 1, 2 … within the chapter
    number INTEGER,                     -- the printed page number (NULL if unknown)
    number_raw TEXT,                    -- the number as OCR'd: '3o3'
    number_status TEXT,                 -- read, decoded, inferred
    running_head TEXT,                  -- the head line as printed (NULL if the head was lost)
    head_game TEXT REFERENCES games(slug),
    raw_start INTEGER NOT NULL,         -- where the page starts in raw_text
    head_end INTEGER,                   -- where its head line ends
    status TEXT NOT NULL DEFAULT 'not proofread'  -- not proofread, problematic, proofread, validated: an editor's mark (corpus/proofs/)
);

CREATE TABLE games (
    slug TEXT PRIMARY KEY,              -- 'whist', 'tre-sette', 'trente-et-quarante'
    name TEXT NOT NULL
);

CREATE TABLE passages (
    id INTEGER PRIMARY KEY,
    citation TEXT NOT NULL UNIQUE,      -- 'aduj:whist.13', stable across rebuilds
    chapter_id INTEGER NOT NULL REFERENCES chapters(id),
    seq INTEGER NOT NULL,               -- reading order within the chapter
    game TEXT REFERENCES games(slug),
    kind TEXT NOT NULL CHECK (kind IN ('heading', 'section', 'paragraph', 'article', 'gloss', 'footnote')),
    number INTEGER,                     -- decoded article number (articles), section number (numbered sections)
    number_raw TEXT,                    -- the number as OCR'd: 'i3'
    page INTEGER,                       -- printed page where the passage starts
    text_raw TEXT NOT NULL,             -- raw_text[raw_start:raw_end]
    text_clean TEXT NOT NULL,           -- the reading text, corrected
    text_search TEXT NOT NULL,          -- text_clean folded for search, with modern spellings and suggestions
    raw_start INTEGER NOT NULL,
    raw_end INTEGER NOT NULL,
    term TEXT,                          -- glossary entries: the term defined
    note_for TEXT REFERENCES passages(citation),  -- footnotes: the passage that calls them
    alto_first TEXT,                    -- ALTO chapters: the ID of the passage's first String
    alto_last TEXT,                     -- … and of its last; NULL for text chapters
    status TEXT NOT NULL DEFAULT 'not proofread'  -- an editor's mark of the passage (corpus/proofs/)
);
CREATE INDEX passages_game_number ON passages(game, number);
CREATE INDEX passages_game_order ON passages(game, kind, chapter_id, seq);  -- an article's neighbours in its game
CREATE INDEX passages_chapter_seq ON passages(chapter_id, seq);
CREATE INDEX passages_note_for ON passages(note_for);

-- Each chapter's games, counted once at build time from its passages.
CREATE TABLE chapter_games (
    chapter_id INTEGER NOT NULL REFERENCES chapters(id),
    game TEXT NOT NULL REFERENCES games(slug),
    first_seq INTEGER NOT NULL,         -- passages.seq of the game's first passage in the chapter
    passages INTEGER NOT NULL,          -- the chapter's passages of the game
    articles INTEGER NOT NULL,          -- of them, numbered articles
    PRIMARY KEY (chapter_id, first_seq)
);

CREATE TABLE fixes (
    name TEXT PRIMARY KEY,              -- 'clean.real_word': the stage that applies it, then what it does
    stage TEXT NOT NULL,                -- layout, clean, segment
    kind TEXT NOT NULL,                 -- layout, typography, spelling, number, proof
    explanation TEXT NOT NULL           -- one sentence, with an example
);

CREATE TABLE corrections (
    id INTEGER PRIMARY KEY,
    passage_id INTEGER NOT NULL REFERENCES passages(id),
    start INTEGER NOT NULL,             -- span in chapters.raw_text
    "end" INTEGER NOT NULL,
    before TEXT NOT NULL,               -- raw_text[start:end]
    after TEXT NOT NULL,                -- what the clean text has instead
    fix TEXT NOT NULL,                  -- the fix(es) that made the edit, joined by '+': names of fixes
    kind TEXT NOT NULL,                 -- layout, typography, spelling, number, proof: fixes.kind of the last fix not of kind layout
    confidence REAL NOT NULL,
    clean_start INTEGER NOT NULL,       -- span of `after` in passages.text_clean
    clean_end INTEGER NOT NULL
);
CREATE INDEX corrections_passage ON corrections(passage_id);
CREATE INDEX corrections_kind ON corrections(kind);

CREATE TABLE suggestions (
    id INTEGER PRIMARY KEY,
    passage_id INTEGER NOT NULL REFERENCES passages(id),
    start INTEGER NOT NULL,             -- span of the word in chapters.raw_text
    "end" INTEGER NOT NULL,
    before TEXT NOT NULL,               -- the word as printed (and kept in text_clean)
    suggestion TEXT NOT NULL,           -- what the correction engine thinks it may be
    fix TEXT NOT NULL REFERENCES fixes(name),  -- the fix it would have been
    confidence REAL NOT NULL            -- below the threshold of the fix, hence not applied
);
CREATE INDEX suggestions_passage ON suggestions(passage_id);

CREATE TABLE furniture (
    id INTEGER PRIMARY KEY,
    chapter_id INTEGER NOT NULL REFERENCES chapters(id),
    kind TEXT NOT NULL,                 -- export_header, running_head, export_footer; ALTO: page_number, quire_mark, margin_note, stamp
    raw_start INTEGER NOT NULL,
    raw_end INTEGER NOT NULL,
    text TEXT NOT NULL
);

CREATE TABLE build_log (
    id INTEGER PRIMARY KEY,
    source_file TEXT NOT NULL,
    level TEXT NOT NULL,                -- error, warning, info
    message TEXT NOT NULL
);

CREATE TABLE rules (
    passage_id INTEGER PRIMARY KEY REFERENCES passages(id),
    citation TEXT NOT NULL UNIQUE REFERENCES passages(citation),
    modality TEXT NOT NULL CHECK (modality IN ('obligation', 'prohibition', 'permission', 'penalty', 'scoring', 'definition', 'procedure')),
    bearer TEXT,                        -- the role the rule binds: dealer, player, partner, adversaries …
    condition TEXT,                     -- the clause that triggers it
    consequences TEXT NOT NULL,         -- JSON list of effects: kind, amount, unit, to, start, end
    spans TEXT NOT NULL,                -- JSON: part → [start, end] in passages.text_clean
    confidence REAL NOT NULL,
    missing TEXT,                       -- what keeps the stub from a real body
    stub_module TEXT NOT NULL,          -- academie_rules.aduj.whist
    stub_function TEXT NOT NULL,        -- art_13
    stub_source TEXT NOT NULL,          -- the function's Python source
    status TEXT NOT NULL CHECK (status IN ('generated', 'stub', 'encoded'))
);

CREATE TABLE checks (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,                 -- the check, module:function in the corpus's checks/ (whist:triple_at_four)
    game TEXT REFERENCES games(slug),
    citation TEXT REFERENCES passages(citation),  -- the passage whose figure is checked; NULL if no passage has the citation the check names
    claim TEXT NOT NULL,
    text_says TEXT,                     -- JSON: the figure read from the passage's clean text; NULL if the check could not run
    code_says TEXT,                     -- JSON: the figure the check's code computes; NULL if the check could not run
    agrees INTEGER,                     -- 1 if they agree, 0 if not, NULL if the check could not run
    note TEXT,
    error TEXT                          -- why the check could not run (also in build_log); NULL if it ran
);
CREATE INDEX checks_citation ON checks(citation);
