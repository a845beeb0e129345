//! `lean` mode: `--version`, and replay of a recorded (or generated) case for `lean FILE`.
//!
//! Replay order, as Lean does it: stderr lines written before elaboration (`import took …`),
//! then the stdout lines (one message per line, flushed one by one, with the case's delays),
//! then the `trace.profiler.output` file, then the rest of stderr (the cumulative block), then
//! the recorded exit code.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cases::{self, Case, Toolchain};
use crate::lean_format::{json_string, message_plain_text};
use crate::{fixtures_dir, huge, ENV_DELAY_SCALE, EXIT_FAKE_MISCONFIGURED};

/// Longest single sleep while delaying, so the fake stays responsive.
const SLEEP_STEP: Duration = Duration::from_millis(10);

/// A parsed `lean` command line.
#[derive(Debug, Default, PartialEq)]
pub struct Invocation {
    pub json: bool,
    pub version: bool,
    pub help: bool,
    /// `-D name=value` options in command-line order.
    pub options: Vec<(String, String)>,
    /// `--incr-…=FILE` flags (Lean 4.32's incremental snapshots), as given.
    pub incremental: Vec<String>,
    pub file: Option<String>,
}

impl Invocation {
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Options that take a value in the next argument (Lean's `getopt` table).
const VALUED_SHORT: [&str; 6] = ["-j", "-s", "-M", "-T", "-o", "-i"];

/// Parses `lean`'s command line (the subset the sidecar uses, plus common flags it ignores).
pub fn parse_args(args: &[String]) -> Result<Invocation, String> {
    let mut inv = Invocation::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        match arg.as_str() {
            "--json" => inv.json = true,
            "--version" | "-v" => inv.version = true,
            "--help" | "-h" => inv.help = true,
            "--stdin" => return Err("the fake lean cannot read from --stdin".into()),
            "-D" => {
                let value = args.get(i).ok_or("option requires an argument -- 'D'")?;
                i += 1;
                inv.options.push(parse_option(value)?);
            }
            a if a.starts_with("-D") => inv.options.push(parse_option(&a[2..])?),
            a if VALUED_SHORT.contains(&a) => {
                if args.get(i).is_none() {
                    return Err(format!("option requires an argument -- '{}'", &a[1..]));
                }
                i += 1;
            }
            a if a.starts_with("--incr-") => inv.incremental.push(a.to_string()),
            a if a.starts_with("--") && a.contains('=') => {} // --threads=N, --tstack=N, …
            a if a.starts_with('-')
                && a.len() > 1
                && VALUED_SHORT.iter().any(|p| a.starts_with(p)) => {}
            a if a.starts_with('-') && a.len() > 1 => {
                return Err(format!("unrecognized option '{a}'"))
            }
            _ => {
                if inv.file.is_some() {
                    return Err("Expected exactly one file name".into());
                }
                inv.file = Some(arg.clone());
            }
        }
    }
    Ok(inv)
}

fn parse_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err(format!(
            "invalid -D parameter, argument must contain '=' (e.g. -Dpp.all=true), got '{text}'"
        )),
    }
}

