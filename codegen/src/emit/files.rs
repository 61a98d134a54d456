//! Writing outputs whole or not at all: a generated file or directory either appears complete at its
//! path or not at all, whatever stops the writer — an error, a full disk (`ENOSPC`), the file-size
//! limit (`ulimit -f`, `EFBIG`), SIGINT, SIGTERM or SIGKILL — and no temporary entry stays behind.
//!
//! How each case is covered:
//! - **Files** ([`write_file`]) are written, on Linux, into an unnamed temporary file (`O_TMPFILE`)
//!   in the output's directory and linked into place only when complete: a process that dies while
//!   writing, even by SIGKILL, leaves nothing, because the kernel frees an unnamed file when its last
//!   descriptor closes. When the output already exists the complete file is linked under a staging
//!   name and renamed over it (rename replaces atomically; `linkat` cannot). Where `O_TMPFILE` is not
//!   available (another OS, an old kernel, a file system without it) the file is written under the
//!   staging name directly and renamed into place.
//! - **Directories** ([`StagingDir`], used by `tinyaot c`) are written into a staging directory beside
//!   the output and moved into place when complete: renamed whole when the output does not exist,
//!   file by file otherwise (the caller decides what else to remove in [`StagingDir::commit`]).
//! - **Staging names** are `.<output name>.tinyaot-tmp<pid>-<n>`, beside the output. Each is
//!   registered while it exists so that the command line's SIGINT/SIGTERM handler
//!   ([`remove_staged_and_hold`]) can remove them before the process dies; a commit (the renames) and
//!   that handler exclude each other, so an interrupted run leaves the old output or the new one,
//!   never a mix. What SIGKILL leaves (a staging directory, or a named staging file where
//!   `O_TMPFILE` is unavailable) is removed by the next write of the same output, which sweeps the
//!   staging entries of that output name whose process is no longer alive. Entries of a live process
//!   are never touched, nor any entry whose name does not have exactly that form: nothing the user
//!   owns is deleted. (Liveness is checked on this host: a directory shared between machines could
//!   hold another host's staging entry, which a run here would remove.)
//! - **The file-size limit** kills a process with SIGXFSZ by default, silently. While writing, the
//!   disposition of SIGXFSZ is set to "ignore" if it is the default (the command line ignores it for
//!   good), so that the write fails with `EFBIG` and becomes an error message instead; a handler
//!   someone else installed is left alone.
//!
//! What remains: a SIGKILL in the middle of a commit into an existing directory (a handful of
//! renames) can leave that directory with some files new and some old; a power loss can lose
//! whatever the file system had not yet flushed (nothing here calls `fsync`).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::Source;

/// What [`write_file`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// The file already held exactly this content and was left untouched.
    Unchanged,
    /// The file was (re)written with this many bytes.
    Bytes(u64),
}

/// Writes `source` to the file `path`, whole or not at all (see the module docs), unless the file
/// already holds exactly that content (so that Cargo does not rebuild needlessly). The parent
/// directory must exist.
///
/// A symbolic link is followed (the file it points to is replaced, not the link). A path that is
/// neither a regular file nor a directory (`/dev/null`, `/dev/stdout`, a FIFO) is written in place:
/// a device or a pipe can be neither replaced nor written atomically, and replacing it would
/// destroy it.
pub fn write_file(path: &Path, source: &Source) -> io::Result<Written> {
    let _sigxfsz = IgnoreSigxfsz::new();
    let resolved;
    let path = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(target) => {
                resolved = target;
                resolved.as_path()
            }
            Err(_) => path,
        },
        _ => path,
    };
    if fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir()) {
        let file = OpenOptions::new().write(true).open(path)?;
        return write_all(file, source).map(Written::Bytes).map_err(explain);
    }
    let (parent, name) = split(path)?;
    sweep(&parent, &name);
    if same_content(path, source) {
        return Ok(Written::Unchanged);
    }
    #[cfg(target_os = "linux")]
    if let Some(result) = tmpfile::write(path, &parent, &name, source) {
        return result.map(Written::Bytes).map_err(explain);
    }
    write_named(path, &parent, &name, source)
        .map(Written::Bytes)
        .map_err(explain)
}

/// A staging directory for a directory output, beside it; removed when dropped uncommitted.
#[derive(Debug)]
pub struct StagingDir {
    path: PathBuf,
    _sigxfsz: IgnoreSigxfsz,
}

