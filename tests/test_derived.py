"""What is derived at start-up is kept on disk, and a damaged entry is derived again."""

from pipeline import derived
from pipeline.clean.correct import CandidateIndex, ChannelModel, _kept_index
from pipeline.lexicon import Lexicon


def test_an_entry_is_derived_once_then_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("ACADEMIE_CACHE", str(tmp_path))
    calls = []
    make = lambda: calls.append(1) or {"carte": [1.5, "b"]}  # noqa: E731
    assert derived.cached("thing", "k1", make) == {"carte": [1.5, "b"]}
    assert derived.cached("thing", "k1", make) == {"carte": [1.5, "b"]}
    assert calls == [1]
    derived.cached("thing", "k2", make)  # another key: derived again
    assert calls == [1, 1]


def test_a_damaged_or_foreign_entry_is_derived_again_never_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("ACADEMIE_CACHE", str(tmp_path))
    derived.save("thing", "k", {"carte": 2.0})
    [path] = tmp_path.glob("thing-k.marshal")
    data = path.read_bytes()
    for damaged in (data[:-3], data[:-1] + bytes([data[-1] ^ 1]), b"", data.replace(b"\nk\n", b"\nj\n", 1),
                    b"academie derived 0\n" + data[len(derived.FORMAT):]):
        path.write_bytes(damaged)
        assert derived.load("thing", "k") is None
        assert derived.cached("thing", "k", lambda: {"carte": 3.0}) == {"carte": 3.0}
        assert derived.load("thing", "k") == {"carte": 3.0}  # written again, whole
    assert not list(tmp_path.glob(".*tmp*"))


def test_the_candidate_index_from_the_disk_is_the_index_made_afresh(tmp_path, monkeypatch):
    monkeypatch.setenv("ACADEMIE_CACHE", str(tmp_path))
    base = Lexicon.default()
    lexicon = Lexicon({"carte": 1e-4, "cartes": 5e-5, "double": 2e-5, "bande": 1e-5}, {
        "period": {"rewrites": [], "words": []}, "hyphens": {"prefixes": [], "suffixes": [], "always": [], "linking": [], "compounds": []}},
        identity="made-up")
    assert base.identity is not None
    model = ChannelModel.default()
    fresh = CandidateIndex(dict(lexicon.candidate_words()).items(), model)
    made, read = _kept_index(lexicon, model), _kept_index(lexicon, model)
    assert len(list(tmp_path.glob("candidate-index-*.marshal"))) == 1
    for index in (made, read):
        assert (index.zipf, index.exact, index.deletes, index.bucket_max) == (
            fresh.zipf, fresh.exact, fresh.deletes, fresh.bucket_max)
        assert index.candidates("carles") == fresh.candidates("carles") == {"carte", "cartes"}