pub fn main(args: &[String]) -> i32 {
    let inv = match parse_args(args) {
        Ok(inv) => inv,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    if let Some(file) = inv.file.as_deref().filter(|_| !inv.version && !inv.help) {
        if let Some(code) = profiler_serve(&inv, file) {
            return code;
        }
        let tracing = crate::elaborate::Tracing {
            profiling: inv.option("trace.profiler") == Some("true"),
            heartbeats: inv.option("trace.profiler") == Some("true")
                && inv.option("trace.profiler.useHeartbeats") == Some("true"),
            threshold: inv
                .option("trace.profiler.threshold")
                .and_then(|t| t.parse().ok())
                .unwrap_or(10),
        };
        let profile_output = inv.option("trace.profiler.output");
        if let Some(code) = crate::elaborate::lean(file, inv.json, tracing, profile_output) {
            return code;
        }
    }
    let fixtures = match fixtures_dir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("fake-lean: {e}");
            return EXIT_FAKE_MISCONFIGURED;
        }
    };
    let toolchain = match cases::load_toolchain(&fixtures) {
        Ok(tc) => tc,
        Err(e) => {
            eprintln!("fake-lean: {e}");
            return EXIT_FAKE_MISCONFIGURED;
        }
    };
    if inv.version {
        println!("{}", toolchain.version_header());
        return 0;
    }
    if inv.help {
        println!("{}", toolchain.version_header());
        println!("(fake-lean) usage: lean [--json] [-D name=value]... FILE");
        return 0;
    }
    let Some(file) = inv.file.clone() else {
        eprintln!("Expected exactly one file name");
        return 1;
    };
    if !toolchain.supports_profile_output {
        for name in ["trace.profiler.output", "trace.profiler.output.pp"] {
            if inv.option(name).is_some() {
                eprintln!(
                    "uncaught exception: invalid -D parameter, unknown configuration option '{name}'"
                );
                return 1;
            }
        }
    }
    let all = match cases::load_cases(&fixtures) {
        Ok(all) => all,
        Err(e) => {
            eprintln!("fake-lean: {e}");
            return EXIT_FAKE_MISCONFIGURED;
        }
    };
    let case = match cases::find_case(&all, &toolchain.name, &file) {
        Ok(Some(case)) => case,
        Ok(None) => {
            if Path::new(&file).exists() {
                eprintln!(
                    "fake-lean: no recorded Lean output for {file} (toolchain {}, fixtures {})",
                    toolchain.name,
                    fixtures.display()
                );
            } else {
                // what Lean prints when it cannot read the file
                eprintln!(
                    "uncaught exception: no such file or directory (error code: 2)\n  file: {file}"
                );
            }
            return 1;
        }
        Err(e) => {
            eprintln!("fake-lean: {e}");
            return EXIT_FAKE_MISCONFIGURED;
        }
    };
    match replay(case, &toolchain, &inv, &file) {
        Ok(code) => code,
        Err(Failure::Misconfigured(e)) => {
            eprintln!("fake-lean: {e}");
            EXIT_FAKE_MISCONFIGURED
        }
        Err(Failure::Output) => 1,
    }
}

