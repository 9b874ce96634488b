"""`--golden FILE` and `--update`: reading and writing a file that may come from a stranger.

A golden file sits in a repository, so a pull request decides what it is. It may be a symlink
to /proc/self/environ (the CI job's secrets, printed in the diff), to ../../.ssh/id_rsa, or a
FIFO that blocks the job. So, unless --golden-allow-outside:

* the path must not be a symlink, and must resolve inside the working directory's tree;
* it is opened without following a symlink (O_NOFOLLOW, no race between check and open) and
  without blocking (O_NONBLOCK), and only a regular file is read -- never a FIFO, a device or
  a directory, whose content would then be printed as a diff;
* `--update` writes a temporary file in the same directory and renames it over FILE: a crash,
  Ctrl-C or SIGTERM never leaves half a file, concurrent updates leave one complete file, and
  the file keeps its mode (a 0600 golden file stays 0600).
"""

from __future__ import annotations

import os
import stat
import tempfile

MAX_GOLDEN_BYTES = 256 * 1024 * 1024


class GoldenError(Exception):
    """A usage error about --golden FILE (exit status 2)."""


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def check_path(path: str, allow_outside: bool) -> None:
    """Refuse a symlink, or a path outside the working directory's tree."""
    if allow_outside:
        return
    try:
        if os.path.islink(path):
            raise GoldenError(f"--golden {path}: is a symlink; refused (give the file itself, or "
                              "--golden-allow-outside)")
        here = os.path.realpath(os.getcwd())
        target = os.path.realpath(path)
    except OSError as exc:
        raise GoldenError(f"--golden {path}: {_reason(exc)}") from None
    if os.path.commonpath([here, target]) != here:
        raise GoldenError(f"--golden {path}: resolves outside the working directory "
                          f"({target}); refused (give --golden-allow-outside to allow it)")


def read(path: str, allow_outside: bool) -> str:
    check_path(path, allow_outside)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not allow_outside:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise GoldenError(f"--golden {path}: no such file (create it with --update)") from None
    except OSError as exc:
        if os.path.islink(path):
            raise GoldenError(f"--golden {path}: is a symlink; refused") from None
        raise GoldenError(f"--golden {path}: {_reason(exc)}") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise GoldenError(f"--golden {path}: not a regular file")
        if st.st_size > MAX_GOLDEN_BYTES:
            raise GoldenError(f"--golden {path}: larger than {MAX_GOLDEN_BYTES} bytes")
        try:
            data = fh.read(MAX_GOLDEN_BYTES + 1)
        except OSError as exc:
            raise GoldenError(f"--golden {path}: {_reason(exc)}") from None
    if len(data) > MAX_GOLDEN_BYTES:
        raise GoldenError(f"--golden {path}: larger than {MAX_GOLDEN_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise GoldenError(f"--golden {path}: not UTF-8 text") from None


def write(path: str, text: str, allow_outside: bool) -> None:
    """Atomically replace (or create) FILE with `text`, keeping an existing file's mode."""
    check_path(path, allow_outside)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise GoldenError(f"--golden {path}: directory {directory} does not exist")
    mode = _mode_to_keep(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".dractl-golden-", dir=directory)
    except OSError as exc:
        raise GoldenError(f"--golden {path}: {_reason(exc)}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:  # Ctrl-C and SIGTERM included: no temporary file stays
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise GoldenError(f"--golden {path}: {_reason(exc)}") from None
        raise


def _mode_to_keep(path: str) -> int:
    """The existing file's permission bits; a new file gets 0666 minus the umask, as any file
    created by `>` would. An existing non-regular file is refused (never replaced)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
    except OSError as exc:
        raise GoldenError(f"--golden {path}: {_reason(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise GoldenError(f"--golden {path}: not a regular file")
    return stat.S_IMODE(st.st_mode)
