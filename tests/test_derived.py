"""What is derived at start-up is kept on disk, and a damaged entry is derived again."""

import os

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
        "period": {"rewrites": [], "words": [], "modern_min_zipf": 3.5}, "hyphens": {"prefixes": [], "prefix_word_zipf": 3.0, "suffixes": [], "always": [], "after_pronouns": [], "pronouns": [], "linking": [], "compounds": []}},
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


def test_the_folder_keeps_the_last_used_entries_of_each_name(tmp_path, monkeypatch):
    """Each venv or copy of the project names its own entries: the folder keeps the
    last ``KEEP`` used of each name, a hit marking its entry used, and no other name's."""
    monkeypatch.setenv("ACADEMIE_CACHE", str(tmp_path))
    for k, key in enumerate(["k1", "k2", "k3"]):
        derived.save("thing", key, {"carte": float(k)})
        os.utime(tmp_path / f"thing-{key}.marshal", ns=(10**18 + k, 10**18 + k))  # used in that order
    derived.save("thing-other", "k0", {"as": 1.0})  # another name (its own, though it starts as this one's)
    assert derived.load("thing", "k1") == {"carte": 0.0}  # the oldest used again: now the last used
    derived.save("thing", "k4", {"carte": 4.0})
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "thing-k1.marshal", "thing-k3.marshal", "thing-k4.marshal", "thing-other-k0.marshal"]
    assert derived.cached("thing", "k2", lambda: {"carte": 2.5}) == {"carte": 2.5}  # removed: derived again


def test_what_a_dead_process_was_writing_is_removed_and_a_live_one_s_is_not(tmp_path, monkeypatch):
    monkeypatch.setenv("ACADEMIE_CACHE", str(tmp_path))
    dead = 2**22 + 17  # above Linux's default pid_max: no such process
    (tmp_path / f".thing-k9.marshal.tmp-{dead}").write_bytes(b"half")
    (tmp_path / f".littre-bigrams-ab.npz.tmp-{dead}").write_bytes(b"half")
    live = tmp_path / f".thing-k8.marshal.tmp-{os.getpid()}"
    live.write_bytes(b"being written")
    derived.save("thing", "k1", {"carte": 1.0})
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f".littre-bigrams-ab.npz.tmp-{dead}", live.name, "thing-k1.marshal"]  # (another name's: left to its own)
    assert [p.name for p in derived.prune("littre-bigrams", ".npz")] == [f".littre-bigrams-ab.npz.tmp-{dead}"]
