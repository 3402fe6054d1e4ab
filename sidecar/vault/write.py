"""The one writer of files in the vault: every write a compare-and-swap against the bytes it was
planned from.

A file is replaced atomically (temp file in the same folder, fsync, exchanged with the old file,
mode and extended attributes kept) and never when it changed since it was read, nor over another
writer's save landing meanwhile, in place or by rename, nor while a program holds the old file open
for writing, where leases tell (`_swap`; the leases are `held_open.py`'s); a file with other hard
links is written in place instead (a rename would detach it from them), its old bytes kept in a
hidden copy beside it until the new ones are on disk. New notes are linked into place, never over
a file. What a write keeps goes where the note would be trashed (`trash_place.py`); its temporary
copies' names, and the sweep of those a killed write left, are `temp_files.py`'s; moves to the
trash and undos, checked the same way, are `trash.py`'s. What goes into a note's frontmatter is
`frontmatter_edit.py`'s; `edit.py` puts the two together.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import NoReturn

from sidecar.errors import Conflict, NoteNotWritable, NotFound
from sidecar.vault.held_open import (
    fd_hash,
    lease_kept,
    leases_tell,
    let_go,
    read_lease,
    untouched,
)
from sidecar.vault.scan import READ_FLAGS, normalise_rel, read_regular, vault_path
from sidecar.vault.scan import content_hash as content_hash  # the writer's token, named here
from sidecar.vault.temp_files import hidden_name, sweep_beside
from sidecar.vault.trash_place import Trash


def read_bytes(path: Path, rel: str) -> bytes:
    try:
        return read_regular(path)
    except FileNotFoundError as exc:
        raise NotFound(f"no note at {rel}") from exc


def check_not_empty(data: bytes, rel: str) -> None:
    """Conflict for an empty note: most often an editor between its truncate and its write, so
    nothing planned from it may be written."""
    if not data.strip():
        raise Conflict(f"{rel} is empty (perhaps it is being saved); nothing was written")


def check_writable(path: Path, rel: str) -> os.stat_result:
    """NoteNotWritable for a read-only note: its owner took write permission away on purpose.
    Conflict when it is gone: it was read a moment ago, so it was removed (or is being saved
    by delete-and-create) since, as a changed file is. Its stat otherwise."""
    try:
        st = path.stat()
    except FileNotFoundError as exc:
        raise Conflict(f"{rel} was removed since it was read (perhaps it is being saved); "
                       "nothing was written: reload it and try again") from exc
    if not st.st_mode & stat.S_IWUSR:
        raise NoteNotWritable(f"{rel} is read-only; make it writable (chmod u+w) for Ora to "
                              "edit it")
    return st


def not_writable(rel: str, exc: OSError) -> NoteNotWritable:
    return NoteNotWritable(f"{rel} cannot be written ({exc.strerror}): the note or its folder "
                           "is read-only or immutable (chattr -i / chflags nouchg)")


def _refuse_long_name(rel: str, exc: OSError) -> None:
    """NoteNotWritable for a name the filesystem refuses as too long (ENAMETOOLONG: one whose
    limit is under NAME_MAX, as eCryptfs's): that note is refused, the others written. Any
    other error (a full disk) the caller raises as it is, for it stops the whole run."""
    if exc.errno == errno.ENAMETOOLONG:
        raise NoteNotWritable(f"{rel} cannot be written: its name is too long for this "
                              "filesystem to make a temporary copy beside it; shorten the "
                              "name") from exc


def check_hash(data: bytes, expected_hash: str | None, rel: str) -> str:
    actual = content_hash(data)
    if expected_hash is not None and actual != expected_hash:
        raise Conflict(f"{rel} changed since it was read; reload it and try again")
    return actual


def fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some filesystems cannot fsync a directory
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def hash_of(path: Path) -> str | None:
    try:
        return content_hash(read_regular(path))
    except FileNotFoundError:
        return None


def _libc_exchange() -> Callable[[bytes, bytes], int] | None:
    """The system's atomic exchange of two names, as f(a, b) -> 0 or -1 (errno set): Linux's
    renameat2(RENAME_EXCHANGE), macOS's renamex_np(RENAME_SWAP); None elsewhere."""
    if not sys.platform.startswith(("linux", "darwin")):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
        renameat2 = libc.renameat2
        renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                              ctypes.c_uint]
        at_fdcwd, rename_exchange = -100, 2
        return lambda a, b: int(renameat2(at_fdcwd, a, at_fdcwd, b, rename_exchange))
    if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        renamex_np = libc.renamex_np
        renamex_np.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
        rename_swap = 2
        return lambda a, b: int(renamex_np(a, b, rename_swap))
    return None