impl StagingDir {
    /// Creates the staging directory for the output directory `dir` (creating `dir`'s parent
    /// directories if needed), after sweeping stale staging entries of earlier runs.
    pub fn create(dir: &Path) -> io::Result<StagingDir> {
        let sigxfsz = IgnoreSigxfsz::new();
        let (parent, name) = split(dir)?;
        fs::create_dir_all(&parent)?;
        sweep(&parent, &name);
        let path = stage(&parent, &name, |p| fs::create_dir(p))?.0;
        Ok(StagingDir {
            path,
            _sigxfsz: sigxfsz,
        })
    }

    /// The staging directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `source` into the staging directory as `name` (which may name a subdirectory,
    /// created as needed).
    pub fn write(&self, name: &str, source: &Source) -> io::Result<()> {
        // Subdirectories one by one below the staging directory, never the staging directory
        // itself: once the signal handler has removed it, `create_dir_all` would make it again,
        // and it would be left behind.
        let mut dir = self.path.clone();
        for part in Path::new(name)
            .parent()
            .into_iter()
            .flat_map(Path::components)
        {
            dir.push(part);
            match fs::create_dir(&dir) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
        }
        let file = File::create(self.path.join(name))?;
        write_all(file, source).map(|_| ()).map_err(explain)
    }

    /// Moves the staged files into place with `moves` (given the staging directory's path), as one
    /// step that SIGINT and SIGTERM do not interrupt (the handler waits for it), then removes what is
    /// left of the staging directory.
    pub fn commit(self, moves: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
        let mut staged = registry();
        let result = moves(&self.path);
        if self.path.exists() {
            let _ = fs::remove_dir_all(&self.path);
        }
        staged.retain(|p| p != &self.path);
        result
    }
}

impl Drop for StagingDir {
    fn drop(&mut self) {
        discard(&self.path);
    }
}

/// For the command line's SIGINT/SIGTERM handler: removes every staging entry and returns the lock
/// of the registry, which the caller holds until the process ends so that no commit starts
/// afterwards (one in progress finishes first).
pub fn remove_staged_and_hold() -> MutexGuard<'static, Vec<PathBuf>> {
    let mut staged = registry();
    for path in staged.drain(..) {
        remove_entry(&path);
    }
    staged
}

/// Paths of the staging entries that exist now, for the signal handler.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Makes staging names unique within the process (two outputs of the same name in one build).
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

const STAGING_MARK: &str = ".tinyaot-tmp";

fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves a usable list; the signal handler still needs it.
    STAGED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The parent directory (`.` for a bare name) and the file name of an output path.
fn split(path: &Path) -> io::Result<(PathBuf, OsString)> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the output path names no file or directory",
        )
    })?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name.to_os_string()))
}

/// `.<name>.tinyaot-tmp`: the start of every staging name of output `name`.
fn staging_prefix(name: &OsStr) -> OsString {
    let mut prefix = OsString::from(".");
    prefix.push(name);
    prefix.push(STAGING_MARK);
    prefix
}

/// The process id in a staging name of output `name` (`.<name>.tinyaot-tmp<pid>-<n>`), if `entry`
/// is one.
fn staging_pid(entry: &OsStr, name: &OsStr) -> Option<u32> {
    let prefix = staging_prefix(name);
    let rest = entry
        .as_encoded_bytes()
        .strip_prefix(prefix.as_encoded_bytes())?;
    let rest = std::str::from_utf8(rest).ok()?;
    let (pid, n) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) {
        return None;
    }
    pid.parse().ok()
}

/// Creates a fresh staging entry for output `name` in `parent` with `create`, registered for the
/// signal handler before it exists (the registry's lock is held while creating, so the handler sees
/// either no entry or a registered one).
fn stage<T>(
    parent: &Path,
    name: &OsStr,
    create: impl Fn(&Path) -> io::Result<T>,
) -> io::Result<(PathBuf, T)> {
    let mut staged = registry();
    let mut retried = false;
    loop {
        let mut file_name = staging_prefix(name);
        file_name.push(format!(
            "{}-{}",
            std::process::id(),
            SEQUENCE.fetch_add(1, Ordering::Relaxed)
        ));
        let path = parent.join(file_name);
        staged.push(path.clone());
        match create(&path) {
            Ok(value) => return Ok((path, value)),
            Err(e) => {
                staged.pop();
                // Left by an earlier process that had our pid (it is dead, or we would not have
                // it): sweep does not remove those, so try once more under another number.
                if e.kind() != io::ErrorKind::AlreadyExists || retried {
                    return Err(e);
                }
                retried = true;
            }
        }
    }
}

