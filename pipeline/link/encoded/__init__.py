"""Rules encoded by hand, each linked to its article by @encodes("<citation>").

An encoded rule replaces the generated stub of its article (rules.status =
'encoded'). Its scenario cases, in the spirit of OpenFisca's YAML tests, are in
cases/<game>.yaml: a table, an actor, the effects expected; tests/test_rules.py
runs every case through the built database's stub of the article.
"""

from . import hombre, quinze, whist  # noqa: F401  (importing registers the rules)
