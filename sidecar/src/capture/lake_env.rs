//! The Lake environment Lean runs in: `lake env` taken once, then `lean`
//! started directly with it (what `lake env lean …` does, without a `lake`
//! process per run).
//!
//! `lake env` with no command prints the variables it would run a command
//! with, one `NAME=VALUE` line each (Lake's `lake env` in
//! `src/lake/Lake/CLI/Main.lean`: a variable Lake unsets prints with an empty
//! value). `lake env CMD` spawns `CMD` with the caller's environment overlaid
//! with those variables, the unset ones removed, `CMD` found on the new
//! `PATH`; [`LakeEnvironment::lean_command`] does the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::file_stamp::FileStamp;

use recording::session::LakeEnvRecord;

use super::process::{run, RunOptions};
use super::project::{is_executable, program_name};
use super::toolchain::LeanVersion;
use super::CaptureError;
use leanscope::limits::{MAX_LAKE_ENV_BYTES, MAX_LAKE_ENV_LINES};

/// How long `lake env` and `lean --version` may each take.
const TAKE_TIMEOUT: Duration = Duration::from_secs(120);

/// Lines of stderr quoted when `lake env` or `lean --version` fails.
const STDERR_QUOTED_LINES: usize = 20;

/// The files whose change makes Lake's environment stale.
pub const CONFIG_FILES: [&str; 3] = ["lakefile.lean", "lakefile.toml", "lake-manifest.json"];

/// What `lake env` printed, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LakeVars {
    /// The variables in the order Lake printed them (a later line for the
    /// same name replaces the earlier one, as the child's environment would).
    pub vars: Vec<(String, String)>,
    /// SHA-256 of the output, lowercase hex.
    pub sha256: String,
}

impl LakeVars {
    /// Parses `lake env`'s output: `NAME=VALUE` lines, within
    /// [`MAX_LAKE_ENV_BYTES`] and [`MAX_LAKE_ENV_LINES`].
    pub fn parse(output: &[u8]) -> Result<LakeVars, String> {
        if output.len() > MAX_LAKE_ENV_BYTES {
            return Err(format!(
                "`lake env` printed {} bytes, more than the {MAX_LAKE_ENV_BYTES} leanscope reads",
                output.len()
            ));
        }
        let text = std::str::from_utf8(output).map_err(|e| {
            format!(
                "`lake env` printed bytes that are not UTF-8 (at byte {})",
                e.valid_up_to()
            )
        })?;
        let mut vars: Vec<(String, String)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if i >= MAX_LAKE_ENV_LINES {
                return Err(format!(
                    "`lake env` printed more than {MAX_LAKE_ENV_LINES} lines"
                ));
            }
            let Some((name, value)) = line.split_once('=') else {
                return Err(format!(
                    "`lake env` line {} is not NAME=VALUE: {:?}",
                    i + 1,
                    cap(line)
                ));
            };
            let valid_name = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid_name {
                return Err(format!(
                    "`lake env` line {} names no variable: {:?}",
                    i + 1,
                    cap(line)
                ));
            }
            match vars.iter_mut().find(|(n, _)| n == name) {
                Some(v) => v.1 = value.to_string(),
                None => vars.push((name.to_string(), value.to_string())),
            }
        }
        if vars.is_empty() {
            return Err("`lake env` printed no variables".into());
        }
        Ok(LakeVars {
            vars,
            sha256: recording::sha256_hex(output),
        })
    }

    /// The value Lake gives `name`: `None` when it does not set it,
    /// `Some("")` when it unsets it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A line quoted in an error, cut to a readable length.
fn cap(line: &str) -> String {
    line.chars().take(200).collect()
}

/// When the lakefiles and the manifest last changed: their
/// [`FileStamp`]s (`None` for a file that is absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigStamp([Option<FileStamp>; 3]);

impl ConfigStamp {
    /// The stamp of the project at `root` now (three `stat`s).
    pub fn of(root: &Path) -> ConfigStamp {
        ConfigStamp(CONFIG_FILES.map(|f| {
            std::fs::metadata(root.join(f))
                .ok()
                .map(|m| FileStamp::of(&m))
        }))
    }
}

/// A taken environment: Lake's variables, the `lean` they lead to and
/// what that `lean` says its version is.
#[derive(Debug, Clone)]
pub struct LakeEnvironment {
    /// The `lake` that printed it, and the project root it ran in.
    pub lake: PathBuf,
    pub root: PathBuf,
    pub vars: LakeVars,
    pub lean: PathBuf,
    pub version: LeanVersion,
    /// The project's configuration when `lake env` was started.
    pub stamp: ConfigStamp,
}