_EXCHANGE = _libc_exchange()


def _exchange(a: Path, b: Path) -> bool:
    """Swap what the names `a` and `b` point to, atomically; False where the system or the
    filesystem cannot (an old kernel, NFS, FAT, a sandbox refusing the call): nothing moved."""
    if _EXCHANGE is None:
        return False
    if _EXCHANGE(os.fsencode(a), os.fsencode(b)) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM,
               errno.EXDEV):
        return False  # EPERM: a sandbox, or an immutable file that os.replace reports itself
    raise OSError(err, os.strerror(err), str(b))


def _swap(path: Path, tmp: Path, read_hash: str, written: str, trash: Trash) -> None:
    """Put `tmp` (holding the bytes hashed `written`) in place of `path` only if `path` holds
    the bytes hashed `read_hash` (compare-and-swap); Conflict, and the other writer's file left
    in place, if it does not.

    POSIX has no compare-and-rename, and another writer may act at any moment: an editor saving
    by rename (its own temp file renamed over the note) or in place (truncate, then write; it
    may already hold the old file open, and write into it after any check). So the old file is
    opened and, where leases tell (`held_open.read_lease`), leased: none is granted while a program
    holds it open for writing (then nothing is moved), and while it is held no program can
    open it for writing (its open waits, and breaks the lease). Its bytes are checked, then the
    names are exchanged atomically: the file that was at `path` is then at `tmp`'s name. If it
    is not the file checked (an editor's rename landed), not the bytes the write was planned
    from (an in-place save reached it), or its lease was broken (a save is on its way into
    it), it is exchanged back before the lease is let go, and the write is a Conflict: the
    editor's save lands in the note. (A check, then os.replace, could not tell: a rename
    landing between the two was overwritten, and the write answered success.) A file taken
    out of the note that a program may still save into is moved to `trash` rather than
    deleted (`held_open.keep`), and the Conflict says where; a save into Ora's file, or over
    it, while it stood in the note stays there (`_put_back`). Where names cannot be exchanged,
    `_replace_checked` narrows the window.
    """
    removed = f"{path.name} was removed while it was being edited"
    changed = f"{path.name} changed while it was being edited; try again"
    leases = leases_tell(tmp)
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError as exc:
        raise Conflict(removed) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO renamed in: not the note read
            raise Conflict(changed)
        leased = read_lease(fd) if leases else None
        if leased is False:  # nothing moved: the save it is open for lands in the note
            raise Conflict(f"{path.name} is open for writing in another program (perhaps being "
                           "saved); try again")
        if fd_hash(fd) != read_hash or (leased and not lease_kept(fd)):
            raise Conflict(changed)  # changed already, or a save on its way: nothing is moved
        ours = os.lstat(tmp)
        try:
            swapped = _exchange(tmp, path)
        except FileNotFoundError as exc:
            raise Conflict(removed) from exc
        if not swapped:
            _replace_checked(path, tmp, read_hash, leases)
            return
        # A broken lease is told first: the put-back then comes without reading the old file
        # again, for the note shows Ora's edit of the old bytes until it does.
        broken = bool(leased) and not lease_kept(fd)
        if not broken and untouched(fd, tmp, read_hash, bool(leased)):  # the write stands
            return
        _put_back(path, tmp, ours, written, leases, trash)
    finally:
        os.close(fd)  # the lease goes with it


