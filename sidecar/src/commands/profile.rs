//! `leanscope profile`: capture a Lean file.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use crate::capture::{capture_file, CaptureRequest, Progress, RunOptions, DEFAULT_THRESHOLD_MS};
use crate::exit;

#[derive(clap::Args)]
pub struct Args {
    /// The Lean file to capture.
    file: PathBuf,
    /// Where to write the recording (default: <project>/.leanscope/recordings/<Module>-<time>.lsrec).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Profiler threshold in milliseconds: steps faster than this are not recorded.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD_MS)]
    threshold: u64,
    /// The lake to use (default: lake on PATH, then ~/.elan/bin/lake).
    #[arg(long)]
    lake: Option<PathBuf>,
    /// Stop Lean after this many seconds.
    #[arg(long)]
    timeout: Option<u64>,
    /// Print the capture's headline facts as JSON instead of the recording path.
    #[arg(long)]
    json: bool,
}

/// Ctrl-C and SIGTERM cancel the capture (Lean is stopped, nothing is left
/// half-written); the exit code says which signal it was.
pub struct Interrupts {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

impl Interrupts {
    pub fn install(cancel: &crate::capture::CancelToken) -> Result<Interrupts> {
        let int = Arc::new(AtomicBool::new(false));
        let term = Arc::new(AtomicBool::new(false));
        for (sig, flag) in [
            (signal_hook::consts::SIGINT, &int),
            (signal_hook::consts::SIGTERM, &term),
        ] {
            signal_hook::flag::register(sig, flag.clone())?;
            signal_hook::flag::register(sig, cancel.flag())?;
        }
        Ok(Interrupts { int, term })
    }

    /// 130 after SIGINT, 143 after SIGTERM.
    pub fn exit_code(&self) -> Option<u8> {
        if self.int.load(Ordering::SeqCst) {
            Some(exit::INTERRUPTED)
        } else if self.term.load(Ordering::SeqCst) {
            Some(exit::TERMINATED)
        } else {
            None
        }
    }
}

pub fn run(a: Args) -> Result<u8> {
    let opts = RunOptions {
        timeout: a.timeout.map(Duration::from_secs),
        ..RunOptions::default()
    };
    let interrupts = Interrupts::install(&opts.cancel)?;
    let req = CaptureRequest {
        file: a.file,
        output: a.out,
        threshold_ms: a.threshold,
        lake: a.lake,
    };
    let mut last = 0;
    let result = capture_file(&req, &opts, &mut |p| match p {
        Progress::Starting { module, lake } => {
            eprintln!("leanscope: capturing {module} with {}", lake.display())
        }
        Progress::Running { messages } if messages != last => {
            last = messages;
            eprintln!("leanscope: Lean has reported {messages} messages");
        }
        Progress::Running { .. } => {}
        Progress::Reading => eprintln!("leanscope: reading Lean's output"),
        Progress::Writing { path } => eprintln!("leanscope: writing {}", path.display()),
    });
    match result {
        Ok(r) => {
            if a.json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                println!("{}", r.recording.display());
            }
            for note in &r.notes {
                eprintln!("leanscope: note: {note}");
            }
            if r.errors > 0 {
                eprintln!(
                    "leanscope: Lean reported {} errors; the recording keeps them",
                    r.errors
                );
                return Ok(exit::LEAN_ERRORS);
            }
            Ok(exit::OK)
        }
        Err(e) => {
            if let Some(code) = interrupts.exit_code() {
                eprintln!("leanscope: interrupted; Lean was stopped and no recording was written");
                return Ok(code);
            }
            eprintln!("leanscope: error: {e}");
            Ok(exit::CAPTURE_FAILED)
        }
    }
}