/// `trace.profiler.serve` (Lean 4.31 and later, `src/Lean/Elab/Frontend.lean`): at the end of
/// the run, when no `trace.profiler.output` is given and the option is on in the file's final
/// options (a `set_option` in the file overrides `-D`), Lean serves the profile on a local port
/// and waits for its one request (`src/Lean/Util/ProfilerServer.lean`): the fake prints what
/// Lean prints and waits until it is killed. A toolchain without the option refuses `-D` of it,
/// as every unknown option. `None`: go on.
fn profiler_serve(inv: &Invocation, file: &str) -> Option<i32> {
    const OPTION: &str = "trace.profiler.serve";
    let toolchain = fixtures_dir()
        .ok()
        .and_then(|f| cases::load_toolchain(&f).ok())?;
    if let Some(flag) = inv
        .incremental
        .first()
        .filter(|_| !toolchain.supports_incremental_snapshots)
    {
        // what Lean's option parser says of a flag it does not know
        eprintln!("unrecognized option '{flag}'");
        return Some(1);
    }
    if !toolchain.supports_profiler_serve {
        if inv.option(OPTION).is_some() {
            eprintln!(
                "uncaught exception: invalid -D parameter, unknown configuration option '{OPTION}'"
            );
            return Some(1);
        }
        return None;
    }
    let in_file = std::fs::read_to_string(file).ok().and_then(|text| {
        text.lines().rev().find_map(|l| {
            let rest = l.trim().strip_prefix("set_option trace.profiler.serve ")?;
            Some(rest.trim() == "true")
        })
    });
    let on = in_file.unwrap_or(inv.option(OPTION) == Some("true"));
    if !on || inv.option("trace.profiler.output").is_some() {
        return None;
    }
    eprintln!("trace.profiler: serving profile at http://127.0.0.1:43117/profile.json");
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

enum Failure {
    Misconfigured(String),
    /// stdout or stderr went away (the reader was killed or closed the pipe)
    Output,
}

fn read(case: &Case, name: &str) -> Result<String, Failure> {
    let path = case.dir.join(name);
    std::fs::read_to_string(&path)
        .map_err(|e| Failure::Misconfigured(format!("cannot read {}: {e}", path.display())))
}

fn delay_scale() -> Result<f64, Failure> {
    match std::env::var(ENV_DELAY_SCALE) {
        Err(_) => Ok(1.0),
        Ok(text) => match text.trim().parse::<f64>() {
            Ok(scale) if scale >= 0.0 && scale.is_finite() => Ok(scale),
            _ => Err(Failure::Misconfigured(format!(
                "{ENV_DELAY_SCALE}={text:?} is not a non-negative number"
            ))),
        },
    }
}

fn sleep_in_steps(total: Duration) {
    let deadline = Instant::now() + total;
    loop {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        std::thread::sleep((deadline - now).min(SLEEP_STEP));
    }
}

fn replay(
    case: &Case,
    toolchain: &Toolchain,
    inv: &Invocation,
    file: &str,
) -> Result<i32, Failure> {
    let output_path = inv
        .option("trace.profiler.output")
        .filter(|p| !p.is_empty());
    let scale = delay_scale()?;
    let (stdout_lines, stderr, before, profile, exit_code) = match &case.generator {
        Some(spec) => {
            let out = huge::generate(
                spec,
                &case.module,
                file,
                output_path.is_none(),
                output_path.is_some(),
            )
            .map_err(Failure::Misconfigured)?;
            (
                out.stdout_lines,
                out.stderr,
                out.stderr_lines_before_stdout,
                out.profile,
                out.exit_code,
            )
        }
        None => {
            let name = if output_path.is_some() || !case.dir.join("stdout.traces").is_file() {
                "stdout"
            } else {
                "stdout.traces"
            };
            let recorded = json_string(&case.source);
            let actual = json_string(file);
            let dialect = &toolchain.dialect;
            let command_start = |l: u64, c: u64| case.command_starts.get(&(l, c)).copied();
            let lines = read(case, name)?
                .lines()
                .map(|l| {
                    let l = if case.is_reference() {
                        dialect.message_line(l, &command_start)?
                    } else {
                        l.to_string()
                    };
                    Ok(l.replace(
                        &format!("\"fileName\":{recorded}"),
                        &format!("\"fileName\":{actual}"),
                    ))
                })
                .collect::<Result<Vec<String>, String>>()
                .map_err(|e| Failure::Misconfigured(format!("{}: {e}", case.dir.display())))?;
            let profile_path = case.dir.join("profile.json");
            let profile = if output_path.is_some() && profile_path.is_file() {
                let recorded = read(case, "profile.json")?;
                Some(if case.is_reference() {
                    dialect.profile(&recorded).map_err(|e| {
                        Failure::Misconfigured(format!("{}: {e}", case.dir.display()))
                    })?
                } else {
                    recorded
                })
            } else {
                None
            };
            let code = read(case, "exit-code")?;
            let code = code.trim().parse::<i32>().map_err(|_| {
                Failure::Misconfigured(format!("{}: bad exit-code {code:?}", case.dir.display()))
            })?;
            (
                lines,
                read(case, "stderr")?,
                case.stderr_lines_before_stdout,
                profile,
                code,
            )
        }
    };
    let stdout = std::io::stdout();
    let stderr_handle = std::io::stderr();
    let mut out = stdout.lock();
    let mut err = stderr_handle.lock();
    let mut stderr_lines = stderr.split_inclusive('\n');
    for line in stderr_lines.by_ref().take(before) {
        err.write_all(line.as_bytes())
            .and_then(|()| err.flush())
            .map_err(|_| Failure::Output)?;
    }
    for (index, line) in stdout_lines.iter().enumerate() {
        let number = index as u64 + 1;
        for delay in case
            .delays
            .iter()
            .filter(|d| d.before_stdout_line == number)
        {
            sleep_in_steps(Duration::from_secs_f64(delay.ms * scale / 1000.0));
        }
        let text = if inv.json {
            format!("{line}\n")
        } else {
            plain_text(line, file).map_err(Failure::Misconfigured)?
        };
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|_| Failure::Output)?;
    }
    if let (Some(path), Some(profile)) = (output_path, profile) {
        if let Err(e) = std::fs::write(path, profile) {
            let reason = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    "no such file or directory (error code: 2)".to_string()
                }
                std::io::ErrorKind::PermissionDenied => {
                    "permission denied (error code: 13)".to_string()
                }
                _ => e.to_string(),
            };
            let _ = writeln!(err, "uncaught exception: {reason}\n  file: {path}");
            return Ok(1);
        }
    }
    for line in stderr_lines {
        err.write_all(line.as_bytes())
            .map_err(|_| Failure::Output)?;
    }
    err.flush().map_err(|_| Failure::Output)?;
    Ok(exit_code)
}