impl LakeEnvironment {
    /// Runs `lake env` in `root`, finds `lean` on its `PATH` and runs
    /// `lean --version` in it.
    pub fn take(
        lake: &Path,
        root: &Path,
        opts: &RunOptions,
    ) -> Result<LakeEnvironment, CaptureError> {
        let stamp = ConfigStamp::of(root);
        let take_opts = RunOptions {
            timeout: Some(TAKE_TIMEOUT),
            ..opts.clone()
        };
        let mut cmd = Command::new(lake);
        cmd.current_dir(root).arg("env");
        let f = run(&mut cmd, &take_opts, &mut |_| {})?;
        if !f.status.success() {
            return Err(CaptureError::LeanFailed {
                status: format!("`lake env` {}", f.status),
                stderr: tail(&String::from_utf8_lossy(&f.stderr), STDERR_QUOTED_LINES),
            });
        }
        let vars = LakeVars::parse(&f.stdout).map_err(CaptureError::BadOutput)?;
        let lean = find_lean(&vars)?;
        let mut env = LakeEnvironment {
            lake: lake.to_path_buf(),
            root: root.to_path_buf(),
            vars,
            lean,
            version: LeanVersion {
                banner: String::new(),
                version: String::new(),
                numbers: None,
            },
            stamp,
        };
        let mut cmd = env.lean_command();
        cmd.arg("--version");
        let f = run(&mut cmd, &take_opts, &mut |_| {})?;
        let out = String::from_utf8_lossy(&f.stdout);
        if !f.status.success() {
            return Err(CaptureError::LeanFailed {
                status: format!("`{} --version` {}", env.lean.display(), f.status),
                stderr: tail(&String::from_utf8_lossy(&f.stderr), STDERR_QUOTED_LINES),
            });
        }
        env.version = LeanVersion::parse(&out).ok_or_else(|| {
            CaptureError::BadOutput(format!("`lean --version` printed {:?}", out.trim()))
        })?;
        Ok(env)
    }

    /// `lean` in the project root with this environment: the caller's
    /// variables overlaid with Lake's, those Lake unsets removed.
    pub fn lean_command(&self) -> Command {
        let mut cmd = Command::new(&self.lean);
        cmd.current_dir(&self.root);
        for (name, value) in &self.vars.vars {
            if value.is_empty() {
                cmd.env_remove(name);
            } else {
                cmd.env(name, value);
            }
        }
        cmd
    }

    /// What a session records of this environment.
    pub fn record(&self, taken: u64) -> LakeEnvRecord {
        LakeEnvRecord {
            variables: self.vars.vars.iter().cloned().collect::<BTreeMap<_, _>>(),
            sha256: self.vars.sha256.clone(),
            lean: self.lean.display().to_string(),
            taken,
        }
    }
}

