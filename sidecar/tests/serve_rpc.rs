//! `leanscope serve` end to end: the real binary over pipes with LSP
//! framing, the fake Lean replaying fixtures/lean-output, every answer
//! checked against `schemas/rpc/serve.schema.json` and value by value.

mod common;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use common::{is_running, pids, repo, World};
use recording::model::annotations::{OPERATION_LABEL_MAX_CHARS, TOP_OPERATIONS_PER_LINE};
use recording::model::declaration_times;
use recording::{sha256_hex, Recording};
use serde_json::{json, Value};

/// How long any one answer may take.
const ANSWER_WAIT: Duration = Duration::from_secs(30);

fn schema() -> Value {
    let text = std::fs::read_to_string(repo().join("schemas/rpc/serve.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Fails unless `value` is valid against `#/$defs/<def>`.
fn check(def: &str, value: &Value) {
    let mut root = schema();
    assert!(root["$defs"].get(def).is_some(), "no $defs/{def}");
    root["$ref"] = json!(format!("#/$defs/{def}"));
    let validator = jsonschema::validator_for(&root).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{def} does not match the schema: {errors:#?}\n{value:#}"
    );
}

/// A JSON-RPC client of `leanscope serve` over its stdin/stdout.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Messages seen while waiting for something else.
    seen: VecDeque<Value>,
    /// Every notification and server request, in arrival order.
    log: Vec<Value>,
    next_id: i64,
    stderr: std::thread::JoinHandle<String>,
}

impl Client {
    fn start(w: &World, env: &[(&str, &str)]) -> Client {
        let mut cmd = w.command(&["serve"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(m) = read_message(&mut r) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        Client {
            stdin: child.stdin.take(),
            child,
            incoming,
            seen: VecDeque::new(),
            log: Vec::new(),
            next_id: 1,
            stderr,
        }
    }

    fn write(&mut self, m: &Value) {
        let body = serde_json::to_vec(m).unwrap();
        let stdin = self.stdin.as_mut().expect("stdin is open");
        write!(stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        stdin.write_all(&body).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes bytes as they are (a header block, a body, or both).
    fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes `body` framed with its true length.
    fn write_body(&mut self, body: &[u8]) {
        self.write_raw(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        self.write_raw(body);
    }

    /// The next response with `id` null (an answer to a message whose id
    /// could not be read).
    fn null_id_error(&mut self) -> Value {
        loop {
            let m = self.next();
            if m.get("method").is_none() && m["id"].is_null() {
                return m["error"].clone();
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// One message from the server within `wait`, answering
    /// `window/workDoneProgress/create` and logging notifications and
    /// server requests on the way.
    fn receive(&mut self, wait: Duration) -> Option<Value> {
        let m = self.incoming.recv_timeout(wait).ok()?;
        if m.get("method").is_some() {
            self.log.push(m.clone());
            if m["method"] == "window/workDoneProgress/create" {
                let id = m["id"].clone();
                self.write(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
            }
        }
        Some(m)
    }

    /// Receives what arrives within `wait` and keeps it for later.
    fn pump(&mut self, wait: Duration) {
        if let Some(m) = self.receive(wait) {
            self.seen.push_back(m);
        }
    }

    /// The next message.
    fn next(&mut self) -> Value {
        match self.seen.pop_front() {
            Some(m) => m,
            None => self
                .receive(ANSWER_WAIT)
                .unwrap_or_else(|| panic!("no message within {ANSWER_WAIT:?}")),
        }
    }

    /// The response to request `id`.
    fn response(&mut self, id: i64) -> Value {
        loop {
            let m = self.next();
            if m.get("method").is_none() && m["id"] == json!(id) {
                return m;
            }
        }
    }

    /// The result of request `id`, which must have succeeded.
    fn result(&mut self, id: i64) -> Value {
        let r = self.response(id);
        assert!(r.get("error").is_none(), "request {id} failed: {r:#}");
        r["result"].clone()
    }

    /// The error of request `id`, which must have failed.
    fn error(&mut self, id: i64) -> Value {
        let r = self.response(id);
        assert!(r.get("result").is_none(), "request {id} succeeded: {r:#}");
        r["error"].clone()
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.result(id)
    }

    fn call_err(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.error(id)
    }

    fn initialize(&mut self, progress: bool) -> Value {
        let r = self.call(
            "initialize",
            json!({"processId": null, "rootUri": null,
                   "capabilities": {"window": {"workDoneProgress": progress}}}),
        );
        self.notify("initialized", json!({}));
        r
    }

    /// `$/progress` values sent on `token`, in order.
    fn progress(&self, token: &Value) -> Vec<Value> {
        self.log
            .iter()
            .filter(|m| m["method"] == "$/progress" && &m["params"]["token"] == token)
            .map(|m| m["params"]["value"].clone())
            .collect()
    }

    /// Waits for `$/progress` `end` on `token`.
    fn wait_progress_end(&mut self, token: &Value) -> Value {
        let started = Instant::now();
        loop {
            if let Some(end) = self
                .progress(token)
                .into_iter()
                .find(|v| v["kind"] == "end")
            {
                return end;
            }
            assert!(
                started.elapsed() < ANSWER_WAIT,
                "no progress end on {token}"
            );
            self.pump(Duration::from_millis(20));
        }
    }

    /// `shutdown`, `exit`, and the process's exit code and stderr.
    fn shut_down(mut self) -> (i32, String) {
        assert_eq!(self.call("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.stdin = None;
        let code = wait_exit(&mut self.child);
        (code, self.stderr.join().unwrap())
    }
}

fn wait_exit(child: &mut Child) -> i32 {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "leanscope serve did not exit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One LSP-framed message, or None at the end of the stream.
fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0u8; length?];
    r.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("the server writes JSON"))
}

fn file_uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn recordings_dir(w: &World) -> PathBuf {
    w.project.join(".leanscope/recordings")
}

fn names(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect()
}

#[test]
fn capture_open_and_annotate_a_file_over_json_rpc() {
    let w = World::new();
    let mut c = Client::start(&w, &[]);

    // Anything but initialize first is refused, as LSP says.
    let e = c.call_err("leanscope/open", json!({"recording": "/x.lsrec"}));
    assert_eq!(e["code"], -32002, "{e}");

    let init = c.initialize(true);
    check("initializeResult", &init);
    assert_eq!(
        init["capabilities"]["experimental"]["leanscope"]["methods"],
        json!([
            "leanscope/capture",
            "leanscope/open",
            "leanscope/annotations",
            "leanscope/captureFolder",
            "leanscope/query",
            "leanscope/hotSpots",
            "leanscope/compare",
            "leanscope/compareRevisions"
        ])
    );

    // Capture Demo/Clean.lean: the server creates a progress token, then
    // begin, reports with message counts, end.
    let source = w.project.join("Demo/Clean.lean");
    let params = json!({"uri": file_uri(&source), "thresholdMs": 1});
    check("captureParams", &params);
    let captured = c.call("leanscope/capture", params);
    check("captureResult", &captured);
    let create = c
        .log
        .iter()
        .find(|m| m["method"] == "window/workDoneProgress/create")
        .expect("the server asked for a progress token")
        .clone();
    let token = create["params"]["token"].clone();
    // tower-lsp-server writes responses and notifications through separate
    // queues, so `end` may arrive just after the answer.
    c.wait_progress_end(&token);
    let progress = c.progress(&token);
    let kinds: Vec<&str> = progress
        .iter()
        .map(|v| v["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"begin"), "{progress:#?}");
    assert_eq!(kinds.last(), Some(&"end"), "{progress:#?}");
    assert!(kinds[1..kinds.len() - 1].iter().all(|k| *k == "report"));
    assert_eq!(progress[0]["title"], "Profiling Clean.lean");
    assert_eq!(progress[0]["cancellable"], true);
    let reports: Vec<&str> = progress
        .iter()
        .filter_map(|v| v["message"].as_str())
        .collect();
    assert!(
        reports
            .iter()
            .any(|m| m.starts_with("Starting Lean on Demo.Clean (lake: ")),
        "{reports:#?}"
    );
    // The fake prints Lean's JSON messages, one per line.
    let fixture_lines = std::fs::read_to_string(w.fixtures.join("clean/stdout"))
        .unwrap()
        .lines()
        .count();
    let finished = reports
        .iter()
        .find_map(|m| m.strip_prefix("Lean finished after "))
        .expect("a report with the message count");
    let count: usize = finished.split(' ').next().unwrap().parse().unwrap();
    assert!(
        count >= fixture_lines,
        "{finished}: fixture has {fixture_lines} lines"
    );
    assert_eq!(
        progress.last().unwrap()["message"],
        format!(
            "Recorded {} events in 5 declarations (ok)",
            captured["events"]
        )
    );

    assert_eq!(captured["status"], "ok");
    assert_eq!(captured["module"], "Demo.Clean");
    assert_eq!(captured["leanVersion"], "4.31.0");
    assert_eq!(captured["declarations"], 5);
    assert_eq!(captured["errors"], 0);
    assert_eq!(captured["clock"], "measured");
    let path = PathBuf::from(captured["recording"].as_str().unwrap());
    assert_eq!(
        path.parent().unwrap(),
        recordings_dir(&w).canonicalize().unwrap()
    );
    let rec = Recording::open(&path).unwrap();
    assert_eq!(captured["events"], rec.len());
    assert_eq!(captured["elapsedNs"], json!(rec.header.elapsed_ns));

    // open: the header facts and the declarations with their times.
    let params = json!({"recording": path});
    check("openParams", &params);
    let opened = c.call("leanscope/open", params);
    check("openResult", &opened);
    assert_eq!(opened["module"], "Demo.Clean");
    assert_eq!(opened["sourcePath"], "Demo/Clean.lean");
    assert_eq!(opened["leanVersion"], "4.31.0");
    assert_eq!(opened["toolchain"], "leanprover/lean4:v4.31.0");
    assert_eq!(opened["clock"], "measured");
    assert_eq!(opened["status"], "ok");
    assert_eq!(opened["captureMode"], "stock");
    assert_eq!(opened["thresholdNs"], 1_000_000);
    assert_eq!(opened["shareBasis"], "elapsed");
    assert_eq!(opened["fileNs"], captured["elapsedNs"]);
    assert_eq!(opened["counts"]["events"], rec.len());
    assert_eq!(opened["counts"]["threadsWithEvents"], 3);
    assert_eq!(opened["counts"]["declarations"], 5);
    assert_eq!(opened["counts"]["declarationsWithTime"], 5);
    assert_eq!(opened["counts"]["errors"], 0);
    assert_eq!(opened["diagnostics"], json!([]));
    let source_text = std::fs::read_to_string(&source).unwrap();
    assert_eq!(opened["sourceSha256"], sha256_hex(source_text.as_bytes()));
    assert_eq!(
        names(&opened["declarations"]),
        [
            "Demo.Clean.double",
            "Demo.Clean.double_add",
            "Demo.Clean.length_append_comm",
            "Demo.Clean.le_double",
            "Demo.Clean.cases_example"
        ]
    );
    let times = declaration_times(&rec);
    for (d, t) in opened["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&times)
    {
        let t = t.unwrap();
        assert_eq!(
            (
                d["totalNs"].as_u64(),
                d["selfNs"].as_u64(),
                d["events"].as_u64()
            ),
            (Some(t.total_ns), Some(t.self_ns), Some(t.count)),
            "{d}"
        );
    }
    // double_add: `theorem` on 0-based line 6, its name selected.
    let double_add = &opened["declarations"][1];
    assert_eq!(double_add["kind"], "theorem");
    assert_eq!(
        double_add["range"],
        json!({"start": {"line": 6, "character": 0}, "end": {"line": 8, "character": 7}})
    );
    assert_eq!(
        double_add["selectionRange"],
        json!({"start": {"line": 6, "character": 8}, "end": {"line": 6, "character": 18}})
    );

    // annotations with the unchanged buffer.
    let params = json!({"recording": path, "text": source_text});
    check("annotationsParams", &params);
    let a = c.call("leanscope/annotations", params);
    check("annotationsResult", &a);
    assert_eq!(a["stale"], false);
    assert_eq!(a["fileNs"], opened["fileNs"]);
    // Where the file's time went: `info`'s account; the declarations' shares
    // summed, and the threads their events ran on (as the model counts them).
    let account = recording::model::time_account(&rec);
    assert_eq!(a["account"]["fileNs"].as_u64(), Some(account.file_ns));
    assert_eq!(a["account"]["basis"], "elapsed");
    assert_eq!(a["account"]["importsNs"].as_u64(), account.imports_ns);
    assert_eq!(a["account"]["tracedNs"].as_u64(), Some(account.traced_ns));
    assert_eq!(
        a["account"]["untracedNs"].as_u64(),
        Some(account.untraced_ns)
    );
    let shares: f64 = a["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["share"].as_f64())
        .sum();
    let sum = a["account"]["declarationShareSum"].as_f64().unwrap();
    assert!((sum - shares).abs() < 1e-9, "{sum} vs {shares}");
    assert!(
        sum < 1.0,
        "Clean.lean's declarations fit in its wall time: {sum}"
    );
    let threads: std::collections::BTreeSet<u16> =
        (0..rec.len() as u32).map(|i| rec.thread(i)).collect();
    assert_eq!(a["account"]["threads"].as_u64(), Some(threads.len() as u64));
    let file_ns = a["fileNs"].as_f64().unwrap();
    let lines = a["lines"].as_array().unwrap();
    let line = |n: u64| {
        lines
            .iter()
            .find(|l| l["line"] == n)
            .unwrap_or_else(|| panic!("no bar on line {n}"))
    };
    // `omega` of double_add, 0-based line 8: Lean's profiler said 6.22ms.
    let omega = line(8);
    let omega_ns = omega["totalNs"].as_u64().unwrap();
    assert!(omega_ns >= 6_220_000, "{omega}");
    assert!((omega_ns as f64 - 6.22e6).abs() / 6.22e6 < 0.005, "{omega}");
    assert_eq!(omega["selfNs"], omega["totalNs"]);
    let share = omega["share"].as_f64().unwrap();
    assert!((share - omega_ns as f64 / file_ns).abs() < 1e-12);
    let top = &omega["top"][0];
    assert_eq!(
        (
            &top["class"],
            &top["label"],
            &top["kind"],
            &top["rangeKind"]
        ),
        (
            &json!("Elab.step"),
            &json!("omega"),
            &json!("tactic"),
            &json!("matched")
        )
    );
    assert_eq!(top["inclusiveNs"], omega["totalNs"]);
    assert_eq!(
        top["range"],
        json!({"start": {"line": 8, "character": 2}, "end": {"line": 8, "character": 7}})
    );
    // Every bar is a union of intervals within the file's time.
    for l in lines {
        assert!(l["totalNs"].as_u64() >= l["selfNs"].as_u64(), "{l}");
        assert!(l["share"].as_f64().unwrap() <= 1.0, "{l}");
        let tops = l["top"].as_array().unwrap();
        assert!(!tops.is_empty() && tops.len() <= TOP_OPERATIONS_PER_LINE);
        assert!(tops
            .windows(2)
            .all(|p| p[0]["inclusiveNs"].as_u64() >= p[1]["inclusiveNs"].as_u64()));
    }
    // The declaration line of double_add holds its asynchronous proof.
    assert_eq!(line(6)["top"][0]["class"], "Elab.async");
    assert_eq!(a["declarations"], opened["declarations"]);
    let decl_total = a["declarations"][1]["totalNs"].as_u64().unwrap();
    assert!(decl_total >= omega_ns);

    // annotations with an edited buffer: stale, with both hashes.
    let edited = source_text.replace("omega", "simp_arith");
    let a = c.call(
        "leanscope/annotations",
        json!({"recording": path, "text": edited}),
    );
    check("annotationsResult", &a);
    assert_eq!(
        a,
        json!({"stale": true,
               "recordedSha256": sha256_hex(source_text.as_bytes()),
               "bufferSha256": sha256_hex(edited.as_bytes())})
    );

    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn errors_are_json_rpc_errors_with_clear_messages() {
    let w = World::new();
    let mut c = Client::start(&w, &[]);
    c.initialize(false);
    let source = w.project.join("Demo/Clean.lean");
    let missing = w.project.join("Demo/Missing.lean");
    let outside = w.path("Lone.lean");
    std::fs::write(&outside, "theorem t : True := trivial\n").unwrap();
    let junk = w.path("junk.lsrec");
    std::fs::write(&junk, b"\x89LSREC\r\nnot really").unwrap();

    let cases: Vec<(&str, Value, i64, &str)> = vec![
        (
            "leanscope/capture",
            json!({"uri": "untitled:Untitled-1"}),
            -32602,
            "\"untitled:Untitled-1\" is not a file:// URI",
        ),
        (
            "leanscope/capture",
            json!({"uri": file_uri(&missing)}),
            -32010,
            "the Lean file",
        ),
        (
            "leanscope/capture",
            json!({"uri": file_uri(&outside)}),
            -32012,
            "is not inside a Lean project: no lean-toolchain, lakefile.toml or lakefile.lean in",
        ),
        (
            "leanscope/capture",
            json!({"uri": file_uri(&source), "lake": w.path("no-lake").display().to_string()}),
            -32013,
            "cannot find lake: looked for",
        ),
        (
            "leanscope/capture",
            json!({"uri": file_uri(&source), "treshold": 1}),
            -32602,
            "unknown field `treshold`",
        ),
        (
            "leanscope/capture",
            json!({"uri": file_uri(&source), "timeoutSeconds": 0}),
            -32602,
            "timeoutSeconds must be at least 1",
        ),
        (
            "leanscope/open",
            json!({"recording": source}),
            -32011,
            "not a leanscope recording (wrong magic bytes",
        ),
        (
            "leanscope/open",
            json!({"recording": junk}),
            -32011,
            "junk.lsrec is not a usable recording: ",
        ),
        (
            "leanscope/open",
            json!({"recording": w.path("none.lsrec")}),
            -32010,
            "none.lsrec does not exist or is not a file",
        ),
        (
            "leanscope/open",
            json!({"recording": "rel/x.lsrec"}),
            -32602,
            "the recording must be an absolute path or a file:// URI",
        ),
        (
            "leanscope/annotations",
            json!({"recording": w.path("none.lsrec")}),
            -32602,
            "missing field `text`",
        ),
        ("leanscope/nope", json!({}), -32601, "Method not found"),
    ];
    for (method, params, code, says) in cases {
        let e = c.call_err(method, params.clone());
        assert_eq!(e["code"], code, "{method} {params}: {e:#}");
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains(says),
            "{method} {params}: {message:?} should say {says:?}"
        );
        if (-32014..=-32010).contains(&code) {
            check("errorData", &e["data"]);
        }
    }
    // An unknown capture backend, for a file and for a folder: the value
    // and the accepted ones are named, before any Lean runs.
    for (method, params) in [
        (
            "leanscope/capture",
            json!({"uri": file_uri(&source), "backend": "native"}),
        ),
        (
            "leanscope/captureFolder",
            json!({"folder": file_uri(&w.project.join("Demo")), "backend": "native"}),
        ),
    ] {
        let e = c.call_err(method, params);
        assert_eq!(e["code"], -32602, "{method}: {e:#}");
        assert_eq!(
            e["message"], "unknown capture backend \"native\"; the accepted backends are \"stock\"",
            "{method}"
        );
        check("errorData", &e["data"]);
        assert_eq!(
            e["data"],
            json!({"kind": "unknownBackend", "value": "native", "accepted": ["stock"]})
        );
        // The schema offers exactly the accepted backends.
        let def = if method == "leanscope/capture" {
            "captureParams"
        } else {
            "captureFolderParams"
        };
        assert_eq!(
            schema()["$defs"][def]["properties"]["backend"]["enum"],
            e["data"]["accepted"],
            "{def}"
        );
    }
    assert!(!w.project.join(".leanscope/sessions").exists());

    // Lean failing: its stderr tail comes along. The broken fixture fails
    // only for a toolchain that does not know the file; a missing fixture
    // for this file makes the fake Lean exit 1 with its complaint.
    let unknown = w.project.join("Demo/Unknown.lean");
    std::fs::write(&unknown, "theorem u : True := trivial\n").unwrap();
    let e = c.call_err(
        "leanscope/capture",
        json!({"uri": file_uri(&unknown), "thresholdMs": 1}),
    );
    assert_eq!(e["code"], -32014, "{e:#}");
    check("errorData", &e["data"]);
    assert_eq!(e["data"]["kind"], "leanFailed");
    assert!(
        e["data"]["stderr"]
            .as_str()
            .unwrap()
            .contains("no recorded Lean output for Demo/Unknown.lean"),
        "{e:#}"
    );
    // Nothing was written for the failures.
    assert!(std::fs::read_dir(recordings_dir(&w)).map_or(true, |mut d| d.next().is_none()));

    // An exit without shutdown exits 1, as LSP says.
    c.notify("exit", Value::Null);
    c.stdin = None;
    assert_eq!(wait_exit(&mut c.child), 1);
}

/// Starts a slow capture of Demo/Clean.lean and waits until the fake
/// `lean --json` runs (the second `lean`: the first prints its version).
/// A server whose fake Lean is 100 times slower and writes its process ids to `pidfile`.
fn slow_client(w: &World, pidfile: &Path) -> Client {
    Client::start(
        w,
        &[
            ("LEANSCOPE_FAKE_DELAY_SCALE", "100"),
            ("LEANSCOPE_FAKE_PIDFILE", pidfile.to_str().unwrap()),
        ],
    )
}

fn start_slow_capture(c: &mut Client, w: &World, pidfile: &Path, extra: Value) -> i64 {
    let mut params = json!({"uri": file_uri(&w.project.join("Demo/Clean.lean")), "thresholdMs": 1});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    check("captureParams", &params);
    let id = c.request("leanscope/capture", params);
    let started = Instant::now();
    while pids(pidfile).iter().filter(|(n, _)| n == "lean").count() < 2 {
        assert!(started.elapsed() < ANSWER_WAIT, "fake lean never started");
        // Keep answering the server (progress token creation).
        c.pump(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    id
}

/// Starts a capture of the Demo folder into `out` with the slow fake and
/// returns once two fake Leans run (the request's id).
fn start_slow_folder_capture(c: &mut Client, w: &World, pidfile: &Path, out: &Path) -> i64 {
    let id = c.request(
        "leanscope/captureFolder",
        json!({"folder": file_uri(&w.project.join("Demo")), "thresholdMs": 1,
               "output": out.to_str().unwrap()}),
    );
    let started = Instant::now();
    while pids(pidfile).iter().filter(|(n, _)| n == "lean").count() < 2 {
        assert!(started.elapsed() < ANSWER_WAIT, "fake lean never started");
        c.pump(Duration::from_millis(20));
    }
    id
}

/// The fake lake and lean are gone within the kill grace period, and no
/// recording (nor a temporary file) is left.
fn assert_stopped_and_nothing_written(w: &World, pidfile: &Path) {
    let all = pids(pidfile);
    // `lake env`, then `lean --version` and `lean --json` in its environment.
    assert_eq!(all.len(), 3, "{all:?}");
    let started = Instant::now();
    while all.iter().any(|(_, p)| is_running(*p)) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still running: {:?}",
            all.iter()
                .filter(|(_, p)| is_running(*p))
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The capture thread finishes after Lean is gone; give it a moment to
    // clean up its temporary profile.
    let started = Instant::now();
    loop {
        let tmp_empty = std::fs::read_dir(w.project.join(".leanscope/tmp"))
            .map_or(true, |mut d| d.next().is_none());
        if tmp_empty || started.elapsed() > Duration::from_secs(5) {
            assert!(tmp_empty, "Lean's temporary profile was left behind");
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<_> = std::fs::read_dir(recordings_dir(w))
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "recordings were written: {left:?}");
}

#[test]
fn cancel_request_stops_lean_and_answers_request_cancelled() {
    let w = World::new();
    let pidfile = w.path("pids");
    let mut c = slow_client(&w, &pidfile);
    c.initialize(true);
    let id = start_slow_capture(&mut c, &w, &pidfile, json!({}));
    let asked = Instant::now();
    c.notify("$/cancelRequest", json!({"id": id}));
    let e = c.error(id);
    assert!(asked.elapsed() < Duration::from_secs(5));
    assert_eq!(e["code"], -32800, "{e:#}");
    assert_stopped_and_nothing_written(&w, &pidfile);
    // The progress was closed.
    let token = c
        .log
        .iter()
        .find(|m| m["method"] == "window/workDoneProgress/create")
        .unwrap()["params"]["token"]
        .clone();
    let end = c.wait_progress_end(&token);
    assert_eq!(end["message"], "Cancelled; Lean was stopped");

    // The server is still good for work.
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("cancelled; stopping Lean"), "{stderr}");
}

#[test]
fn the_progress_cancel_button_stops_lean_too() {
    let w = World::new();
    let pidfile = w.path("pids");
    let mut c = slow_client(&w, &pidfile);
    // The client makes the token itself and does not offer to create any.
    c.initialize(false);
    let id = start_slow_capture(&mut c, &w, &pidfile, json!({"workDoneToken": "tok-7"}));
    c.notify("window/workDoneProgress/cancel", json!({"token": "tok-7"}));
    let e = c.error(id);
    assert_eq!(e["code"], -32800, "{e:#}");
    assert_eq!(
        e["message"],
        "cancelled; Lean was stopped and no recording was written"
    );
    assert_stopped_and_nothing_written(&w, &pidfile);
    assert!(!c
        .log
        .iter()
        .any(|m| m["method"] == "window/workDoneProgress/create"));
    c.wait_progress_end(&json!("tok-7"));
    let values = c.progress(&json!("tok-7"));
    assert_eq!(values[0]["kind"], "begin");
    assert_eq!(values.last().unwrap()["kind"], "end");
    let (code, _) = c.shut_down();
    assert_eq!(code, 0);
}

#[test]
fn a_client_that_goes_away_takes_lean_with_it() {
    let w = World::new();
    let pidfile = w.path("pids");
    let mut c = slow_client(&w, &pidfile);
    c.initialize(true);
    start_slow_capture(&mut c, &w, &pidfile, json!({}));
    c.stdin = None;
    assert_eq!(wait_exit(&mut c.child), 1);
    assert_stopped_and_nothing_written(&w, &pidfile);
}

#[test]
fn exit_during_a_capture_stops_lean() {
    let w = World::new();
    let pidfile = w.path("pids");
    let mut c = slow_client(&w, &pidfile);
    c.initialize(true);
    start_slow_capture(&mut c, &w, &pidfile, json!({}));
    assert_eq!(c.call("shutdown", Value::Null), Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(wait_exit(&mut c.child), 0);
    assert_stopped_and_nothing_written(&w, &pidfile);
}

#[test]
fn the_schema_states_the_limits_the_code_applies() {
    let s = schema();
    assert_eq!(
        s["$defs"]["line"]["properties"]["top"]["maxItems"],
        TOP_OPERATIONS_PER_LINE
    );
    assert_eq!(
        s["$defs"]["operation"]["properties"]["label"]["maxLength"],
        OPERATION_LABEL_MAX_CHARS
    );
    // The validator does reject what the schema rules out.
    let mut root = s.clone();
    root["$ref"] = json!("#/$defs/annotationsResult");
    let v = jsonschema::validator_for(&root).unwrap();
    assert!(!v.is_valid(&json!({"stale": true})));
    assert!(!v.is_valid(
        &json!({"stale": false, "recordedSha256": "0".repeat(64), "bufferSha256": "1".repeat(64)})
    ));
    assert!(v.is_valid(
        &json!({"stale": true, "recordedSha256": "0".repeat(64), "bufferSha256": "1".repeat(64)})
    ));
    // Every method has params and a result.
    for m in ["capture", "open", "annotations"] {
        assert!(s["$defs"].get(format!("{m}Params")).is_some(), "{m}");
        assert!(s["$defs"].get(format!("{m}Result")).is_some(), "{m}");
    }
}

#[test]
fn capture_folder_reports_each_file_and_query_matches_the_cli() {
    let w = World::new();
    let mut c = Client::start(&w, &[]);
    c.initialize(true);
    let out = w.path("session");
    let params = json!({"folder": file_uri(&w.project.join("Demo")), "thresholdMs": 1,
                        "backend": "stock", "output": out.to_str().unwrap()});
    check("captureFolderParams", &params);
    let r = c.call("leanscope/captureFolder", params);
    check("captureFolderResult", &r);
    let planned = r["counts"]["planned"].as_u64().unwrap();
    assert!(planned >= 2, "{r:#}");
    let token = c
        .log
        .iter()
        .find(|m| m["method"] == "window/workDoneProgress/create")
        .unwrap()["params"]["token"]
        .clone();
    c.wait_progress_end(&token);
    let done: Vec<Value> = c
        .progress(&token)
        .into_iter()
        .filter(|v| v["kind"] == "report" && v["message"].as_str().unwrap().starts_with('['))
        .collect();
    assert_eq!(done.len() as u64, planned, "{done:#?}");
    assert_eq!(done.last().unwrap()["percentage"], 100);

    for kind in ["file", "folder", "declaration", "tactic"] {
        let q = json!({"source": out.to_str().unwrap(), "kind": kind, "all": true});
        check("queryParams", &q);
        let got = c.call("leanscope/query", q);
        check("queryResult", &got);
        let cli = w.run(&[
            "query",
            out.to_str().unwrap(),
            "--kind",
            kind,
            "--all",
            "--json",
        ]);
        let want: Value = serde_json::from_slice(&cli.stdout).unwrap();
        assert_eq!(got, want, "{kind}");
    }
    let e = c.call_err(
        "leanscope/query",
        json!({"source": out.to_str().unwrap(), "bogus": 1}),
    );
    assert_eq!(e["code"], -32602);
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_repeated_folder_capture_answers_medians_over_json_rpc() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join("Rep")).unwrap();
    // Runs 0 (the warm-up), 1, 2, 3 plan 100, 300, 200, 250 heartbeats.
    let log = w.path("runs.log");
    std::fs::write(
        w.project.join("Rep/A.lean"),
        format!(
            "-- leanscope-fake: run-log {}\ntheorem a : True := by -- leanscope-fake: heartbeats-runs 100,300,200,250\n  trivial -- leanscope-fake: heartbeats-runs 50,150,100,120\n",
            log.display()
        ),
    )
    .unwrap();
    let mut c = Client::start(&w, &[]);
    c.initialize(true);
    let out = w.path("session");
    let params = json!({"folder": file_uri(&w.project.join("Rep")), "measure": "heartbeats",
                        "thresholdHeartbeats": 10, "repeat": 3,
                        "output": out.to_str().unwrap()});
    check("captureFolderParams", &params);
    let r = c.call("leanscope/captureFolder", params);
    check("captureFolderResult", &r);
    assert_eq!(r["repeats"], json!({"runs": 3, "warmup": 1}), "{r:#}");
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 4);
    let token = c
        .log
        .iter()
        .find(|m| m["method"] == "window/workDoneProgress/create")
        .unwrap()["params"]["token"]
        .clone();
    c.wait_progress_end(&token);
    let messages: Vec<String> = c
        .progress(&token)
        .into_iter()
        .filter_map(|v| v["message"].as_str().map(str::to_owned))
        .filter(|m| m.starts_with('['))
        .collect();
    assert_eq!(
        messages,
        [
            "[1/4] Rep/A.lean (warm-up): ok",
            "[2/4] Rep/A.lean (run 1/3): ok",
            "[3/4] Rep/A.lean (run 2/3): ok",
            "[4/4] Rep/A.lean (run 3/3): ok"
        ]
    );
    let q = json!({"source": out.to_str().unwrap(), "kind": "declaration"});
    let got = c.call("leanscope/query", q);
    check("queryResult", &got);
    assert_eq!(got["rows"][0]["durationMs"], 250.0);
    assert_eq!(
        got["rows"][0]["durationSpread"],
        json!({"runs": 3, "median": 250.0, "min": 200.0, "max": 300.0})
    );
    for bad in [
        json!({"repeat": 0}),
        json!({"warmup": 1}),
        json!({"repeat": 1001}),
    ] {
        let mut p = json!({"folder": file_uri(&w.project.join("Rep")),
                           "output": w.path("other").to_str().unwrap()});
        for (k, v) in bad.as_object().unwrap() {
            p[k] = v.clone();
        }
        let e = c.call_err("leanscope/captureFolder", p);
        assert_eq!(e["code"], -32602, "{bad}: {e}");
    }
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

/// `Rep/A.lean` whose runs 0 (the warm-up), 1, 2, 3, 4 plan 40000, 30000,
/// 10000, 50000, 20000 heartbeats for its command (line 1) and a tenth of
/// that for its step (line 2); the kept runs' medians are 25000 and 2500.
fn repeated_source(w: &World) -> (PathBuf, String) {
    std::fs::create_dir_all(w.project.join("Rep")).unwrap();
    let text = format!(
        "-- leanscope-fake: run-log {}\ntheorem a : True := by -- leanscope-fake: heartbeats-runs 40000,30000,10000,50000,20000\n  trivial -- leanscope-fake: heartbeats-runs 4000,3000,1000,5000,2000\n",
        w.path("runs.log").display()
    );
    let file = w.project.join("Rep/A.lean");
    std::fs::write(&file, &text).unwrap();
    (file, text)
}

/// A spread over 4 runs of these values (in whole units).
fn spread4(values: [u64; 4], median: u64, q1: u64, q3: u64) -> Value {
    json!({"runs": 4, "median": median, "min": values.iter().min(), "max": values.iter().max(),
           "q1": q1, "q3": q3})
}

#[test]
fn a_repeated_file_is_annotated_with_medians_over_json_rpc() {
    let w = World::new();
    let (file, text) = repeated_source(&w);
    let mut c = Client::start(&w, &[]);
    c.initialize(true);
    let out = w.path("session");
    let params = json!({"file": file_uri(&file), "repeat": 4, "measure": "heartbeats",
                        "thresholdHeartbeats": 10, "output": out.to_str().unwrap()});
    check("captureFolderParams", &params);
    let r = c.call("leanscope/captureFolder", params);
    check("captureFolderResult", &r);
    assert_eq!(r["repeats"], json!({"runs": 4, "warmup": 1}), "{r:#}");
    let m = common::read_session(&out).unwrap();
    assert_eq!(m.target.kind, recording::session::TargetKind::File);
    assert_eq!(m.files.len(), 1);
    assert_eq!(m.files[0].runs.len(), 4);
    // File times 30000 10000 50000 20000 (median 25000): runs 1 and 4 are
    // as near; the earlier is the median run.
    let median = &m.files[0].runs[0];
    assert_eq!(median.repeat, 0);

    let params = json!({"session": out.to_str().unwrap(), "file": "Rep/A.lean", "text": text});
    check("annotationsParams", &params);
    let a = c.call("leanscope/annotations", params);
    check("annotationsResult", &a);
    assert_eq!(a["stale"], false);
    assert_eq!(a["measure"], "heartbeats");
    assert_eq!(a["runs"], 4);
    assert_eq!(a["recording"], json!(out.join(&median.recording)));
    assert_eq!(a["fileNs"], 25000);
    assert_eq!(
        a["fileSpread"],
        spread4([30000, 10000, 50000, 20000], 25000, 17500, 35000)
    );
    let lines = a["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{a:#}");
    // Line 1, the command: its total is the file's; self is total − step:
    // 27000 9000 45000 18000 → 22500, q1 15750, q3 31500.
    let command = &lines[0];
    assert_eq!(command["line"], 1);
    assert_eq!(
        (&command["totalNs"], &command["selfNs"]),
        (&json!(25000), &json!(22500))
    );
    assert_eq!(command["share"], 1.0);
    assert_eq!(command["selfShare"], 0.9);
    assert_eq!(
        command["spread"],
        json!({"total": spread4([30000, 10000, 50000, 20000], 25000, 17500, 35000),
               "self": spread4([27000, 9000, 45000, 18000], 22500, 15750, 31500)})
    );
    // The operations are the median run's (30000 heartbeats there).
    assert_eq!(command["events"], 1);
    assert_eq!(command["top"][0]["inclusiveNs"], 30000);
    // Line 2, the step: 3000 1000 5000 2000 → 2500, q1 1750, q3 3500.
    let step = &lines[1];
    assert_eq!(step["line"], 2);
    assert_eq!(
        (&step["totalNs"], &step["selfNs"]),
        (&json!(2500), &json!(2500))
    );
    assert_eq!(step["share"], 0.1);
    assert_eq!(
        step["spread"]["total"],
        spread4([3000, 1000, 5000, 2000], 2500, 1750, 3500)
    );
    assert_eq!(step["top"][0]["inclusiveNs"], 3000);
    let decl = &a["declarations"][0];
    assert_eq!(decl["name"], "a");
    assert_eq!(
        (&decl["totalNs"], &decl["share"]),
        (&json!(25000), &json!(1.0))
    );
    assert_eq!(decl["spread"]["total"], command["spread"]["total"]);
    // Headroom counts the median (25000), not the median run's 30000.
    assert_eq!(
        decl["headroom"]["maxHeartbeats"],
        json!({"limit": 200000, "from": "default", "heartbeats": 25000,
               "share": 25000.0 / 200_000_000.0, "default": 200000, "bumpNotNeeded": false})
    );

    // The same file by its absolute path, the session by its manifest's URI.
    let again = c.call(
        "leanscope/annotations",
        json!({"session": file_uri(&out.join("session.json")), "file": file.to_str().unwrap(),
               "text": text}),
    );
    assert_eq!(again, a);
    // An edited buffer: stale, against the median run's source.
    let edited = text.replace("trivial", "exact trivial");
    let stale = c.call(
        "leanscope/annotations",
        json!({"session": out.to_str().unwrap(), "file": "Rep/A.lean", "text": edited}),
    );
    check("annotationsResult", &stale);
    assert_eq!(
        stale,
        json!({"stale": true, "recordedSha256": sha256_hex(text.as_bytes()),
               "bufferSha256": sha256_hex(edited.as_bytes())})
    );

    // Refusals, each naming what is wrong.
    let b = w.project.join("Rep/B.lean");
    std::fs::write(
        &b,
        "theorem b : True := by -- leanscope-fake: heartbeats 500\n  trivial\n",
    )
    .unwrap();
    let session = out.to_str().unwrap();
    for (params, code, says) in [
        (
            json!({"session": session, "file": "Rep/B.lean"}),
            -32011,
            "does not list Rep/B.lean",
        ),
        (
            json!({"session": w.path("none").to_str().unwrap(), "file": "Rep/A.lean"}),
            -32010,
            "the session",
        ),
        (
            json!({"session": w.project.to_str().unwrap(), "file": "Rep/A.lean"}),
            -32011,
            "is not a session directory",
        ),
        (json!({"session": session}), -32602, "session needs file"),
        (
            json!({"session": session, "file": "Rep/A.lean", "recording": session}),
            -32602,
            "not both",
        ),
    ] {
        let mut p = params.clone();
        p["text"] = json!(text);
        let e = c.call_err("leanscope/annotations", p);
        assert_eq!(e["code"], code, "{params}: {e:#}");
        assert!(
            e["message"].as_str().unwrap().contains(says),
            "{params}: {e:#}"
        );
        if code != -32602 {
            check("errorData", &e["data"]);
        }
    }
    // A session whose run recording is gone, or of another source, or
    // whose file is not committed: copies of the session, damaged.
    let damaged = |name: &str| {
        let d = w.path(name);
        common::copy_dir(&out, &d);
        d
    };
    let annotate = |c: &mut Client, d: &Path| {
        c.call_err(
            "leanscope/annotations",
            json!({"session": d.to_str().unwrap(), "file": "Rep/A.lean", "text": text}),
        )
    };
    let gone = damaged("gone");
    let run3 = &m.files[0].runs[2].recording;
    std::fs::remove_file(gone.join(run3)).unwrap();
    let e = annotate(&mut c, &gone);
    assert_eq!(e["code"], -32010, "{e:#}");
    check("errorData", &e["data"]);
    let message = e["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("run 3 of Rep/A.lean ({run3}): ")),
        "{message}"
    );
    assert!(message.contains("does not exist"), "{message}");
    // Run 2's recording replaced by B's (a one-off capture of another source).
    let other = c.call(
        "leanscope/capture",
        json!({"uri": file_uri(&b), "measure": "heartbeats", "thresholdHeartbeats": 10}),
    );
    let swapped = damaged("swapped");
    let run2 = &m.files[0].runs[1].recording;
    std::fs::copy(other["recording"].as_str().unwrap(), swapped.join(run2)).unwrap();
    let e = annotate(&mut c, &swapped);
    assert_eq!(e["code"], -32011, "{e:#}");
    check("errorData", &e["data"]);
    assert_eq!(e["data"]["kind"], "otherSource");
    assert_eq!(e["data"]["path"], json!(swapped.join(run2)));
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("run 2 ({run2}) recorded another source")),
        "{message}"
    );
    let failed = damaged("failed");
    let manifest = failed.join("session.json");
    let mut j: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    j["files"][0]["status"] = json!("failed");
    j["files"][0]["error"] = json!("Lean crashed\nmore");
    std::fs::write(&manifest, serde_json::to_vec(&j).unwrap()).unwrap();
    let e = annotate(&mut c, &failed);
    assert_eq!(e["code"], -32011, "{e:#}");
    assert_eq!(e["data"]["kind"], "notCaptured");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("Rep/A.lean is failed in the session"),
        "{e:#}"
    );
    assert!(
        e["message"].as_str().unwrap().ends_with("(Lean crashed)"),
        "{e:#}"
    );

    // captureFolder's file: with repeat, alone, a .lean file that exists.
    let rep = file_uri(&w.project.join("Rep"));
    for (params, code, says) in [
        (
            json!({"file": file_uri(&file)}),
            -32602,
            "file needs repeat",
        ),
        (
            json!({"file": file_uri(&file), "folder": rep, "repeat": 2}),
            -32602,
            "not both",
        ),
        (
            json!({"file": file_uri(&file), "project": true, "repeat": 2}),
            -32602,
            "project goes with folder",
        ),
        (
            json!({"file": file_uri(&w.project.join("lakefile.toml")), "repeat": 2}),
            -32602,
            "is not a .lean file",
        ),
        (
            json!({"file": file_uri(&w.project.join("Rep/None.lean")), "repeat": 2}),
            -32010,
            "does not exist",
        ),
        (json!({"repeat": 2}), -32602, "give folder"),
    ] {
        let mut p = params.clone();
        p["output"] = json!(w.path("refused").to_str().unwrap());
        let e = c.call_err("leanscope/captureFolder", p);
        assert_eq!(e["code"], code, "{params}: {e:#}");
        assert!(
            e["message"].as_str().unwrap().contains(says),
            "{params}: {e:#}"
        );
    }
    assert!(!w.path("refused").exists());
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_session_file_captured_once_answers_as_its_recording() {
    let w = World::new();
    let (_, text) = repeated_source(&w);
    let mut c = Client::start(&w, &[]);
    c.initialize(false);
    let out = w.path("session");
    c.call(
        "leanscope/captureFolder",
        json!({"folder": file_uri(&w.project.join("Rep")), "measure": "heartbeats",
               "thresholdHeartbeats": 10, "output": out.to_str().unwrap()}),
    );
    let m = common::read_session(&out).unwrap();
    assert!(m.files[0].runs.is_empty());
    let recording = out.join(m.files[0].recording.as_ref().unwrap());
    let from_session = c.call(
        "leanscope/annotations",
        json!({"session": out.to_str().unwrap(), "file": "Rep/A.lean", "text": text}),
    );
    check("annotationsResult", &from_session);
    let from_recording = c.call(
        "leanscope/annotations",
        json!({"recording": recording, "text": text}),
    );
    assert_eq!(from_session, from_recording);
    // A recording's answer is as it always was: no runs, no spreads.
    assert!(from_recording.get("runs").is_none(), "{from_recording:#}");
    assert!(from_recording["lines"][0].get("spread").is_none());
    assert!(from_recording["declarations"][0].get("spread").is_none());
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn cancelling_a_folder_capture_keeps_the_session_cancelled() {
    let w = World::new();
    let pidfile = w.path("pids");
    let mut c = slow_client(&w, &pidfile);
    c.initialize(true);
    let out = w.path("session");
    let id = start_slow_folder_capture(&mut c, &w, &pidfile, &out);
    c.notify("$/cancelRequest", json!({"id": id}));
    let e = c.error(id);
    assert_eq!(e["code"], -32800, "{e:#}");
    assert_eq!(e["data"]["kind"], "cancelled", "{e:#}");
    check("errorData", &e["data"]);
    // By the time the answer comes the session says so and is unlocked
    // (a resume may start at once).
    let m: Value =
        serde_json::from_slice(&std::fs::read(out.join("session.json")).unwrap()).unwrap();
    assert_eq!(m["status"], "cancelled", "{m:#}");
    assert!(lock_is_free(&out.join("session.lock")));
    for f in m["files"].as_array().unwrap() {
        if f["status"] == "ok" || f["status"] == "error" {
            assert!(out.join(f["recording"].as_str().unwrap()).is_file());
        }
    }
    let all = pids(&pidfile);
    assert!(common::all_gone(&all, Duration::from_secs(10)), "{all:?}");
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn compare_answers_what_view_baseline_shows() {
    let w = World::new();
    let (base, cand) = (w.path("base"), w.path("cand"));
    for (dir, seed) in [(&base, "1"), (&cand, "2")] {
        let out = w.run(&[
            "synth-session",
            "-o",
            dir.to_str().unwrap(),
            "--files",
            "4",
            "--events",
            "300",
            "--seed",
            seed,
        ]);
        assert!(out.status.success(), "{}", common::text(&out.stderr));
    }
    // What `leanscope compare` reports for the same pair and tolerance.
    let cli = w.run(&[
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--metric",
        "total_ns",
        "--relative-tolerance-bps",
        "500",
        "--allow-incomplete",
        "--json",
        "-",
    ]);
    let want: Value = serde_json::from_slice(&cli.stdout).unwrap();

    let mut c = Client::start(&w, &[]);
    let init = c.initialize(false);
    assert!(init["capabilities"]["experimental"]["leanscope"]["methods"]
        .as_array()
        .unwrap()
        .contains(&json!("leanscope/compare")));
    let params = json!({"baseline": file_uri(&base), "candidate": cand.display().to_string(),
                        "relativeToleranceBps": 500});
    check("compareParams", &params);
    let doc = c.call("leanscope/compare", params);
    check("compareResult", &doc);
    assert_eq!(doc["candidate"], cand.display().to_string());
    for part in ["matched", "missing", "new"] {
        assert_eq!(doc["comparison"][part], want[part], "{part}");
    }
    assert_eq!(doc["comparison"]["metric"], "total_ns");
    assert_eq!(doc["comparison"]["group_by"], "declaration");
    assert!(!doc["comparison"]["matched"].as_array().unwrap().is_empty());

    let cases: Vec<(Value, i64, &str)> = vec![
        (
            json!({"baseline": base.display().to_string(), "candidate": w.path("gone").display().to_string()}),
            -32010,
            "the candidate",
        ),
        (
            json!({"baseline": base.display().to_string(), "candidate": cand.display().to_string(), "metric": "fastest"}),
            -32602,
            "unknown metric `fastest`; expected one of total_ns",
        ),
        (
            json!({"baseline": base.display().to_string(), "candidate": cand.display().to_string(), "groupBy": "mood"}),
            -32602,
            "unknown grouping `mood`",
        ),
        (
            json!({"baseline": w.project.join("Demo/Clean.lean").display().to_string(), "candidate": cand.display().to_string()}),
            -32015,
            "Clean.lean: unrecognized format",
        ),
    ];
    for (params, code, text) in cases {
        let e = c.call_err("leanscope/compare", params.clone());
        assert_eq!(e["code"], code, "{params}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(text),
            "{params}: {e}"
        );
        if code != -32602 {
            check("errorData", &e["data"]);
        }
    }
    let (code, _) = c.shut_down();
    assert_eq!(code, 0);
}

/// True when nobody holds the session's lock (an exclusive `flock` is
/// granted at once).
fn lock_is_free(lock: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(lock).unwrap();
    // SAFETY: flock on a descriptor we own; closing it releases the lock.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Peak resident memory of a process, in bytes.
fn peak_resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn malformed_messages_are_answered_and_the_server_reads_on() {
    let w = World::new();
    let mut c = Client::start(&w, &[]);
    c.initialize(false);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":90,"method":"leanscope/open","params":{}{}}}"#,
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let cases: Vec<(Vec<u8>, i64, Value)> = vec![
        (b"{\"jsonrpc\":".to_vec(), -32700, Value::Null),
        (b"\xff\xfe{}".to_vec(), -32700, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":91,"method":"leanscope/open","params":{"recording":NaN}}"#
                .to_vec(),
            -32700,
            Value::Null,
        ),
        (deep.into_bytes(), -32700, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":92,"id":93,"method":"shutdown"}"#.to_vec(),
            -32600,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"1.0","id":94,"method":"shutdown"}"#.to_vec(),
            -32600,
            json!(94),
        ),
        (
            br#"{"jsonrpc":"2.0","id":{"n":95},"method":"shutdown"}"#.to_vec(),
            -32600,
            Value::Null,
        ),
        (b"[1,2]".to_vec(), -32600, Value::Null),
        (br#"{"jsonrpc":"2.0","id":96}"#.to_vec(), -32600, json!(96)),
    ];
    let missing = w.path("missing.lsrec");
    for (body, code, id) in cases {
        c.write_body(&body);
        let r = loop {
            let m = c.next();
            if m.get("method").is_none() {
                break m;
            }
        };
        assert_eq!(r["id"], id, "{r:#} for {}", String::from_utf8_lossy(&body));
        assert_eq!(r["error"]["code"], code, "{r:#}");
        assert!(r["error"]["message"].as_str().unwrap().len() > 10, "{r:#}");
        check("errorData", &r["error"]["data"]);
        // The server reads on and still does its work.
        let e = c.call_err(
            "leanscope/open",
            json!({"recording": missing.to_str().unwrap()}),
        );
        assert_eq!(e["code"], -32010, "{e:#}");
    }
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("not a JSON-RPC 2.0 message"), "{stderr}");
}

#[test]
fn an_oversize_message_is_skipped_unread_and_the_limit_holds_at_its_edge() {
    let w = World::new();
    let mut c = Client::start(&w, &[]);
    c.initialize(false);
    // A body far over the limit, streamed: the server must neither keep it
    // nor stop.
    const HUGE: usize = 256 * 1024 * 1024;
    c.write_raw(format!("Content-Length: {HUGE}\r\n\r\n").as_bytes());
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..HUGE / chunk.len() {
        c.write_raw(&chunk);
    }
    let e = c.null_id_error();
    assert_eq!(e["code"], -32600, "{e:#}");
    assert_eq!(e["data"]["kind"], "messageTooLarge", "{e:#}");
    check("errorData", &e["data"]);
    assert_eq!(e["data"]["length"], HUGE);
    let limit = e["data"]["limit"].as_u64().unwrap() as usize;
    assert!(limit < HUGE / 8, "{limit}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains(&limit.to_string()), "{message}");
    let peak = peak_resident(c.child.id());
    assert!(
        peak < (limit as u64).max(32 << 20) * 2,
        "{peak} bytes resident after skipping {HUGE} bytes"
    );

    // At the limit a message is read; one byte more is refused.
    let missing = w.path("missing.lsrec");
    let request = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "leanscope/open",
               "params": {"recording": missing.to_str().unwrap()}})
        .to_string()
    };
    for (id, size, answered) in [(50, limit, true), (51, limit + 1, false)] {
        let mut body = request(id).into_bytes();
        body.resize(size, b' ');
        c.write_body(&body);
        if answered {
            assert_eq!(c.error(id)["code"], -32010);
        } else {
            let e = c.null_id_error();
            assert_eq!(e["data"]["length"], size, "{e:#}");
        }
    }
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_framing_error_ends_the_server_after_cancelling_its_captures() {
    let w = World::new();
    let pidfile = w.path("pids");
    let mut c = slow_client(&w, &pidfile);
    c.initialize(true);
    let out = w.path("session");
    start_slow_folder_capture(&mut c, &w, &pidfile, &out);
    // No Content-Length: the next message cannot be found.
    c.write_raw(b"Content-Length: twelve\r\n\r\n{}");
    assert_eq!(wait_exit(&mut c.child), 1);
    c.stdin = None;
    let stderr = c.stderr.join().unwrap();
    assert!(
        stderr.contains(
            "cannot find the next message (Content-Length \"twelve\" is not a byte count)"
        ),
        "{stderr}"
    );
    let m: Value =
        serde_json::from_slice(&std::fs::read(out.join("session.json")).unwrap()).unwrap();
    assert_eq!(m["status"], "cancelled", "{m:#}");
    assert!(lock_is_free(&out.join("session.lock")));
    let all = pids(&pidfile);
    assert!(common::all_gone(&all, Duration::from_secs(10)), "{all:?}");
}

#[test]
fn cancel_shutdown_and_exit_are_heard_while_every_slot_is_busy() {
    // MAX_CONCURRENT_REQUESTS (serve/transport.rs) captures run; one more waits.
    const SLOTS: usize = 8;
    let w = World::new();
    let pidfile = w.path("pids");
    let mut c = slow_client(&w, &pidfile);
    c.initialize(true);
    let source = file_uri(&w.project.join("Demo/Clean.lean"));
    let ids: Vec<i64> = (0..=SLOTS)
        .map(|i| {
            let out = w.path(&format!("r{i}.lsrec"));
            c.request(
                "leanscope/capture",
                json!({"uri": source, "thresholdMs": 1, "output": out.to_str().unwrap()}),
            )
        })
        .collect();
    let started = Instant::now();
    // Each running capture starts two `lean`s (version, then the file).
    while pids(&pidfile).iter().filter(|(n, _)| n == "lean").count() < 2 * SLOTS {
        assert!(
            started.elapsed() < ANSWER_WAIT,
            "the captures never all started"
        );
        c.pump(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        pids(&pidfile).iter().filter(|(n, _)| n == "lean").count(),
        2 * SLOTS,
        "the extra request must wait for a slot"
    );
    // The queue behind the slots holds MAX_WAITING_REQUESTS; one more is
    // refused, at once.
    const WAITING: usize = 64;
    let missing = w.path("missing.lsrec");
    let open = json!({"recording": missing.to_str().unwrap()});
    for _ in 1..WAITING {
        c.request("leanscope/open", open.clone());
    }
    let e = c.call_err("leanscope/open", open);
    assert_eq!(e["code"], -32016, "{e:#}");
    assert_eq!(
        e["data"],
        json!({"kind": "serverBusy", "running": SLOTS, "waiting": WAITING})
    );
    check("errorData", &e["data"]);
    // The waiting one and a running one are cancelled at once.
    let asked = Instant::now();
    c.notify("$/cancelRequest", json!({"id": ids[SLOTS]}));
    assert_eq!(c.error(ids[SLOTS])["code"], -32800);
    c.notify("$/cancelRequest", json!({"id": ids[0]}));
    assert_eq!(c.error(ids[0])["code"], -32800);
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    // Shutdown and exit too, with the other slots still busy.
    let asked = Instant::now();
    assert_eq!(c.call("shutdown", Value::Null), Value::Null);
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    c.notify("exit", Value::Null);
    assert_eq!(wait_exit(&mut c.child), 0);
    let all = pids(&pidfile);
    assert!(common::all_gone(&all, Duration::from_secs(10)), "{all:?}");
    for i in 0..=SLOTS {
        assert!(!w.path(&format!("r{i}.lsrec")).exists(), "r{i} was written");
    }
}

/// A repository whose `feature` branch makes `slow` (in Demo/A.lean)
/// cost `head_ms` instead of 30 ms.
fn revision_repo(head_ms: u64) -> common::git_repo::Repo {
    let r = common::git_repo::Repo::new();
    r.write(
        "lakefile.toml",
        "name = \"demo\"\ndefaultTargets = [\"Demo\"]\n\n[[lean_lib]]\nname = \"Demo\"\n",
    );
    r.write("lean-toolchain", "leanprover/lean4:v4.18.0\n");
    let slow =
        |ms: u64| format!("theorem slow : True := by\n  trivial -- leanscope-fake: cost {ms}ms\n");
    r.write("Demo/A.lean", &slow(30));
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("Demo/A.lean", &slow(head_ms));
    r.commit("feature");
    r
}

/// A serving sidecar, initialized, with the fake toolchain folder first
/// on its PATH, beside a [`revision_repo`] and the workspace to make.
struct RevisionServer {
    _world: World,
    _toolchain: common::toolchain_dir::Toolchain,
    r: common::git_repo::Repo,
    c: Client,
    ws: std::path::PathBuf,
}

fn revision_server(head_ms: u64) -> RevisionServer {
    let w = World::new();
    let t = common::toolchain_dir::toolchain_dir();
    let r = revision_repo(head_ms);
    let path = format!("{}:/usr/bin:/bin", t.bin.display());
    let mut c = Client::start(&w, &[("PATH", &path)]);
    c.initialize(false);
    let ws = r.dir.path().join("ws");
    RevisionServer {
        _world: w,
        _toolchain: t,
        r,
        c,
        ws,
    }
}

#[test]
fn compare_revisions_runs_a_profiled_revision_run_with_progress() {
    let RevisionServer {
        _world,
        _toolchain,
        r,
        mut c,
        ws,
    } = revision_server(130);
    let token = json!("revisions-1");
    let res = c.call(
        "leanscope/compareRevisions",
        json!({"repo": file_uri(&r.path), "base": "main", "workspace": ws, "workDoneToken": token}),
    );
    check("compareRevisionsResult", &res);
    assert_eq!(res["state"], "complete", "{res:#}");
    assert_eq!(res["files"], 1);
    assert_eq!(res["workspace"], ws.display().to_string());
    assert_eq!(
        res["headSession"],
        ws.join("profiles/head").display().to_string()
    );
    // The diff of the two sides' sessions, as `view WORKSPACE` shows it.
    let matched = res["diff"]["comparison"]["matched"].as_array().unwrap();
    let slow = matched
        .iter()
        .find(|m| m["key"]["name"] == "slow")
        .unwrap_or_else(|| panic!("{res:#}"));
    assert_eq!(slow["status"], "regression");
    assert_eq!(slow["delta"], 100_000_000);
    let report: Value =
        serde_json::from_slice(&std::fs::read(ws.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["run_id"], res["runId"]);
    // Progress named each step and sample, then the outcome.
    let messages: Vec<String> = c
        .progress(&token)
        .iter()
        .filter_map(|v| v["message"].as_str().map(str::to_owned))
        .collect();
    for want in [
        "building base (1 modules)",
        "[1/1] base Demo/A.lean",
        "[1/1] head Demo/A.lean",
    ] {
        assert!(messages.iter().any(|m| m == want), "{want}: {messages:?}");
    }
    assert_eq!(
        c.wait_progress_end(&token)["message"],
        "1 files compared, 0 flagged"
    );
    // A workspace is never reused.
    let e = c.call_err(
        "leanscope/compareRevisions",
        json!({"repo": r.path, "base": "main", "workspace": ws}),
    );
    assert_eq!(e["code"], -32602, "{e:#}");
    assert!(
        e["message"].as_str().unwrap().contains("already exists"),
        "{e:#}"
    );
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn cancelling_compare_revisions_stops_the_sample_and_says_so() {
    // 60 s of CPU per head sample: only a cancel ends it in time.
    let RevisionServer {
        _world,
        _toolchain,
        r,
        mut c,
        ws,
    } = revision_server(60_000);
    let token = json!("revisions-2");
    let id = c.request(
        "leanscope/compareRevisions",
        json!({"repo": r.path, "base": "main", "workspace": ws, "workDoneToken": token}),
    );
    // Wait until the head sample runs, then cancel.
    let started = Instant::now();
    while !c
        .progress(&token)
        .iter()
        .any(|v| v["message"] == "[1/1] head Demo/A.lean")
    {
        assert!(started.elapsed() < ANSWER_WAIT, "{:?}", c.progress(&token));
        c.pump(Duration::from_millis(20));
    }
    let cancelled_at = Instant::now();
    c.notify("$/cancelRequest", json!({"id": id}));
    let e = c.error(id);
    assert!(
        cancelled_at.elapsed() < Duration::from_secs(20),
        "answered after the sample was stopped"
    );
    assert_eq!(e["code"], -32800, "{e:#}");
    assert_eq!(e["data"]["kind"], "cancelled", "{e:#}");
    check("errorData", &e["data"]);
    let report: Value =
        serde_json::from_slice(&std::fs::read(ws.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["state"], "error");
    assert!(
        report["error"].as_str().unwrap().contains("was cancelled"),
        "{report:#}"
    );
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn hot_spots_answer_what_top_writes() {
    let w = World::new();
    let session = w.path("session");
    let out = w.run(&[
        "profile",
        "Demo",
        "--threshold",
        "1",
        "-o",
        session.to_str().unwrap(),
    ]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        common::text(&out.stderr)
    );
    let rec = w.path("clean.lsrec");
    let out = w.profile_command("Demo/Clean.lean", &rec).output().unwrap();
    assert!(out.status.success());
    let mut c = Client::start(&w, &[]);
    c.initialize(true);
    let cases = [
        (
            json!({"session": session.to_str().unwrap(), "limit": 7, "classes": ["Elab"]}),
            vec![
                "top",
                session.to_str().unwrap(),
                "--limit",
                "7",
                "--class",
                "Elab",
            ],
        ),
        (
            json!({"uri": file_uri(&rec), "by": "class", "sort": "total", "tree": true, "depth": 2}),
            vec![
                "top",
                rec.to_str().unwrap(),
                "--by",
                "class",
                "--sort",
                "total",
                "--tree",
                "--depth",
                "2",
            ],
        ),
        (
            json!({"uri": rec.to_str().unwrap(), "inverted": true, "path": "Elab.step omega"}),
            vec![
                "top",
                rec.to_str().unwrap(),
                "--inverted",
                "--path",
                "Elab.step omega",
            ],
        ),
    ];
    for (params, args) in cases {
        check("hotSpotsParams", &params);
        let got = c.call("leanscope/hotSpots", params.clone());
        check("hotSpotsResult", &got);
        let mut args = args;
        args.extend(["--json", "-"]);
        let cli = w.run(&args);
        assert!(cli.status.success(), "{}", common::text(&cli.stderr));
        let want: Value = serde_json::from_slice(&cli.stdout).unwrap();
        // The CLI names the recording as given; the server, by its path.
        let mut got = got;
        got["source"] = want["source"].clone();
        assert_eq!(got, want, "{params}");
    }
    let missing = w.path("missing.lsrec");
    let e = c.call_err(
        "leanscope/hotSpots",
        json!({"uri": missing.to_str().unwrap()}),
    );
    assert_eq!(e["code"], -32010, "{e}");
    assert_eq!(e["data"]["kind"], "noSuchFile");
    let e = c.call_err(
        "leanscope/hotSpots",
        json!({"uri": rec.to_str().unwrap(), "by": "colour"}),
    );
    assert_eq!(e["code"], -32602, "{e}");
    let e = c.call_err(
        "leanscope/hotSpots",
        json!({"uri": rec.to_str().unwrap(), "path": "Nothing > here"}),
    );
    assert_eq!(e["code"], -32602, "{e}");
    assert!(e["message"].as_str().unwrap().contains("no key"), "{e}");
    let e = c.call_err(
        "leanscope/hotSpots",
        json!({"session": rec.to_str().unwrap()}),
    );
    assert_eq!(e["code"], -32010, "{e}");
    let e = c.call_err("leanscope/hotSpots", json!({}));
    assert_eq!(e["code"], -32602, "{e}");
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}

/// The `headroom` of the declaration named `name` (its last component) in an annotations answer.
fn headroom_of<'a>(a: &'a Value, name: &str) -> &'a Value {
    let d = a["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"].as_str().unwrap().ends_with(&format!(".{name}")))
        .unwrap_or_else(|| panic!("no declaration {name} in {a:#}"));
    &d["headroom"]
}

#[test]
fn annotations_of_a_heartbeat_recording_carry_each_declarations_headroom() {
    let w = World::new();
    let mut c = Client::start(&w, &[]);
    c.initialize(false);
    let source = w.project.join("Demo/Heartbeats.lean");
    let text = std::fs::read_to_string(&source).unwrap();
    let captured = c.call(
        "leanscope/capture",
        json!({"uri": file_uri(&source), "measure": "heartbeats", "thresholdHeartbeats": 10}),
    );
    let recording = captured["recording"].as_str().unwrap().to_owned();
    let params = json!({"recording": recording, "text": text});
    check("annotationsParams", &params);
    let a = c.call("leanscope/annotations", params);
    check("annotationsResult", &a);
    assert_eq!(a["measure"], "heartbeats");
    // By hand from Demo/Heartbeats.lean: its set_option lines and the fake's heartbeats.
    assert_eq!(
        headroom_of(&a, "needs_bump"),
        &json!({"maxHeartbeats": {"limit": 400000, "from": "in", "line": 9,
                "heartbeats": 350000000, "share": 0.875, "default": 200000, "bumpNotNeeded": false}})
    );
    assert_eq!(
        headroom_of(&a, "bump_not_needed"),
        &json!({"maxHeartbeats": {"limit": 800000, "from": "in", "line": 13,
                "heartbeats": 30000000, "share": 0.0375, "default": 200000, "bumpNotNeeded": true}})
    );
    assert_eq!(
        headroom_of(&a, "near_default"),
        &json!({"maxHeartbeats": {"limit": 200000, "from": "default",
                "heartbeats": 170000000, "share": 0.85, "default": 200000, "bumpNotNeeded": false},
                "synthInstance": {"limit": 20000, "from": "default", "heartbeats": 12000000,
                "share": 0.6, "default": 20000, "instance": "HAdd Nat Nat ?m"}})
    );
    assert_eq!(
        headroom_of(&a, "in_section"),
        &json!({"maxHeartbeats": {"limit": 100000, "from": "file", "line": 25,
                "heartbeats": 60000000, "share": 0.6, "default": 200000, "bumpNotNeeded": false},
                "synthInstance": {"limit": 10000, "from": "file", "line": 26, "heartbeats": 9000000,
                "share": 0.9, "default": 20000, "instance": "Append (List Nat)"}})
    );
    // After `end Tight` the section's limit no longer holds.
    assert_eq!(
        headroom_of(&a, "small")["maxHeartbeats"],
        json!({"limit": 200000, "from": "default", "heartbeats": 20000000, "share": 0.1,
               "default": 200000, "bumpNotNeeded": false})
    );

    // A stricter "not needed": 15 % of the default is not under 10 %.
    let strict = c.call(
        "leanscope/annotations",
        json!({"recording": recording, "text": text, "bumpNotNeededBelow": 0.1}),
    );
    assert_eq!(
        headroom_of(&strict, "bump_not_needed")["maxHeartbeats"]["bumpNotNeeded"],
        false
    );
    let e = c.call_err(
        "leanscope/annotations",
        json!({"recording": recording, "text": text, "bumpNotNeededBelow": 1.5}),
    );
    assert_eq!(e["code"], -32602, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("bumpNotNeededBelow"),
        "{e}"
    );

    // A time recording has no headroom: no limit applies to time.
    let clean = w.project.join("Demo/Clean.lean");
    let timed = c.call(
        "leanscope/capture",
        json!({"uri": file_uri(&clean), "thresholdMs": 1}),
    );
    let t = c.call(
        "leanscope/annotations",
        json!({"recording": timed["recording"], "text": std::fs::read_to_string(&clean).unwrap()}),
    );
    check("annotationsResult", &t);
    let decls = t["declarations"].as_array().unwrap();
    assert!(decls.iter().any(|d| !d["totalNs"].is_null()), "{t:#}");
    assert!(decls.iter().all(|d| d.get("headroom").is_none()), "{t:#}");
    let (code, stderr) = c.shut_down();
    assert_eq!(code, 0, "{stderr}");
}