/// Renders one JSON message line as `lean` without `--json` prints it.
fn plain_text(line: &str, file: &str) -> Result<String, String> {
    let v: Value =
        serde_json::from_str(line).map_err(|e| format!("recorded line is not JSON: {e}"))?;
    let pos = (
        v["pos"]["line"].as_u64().unwrap_or(0),
        v["pos"]["column"].as_u64().unwrap_or(0),
    );
    Ok(message_plain_text(
        file,
        pos,
        v["severity"].as_str().unwrap_or("information"),
        v["caption"].as_str().unwrap_or(""),
        v["data"].as_str().unwrap_or(""),
        v["kind"].as_str(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_the_stock_invocation() {
        let inv = parse_args(&args(&[
            "--json",
            "-Dtrace.profiler=true",
            "-D",
            "trace.profiler.threshold=1",
            "-Dtrace.profiler.output=/tmp/p.json",
            "-j",
            "2",
            "--tstack=65536",
            "Demo/Clean.lean",
        ]))
        .expect("parses");
        assert!(inv.json);
        assert_eq!(inv.file.as_deref(), Some("Demo/Clean.lean"));
        assert_eq!(inv.option("trace.profiler.threshold"), Some("1"));
        assert_eq!(inv.option("trace.profiler.output"), Some("/tmp/p.json"));
        assert_eq!(inv.option("profiler"), None);
    }

    #[test]
    fn rejects_bad_command_lines() {
        assert!(parse_args(&args(&["-Dnovalue", "A.lean"])).is_err());
        assert!(parse_args(&args(&["A.lean", "B.lean"])).is_err());
        assert!(parse_args(&args(&["--frobnicate", "A.lean"])).is_err());
        assert!(parse_args(&args(&["-D"])).is_err());
    }

    #[test]
    fn plain_text_rendering_uses_the_given_file() {
        let line = r#"{"caption":"","data":"Unknown identifier `x`","endPos":{"column":9,"line":2},"fileName":"Demo/B.lean","isSilent":false,"keepFullRange":false,"kind":"lean.unknownIdentifier._namedError","pos":{"column":8,"line":2},"severity":"error"}"#;
        assert_eq!(
            plain_text(line, "/abs/Demo/B.lean").expect("renders"),
            "/abs/Demo/B.lean:2:8: error(lean.unknownIdentifier): Unknown identifier `x`\n"
        );
    }
}