/// The `lean` that `lake env lean` would run: the first on Lake's `PATH`,
/// else Lake's `LEAN`.
fn find_lean(vars: &LakeVars) -> Result<PathBuf, CaptureError> {
    if let Some(path) = vars.get("PATH").filter(|p| !p.is_empty()) {
        for dir in std::env::split_paths(path) {
            let candidate = dir.join(program_name("lean"));
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
    }
    if let Some(lean) = vars.get("LEAN").filter(|l| !l.is_empty()) {
        let lean = PathBuf::from(lean);
        if is_executable(&lean) {
            return Ok(lean);
        }
    }
    Err(CaptureError::BadOutput(format!(
        "`lake env`: no executable lean on its PATH ({}) nor at its LEAN ({})",
        vars.get("PATH").unwrap_or("not set"),
        vars.get("LEAN").unwrap_or("not set")
    )))
}

/// The environment a session's captures share: taken on first use, taken
/// again when the project's configuration changed since.
#[derive(Debug)]
pub struct SharedLakeEnv {
    lake: PathBuf,
    root: PathBuf,
    current: Mutex<Option<Arc<LakeEnvironment>>>,
    taken: std::sync::atomic::AtomicU64,
}

impl SharedLakeEnv {
    pub fn new(lake: PathBuf, root: PathBuf) -> SharedLakeEnv {
        SharedLakeEnv {
            lake,
            root,
            current: Mutex::new(None),
            taken: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The environment for the next capture: the last one taken while the
    /// lakefiles and the manifest are unchanged, else a new one. Captures
    /// asking while it is taken wait for it.
    pub fn current(&self, opts: &RunOptions) -> Result<Arc<LakeEnvironment>, CaptureError> {
        let mut current = self
            .current
            .lock()
            .map_err(|_| CaptureError::Io("a capture failed while taking `lake env`".into()))?;
        if let Some(env) = current.as_ref() {
            if env.stamp == ConfigStamp::of(&self.root) {
                return Ok(env.clone());
            }
        }
        let env = Arc::new(LakeEnvironment::take(&self.lake, &self.root, opts)?);
        self.taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        *current = Some(env.clone());
        Ok(env)
    }

    /// How many times the environment was taken.
    pub fn taken(&self) -> u64 {
        self.taken.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The last environment taken, if any.
    pub fn last(&self) -> Option<Arc<LakeEnvironment>> {
        self.current.lock().ok().and_then(|c| c.clone())
    }

    /// What a session records: the last environment taken, and how many
    /// times one was, counting `earlier` takes of the session's earlier runs.
    pub fn record(&self, earlier: u64) -> Option<LakeEnvRecord> {
        self.last().map(|e| e.record(earlier + self.taken()))
    }
}

/// The last `lines` lines of `text`, at most 4000 characters: what an error quotes of a
/// program's output.
pub(super) fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let tail = all[all.len().saturating_sub(lines)..].join("\n");
    tail.chars().take(4000).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lakes_lines() {
        let v =
            LakeVars::parse(b"LAKE=/t/bin/lake\nLEAN_GITHASH=\nPATH=/t/bin:/usr/bin\nLAKE=/x\n")
                .unwrap();
        assert_eq!(
            v.vars,
            [
                ("LAKE".to_string(), "/x".to_string()),
                ("LEAN_GITHASH".to_string(), String::new()),
                ("PATH".to_string(), "/t/bin:/usr/bin".to_string()),
            ]
        );
        assert_eq!(v.get("LEAN_GITHASH"), Some(""));
        assert_eq!(v.get("LEAN"), None);
        assert_eq!(v.sha256.len(), 64);
        // A value may hold `=`.
        let v = LakeVars::parse(b"OPTS=a=b\n").unwrap();
        assert_eq!(v.get("OPTS"), Some("a=b"));
    }

    #[test]
    fn garbage_is_named() {
        let e = LakeVars::parse(b"LAKE=/l\nerror: bad lakefile\n").unwrap_err();
        assert_eq!(
            e,
            "`lake env` line 2 is not NAME=VALUE: \"error: bad lakefile\""
        );
        let e = LakeVars::parse(b"1X=2\n").unwrap_err();
        assert!(e.contains("line 1 names no variable"), "{e}");
        assert_eq!(
            LakeVars::parse(b"").unwrap_err(),
            "`lake env` printed no variables"
        );
        let e = LakeVars::parse(b"A=\xff\n").unwrap_err();
        assert!(e.contains("not UTF-8 (at byte 2)"), "{e}");
        let many: String = (0..=MAX_LAKE_ENV_LINES)
            .map(|i| format!("V{i}=1\n"))
            .collect();
        let e = LakeVars::parse(many.as_bytes()).unwrap_err();
        assert_eq!(e, "`lake env` printed more than 4096 lines");
        let big = vec![b'A'; MAX_LAKE_ENV_BYTES + 1];
        let e = LakeVars::parse(&big).unwrap_err();
        assert!(e.contains("more than the 1048576 leanscope reads"), "{e}");
    }

    #[test]
    fn stamps_change_with_the_lakefile() {
        let dir = tempfile::tempdir().unwrap();
        let a = ConfigStamp::of(dir.path());
        assert_eq!(a, ConfigStamp::of(dir.path()));
        std::fs::write(dir.path().join("lakefile.toml"), "name = \"a\"\n").unwrap();
        let b = ConfigStamp::of(dir.path());
        assert_ne!(a, b);
        std::fs::write(dir.path().join("lakefile.toml"), "name = \"ab\"\n").unwrap();
        assert_ne!(b, ConfigStamp::of(dir.path()));
    }

    #[test]
    fn lean_is_found_on_lakes_path_then_at_lean() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let lean = bin.join("lean");
        std::fs::write(&lean, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&lean, std::fs::Permissions::from_mode(0o755)).unwrap();
        let on_path = format!("PATH=/nonexistent:{}\n", bin.display());
        let v = LakeVars::parse(on_path.as_bytes()).unwrap();
        assert_eq!(find_lean(&v).unwrap(), lean);
        let at_lean = format!("PATH=/nonexistent\nLEAN={}\n", lean.display());
        let v = LakeVars::parse(at_lean.as_bytes()).unwrap();
        assert_eq!(find_lean(&v).unwrap(), lean);
        let v = LakeVars::parse(b"PATH=/nonexistent\n").unwrap();
        let e = find_lean(&v).unwrap_err().to_string();
        assert!(
            e.contains("no executable lean on its PATH (/nonexistent) nor at its LEAN (not set)"),
            "{e}"
        );
    }
}
