"""Where the chapter stages run: here, in local processes (``-j N``), or on a Dask
cluster (``--engine dask``). Every engine is given the chapters as ingest read them
and the resources as ``Resources.for_workers`` ships them, and yields each chapter's
result packed as its cache entry holds it (``cache.Packed``: packed where it was made),
in any order; the database is written by the caller, once."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Callable, Iterator

from .records import InputError, RawChapter
from .resources import Resources

if TYPE_CHECKING:
    from .cache import Packed

ENGINES = ("local", "dask")

_WORKER_RES: list[Resources] = []
# the local Dask cluster's configuration (its workers receive it from their nannies):
# each of a worker's periodic callbacks wakes its event loop, which takes the GIL from
# the chapter being processed; those that only watch the worker (its statistical
# profiler, sampling the chapter's stacks every 10 ms; the loop's own watch every 20 ms;
# the memory and system monitors) made a chapter's work a fifth slower than in -j
LOCAL_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "2s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "2s",
}


def run_chapters(raws: list[RawChapter], res: Resources, jobs: int = 1, engine: str = "local",
                 scheduler: str | None = None, progress: Callable[[str], None] | None = None) -> Iterator[Packed]:
    if engine not in ENGINES:
        raise InputError(engine, f"no such engine: {', '.join(ENGINES)}")
    if not raws:
        return
    if engine == "dask":
        results = _dask(raws, res, jobs, scheduler)
    elif jobs > 1 and len(raws) > 1:
        results = _processes(raws, res, jobs)
    else:
        results = (packed_chapter(raw, res) for raw in raws)
    for result in results:
        if progress:
            progress(result.source_file)
        yield result


def packed_chapter(raw: RawChapter, res: Resources) -> Packed:
    """``build.work_chapter``, its result packed: what a worker sends back."""
    from .build import work_chapter
    from .cache import pack

    return pack(work_chapter(raw, res))


def _processes(raws: list[RawChapter], res: Resources, jobs: int) -> Iterator[Packed]:
    # each process loads the lexicon and the model once, for all the chapters it is given
    with ProcessPoolExecutor(max_workers=min(jobs, len(raws)), initializer=_keep,
                             initargs=(res.for_workers([r.source_file for r in raws]),)) as pool:
        yield from pool.map(_work, raws, chunksize=1)


def _keep(res: Resources) -> None:
    _WORKER_RES[:] = [res]


def _work(raw: RawChapter) -> Packed:
    return packed_chapter(raw, _WORKER_RES[0])


def _dask(raws: list[RawChapter], res: Resources, jobs: int, scheduler: str | None) -> Iterator[Packed]:
    try:
        import dask
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise InputError("--engine dask", "Dask is not installed: pip install 'academie[dask]'") from None

    cluster = None
    if scheduler is None:
        # a cluster of this machine only: its scheduler and workers listen on 127.0.0.1
        with dask.config.set(LOCAL_CONFIG):
            cluster = LocalCluster(n_workers=max(jobs, 1), threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None)
    try:
        with Client(cluster if cluster is not None else scheduler) as client:
            # sent once to every worker, which keeps it (and what it loads) for all its chapters
            shared = client.scatter(res.for_workers([r.source_file for r in raws]), broadcast=True)
            futures = client.map(packed_chapter, raws, res=shared, pure=False)
            done = as_completed(futures, with_results=True)
            # a result stays on its worker while a future of it is held: the list held every
            # one to the end, and a worker's memory grew with the chapters it had processed
            # (1.55 GB for a worker of the ten-book library, against 0.8 GB for all in one process)
            del futures
            for _, result in done:
                yield result
    finally:
        if cluster is not None:
            cluster.close()
