"""SQL the command line and the reading room share, so that a passage means the same
row wherever it is read."""

# A passage with what locates it: chapter, edition and game names.
PASSAGE_SQL = """
SELECT p.*, c.source_file, c.number AS chapter_number, c.edition_id, e.title AS edition_title,
       g.name AS game_name
FROM passages p
JOIN chapters c ON c.id = p.chapter_id
JOIN editions e ON e.id = c.edition_id
LEFT JOIN games g ON g.slug = p.game
"""