def _put_back(path: Path, tmp: Path, ours: os.stat_result, written: str, leases: bool,
              trash: Trash) -> None:
    """Another writer got there first: its file (now at `tmp`) goes back to `path`, and the
    Conflict is raised. If yet another save replaced Ora's file meanwhile (by rename), or went
    into it (in place) while it stood in the note, that save stays in the note: the two saves
    came at once, and the one at `tmp` is kept in `trash` (`_keep_other`), for the one in the
    note may have been made from Ora's edit of the old bytes, shown in the note for that
    moment, and so lack its text. A note deleted in that moment leaves the file at `tmp` in
    `trash` too. Ora's own copy, taken back out, is deleted by the caller (`_clear_temp`),
    unless a program may still save into it: then it is kept in `trash`, and the Conflict
    says so.
    """
    changed = f"{path.name} changed while it was being edited; try again"
    # Read only when its size or time says a save went in: the note shows Ora's edit of the old
    # bytes until it is put back. One within the same clock tick is seen just after.
    if _stat_changed(path, ours) and _saved_into(path, ours, written):  # it stays
        _keep_other(tmp, trash, path.name, changed)
    try:
        exchanged = _exchange(tmp, path)
    except FileNotFoundError:  # the note deleted since the swap: what was in it is kept
        _keep_removed(tmp, trash, path.name)
    if not exchanged:
        os.replace(tmp, path)
        raise Conflict(changed)
    if not os.path.samestat(os.lstat(tmp), ours):  # a rename replaced Ora's file meanwhile
        _exchange(tmp, path)  # that save back in the note; the one it replaced at `tmp`
        _keep_other(tmp, trash, path.name, changed)
    if _saved_into(tmp, ours, written):  # a save into Ora's copy just before it was put back
        _exchange(tmp, path)
        _keep_other(tmp, trash, path.name, changed)
    if not let_go(tmp, written, leases):  # Ora's copy, but a program opened the note meanwhile
        kept = trash.keep(tmp, path.name)
        raise Conflict(f"{changed} (a program was still saving into a copy taken out of the "
                       f"note: it is kept in {kept})")
    raise Conflict(changed)


def _saved_into(name: Path, ours: os.stat_result, written: str) -> bool:
    """True when `name` is Ora's new file (`ours`) and no longer holds the bytes hashed
    `written`: a program saved into it in place while it stood in the note."""
    try:
        return os.path.samestat(os.lstat(name), ours) and hash_of(name) != written
    except FileNotFoundError:
        return False


def _stat_changed(name: Path, ours: os.stat_result) -> bool:
    """True when `name` is Ora's new file (`ours`) and its size or modification time changed."""
    try:
        now = os.lstat(name)
    except FileNotFoundError:
        return False
    return os.path.samestat(now, ours) and (now.st_size, now.st_mtime_ns) != (
        ours.st_size, ours.st_mtime_ns)


def _keep_other(other: Path, trash: Trash, name: str, changed: str) -> NoReturn:
    """Keep `other`, a save that another one (now in the note) displaced, in `trash`; the
    Conflict that says where. Which of the two is newer is not known: a program whose open
    of `other` was waiting on its lease may save into it after it is moved."""
    kept = trash.keep(other, name)
    raise Conflict(f"{changed} (two saves came at once: the note holds one, and another is "
                   f"kept in {kept})")


def _keep_removed(tmp: Path, trash: Trash, name: str) -> NoReturn:
    """The note was deleted in the moment Ora's edit stood in it: the file that was in it
    before (at `tmp`) is kept in `trash`, as a delete would have moved it; the Conflict."""
    removed = f"{name} was removed while it was being edited"
    if not os.path.lexists(tmp):
        raise Conflict(removed)
    kept = trash.keep(tmp, name)
    raise Conflict(f"{removed}; the text it held before Ora's edit is kept in {kept}")


def _clear_temp(tmp: Path, written: str, swapped: bool, trash: Trash, name: str) -> None:
    """Remove the writer's temporary name `tmp` once a write is over. After a write that
    stands it holds the old file, checked (`swapped`); else only Ora's own bytes (hashed
    `written`) are deleted: once names were exchanged it may hold another program's save,
    which is kept in `trash` (never fails: a file that will not move stays for the sweep)."""
    with contextlib.suppress(OSError):
        try:
            ours = swapped or hash_of(tmp) in (None, written)
        except OSError:  # not a regular file: not ours
            ours = False
        if ours:
            tmp.unlink(missing_ok=True)
        else:
            trash.keep(tmp, name)


