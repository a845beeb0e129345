//! `lake` mode: `--version`, `env`, `env CMD ARGS…` and `build`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{cases, fixtures_dir, EXIT_FAKE_MISCONFIGURED};

/// The directory holding the invoked `lake` (and, by convention, the fake `lean`).
pub(crate) fn bin_dir(argv0: &Path) -> PathBuf {
    if argv0.components().count() > 1 {
        let dir = argv0.parent().map(Path::to_path_buf).unwrap_or_default();
        return if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir()
                .map(|cwd| cwd.join(&dir))
                .unwrap_or(dir)
        };
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            if dir.join(argv0).is_file() {
                return dir;
            }
        }
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
        .unwrap_or_default()
}

/// The variables `lake env` sets, in the order it prints them.
fn lake_env(bin: &Path) -> Vec<(String, String)> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let sysroot = bin
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| bin.to_path_buf());
    let lib = sysroot.join("lib").join("lean");
    let build_lib = cwd.join(".lake").join("build").join("lib").join("lean");
    let path = match std::env::var_os("PATH") {
        Some(old) => {
            let mut dirs = vec![bin.to_path_buf()];
            dirs.extend(std::env::split_paths(&old));
            std::env::join_paths(dirs)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| bin.display().to_string())
        }
        None => bin.display().to_string(),
    };
    // Lake writes the platform's program names and search-path separator
    // (`;` on Windows).
    let exe = std::env::consts::EXE_SUFFIX;
    let lean_path = std::env::join_paths([&build_lib, &lib])
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| build_lib.display().to_string());
    vec![
        (
            "LAKE".into(),
            bin.join(format!("lake{exe}")).display().to_string(),
        ),
        ("LAKE_HOME".into(), sysroot.display().to_string()),
        ("LEAN_SYSROOT".into(), sysroot.display().to_string()),
        (
            "LEAN".into(),
            bin.join(format!("lean{exe}")).display().to_string(),
        ),
        ("LEAN_PATH".into(), lean_path),
        ("LEAN_SRC_PATH".into(), cwd.display().to_string()),
        ("PATH".into(), path),
    ]
}

pub fn main(argv0: &Path, args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("--version") | Some("-V") => {
            let toolchain = fixtures_dir().and_then(|dir| cases::load_toolchain(&dir));
            match toolchain {
                Ok(tc) => {
                    println!("{}", tc.lake_version_string);
                    0
                }
                Err(e) => {
                    eprintln!("fake-lean: {e}");
                    EXIT_FAKE_MISCONFIGURED
                }
            }
        }
        Some("env") => {
            let bin = bin_dir(argv0);
            let env = lake_env(&bin);
            let Some(cmd) = args.get(1) else {
                for (k, v) in &env {
                    println!("{k}={v}");
                }
                return 0;
            };
            // resolve CMD on the new PATH, so that `lake env lean` finds the sibling `lean`
            let sibling = bin.join(format!("{cmd}{}", std::env::consts::EXE_SUFFIX));
            let program = if cmd.contains(['/', '\\']) {
                PathBuf::from(cmd)
            } else if bin.join(cmd).is_file() {
                bin.join(cmd)
            } else if sibling.is_file() {
                sibling
            } else {
                PathBuf::from(cmd)
            };
            let mut child = Command::new(&program);
            child.args(&args[2..]);
            for (k, v) in &env {
                child.env(k, v);
            }
            match child.status() {
                Ok(status) => exit_code(status),
                Err(e) => {
                    eprintln!("error: failed to execute '{cmd}': {e}");
                    1
                }
            }
        }
        Some("build") => crate::elaborate::lake_build(),
        Some(other) => {
            eprintln!(
                "error: the fake lake only supports `--version`, `env` and `build`, not `{other}`"
            );
            1
        }
        None => {
            eprintln!("error: no command given (the fake lake supports `--version` and `env`)");
            1
        }
    }
}

#[cfg(unix)]
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

#[cfg(not(unix))]
fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().unwrap_or(1)
}
