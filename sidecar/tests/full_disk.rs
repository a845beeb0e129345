//! Writers of whole directories on a full disk (a 2 MiB tmpfs): `publish`,
//! `synth --session` and `synth-session` fail with a clear message and
//! leave neither a partial directory nor their staging directory.
//!
//! Mounting a tmpfs needs root (CAP_SYS_ADMIN); where the mount is refused
//! the test says so on stderr and checks nothing. `sessions.rs` covers the
//! same guarantee for `publish` without a mount (a recording that cannot be
//! read part-way).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn leanscope(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_leanscope"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("leanscope {args:?} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn whole_directory_writers_leave_nothing_on_a_full_disk() {
    let work = tempfile::tempdir().unwrap();
    let Some(disk) = Tmpfs::mount(&work.path().join("disk"), "2m") else {
        eprintln!("full_disk: cannot mount a tmpfs here (needs root); nothing checked");
        return;
    };
    let disk_path = disk.0.clone();
    // A session far bigger than the disk, written elsewhere.
    let session = work.path().join("session");
    let s = session.to_str().unwrap();
    let out = leanscope(&[
        "synth-session",
        "-o",
        s,
        "--files",
        "6",
        "--events",
        "60000",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let site = disk_path.join("site");
    let out = leanscope(&["publish", s, "-o", site.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "publish: {err}");
    assert!(err.contains("No space left on device"), "publish: {err}");

    let synth = disk_path.join("synth");
    let out = leanscope(&["synth", "--session", synth.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "synth --session: {err}");
    assert!(
        err.contains("No space left on device"),
        "synth --session: {err}"
    );

    let synth2 = disk_path.join("synth2");
    let out = leanscope(&[
        "synth-session",
        "-o",
        synth2.to_str().unwrap(),
        "--files",
        "6",
        "--events",
        "60000",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "synth-session: {err}");
    assert!(
        err.contains("No space left on device"),
        "synth-session: {err}"
    );

    // Nothing left: no partial site or session, no staging directory.
    assert_eq!(names(&disk_path), Vec::<String>::new());
}