def _replace_checked(path: Path, tmp: Path, read_hash: str, leases: bool) -> None:
    """os.replace(tmp, path) only if `path` holds the bytes hashed `read_hash`, without an atomic
    exchange. The old file keeps a second, hidden name while it is replaced; it is checked
    before the swap and again after it (`held_open.let_go`). If it changed in between, or a program
    still holds it open for writing, an in-place save went (or may go) into it: it is put back
    (unless the note changed again since) and the edit is a Conflict. Just
    before the replace, `path` must still name that file: a rename landing in the moment
    between that check and the replace is the one save this cannot see. Without hard links
    only the check before the swap remains."""
    held = tmp.with_suffix(".ora-old")
    try:
        os.link(path, held)
    except FileNotFoundError as exc:
        raise Conflict(f"{path.name} was removed while it was being edited") from exc
    except OSError:  # no hard links here (FAT, some network shares)
        if hash_of(path) != read_hash:
            raise Conflict(f"{path.name} changed while it was being edited; try again") from None
        os.replace(tmp, path)
        return
    try:
        if hash_of(held) != read_hash:
            raise Conflict(f"{path.name} changed while it was being edited; try again")
        written = content_hash(tmp.read_bytes())
        checked = os.lstat(held)
        try:  # as late as can be: a rename between this and the replace is not seen
            still = os.path.samestat(os.lstat(path), checked)
        except FileNotFoundError:
            still = False
        if not still:  # an editor's rename landed since the link: its file stays
            raise Conflict(f"{path.name} changed while it was being edited; try again")
        os.replace(tmp, path)
        if not let_go(held, read_hash, leases):  # an in-place save reached it (or may yet)
            if hash_of(path) == written:
                os.replace(held, path)
            raise Conflict(f"{path.name} changed while it was being edited; try again")
    finally:
        held.unlink(missing_ok=True)


def _new_file(path: Path, mode: int) -> tuple[int, Path]:
    """A new hidden file beside `path`, created with `mode` less the user's umask."""
    for _ in range(100):
        tmp = path.parent / hidden_name(path.name, ".ora-tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path.name}")


