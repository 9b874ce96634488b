"""The per-file stage of a run: load + validate many files, in this process or in a process
pool (the executor choice), with identical output either way.

The per-file work (parse, schema, API-server rules) runs on chunks of consecutive files, in this
process or in worker processes; cross-object reference checks need every document, so they run
here afterwards. Chunks are merged in input order and the findings sorted exactly as the serial
pipeline sorts them, so `--jobs 1` and `--jobs N` print the same bytes.

The per-chunk call is the ordinary pipeline (`load_items` + `validate_documents(refs=False)`),
and the unusable-document decision is `validate.pipeline.makes_unusable`, so nothing here
decides what is valid.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
import time
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Iterable

from dractl.api.versions import FeatureGates
from dractl.findings import Finding
from dractl.load.document import Document
from dractl.load.limits import Limits
from dractl.load.loader import load_items
from dractl.load.reader import Source
from dractl.pipeline.notmanifests import NotRead
from dractl.pipeline.result import DocInfo
from dractl.pipeline.sources import select_sources
from dractl.validate.pipeline import (
    NO_INVENTORY,
    InventoryPolicy,
    Validated,
    record,
    validate_documents,
)

# Below this many files, worker processes cost more than they save.
PARALLEL_MIN_FILES = 200
# ... or when splitting the files over the workers takes at least this much YAML/JSON off the
# longest share (one big inventory file cannot be split: its parse would only be shipped back).
PARALLEL_MIN_SAVED_BYTES = 1024 * 1024
# Files per chunk when running in this process: small, so the progress bar moves smoothly.
SERIAL_CHUNK = 16
# Show a progress bar only for runs that take longer than this (seconds).
PROGRESS_AFTER = 1.0


@dataclass
class Run:
    """Everything later stages need: the merged loader and validator results."""

    validated: Validated
    docs: list[DocInfo] = field(default_factory=list)   # every document read, in input order
    usage_errors: list[str] = field(default_factory=list)
    io_errors: int = 0
    files: int = 0
    documents_read: int = 0
    not_read: NotRead | None = None   # files the default excludes left out


@dataclass
class _ChunkResult:
    findings: list[Finding]
    documents: list[Document]        # validated documents (known kinds), input order
    invalid: list[int]               # indexes into documents with errors
    invalid_codes: list[tuple]       # for each of those, the codes that made it unusable
    docs: list[DocInfo]
    usage_errors: list[str]
    io_errors: int
    files: int
    documents_read: int
    skipped: dict = None             # kind -> documents of kinds that are not DRA's
    suppressions: object = None      # the chunk's inline suppressions, or None


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def validate_paths(paths: list[str], *, limits: Limits, gates: FeatureGates,
                   ignore: Iterable[str] = (), jobs: int | None = None,
                   exclude: Callable[[str], bool] | None = None,
                   extra_ignore: Callable[[str], frozenset] | None = None,
                   explicit_excluded: bool = False, progress: bool = False,
                   aliases: dict[str, str] | None = None, stdin: BinaryIO | None = None,
                   kinds=None, inventory: InventoryPolicy = NO_INVENTORY,
                   while_waiting: Callable[[], None] | None = None,
                   default_exclude: bool = False) -> Run:
    """Load and validate `paths` (like load_paths + validate_documents, plus excludes).

    exclude(name): skip a file found by walking a directory (and, with explicit_excluded, a file
    named on the command line too). extra_ignore(name): codes dropped for that file only.
    aliases: names to show instead of some paths (builtin:NAME for a built-in inventory).
    while_waiting(): work for this process while worker processes run the per-file stage
    (importing what the later stages need); not called when everything runs here.
    default_exclude: leave out what is not a manifest (dractl.pipeline.notmanifests) like
    `exclude`, counted in Run.not_read.
    """
    # Loading builds millions of objects and almost no reference cycles (decoded YAML is made
    # of trees): the collector would scan them over and over for nothing (~0.1 s of a 2 s run).
    # It is paused while loading. In the `dractl` process (SHORT_LIVED) it stays off: what was
    # loaded lives until exit (gc.freeze), and the dry run that follows makes no cyclic garbage
    # worth collecting either (20,000 pods: the same peak memory with the collector off, 5.5 s
    # instead of 6.6 s). A long-lived caller (tests, a library user) gets its collector back.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _validate_paths(paths, limits=limits, gates=gates, ignore=ignore, jobs=jobs,
                               exclude=exclude, extra_ignore=extra_ignore,
                               explicit_excluded=explicit_excluded, progress=progress,
                               aliases=aliases, stdin=stdin, kinds=kinds, inventory=inventory,
                               while_waiting=while_waiting, default_exclude=default_exclude)
    finally:
        if collecting:
            if _short_lived():
                gc.freeze()
            else:
                gc.enable()


def _short_lived() -> bool:
    # Set by the console script on dractl.cli (this process exits when the command is done).
    # Read through sys.modules: a library caller that never loaded the CLI is long-lived.
    return bool(getattr(sys.modules.get("dractl.cli"), "SHORT_LIVED", False))


def _validate_paths(paths: list[str], *, limits: Limits, gates: FeatureGates,
                    ignore: Iterable[str], jobs: int | None,
                    exclude: Callable[[str], bool] | None,
                    extra_ignore: Callable[[str], frozenset] | None,
                    explicit_excluded: bool, progress: bool,
                    aliases: dict[str, str] | None, stdin: BinaryIO | None, kinds=None,
                    inventory: InventoryPolicy = NO_INVENTORY,
                    while_waiting: Callable[[], None] | None = None,
                    default_exclude: bool = False) -> Run:
    ignore = frozenset(ignore)
    not_read = NotRead() if default_exclude else None
    items = select_sources(paths, limits, stdin=stdin, exclude=exclude,
                           explicit_excluded=explicit_excluded, aliases=aliases, not_read=not_read)
    run = _validate_items(items, limits, gates, ignore, jobs, extra_ignore, progress, kinds,
                          inventory, while_waiting)
    run.not_read = not_read if not_read is not None and not_read.counts else None
    return run


def _validate_items(items, limits: Limits, gates: FeatureGates, ignore: frozenset,
                    jobs: int | None, extra_ignore, progress: bool, kinds,
                    inventory: InventoryPolicy, while_waiting) -> Run:
    def ignore_for(name: str) -> frozenset:
        return ignore | extra_ignore(name) if extra_ignore is not None else ignore

    explicit = bool(jobs and jobs >= 1)
    jobs = jobs if explicit else default_jobs()
    processes = use_processes(items, jobs) and (explicit or cores_are_free(jobs))
    size = _parallel_chunk_size(len(items), jobs) if processes else SERIAL_CHUNK
    chunks = list(_chunks(items, size, ignore_for))
    bar = _Progress(_count_files(items), enabled=progress)
    if not processes:
        return _in_this_process(chunks, limits, gates, ignore_for, bar, kinds, inventory)
    return _in_processes(chunks, limits, gates, ignore_for, bar, jobs, kinds, inventory,
                         while_waiting)


def use_processes(items: list, jobs: int) -> bool:
    """The executor choice: worker processes only when they shorten the run (enough files, or
    enough bytes to take off the longest share); the output is the same either way."""
    if jobs <= 1:
        return False
    sizes = [len(i.data) for i in items if isinstance(i, Source)]
    return len(sizes) >= PARALLEL_MIN_FILES or _bytes_saved(sizes, jobs) >= PARALLEL_MIN_SAVED_BYTES


# With the default --jobs, worker processes are used only while the machine has cores to spare:
# they cost more CPU than one process (a fork, results pickled back, each worker's own schema
# and CEL caches), which pays only when they really run side by side. On 2 cores, 10,000
# documents: 2.98 s with workers against 2.37 s without at a load average of 2.05; 1.73 s
# against ~2.4 s at 1.27. --jobs N is always obeyed.
BUSY_MARGIN = 0.5
LOADAVG_FILE = "/proc/loadavg"


def cores_are_free(jobs: int) -> bool:
    """Whether the other work running right now leaves room for `jobs` processes (fewer than
    jobs - 0.5 others); True where that cannot be read."""
    others = _others_running()
    return True if others is None else others < jobs - BUSY_MARGIN


def _others_running() -> float | None:
    """Runnable tasks other than this one at this moment (Linux /proc/loadavg, 4th field), else
    the one-minute load average. The instant count first: the load average lags by a minute and
    counts dractl's own previous run (a CI step or benchmark running dractl back to back would
    see its own workers as other work and stop using them)."""
    try:
        with open(LOADAVG_FILE, "rb") as f:
            return max(0, int(f.read().split()[3].split(b"/")[0]) - 1)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _in_this_process(chunks, limits: Limits, gates: FeatureGates, ignore_for,
                     bar: "_Progress", kinds=None,
                     inventory: InventoryPolicy = NO_INVENTORY) -> Run:
    try:
        results = []
        for chunk_items, chunk_ignore in chunks:
            results.append(_check_chunk(chunk_items, limits, gates, chunk_ignore, kinds, inventory))
            bar.advance(_count_files(chunk_items))
    finally:
        bar.stop()
    return _merge(results, gates, ignore_for, _locate_here, inventory)


def _in_processes(chunks, limits: Limits, gates: FeatureGates, ignore_for, bar: "_Progress",
                  jobs: int, kinds=None, inventory: InventoryPolicy = NO_INVENTORY,
                  while_waiting: Callable[[], None] | None = None) -> Run:
    _import_per_file_stage()
    # This process checks chunks too, so one worker fewer than jobs (at least one).
    pool = _make_pool(max(1, min(jobs - 1, len(chunks) - 1)))

    def wait_usefully() -> None:
        # The workers have been forked: what is imported now is this process's own (the
        # reference checks', the caller's next stages'), done while the workers parse.
        import dractl.validate.envlints  # noqa: F401
        import dractl.validate.refs  # noqa: F401
        if while_waiting is not None:
            while_waiting()

    try:
        try:
            results = _run_parallel(chunks, limits, gates, pool, bar, kinds, inventory,
                                    wait_usefully)
        finally:
            bar.stop()
        return _merge(results, gates, ignore_for, lambda pairs: _locate_in_pool(pairs, pool, jobs),
                      inventory)
    except BaseException:
        if pool is not None:
            _end_workers(pool)
            pool = None
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True)


def _import_per_file_stage() -> None:
    """Import what every chunk's validation needs before the workers are forked: they inherit
    it instead of each importing it again (~0.1 s apiece, most of a small chunk's time), and this
    process needs it after them anyway."""
    import dractl.extensions  # noqa: F401
    import dractl.validate.rules  # noqa: F401
    import dractl.validate.schema  # noqa: F401
    import dractl.validate.typesafe  # noqa: F401


def _parallel_chunk_size(n_items: int, jobs: int) -> int:
    """About 8 chunks per worker for balance, at least 4 files each -- but never fewer chunks
    than workers when there are enough files (two big files go to two workers)."""
    return min(max(4, -(-n_items // (jobs * 8))), max(1, -(-n_items // jobs)))


def _bytes_saved(sizes: list[int], jobs: int) -> int:
    """Bytes the longest worker share is shorter than doing everything here (a lower bound on
    the share: the biggest file, or an even split)."""
    total = sum(sizes)
    return total - max(max(sizes, default=0), total // jobs)


def _chunks(items, size: int, ignore_for):
    """Consecutive runs of at most `size` items that share one ignore set."""
    current: list = []
    current_ignore = None
    for item in items:
        item_ignore = ignore_for(item.name)
        if current and (len(current) >= size or item_ignore != current_ignore):
            yield current, current_ignore
            current = []
        current_ignore = item_ignore
        current.append(item)
    if current:
        yield current, current_ignore


def _count_files(items) -> int:
    return sum(1 for i in items if isinstance(i, Source))


def _check_chunk(items, limits: Limits, gates: FeatureGates, ignore: frozenset,
                 kinds=None, inventory: InventoryPolicy = NO_INVENTORY) -> _ChunkResult:
    load = load_items(items, limits)
    suppressions = scan_suppressions(items, load.documents)
    validated = validate_documents(load, gates, ignore=ignore, refs=False, kinds=kinds, inventory=inventory,
                                   suppressions=suppressions)
    invalid = [i for i, d in enumerate(validated.documents) if id(d) in validated.invalid]
    return _ChunkResult(
        findings=validated.findings,
        documents=validated.documents,
        invalid=invalid,
        invalid_codes=[validated.invalid.codes.get(id(validated.documents[i]), ()) for i in invalid],
        docs=[DocInfo.of(d, validated.skipped_docs.get(id(d), "")) for d in load.documents],
        usage_errors=load.usage_errors, io_errors=load.io_errors, files=load.files,
        documents_read=load.documents_read, skipped=validated.skipped, suppressions=suppressions)


def scan_suppressions(items, documents: list[Document]):
    """The inline suppressions of the chunk's files (dractl.validate.suppress); None when no
    file mentions dractl, which a byte search tells."""
    if not any(isinstance(i, Source) and b"dractl" in i.data for i in items):
        return None
    from dractl.validate.suppress import Suppressions, scan

    by_file: dict[str, list[Document]] = {}
    for d in documents:
        by_file.setdefault(d.file, []).append(d)
    found = Suppressions()
    for item in items:
        if isinstance(item, Source):
            found.extend(scan(item.name, item.data, by_file.get(item.name, [])))
    return found


def _worker_init() -> None:
    import signal

    # Ctrl-C is handled once, by the parent; workers must not print tracebacks of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()


def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when the parent dies, however it dies (SIGKILL
    included), so no worker is ever left behind holding the parent's stdout and stderr."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, 9)
        if os.getppid() == 1:  # the parent died before the call: do not outlive it
            os._exit(1)
    except (OSError, AttributeError, ImportError):
        pass  # not Linux: the parent's own cleanup (_end_workers) still applies


def _end_workers(pool) -> None:
    """Stop a pool now (Ctrl-C, SIGTERM, the deadline, an error): cancel what has not started
    and kill the workers, which may be in the middle of a chunk or blocked writing a result to
    a pipe nobody reads any more. Waits for them, so no process outlives the run."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    try:
        pool.shutdown(wait=False, cancel_futures=True)
    except Exception:  # noqa: BLE001 - best effort on the way out
        pass
    for process in processes:
        try:
            process.kill()
        except (OSError, ValueError, AttributeError):
            pass
    for process in processes:
        try:
            process.join(timeout=2)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass


def _check_chunk_in_worker(items, limits, gates, ignore, kinds=None,
                           inventory=NO_INVENTORY) -> _ChunkResult:
    # PositionIndex pickles without its caches (its __getstate__), so results stay small.
    return _check_chunk(items, limits, gates, ignore, kinds, inventory)


def _make_pool(workers: int):
    from concurrent.futures import ProcessPoolExecutor

    try:
        return ProcessPoolExecutor(max_workers=max(1, workers), initializer=_worker_init)
    except (OSError, ImportError, NotImplementedError, ValueError):
        return None  # no process support here (e.g. no /dev/shm): everything runs in this process


_POOL_BROKEN = (OSError, EOFError, MemoryError, RuntimeError)


def _run_parallel(chunks, limits, gates, pool, bar: "_Progress", kinds=None,
                  inventory: InventoryPolicy = NO_INVENTORY,
                  while_waiting: Callable[[], None] | None = None) -> list[_ChunkResult]:
    """Every chunk's result, in input order: the workers take chunks from the front, this
    process from the back (a chunk checked here is not pickled and shipped back: 0.16 s of the
    5,000-pod run's 1.5 MB workload file), and whatever a broken pool left undone runs here."""
    results: list[_ChunkResult | None] = [None] * len(chunks)

    def check_here(i: int) -> None:
        items, chunk_ignore = chunks[i]
        results[i] = _check_chunk(items, limits, gates, chunk_ignore, kinds, inventory)
        bar.advance(_count_files(items))

    def submit(i: int):
        items, chunk_ignore = chunks[i]
        return pool.submit(_check_chunk_in_worker, items, limits, gates, chunk_ignore, kinds,
                           inventory)

    def received(i: int, result: _ChunkResult | None) -> None:
        results[i] = result
        if result is not None:
            bar.advance(_count_files(chunks[i][0]))

    if pool is not None:
        workers = max(1, getattr(pool, "_max_workers", 1))
        _share_with_workers(len(chunks), workers, submit, check_here, received, bar,
                            while_waiting)
    for i, result in enumerate(results):
        if result is None:
            check_here(i)
    return results  # type: ignore[return-value]


# Chunks handed to each worker ahead: one running, one waiting, so a worker never idles while
# this process is busy with a chunk of its own.
_AHEAD_PER_WORKER = 2


def _share_with_workers(count: int, workers: int, submit, check_here, received, bar: "_Progress",
                        while_waiting: Callable[[], None] | None) -> None:
    """Chunks 0..count-1: submit(i) hands one to the workers (front first), check_here(i) checks
    one in this process (back first), received(i, result or None) takes a worker's result (None:
    the worker died, the chunk is redone later). Stops submitting when the pool breaks."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    front, back = 0, count           # chunks front..back-1 are not started yet
    futures: dict = {}
    submitting = True

    def collect(done) -> None:
        for future in done:
            i = futures.pop(future)
            try:
                received(i, future.result())
            except (BrokenProcessPool, *_POOL_BROKEN):
                received(i, None)

    def hand_out() -> None:
        nonlocal front, submitting
        # Keep the workers supplied, but leave the last chunk for this process.
        while submitting and len(futures) < workers * _AHEAD_PER_WORKER and back - front > 1:
            try:
                futures[submit(front)] = front
            except (BrokenProcessPool, *_POOL_BROKEN):
                submitting = False  # whatever is not submitted runs here
                return
            front += 1

    hand_out()
    if while_waiting is not None:
        while_waiting()
    while front < back or futures:
        collect([f for f in futures if f.done()])
        hand_out()
        if front < back:
            back -= 1
            check_here(back)
        elif futures:
            done, _ = wait(set(futures), timeout=0.1, return_when=FIRST_COMPLETED)
            collect(done)
            bar.tick()


def _locate_here(pairs: list[tuple[Document, tuple]]) -> list[tuple[int, int]]:
    # Per document, all paths at once: a big document is then read once, from its events,
    # instead of being composed into nodes (dractl.load.positions.locate_many).
    by_doc: dict[int, list[int]] = {}
    for i, (doc, _) in enumerate(pairs):
        by_doc.setdefault(id(doc), []).append(i)
    out: list = [None] * len(pairs)
    for indexes in by_doc.values():
        doc = pairs[indexes[0]][0]
        for i, place in zip(indexes, doc.locate_many([pairs[i][1] for i in indexes]), strict=True):
            out[i] = place
    return out


def _locate_in_worker(pairs: list[tuple[Document, tuple]]) -> list[tuple[int, int]]:
    return _locate_here(pairs)


def _locate_in_pool(pairs: list[tuple[Document, tuple]], pool, jobs: int) -> list[tuple[int, int]]:
    """Source positions of reference findings, composed in the workers: finding positions means
    parsing each affected file again, the costliest part of the reference step."""
    from concurrent.futures.process import BrokenProcessPool

    if pool is None or len(pairs) < 64:
        return _locate_here(pairs)
    # Group by file segment (one PositionIndex), then deal the groups out in batches. Documents
    # travel without their data: locating needs only positions, index and prefix.
    groups: dict[int, list[int]] = {}
    for i, (doc, _) in enumerate(pairs):
        groups.setdefault(id(doc.positions), []).append(i)
    batches: list[list[int]] = [[] for _ in range(max(1, min(len(groups), jobs * 4)))]
    for n, indexes in enumerate(groups.values()):
        batches[n % len(batches)].extend(indexes)
    light: dict[int, Document] = {}

    def lightweight(doc: Document) -> Document:
        found = light.get(id(doc))
        if found is None:
            found = light[id(doc)] = dataclasses.replace(doc, data={})
        return found

    out: list[tuple[int, int] | None] = [None] * len(pairs)
    try:
        futures = [(batch, pool.submit(_locate_in_worker,
                                       [(lightweight(pairs[i][0]), pairs[i][1]) for i in batch]))
                   for batch in batches if batch]
        for batch, future in futures:
            for i, position in zip(batch, future.result(), strict=True):
                out[i] = position
    except (BrokenProcessPool, *_POOL_BROKEN):
        pass
    return [p if p is not None else pairs[i][0].locate(pairs[i][1]) for i, p in enumerate(out)]


def _merge(results: list[_ChunkResult], gates: FeatureGates, ignore_for, locate,
           inventory: InventoryPolicy = NO_INVENTORY) -> Run:
    out = Validated()
    run = Run(validated=out)
    if any(r.suppressions is not None for r in results):
        from dractl.validate.suppress import Suppressions

        out.suppressions = Suppressions()
        for r in results:
            out.suppressions.extend(r.suppressions)
    for r in results:
        base = len(out.documents)
        out.documents.extend(r.documents)
        for i, codes in zip(r.invalid, r.invalid_codes, strict=True):
            for code in codes:
                out.invalid.mark(id(out.documents[base + i]), code)
        out.findings.extend(r.findings)
        for kind, count in (r.skipped or {}).items():
            out.skipped[kind] = out.skipped.get(kind, 0) + count
        run.docs.extend(r.docs)
        run.usage_errors.extend(r.usage_errors)
        run.io_errors += r.io_errors
        run.files += r.files
        run.documents_read += r.documents_read
    out.files, out.documents_read = run.files, run.documents_read
    _check_references(out, gates, ignore_for, locate, inventory)
    out.findings.sort(key=Finding.sort_key)
    return run


def _check_references(out: Validated, gates: FeatureGates, ignore_for, locate,
                      inventory: InventoryPolicy) -> None:
    from dractl.validate.pipeline import cross_document_findings

    if not out.documents:
        return
    pairs = cross_document_findings(out.documents, gates)
    kept = [(out.documents[index], f) for index, f in pairs
            if f.code not in ignore_for(out.documents[index].file)]
    positions = locate([(doc, f.path) for doc, f in kept])
    for (doc, f), (line, column) in zip(kept, positions, strict=True):
        record(out, doc, f, line, column, inventory)


class _Progress:
    """A transient rich progress bar on stderr, shown only once a run has taken a while."""

    def __init__(self, total: int, enabled: bool, label: str = "validating", unit: str = "files"):
        self.total = total
        self.label, self.unit = label, unit
        self.enabled = enabled and total > 0 and _stderr_is_terminal()
        self.start = time.monotonic()
        self.done = 0
        self._bar = None
        self._task = None

    def advance(self, n: int) -> None:
        self.done += n
        self.tick()

    def tick(self) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            if self.done >= self.total or time.monotonic() - self.start < PROGRESS_AFTER:
                return
            self._start()
        self._bar.update(self._task, completed=self.done)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        # The bar's own terminal escapes go to the real stderr, not through the CLI's sanitiser.
        stream = getattr(sys.stderr, "raw_stream", sys.stderr)
        console = Console(file=stream, highlight=False, markup=False, emoji=False)
        self._bar = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(),
                             TextColumn(self.unit), TimeElapsedColumn(), console=console,
                             transient=True)
        self._task = self._bar.add_task(self.label, total=self.total, completed=self.done)
        self._bar.start()

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def _stderr_is_terminal() -> bool:
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
