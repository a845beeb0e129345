//! Opening files beneath a directory without races: the directory is held
//! open, and every path component is opened relative to the one before
//! (`openat`) with `O_NOFOLLOW`, so no symlink and no `..` can lead out of
//! it, even when the tree changes between a check and the open: there is
//! no check apart from the open. The file itself must be a regular file
//! (see `session::regular`); what is read is the very file that was
//! checked. The view server and `publish` open the viewed session's (or
//! recording's) files through it.
//!
//! Unix does this with `openat` itself; Windows has no `openat`, and there
//! `cap-std` does the same (each component opened beneath the one before,
//! no reparse point followed).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::session::regular;

/// A directory held open; files are opened beneath it only.
#[derive(Debug)]
pub struct Beneath {
    #[cfg(unix)]
    dir: File,
    #[cfg(windows)]
    dir: cap_std::fs::Dir,
    path: PathBuf,
}

/// Whether `name` is one plain path component: not empty, not `.` or
/// `..`, without a separator (`/`, and `\` and `:` on Windows).
fn is_one_name(name: &str) -> bool {
    let separators: &[char] = if cfg!(windows) {
        &['/', '\\', ':']
    } else {
        &['/']
    };
    !(name.is_empty() || name == "." || name == ".." || name.contains(separators))
}

#[cfg(windows)]
impl Beneath {
    /// Opens the directory `path` (which may itself be reached through
    /// links: it is what the user named).
    pub fn open(path: &Path) -> io::Result<Beneath> {
        let dir = cap_std::fs::Dir::open_ambient_dir(path, cap_std::ambient_authority())?;
        Ok(Beneath {
            dir,
            path: path.to_path_buf(),
        })
    }

    /// The regular file at `segments` below the directory: each segment is
    /// one name; a link or junction anywhere on the way is refused with an
    /// error naming the path.
    pub fn file<S: AsRef<str>>(&self, segments: &[S]) -> io::Result<File> {
        use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
        let shown = segments
            .iter()
            .fold(self.path.clone(), |p, s| p.join(s.as_ref()));
        let Some((last, dirs)) = segments.split_last() else {
            return Err(invalid(&shown, "names no file"));
        };
        let named = |seg: &str| {
            if is_one_name(seg) {
                Ok(())
            } else {
                Err(invalid(&shown, "leaves the directory"))
            }
        };
        let mut here: Option<cap_std::fs::Dir> = None;
        for seg in dirs {
            named(seg.as_ref())?;
            let at = here.as_ref().unwrap_or(&self.dir);
            let next = at
                .open_dir_nofollow(seg.as_ref())
                .map_err(|e| refused(&shown, at, seg.as_ref(), e))?;
            here = Some(next);
        }
        named(last.as_ref())?;
        let at = here.as_ref().unwrap_or(&self.dir);
        let mut opts = cap_std::fs::OpenOptions::new();
        opts.read(true).follow(FollowSymlinks::No);
        let f = at
            .open_with(last.as_ref(), &opts)
            .map_err(|e| refused(&shown, at, last.as_ref(), e))?;
        regular::ensure_regular(f.into_std(), &shown)
    }
}

/// An open that failed, said as what stood in the way where that was a
/// link or not a directory.
#[cfg(windows)]
fn refused(shown: &Path, at: &cap_std::fs::Dir, name: &str, e: io::Error) -> io::Error {
    match at.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => invalid(shown, "reached through a symbolic link"),
        Ok(m) if !m.is_dir() && !m.is_file() => invalid(shown, "not a file"),
        _ => io::Error::new(e.kind(), format!("{}: {e}", shown.display())),
    }
}