def _temp_copy(path: Path, data: bytes, mode: int | None, vault: Path | None) -> Path:
    """`data` in a new hidden file beside `path` (flushed to disk, mode `mode`), to be moved
    into place or removed by the caller. A new note (`mode` None) gets the mode the user's
    umask gives new files, as an editor's would; a copy of a note is the owner's alone until
    it has the note's own mode, so its text is never readable by more accounts than the note's.
    `vault` (None when not known) holds the trash the folder's sweep keeps copies in."""
    sweep_beside(path, vault)  # a killed write's copies, beside the one made now
    fd, tmp = _new_file(path, 0o600 if mode is not None else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _copy_xattrs(src: Path, dst: Path) -> None:
    """The file's extended attributes (desktop tags, ratings, comments, ACLs) onto its new copy,
    best effort: an attribute the system will not set (or a system without them) is skipped."""
    if not hasattr(os, "listxattr"):  # Linux only in Python
        return
    with contextlib.suppress(OSError):
        for name in os.listxattr(src):
            with contextlib.suppress(OSError):
                os.setxattr(dst, name, os.getxattr(src, name))


def _overwrite(fd: int, data: bytes) -> None:
    """The file open at `fd` holds exactly `data`, on disk (unbuffered: a failed write leaves
    nothing pending to be flushed over a restore)."""
    view, pos = memoryview(data), 0
    while pos < len(data):
        pos += os.pwrite(fd, view[pos:], pos)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _write_in_place(path: Path, data: bytes, read_hash: str, name: str,
                    vault: Path | None) -> None:
    """Overwrite `path`'s own inode with `data` if it still hashes `read_hash`: for a note with
    other hard links (st_nlink > 1), which a rename would split from them (the other names kept
    the old text). Its old bytes first go to a hidden copy beside it, flushed to disk, so a crash
    mid-write leaves them recoverable; a failed write puts them back. Mode and extended
    attributes stay, being the inode's. The check and the write share one open file, so only a
    save landing in between (microseconds) could be overwritten."""
    try:
        fd = os.open(path, os.O_RDWR)  # no truncation until the new bytes are written
    except FileNotFoundError as exc:
        raise Conflict(f"{name} was removed while it was being edited") from exc
    with os.fdopen(fd, "r+b", buffering=0) as handle:
        old = handle.read()
        if content_hash(old) != read_hash:
            raise Conflict(f"{name} changed while it was being edited; try again")
        backup = _temp_copy(path, old, 0o600, vault)
        try:
            _overwrite(fd, data)
        except BaseException:
            try:
                _overwrite(fd, old)
            except OSError as exc:  # the copy is all that is left of the old text
                raise NoteNotWritable(f"{name} could not be written ({exc.strerror}); its "
                                      f"old text is in {backup.name} beside it") from exc
            backup.unlink()
            raise
        backup.unlink()


def atomic_write(path: Path, data: bytes, read_hash: str, rel: str | None = None) -> None:
    """Replace `path` with `data` atomically, keeping its mode, if it still hashes `read_hash`;
    a file with other hard links is written in place (`_write_in_place`) so they stay one file.

    Conflict when it does not: the write is checked against the exact bytes it was planned
    from, never against a later read; Conflict too when a program holds the file open for
    writing (its save is to come, `held_open.let_go`). NoteNotWritable (naming `rel`) when the
    file is read-only, immutable or in a folder that cannot be written.
    """
    name = rel or path.name
    st = check_writable(path, name)  # Conflict when it was removed since it was read
    vault = _vault_of(path, rel) if rel else None  # its trash keeps what a sweep finds
    if st.st_nlink > 1:
        try:
            _write_in_place(path, data, read_hash, name, vault)
        except PermissionError as exc:  # immutable, or a folder the backup cannot go in
            raise not_writable(name, exc) from exc
        except OSError as exc:
            _refuse_long_name(name, exc)
            raise
        return
    try:
        tmp = _temp_copy(path, data, stat.S_IMODE(st.st_mode), vault)
    except PermissionError as exc:  # a folder that cannot be written
        raise not_writable(name, exc) from exc
    except OSError as exc:
        _refuse_long_name(name, exc)
        raise
    _copy_xattrs(path, tmp)
    # What a race displaces goes where this note would be trashed (a private folder's own).
    written, trash, swapped = content_hash(data), Trash(path, vault), False
    try:
        _swap(path, tmp, read_hash, written, trash)
        swapped = True
    except PermissionError as exc:  # immutable (EPERM on the replace)
        raise not_writable(name, exc) from exc
    except FileNotFoundError as exc:  # the note deleted while a file was being put back
        raise Conflict(f"{name} was removed while it was being edited") from exc
    finally:
        _clear_temp(tmp, written, swapped, trash, path.name)
    fsync_dir(path.parent)


def _vault_of(path: Path, rel: str | None) -> Path:
    """The vault `path` is in, when `rel` is its vault-relative path; else its own folder."""
    parts = PurePosixPath(rel).parts if rel else ()
    if parts and path.parts[-len(parts):] == parts:
        return path.parents[len(parts) - 1]
    return path.parent


def create_file(path: Path, data: bytes, rel: str | None = None) -> str:
    """Write a new file atomically, never over an existing one (Conflict, naming `rel`); its
    hash. The bytes go to a hidden file beside it first, so a failed write (a full disk) leaves
    nothing behind: the new name appears whole or not at all."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = _temp_copy(path, data, None, _vault_of(path, rel) if rel else None)
    except PermissionError as exc:  # a folder that is read-only or immutable
        raise not_writable(rel or path.name, exc) from exc
    except OSError as exc:
        _refuse_long_name(rel or path.name, exc)
        raise
    try:
        os.link(tmp, path)  # fails if the file exists: no overwrite, no race
    except FileExistsError as exc:
        raise Conflict(f"{rel or path.name} already exists") from exc
    except PermissionError as exc:
        raise not_writable(rel or path.name, exc) from exc
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return content_hash(data)


def create_note(vault: str | Path, rel: str, text: str) -> str:
    """Write a new note atomically, never over an existing file (Conflict); its hash."""
    return create_file(vault_path(vault, rel), text.encode("utf-8"), normalise_rel(rel))
