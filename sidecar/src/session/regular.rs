//! Opening a session's own files (manifest, index, lock): regular files
//! only. A FIFO or a device put where one belongs is refused at once
//! instead of blocking the reader, or feeding it without end. (On Windows
//! a path in a folder names a file or a folder: only folders are refused.)

use std::fs::{File, OpenOptions};
use std::io;
#[cfg(unix)]
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
#[cfg(unix)]
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Opens `path` with `opts`; an error of kind `InvalidInput` naming what
/// the file is when it is not a regular file. The open itself does not
/// wait (`O_NONBLOCK`, cleared again once the file is known to be regular).
pub fn open(path: &Path, opts: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let f = opts.open(path).map_err(|e| {
        // A FIFO opened for writing with no reader.
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ENXIO) {
            return not_regular(path, "a FIFO or a device");
        }
        e
    })?;
    ensure_regular(f, path)
}

/// `f` (opened with `O_NONBLOCK`) back in blocking mode when it is a
/// regular file outside `/proc`; else an error of kind `InvalidInput`
/// naming what it is. Shared with the confined opens of
/// `viewer::confined`.
pub fn ensure_regular(f: File, path: &Path) -> io::Result<File> {
    let kind = f.metadata()?.file_type();
    #[cfg(not(unix))]
    if !kind.is_file() {
        return Err(not_regular(path, "not a file"));
    }
    #[cfg(unix)]
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a file"
        };
        return Err(not_regular(path, what));
    }
    if on_proc(&f) {
        return Err(not_regular(path, "a file of /proc"));
    }
    #[cfg(unix)]
    clear_nonblocking(&f)?;
    Ok(f)
}

#[cfg(unix)]
fn clear_nonblocking(f: &File) -> io::Result<()> {
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    let blocking = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) == 0
    };
    if !blocking {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether `f` lives on a procfs (whose "regular" files are generated
/// without end or change under the reader).
#[cfg(target_os = "linux")]
fn on_proc(f: &File) -> bool {
    /// `PROC_SUPER_MAGIC` of Linux's `<linux/magic.h>`.
    const PROC_SUPER_MAGIC: i64 = 0x9fa0;
    let mut st = std::mem::MaybeUninit::<libc::statfs>::zeroed();
    // SAFETY: fstatfs fills the struct for a descriptor we own.
    let ok = unsafe { libc::fstatfs(f.as_raw_fd(), st.as_mut_ptr()) } == 0;
    // SAFETY: initialised by the successful call (zeroed otherwise).
    // f_type's width differs between architectures.
    #[allow(clippy::unnecessary_cast)]
    let magic = unsafe { st.assume_init() }.f_type as i64;
    ok && magic == PROC_SUPER_MAGIC
}

#[cfg(not(target_os = "linux"))]
fn on_proc(_: &File) -> bool {
    false
}

/// [`open`] for reading.
pub fn read(path: &Path) -> io::Result<File> {
    open(path, OpenOptions::new().read(true))
}

fn not_regular(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {what}, not a regular file", path.display()),
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::io::{Read, Write};

    fn mkfifo(p: &Path) {
        let c = CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn fifos_and_devices_are_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("index.jsonl");
        mkfifo(&fifo);
        let e = read(&fifo).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(
            e.to_string().ends_with("is a FIFO, not a regular file"),
            "{e}"
        );
        let e = open(&fifo, OpenOptions::new().write(true)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("is a device"), "{e}");
        let e = read(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a file"), "{e}");
        #[cfg(target_os = "linux")]
        {
            let e = read(Path::new("/proc/self/status")).unwrap_err();
            assert!(e.to_string().contains("a file of /proc"), "{e}");
        }
    }

    #[test]
    fn regular_files_read_and_write_as_usual() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("session.json");
        let mut w = open(&p, OpenOptions::new().create(true).write(true)).unwrap();
        w.write_all(b"{}").unwrap();
        drop(w);
        let mut s = String::new();
        read(&p).unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "{}");
    }
}