/// Renames the staging entry `from` to `to` and forgets it, as one step for the signal handler.
fn commit_rename(from: &Path, to: &Path) -> io::Result<()> {
    let mut staged = registry();
    let result = fs::rename(from, to);
    if result.is_err() {
        remove_entry(from);
    }
    staged.retain(|p| p != from);
    result
}

/// Removes a staging entry and forgets it.
fn discard(path: &Path) {
    let mut staged = registry();
    remove_entry(path);
    staged.retain(|p| p != path);
}

/// Removes a file or a directory tree (never following a symlink); quiet when already gone.
fn remove_entry(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            // The signal handler runs beside the writer, which may create a file in the directory
            // between `remove_dir_all`'s listing and its final `rmdir`: that fails (not empty) and
            // would leave the directory behind. Once the directory is gone nothing can be created
            // in it, so a few more tries end the race (bounded, so that a directory that cannot be
            // removed does not hang the handler).
            for _ in 0..100 {
                match fs::remove_dir_all(path) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => continue,
                    _ => break,
                }
            }
        }
        Ok(_) => {
            let _ = fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Removes the staging entries of output `name` in `parent` left by processes that are gone.
fn sweep(parent: &Path, name: &OsStr) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let own = std::process::id();
    for entry in entries.flatten() {
        let Some(pid) = staging_pid(&entry.file_name(), name) else {
            continue;
        };
        if pid != own && !process_alive(pid) {
            remove_entry(&entry.path());
        }
    }
}

/// Whether process `pid` exists on this host (when unknown: yes, so that nothing is removed).
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        if pid <= 0 {
            return true;
        }
        // SAFETY: signal 0 only checks that the process exists and may be signalled.
        let result = unsafe { libc::kill(pid, 0) };
        result == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Whether `path` is a regular file holding exactly `source`'s text, compared as it is encoded.
fn same_content(path: &Path, source: &Source) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut compare = Compare {
        file: io::BufReader::with_capacity(1 << 16, file),
        buf: Vec::new(),
    };
    if source.write_to(&mut compare).is_err() {
        return false;
    }
    // Equal so far: the file must also end here.
    matches!(compare.file.read(&mut [0u8; 1]), Ok(0))
}

/// A writer that compares what it is given with a file and fails at the first difference.
struct Compare<R> {
    file: R,
    buf: Vec<u8>,
}

impl<R: Read> Write for Compare<R> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.resize(data.len(), 0);
        self.file.read_exact(&mut self.buf)?;
        if self.buf != data {
            return Err(io::Error::other("differs"));
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `source` through a buffer into `file` and flushes it; returns the bytes written.
fn write_all(file: File, source: &Source) -> io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let bytes = source.write_to(&mut out)?;
    out.into_inner().map_err(io::IntoInnerError::into_error)?;
    Ok(bytes)
}

/// The portable way: write under a staging name, then rename into place.
fn write_named(path: &Path, parent: &Path, name: &OsStr, source: &Source) -> io::Result<u64> {
    let (staging, file) = stage(parent, name, |p| {
        OpenOptions::new().write(true).create_new(true).open(p)
    })?;
    match write_all(file, source) {
        Ok(bytes) => commit_rename(&staging, path).map(|()| bytes),
        Err(e) => {
            discard(&staging);
            Err(e)
        }
    }
}

/// Adds what to do about the errors whose system text does not say it.
fn explain(e: io::Error) -> io::Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::EFBIG) {
        return io::Error::new(
            e.kind(),
            format!("{e}: the output exceeds the file-size limit (`ulimit -f`)"),
        );
    }
    e
}

#[cfg(target_os = "linux")]
mod tmpfile {
    //! Unnamed temporary files (`O_TMPFILE`, Linux 3.11), linked into place when complete.

    use std::ffi::{CString, OsStr};
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    use std::path::Path;