#[cfg(unix)]
impl Beneath {
    /// Opens the directory `path` (which may itself be reached through
    /// symlinks: it is what the user named).
    pub fn open(path: &Path) -> io::Result<Beneath> {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::io::FromRawFd;
        let c = cstring(path.as_os_str().as_bytes(), path)?;
        // SAFETY: a valid NUL-terminated path; the descriptor is owned below.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Beneath {
            // SAFETY: a descriptor just opened and owned by nobody else.
            dir: unsafe { File::from_raw_fd(fd) },
            path: path.to_path_buf(),
        })
    }

    /// The regular file at `segments` below the directory. Each segment is
    /// one name (not empty, not `.` or `..`, without `/` or NUL); a symlink
    /// anywhere on the way, a FIFO, a device or a file of `/proc` is
    /// refused with an error naming the path.
    pub fn file<S: AsRef<str>>(&self, segments: &[S]) -> io::Result<File> {
        let shown = segments
            .iter()
            .fold(self.path.clone(), |p, s| p.join(s.as_ref()));
        let Some((last, dirs)) = segments.split_last() else {
            return Err(invalid(&shown, "names no file"));
        };
        let mut here: Option<File> = None;
        for seg in dirs {
            let at = here.as_ref().unwrap_or(&self.dir);
            let next = open_at(
                at,
                seg.as_ref(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                &shown,
            )?;
            here = Some(next);
        }
        let at = here.as_ref().unwrap_or(&self.dir);
        let f = open_at(
            at,
            last.as_ref(),
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC,
            &shown,
        )?;
        regular::ensure_regular(f, &shown)
    }
}

#[cfg(unix)]
fn open_at(dir: &File, name: &str, flags: libc::c_int, shown: &Path) -> io::Result<File> {
    use std::os::unix::io::{AsRawFd, FromRawFd};
    if !is_one_name(name) {
        return Err(invalid(shown, "leaves the directory"));
    }
    let c = cstring(name.as_bytes(), shown)?;
    // SAFETY: a directory descriptor we own and a NUL-terminated name.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            // O_NOFOLLOW met a symlink (ELOOP), or O_DIRECTORY a symlink
            // or a file (ENOTDIR).
            Some(libc::ELOOP) => invalid(shown, "reached through a symbolic link"),
            Some(libc::ENOTDIR) => invalid(shown, "not below a directory"),
            Some(libc::ENXIO) => invalid(shown, "a FIFO or a device"),
            _ => io::Error::new(e.kind(), format!("{}: {e}", shown.display())),
        });
    }
    // SAFETY: a descriptor just opened and owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

#[cfg(unix)]
fn cstring(bytes: &[u8], shown: &Path) -> io::Result<std::ffi::CString> {
    std::ffi::CString::new(bytes).map_err(|_| invalid(shown, "a path with a NUL byte"))
}

fn invalid(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {what}, refused", path.display()),
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn read(b: &Beneath, segs: &[&str]) -> io::Result<String> {
        let mut s = String::new();
        b.file(segs)?.read_to_string(&mut s)?;
        Ok(s)
    }

    #[test]
    fn files_below_are_read_and_nothing_leads_out() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::fs::create_dir(root.path().join("files")).unwrap();
        std::fs::write(root.path().join("files/a.lsrec"), "a").unwrap();
        symlink(outside.path().join("secret"), root.path().join("link")).unwrap();
        symlink(outside.path(), root.path().join("dirlink")).unwrap();
        symlink("files/a.lsrec", root.path().join("inner")).unwrap();
        let b = Beneath::open(root.path()).unwrap();
        assert_eq!(read(&b, &["files", "a.lsrec"]).unwrap(), "a");
        for bad in [
            &["link"][..],
            &["dirlink", "secret"],
            &["inner"],
            &["..", "x"],
            &["files", ".."],
            &["."],
            &["files/a.lsrec"],
            &["files"],
            &[],
            &["nothing"],
        ] {
            let e = read(&b, bad).unwrap_err();
            assert!(e.to_string().contains(root.path().to_str().unwrap()), "{e}");
        }
        let e = read(&b, &["link"]).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
    }

    #[test]
    fn fifos_are_refused_without_waiting() {
        let root = tempfile::tempdir().unwrap();
        let c = CString::new(root.path().join("f").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let b = Beneath::open(root.path()).unwrap();
        let e = b.file(&["f"]).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
    }
}
