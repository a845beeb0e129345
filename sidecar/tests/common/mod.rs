//! Shared setup for end-to-end tests: the real `leanscope` binary, the fake
//! `lake`/`lean` from the `fake-toolchain` crate, and a copy of the fixture
//! project in a temporary directory.
#![allow(dead_code)]

pub mod git_repo;
pub mod revisions;
pub mod toolchain_dir;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `rel` in the project's `shared` folder of third-party samples (real Lean
/// output, other profilers' files), which is not in the repository and is
/// read in place, never copied: the folder `LEANSCOPE_SHARED_DIR` names, else
/// `shared` beside the repository root (`<repo>/../shared`, as in CI's clone).
pub fn shared(rel: &str) -> PathBuf {
    std::env::var_os("LEANSCOPE_SHARED_DIR")
        .map_or_else(|| repo().join("../shared"), PathBuf::from)
        .join(rel)
}

pub fn leanscope_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_leanscope"))
}

/// The fake toolchain binary, built next to leanscope (building it if a
/// narrower `cargo test -p leanscope` did not).
pub fn fake_lean() -> PathBuf {
    let dir = leanscope_bin().parent().unwrap().to_path_buf();
    let fake = dir.join("fake-lean");
    if !fake.exists() {
        // In the profile leanscope was built in (`cargo test --release`
        // looks in target/release).
        let release = dir.file_name().is_some_and(|d| d == "release");
        let mut args = vec!["build", "-p", "fake-toolchain", "--bin", "fake-lean"];
        if release {
            args.push("--release");
        }
        let status = Command::new(env!("CARGO"))
            .args(&args)
            .current_dir(repo())
            .status()
            .unwrap();
        assert!(status.success(), "building fake-lean failed");
    }
    assert!(fake.exists(), "no fake-lean at {}", fake.display());
    fake
}

/// A scratch world: a copy of `fixtures/projects/demo` and a bin dir with
/// `lake` and `lean` links to the fake.
pub struct World {
    pub dir: tempfile::TempDir,
    pub project: PathBuf,
    pub bin: PathBuf,
    pub fixtures: PathBuf,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("demo");
        copy_dir(&repo().join("fixtures/projects/demo"), &project);
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let fake = fake_lean();
        for name in ["lake", "lean"] {
            std::os::unix::fs::symlink(&fake, bin.join(name)).unwrap();
        }
        World {
            project,
            bin,
            fixtures: repo().join("fixtures/lean-output"),
            dir,
        }
    }

    /// `leanscope ARGS` in the project, with the fake first on PATH.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(leanscope_bin());
        c.args(args)
            .current_dir(&self.project)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("HOME", self.dir.path())
            .env("LEANSCOPE_FAKE_FIXTURES", &self.fixtures)
            .env("LEANSCOPE_FAKE_DELAY_SCALE", "0");
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `leanscope profile FILE -o OUT --threshold 1`, the capture most
    /// tests make (every traced node kept), not yet run.
    pub fn profile_command(&self, file: &str, out: &Path) -> Command {
        self.command(&[
            "profile",
            file,
            "-o",
            out.to_str().unwrap(),
            "--threshold",
            "1",
        ])
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A project `many/` of `files` copies of `Demo/Clean.lean` (the fake
    /// replays the Clean case for each), `F<i>/Demo/Clean.lean` with `i`
    /// zero-padded to the width of `files`, beside the demo's
    /// `lean-toolchain` and `lakefile.toml`.
    pub fn many_files(&self, files: usize) -> PathBuf {
        let root = self.path("many");
        std::fs::create_dir_all(&root).unwrap();
        for f in ["lean-toolchain", "lakefile.toml"] {
            std::fs::copy(self.project.join(f), root.join(f)).unwrap();
        }
        let clean = std::fs::read(self.project.join("Demo/Clean.lean")).unwrap();
        let width = files.to_string().len();
        for i in 0..files {
            let d = root.join(format!("F{i:0width$}/Demo"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("Clean.lean"), &clean).unwrap();
        }
        root
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The event of `class` whose label starts with `label` (panics naming
/// them when there is none).
pub fn find(rec: &recording::Recording, class: &str, label: &str) -> u32 {
    (0..rec.len() as u32)
        .find(|&i| rec.class(i) == class && rec.label(i).starts_with(label))
        .unwrap_or_else(|| panic!("no {class} {label}"))
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// True if `pid` exists and is not a zombie (a killed orphan may wait for a
/// reaper that containers do not always have).
pub fn is_running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
        .unwrap_or(false)
}

/// Waits up to `within` for every process of `pids` to be gone (a
/// signalled process dies on its own schedule, after its parent may have
/// returned); true when they all are.
pub fn all_gone(pids: &[(String, i32)], within: std::time::Duration) -> bool {
    let started = std::time::Instant::now();
    loop {
        if pids.iter().all(|(_, p)| !is_running(*p)) {
            return true;
        }
        if started.elapsed() > within {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The `NAME PID` lines the fake toolchain appends to `LEANSCOPE_FAKE_PIDFILE`.
pub fn pids(pidfile: &Path) -> Vec<(String, i32)> {
    std::fs::read_to_string(pidfile)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (name, pid) = l.split_once(' ')?;
            Some((name.to_string(), pid.trim().parse().ok()?))
        })
        .collect()
}

/// A session's manifest as every reader sees it: `session.json` with its
/// journal (an unfinished session's) replayed.
pub fn read_session(dir: &Path) -> Result<recording::session::Manifest, String> {
    let base = std::fs::read(dir.join("session.json")).map_err(|e| e.to_string())?;
    let journal = match std::fs::read(dir.join("session.journal")) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.to_string()),
    };
    recording::session::load_manifest(&base, journal.as_deref())
        .map(|l| l.manifest)
        .map_err(|e| e.to_string())
}
