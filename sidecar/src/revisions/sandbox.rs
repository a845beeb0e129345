//! The bubblewrap sandbox every Lean process of a revision run runs in
//! (Debian package `bubblewrap`): read-only binds of the system
//! (`/usr` and its merged-`/usr` links), of the toolchain and of the
//! user's prepared `.lake/packages` (bound, never copied or downloaded);
//! the side's own tree writable at its own path; a private `/tmp`; new
//! network, PID, IPC, UTS and cgroup namespaces (so no network at all);
//! a new session; `--die-with-parent`; an empty environment plus `PATH`,
//! `HOME=/tmp`, `LANG`, the run's tag (`LEANSCOPE_RUN`, so that a stop
//! reaches the command even when bubblewrap is gone) and, for an elan
//! toolchain, `ELAN_HOME`. GNU time runs outside it, so the counters come
//! from the host.

use std::path::{Path, PathBuf};

use crate::process_group::run_tag::{self, RunTag};

/// bubblewrap.
pub const BWRAP: &str = "/usr/bin/bwrap";
/// System folders bound read-only (or recreated as the links they are).
const SYSTEM: [&str; 5] = ["/usr", "/bin", "/lib", "/lib64", "/sbin"];
/// Single system files Lean's loader may read, bound when present.
const SYSTEM_FILES: [&str; 2] = ["/etc/ld.so.cache", "/etc/localtime"];

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{BWRAP} (bubblewrap, Debian package `bubblewrap`) is missing; every Lean process of a revision run runs in its sandbox")]
    NoBwrap,
    #[error("{}: {source}", path.display())]
    Path {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What one sandboxed command may see.
pub struct Sandbox {
    /// The side's tree: writable, the working directory.
    pub tree: PathBuf,
    /// The `lake` to run (its toolchain is bound read-only).
    pub lake: PathBuf,
    /// The user's `.lake/packages`, bound read-only at `tree/.lake/packages`.
    pub packages: Option<PathBuf>,
    /// The tag of the run the command runs in, set inside as outside, so
    /// that stopping the run stops the command even once bubblewrap is gone.
    pub tag: RunTag,
    /// `false` for an unsandboxed run (`revisions run --unsandboxed`): the command runs as it
    /// is, with the user's environment, files and network.
    pub confined: bool,
}

impl Sandbox {
    /// `bwrap ARGS… -- lake LAKE_ARGS…` as a program and its arguments.
    pub fn wrap(&self, lake_args: &[String]) -> Result<(PathBuf, Vec<String>), SandboxError> {
        self.wrap_program(&self.lake, lake_args)
    }

    /// `bwrap ARGS… -- PROGRAM ARGS…`: as [`Sandbox::wrap`], with `program`
    /// (leanscope itself, for a profiled sample) run instead of `lake` and
    /// the folder it is in bound read-only too.
    pub fn wrap_program(
        &self,
        program: &Path,
        args: &[String],
    ) -> Result<(PathBuf, Vec<String>), SandboxError> {
        if !self.confined {
            return Ok((program.to_path_buf(), args.to_vec()));
        }
        if !Path::new(BWRAP).is_file() {
            return Err(SandboxError::NoBwrap);
        }
        let canon = |p: &Path| {
            p.canonicalize().map_err(|source| SandboxError::Path {
                path: p.to_path_buf(),
                source,
            })
        };
        let mut a: Vec<String> = Vec::new();
        let mut arg = |xs: &[&str]| a.extend(xs.iter().map(|x| (*x).to_owned()));
        // `--as-pid-1`: `lake` itself is the namespace's first process, so
        // it waits for `lean` and GNU time outside sees their CPU time (with
        // bubblewrap's own reaper as PID 1, the children's usage is lost).
        arg(&[
            "--unshare-all",
            "--as-pid-1",
            "--die-with-parent",
            "--new-session",
        ]);
        for dir in SYSTEM {
            let p = Path::new(dir);
            match std::fs::read_link(p) {
                Ok(target) => arg(&["--symlink", &target.to_string_lossy(), dir]),
                Err(_) if p.is_dir() => arg(&["--ro-bind", dir, dir]),
                Err(_) => {}
            }
        }
        for f in SYSTEM_FILES {
            arg(&["--ro-bind-try", f, f]);
        }
        arg(&["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]);
        // The toolchain: the folder above `lake`'s (its `bin/`), and where
        // `lake` really is when it is a link.
        let lake_dir = self.lake.parent().unwrap_or(Path::new("/"));
        let root = canon(lake_dir.parent().unwrap_or(lake_dir))?;
        let real = canon(&self.lake)?;
        let mut ro = vec![root.clone()];
        for p in [real, canon(program)?] {
            if let Some(d) = p.parent() {
                if !ro.iter().any(|r| d.starts_with(r)) {
                    ro.push(d.to_path_buf());
                }
            }
        }
        for d in &ro {
            let d = d.to_string_lossy();
            arg(&["--ro-bind", &d, &d]);
        }
        let tree = canon(&self.tree)?;
        let tree_s = tree.to_string_lossy().into_owned();
        arg(&["--bind", &tree_s, &tree_s]);
        if let Some(p) = &self.packages {
            let at = tree.join(".lake/packages");
            std::fs::create_dir_all(&at).map_err(|source| SandboxError::Path {
                path: at.clone(),
                source,
            })?;
            let p = canon(p)?;
            arg(&["--ro-bind", &p.to_string_lossy(), &at.to_string_lossy()]);
        }
        arg(&["--clearenv"]);
        let path = format!("{}:/usr/bin:/bin", lake_dir.display());
        arg(&["--setenv", "PATH", &path, "--setenv", "HOME", "/tmp"]);
        arg(&["--setenv", "LANG", "C.UTF-8"]);
        arg(&["--setenv", run_tag::VAR, &self.tag.env_value()]);
        if root.join("toolchains").is_dir() {
            arg(&["--setenv", "ELAN_HOME", &root.to_string_lossy()]);
        }
        arg(&["--chdir", &tree_s, "--"]);
        a.push(program.to_string_lossy().into_owned());
        a.extend(args.iter().cloned());
        Ok((PathBuf::from(BWRAP), a))
    }
}
