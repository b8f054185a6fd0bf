"""Rules encoded by hand, each linked to its article by @encodes("<citation>").

An encoded rule replaces the generated stub of its article (rules.status =
'encoded'). Its scenario cases, in the spirit of OpenFisca's YAML tests, are in
cases/<game>.yaml: a table, an actor, the event's kind (in the vocabulary the
rule's docstring gives: '9/9' tricks taken of played, '2 stronger, not shown',
'fault C' …), the effects expected, none where nothing happens; tests/test_rules.py
runs every case through the built database's stub of the article. A rule given an
event it cannot read raises ValueError naming its citation and its vocabulary.
"""

from . import hombre, quinze, whist  # noqa: F401  (importing registers the rules)