    /// Writes `source` to `path` through an unnamed file in `parent`; `None` when that cannot be
    /// done here (no `O_TMPFILE`, or no way to link it), for the caller to take the portable way.
    pub(super) fn write(
        path: &Path,
        parent: &Path,
        name: &OsStr,
        source: &super::Source,
    ) -> Option<io::Result<u64>> {
        let file = OpenOptions::new()
            .write(true)
            .mode(0o666)
            .custom_flags(libc::O_TMPFILE)
            .open(parent);
        let file = match file {
            Ok(file) => file,
            // A missing or unwritable directory fails the same way on the portable path, which
            // reports it; other errors mean no O_TMPFILE here.
            Err(_) => return None,
        };
        let link_from = match file.try_clone() {
            Ok(f) => f,
            Err(e) => return Some(Err(e)),
        };
        // A failed write leaves nothing: the file has no name, and closing it frees it.
        let bytes = match super::write_all(file, source) {
            Ok(bytes) => bytes,
            Err(e) => return Some(Err(e)),
        };
        match place(&link_from, path, parent, name) {
            Ok(true) => Some(Ok(bytes)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// Links the complete file to `path`; `Ok(false)` when it cannot be linked at all here.
    fn place(file: &File, path: &Path, parent: &Path, name: &OsStr) -> io::Result<bool> {
        if std::fs::symlink_metadata(path).is_err() {
            match link(file, path) {
                Ok(()) => return Ok(true),
                // Created meanwhile: replace it below.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(_) => return Ok(false),
            }
        }
        // linkat never replaces, rename does: link under a staging name, then rename over.
        let staged = super::stage(parent, name, |p| link(file, p));
        match staged {
            Ok((staging, ())) => super::commit_rename(&staging, path).map(|()| true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
            Err(_) => Ok(false),
        }
    }

    /// Gives the unnamed `file` the name `to`.
    fn link(file: &File, to: &Path) -> io::Result<()> {
        let to = CString::new(to.as_os_str().as_bytes())?;
        let empty = c"";
        // AT_EMPTY_PATH links the descriptor itself but needs CAP_DAC_READ_SEARCH; the
        // /proc/self/fd path works for everyone where /proc is mounted.
        // SAFETY: valid descriptor and NUL-terminated paths that outlive the calls.
        let direct = unsafe {
            libc::linkat(
                file.as_raw_fd(),
                empty.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_EMPTY_PATH,
            )
        };
        if direct == 0 {
            return Ok(());
        }
        let direct_error = io::Error::last_os_error();
        if direct_error.kind() == io::ErrorKind::AlreadyExists {
            return Err(direct_error);
        }
        let proc_path = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
        // SAFETY: as above.
        let via_proc = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                proc_path.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if via_proc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// While alive, SIGXFSZ is ignored if nobody chose otherwise, so that exceeding the file-size limit
/// fails a write with `EFBIG` rather than killing the process. Nested and concurrent guards share
/// one change, undone when the last ends.
#[derive(Debug)]
struct IgnoreSigxfsz(());

#[cfg(unix)]
static SIGXFSZ_STATE: Mutex<(usize, Option<libc::sigaction>)> = Mutex::new((0, None));

impl IgnoreSigxfsz {
    fn new() -> IgnoreSigxfsz {
        #[cfg(unix)]
        {
            let mut state = SIGXFSZ_STATE.lock().unwrap_or_else(PoisonError::into_inner);
            if state.0 == 0 {
                state.1 = set_sigxfsz_ignored_if_default();
            }
            state.0 += 1;
        }
        IgnoreSigxfsz(())
    }
}

impl Drop for IgnoreSigxfsz {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            let mut state = SIGXFSZ_STATE.lock().unwrap_or_else(PoisonError::into_inner);
            state.0 = state.0.saturating_sub(1);
            if state.0 == 0 {
                if let Some(previous) = state.1.take() {
                    // SAFETY: restores the disposition saved by set_sigxfsz_ignored_if_default.
                    unsafe { libc::sigaction(libc::SIGXFSZ, &previous, std::ptr::null_mut()) };
                }
            }
        }
    }
}

/// Sets SIGXFSZ to "ignore" if it has the default disposition; returns the one to restore.
#[cfg(unix)]
fn set_sigxfsz_ignored_if_default() -> Option<libc::sigaction> {
    // SAFETY: sigaction with valid pointers; a zeroed sigaction is a valid "query" argument.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGXFSZ, std::ptr::null(), &mut current) != 0
            || current.sa_sigaction != libc::SIG_DFL
        {
            return None;
        }
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        libc::sigemptyset(&mut ignore.sa_mask);
        if libc::sigaction(libc::SIGXFSZ, &ignore, std::ptr::null_mut()) != 0 {
            return None;
        }
        Some(current)
    }
}

/// For the command line: ignores SIGXFSZ for the rest of the process, so that every write beyond
/// the file-size limit fails with `EFBIG` (reported as an error) instead of killing it.
pub fn ignore_sigxfsz() {
    #[cfg(unix)]
    // SAFETY: setting a standard signal to SIG_IGN has no preconditions.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tinyaot-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A pid that no process has: one of a child that has been waited for.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn staging_names() {
        let name = OsStr::new("out.rs");
        assert_eq!(
            staging_pid(OsStr::new(".out.rs.tinyaot-tmp123-4"), name),
            Some(123)
        );
        for other in [
            ".out.rs.tinyaot-tmp123",
            ".out.rs.tinyaot-tmp-4",
            ".out.rs.tinyaot-tmp12a-4",
            ".out.rs.tinyaot-tmp123-4x",
            ".other.rs.tinyaot-tmp123-4",
            "out.rs.tinyaot-tmp123-4",
            "out.tmp123",
        ] {
            assert_eq!(staging_pid(OsStr::new(other), name), None, "{other}");
        }
    }

    #[test]
    fn writes_whole_files_and_skips_unchanged_ones() {
        let dir = scratch("write");
        let path = dir.join("out.rs");
        let mut source = Source::text("head ");
        let data = vec![7u8; 100_000];
        source.push_data(super::super::source::Encoding::RustByteString, &data[..]);
        let expected = source.clone().into_string();
        assert_eq!(
            write_file(&path, &source).unwrap(),
            Written::Bytes(expected.len() as u64)
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), expected);
        assert_eq!(write_file(&path, &source).unwrap(), Written::Unchanged);
        // Replacing an existing file, and the portable way.
        let shorter = Source::text("head");
        assert_eq!(write_file(&path, &shorter).unwrap(), Written::Bytes(4));
        assert_eq!(fs::read_to_string(&path).unwrap(), "head");
        write_named(&path, &dir, OsStr::new("out.rs"), &source).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), expected);
        write_named(&dir.join("new.rs"), &dir, OsStr::new("new.rs"), &shorter).unwrap();
        assert_eq!(listing(&dir), ["new.rs", "out.rs"]);
        // Links are followed; devices are written in place, not replaced.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("out.rs", dir.join("link.rs")).unwrap();
            write_file(&dir.join("link.rs"), &Source::text("via link")).unwrap();
            assert!(fs::symlink_metadata(dir.join("link.rs"))
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(fs::read_to_string(&path).unwrap(), "via link");
            write_file(Path::new("/dev/null"), &source).unwrap();
            assert!(!fs::metadata("/dev/null").unwrap().is_file());
        }
        assert!(!registry().iter().any(|p| p.starts_with(&dir)));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sweeps_only_stale_staging_entries_of_the_same_output() {
        let dir = scratch("sweep");
        let dead = dead_pid();
        let own = std::process::id();
        let keep = [
            format!(".out.rs.tinyaot-tmp{own}-999"),
            format!(".other.rs.tinyaot-tmp{dead}-0"),
            format!("out.rs.tinyaot-tmp{dead}-0"),
            format!(".out.rs.tinyaot-tmp{dead}"),
            "out.tmp123".to_string(),
            ".out.rs.tinyaot-tmp1-0".to_string(), // pid 1 is alive
        ];
        for name in &keep {
            fs::write(dir.join(name), "user").unwrap();
        }
        fs::write(dir.join(format!(".out.rs.tinyaot-tmp{dead}-3")), "stale").unwrap();
        fs::create_dir(dir.join(format!(".out.rs.tinyaot-tmp{dead}-4"))).unwrap();
        fs::write(
            dir.join(format!(".out.rs.tinyaot-tmp{dead}-4/x.c")),
            "stale",
        )
        .unwrap();
        write_file(&dir.join("out.rs"), &Source::text("new")).unwrap();
        let mut expected: Vec<String> = keep.to_vec();
        expected.push("out.rs".to_string());
        expected.sort();
        assert_eq!(listing(&dir), expected);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn staging_directories_commit_or_vanish() {
        let dir = scratch("stagedir");
        let out = dir.join("c");
        {
            let staging = StagingDir::create(&out).unwrap();
            staging.write("a.c", &Source::text("a")).unwrap();
            assert!(registry().iter().any(|p| p.starts_with(&dir)));
        }
        assert!(!registry().iter().any(|p| p.starts_with(&dir)));
        assert!(listing(&dir).is_empty());
        let staging = StagingDir::create(&out).unwrap();
        staging.write("a.c", &Source::text("a")).unwrap();
        staging.commit(|p| fs::rename(p, &out)).unwrap();
        assert_eq!(listing(&dir), ["c"]);
        assert_eq!(listing(&out), ["a.c"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
