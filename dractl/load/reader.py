"""Turn command-line paths into (display name, bytes) sources, safely.

Directories are walked recursively in sorted order; symlinked directories are followed once
(loops are detected by device and inode). Special files are never opened, so a FIFO cannot
block and /dev/zero cannot fill memory. Every problem becomes a LoadProblem, never an exception.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from typing import BinaryIO, Iterator

from dractl.load.limits import DEFAULT_LIMITS, Limits

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Source:
    name: str           # as shown to the user (relative path as given, or "<stdin>")
    data: bytes


@dataclass
class LoadProblem:
    name: str
    code: str
    message: str
    usage: bool = False  # True: an unusable command-line argument (exit status 2)


def iter_sources(paths: list[str], limits: Limits = DEFAULT_LIMITS,
                 stdin: BinaryIO | None = None) -> Iterator[Source | LoadProblem]:
    seen_dirs: set[tuple[int, int]] = set()
    seen_files: set[str] = set()
    for arg in paths:
        if arg == "-":
            stream = stdin if stdin is not None else getattr(sys.stdin, "buffer", sys.stdin)
            if stream is None:  # `dractl validate - <&-`
                yield LoadProblem("<stdin>", "DRA0012", "standard input is closed", usage=True)
                continue
            yield _read_stream("<stdin>", stream, limits)
            continue
        try:
            st = os.stat(arg)
        except FileNotFoundError:
            yield LoadProblem(arg, "DRA0012", "no such file or directory", usage=True)
            continue
        except OSError as exc:
            yield LoadProblem(arg, "DRA0012", _os_message(exc), usage=True)
            continue
        if stat.S_ISDIR(st.st_mode):
            yield from _walk(arg, limits, seen_dirs, seen_files)
        elif stat.S_ISREG(st.st_mode):
            if arg not in seen_files:
                seen_files.add(arg)
                yield _read_file(arg, st, limits, explicit=True)
        else:
            # Named on the command line, so the user meant it to be read: an unreadable path
            # (DRA0012, exit status 2), not DRA0013's warning for special files met while
            # walking a directory. Never opened: a FIFO would block, /dev/zero never ends.
            yield LoadProblem(arg, "DRA0012", f"not a regular file or directory ({_kind_of(st)}); "
                              "dractl reads only files, directories and - (standard input)",
                              usage=True)


def _walk(root: str, limits: Limits, seen_dirs: set, seen_files: set) -> Iterator[Source | LoadProblem]:
    # Iterative depth-first walk; each directory's entries sorted by name for determinism.
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            st = os.stat(directory)
        except OSError as exc:
            yield LoadProblem(directory, "DRA0012", _os_message(exc))
            continue
        ident = (st.st_dev, st.st_ino)
        if ident in seen_dirs:
            if os.path.islink(directory):
                yield LoadProblem(directory, "DRA0013",
                                  "symbolic link to a directory already read (loop or duplicate); skipped")
            continue
        seen_dirs.add(ident)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield LoadProblem(directory, "DRA0012", _os_message(exc))
            continue
        subdirs = []
        for entry in entries:
            # `dractl validate .` names files `bad.yaml`, not `./bad.yaml`: every format (and
            # SARIF's normalised URIs) then shows the same name.
            path = entry.name if directory in (".", "./") else os.path.join(directory, entry.name)
            try:
                est = os.stat(path)
            except OSError as exc:
                if entry.is_symlink():
                    yield LoadProblem(path, "DRA0013", "broken symbolic link; skipped")
                else:
                    yield LoadProblem(path, "DRA0012", _os_message(exc))
                continue
            if stat.S_ISDIR(est.st_mode):
                if not entry.name.startswith("."):
                    subdirs.append(path)
            elif stat.S_ISREG(est.st_mode) and entry.name.endswith(MANIFEST_SUFFIXES) \
                    and not entry.name.startswith("."):
                # Dot-files (.gitlab-ci.yml, .pre-commit-config.yaml, ...) are tool configuration,
                # not manifests; like dot-directories they are read only when named explicitly.
                if path not in seen_files:
                    seen_files.add(path)
                    yield _read_file(path, est, limits, explicit=False)
            elif entry.name.endswith(MANIFEST_SUFFIXES) and not stat.S_ISREG(est.st_mode):
                # never opened (a FIFO would block), but not skipped silently either
                yield LoadProblem(path, "DRA0013", f"not a regular file ({_kind_of(est)}); skipped")
        stack.extend(reversed(subdirs))


def _read_file(path: str, st: os.stat_result, limits: Limits, explicit: bool) -> Source | LoadProblem:
    if st.st_size > limits.max_file_bytes:
        return LoadProblem(path, "DRA0009", f"file is {st.st_size} bytes, over the limit of "
                           f"{limits.max_file_bytes} bytes (--max-file-size); not read")
    try:
        with open(path, "rb") as fh:
            data = fh.read(limits.max_file_bytes + 1)
    except OSError as exc:
        return LoadProblem(path, "DRA0012", _os_message(exc), usage=explicit)
    if len(data) > limits.max_file_bytes:  # grew while we looked
        return LoadProblem(path, "DRA0009", f"file is over the limit of {limits.max_file_bytes} "
                           "bytes (--max-file-size); not read")
    return Source(path, data)


def _read_stream(name: str, stream: BinaryIO, limits: Limits) -> Source | LoadProblem:
    try:
        data = stream.read(limits.max_file_bytes + 1)
    except OSError as exc:
        return LoadProblem(name, "DRA0012", _os_message(exc), usage=True)
    if data is None:
        data = b""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > limits.max_file_bytes:
        return LoadProblem(name, "DRA0009", f"input is over the limit of {limits.max_file_bytes} "
                           "bytes (--max-file-size); not read")
    return Source(name, data)


def _kind_of(st: os.stat_result) -> str:
    mode = st.st_mode
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _os_message(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower() if exc.strerror else str(exc)
