//! `leanscope view`: serves the viewer and a session's (or a recording's)
//! data to a browser, on 127.0.0.1 only, under a random token, GET/HEAD
//! only, with Host and Origin checks, a strict CSP, and paths confined to
//! the session directory.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::viewer_site::{self, Target, CSP, DATA_DIR, DIFF_FILE};

#[derive(clap::Args)]
pub struct Args {
    /// A session directory (with session.json) or a recording (.lsrec).
    target: PathBuf,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Print the URL without opening a browser.
    #[arg(long)]
    no_open: bool,
    #[command(flatten)]
    diff: super::compare::DiffArgs,
}

/// Longest request head read.
pub const MAX_REQUEST_HEAD_BYTES: usize = 16 * 1024;
/// Connections served at once; more get 503.
pub const MAX_CONNECTIONS: usize = 64;
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Random bytes in the URL token.
const TOKEN_BYTES: usize = 16;

pub fn run(a: Args) -> Result<u8> {
    viewer_site::require_built()?;
    let target = Target::open(&a.target)?;
    let diff = a.diff.document(&a.target)?;
    let listener = TcpListener::bind(("127.0.0.1", a.port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", a.port))?;
    let port = listener.local_addr()?.port();
    let token = random_token();
    let url = format!("http://127.0.0.1:{port}/{token}/");
    let site = Arc::new(Site {
        index_html: viewer_site::index_html(&target, diff.is_some())?,
        diff,
        target,
        token,
        port,
    });
    println!("{url}");
    std::io::stdout().flush().ok();
    if !a.no_open {
        if let Err(e) = open_browser(&url) {
            eprintln!("leanscope: could not open a browser ({e}); open {url} yourself");
        }
    }
    let active = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let Ok(stream) = conn else { continue };
        if active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            let mut s = stream;
            let _ = write_head(&mut s, &Response::text(503, "too many connections"), false);
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let (site, active) = (site.clone(), active.clone());
        std::thread::spawn(move || {
            let _ = handle(stream, &site);
            active.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(crate::exit::OK)
}

struct Site {
    target: Target,
    token: String,
    port: u16,
    index_html: String,
    diff: Option<Vec<u8>>,
}

impl Site {
    /// The page: a session's carries its first view as the session is now
    /// (a capture may be running); other pages never change.
    fn page(&self) -> String {
        match &self.target {
            Target::Session { .. } => viewer_site::index_html(&self.target, self.diff.is_some())
                .unwrap_or_else(|_| self.index_html.clone()),
            _ => self.index_html.clone(),
        }
    }
}

/// A token from the OS's randomness (`/dev/urandom`, or the random keys
/// std seeds its hash maps with where that file does not exist).
fn random_token() -> String {
    let mut bytes = [0u8; TOKEN_BYTES];
    let ok = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok();
    if !ok {
        use std::hash::{BuildHasher, Hasher};
        for (k, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(k);
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn open_browser(url: &str) -> std::io::Result<()> {
    let mut cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    cmd.arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
}

/// What to send back.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Body,
    pub location: Option<String>,
}

#[derive(Debug)]
pub enum Body {
    Bytes(Vec<u8>),
    Shared(std::sync::Arc<Vec<u8>>),
    Static(&'static [u8]),
    File(PathBuf),
}

impl Response {
    fn text(status: u16, msg: &str) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Body::Bytes(format!("{msg}\n").into_bytes()),
            location: None,
        }
    }
}

/// A parsed request head.
#[derive(Debug, Default)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub host: Option<String>,
    pub origin: Option<String>,
}

fn read_request(stream: &mut TcpStream) -> Result<Option<Request>> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.take(MAX_REQUEST_HEAD_BYTES as u64));
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let mut req = Request {
        method: parts.next().unwrap_or("").to_string(),
        path: parts.next().unwrap_or("").to_string(),
        ..Request::default()
    };
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || !h.ends_with('\n') {
            // The head was cut off (too long or the client went away).
            return Ok(None);
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            let value = value.trim().to_string();
            match name.trim().to_ascii_lowercase().as_str() {
                "host" => req.host = Some(value),
                "origin" => req.origin = Some(value),
                _ => {}
            }
        }
    }
    Ok(Some(req))
}

fn handle(mut stream: TcpStream, site: &Site) -> Result<()> {
    let Some(req) = read_request(&mut stream)? else {
        return Ok(());
    };
    let head_only = req.method == "HEAD";
    let resp = route(&req, site);
    write_response(&mut stream, resp, head_only)
}

/// Decides the response to a request (no I/O but reading data files' metadata).
fn route(req: &Request, site: &Site) -> Response {
    if req.method != "GET" && req.method != "HEAD" {
        let mut r = Response::text(405, "only GET and HEAD are allowed");
        r.location = None;
        return r;
    }
    let allowed = [
        format!("127.0.0.1:{}", site.port),
        format!("localhost:{}", site.port),
    ];
    match &req.host {
        Some(h) if allowed.iter().any(|a| a == h) => {}
        _ => return Response::text(403, "wrong Host header"),
    }
    if let Some(origin) = &req.origin {
        if !allowed.iter().any(|a| origin == &format!("http://{a}")) {
            return Response::text(403, "requests from other origins are refused");
        }
    }
    let path = req.path.split(['?', '#']).next().unwrap_or("");
    let Some(rest) = path.strip_prefix('/') else {
        return Response::text(400, "bad request path");
    };
    let (token, rest) = match rest.split_once('/') {
        Some((t, r)) => (t, Some(r)),
        None => (rest, None),
    };
    if !constant_time_eq(token.as_bytes(), site.token.as_bytes()) {
        return Response::text(403, "missing or wrong token");
    }
    let Some(rest) = rest else {
        return Response {
            status: 308,
            content_type: "text/plain; charset=utf-8",
            body: Body::Bytes(Vec::new()),
            location: Some(format!("/{}/", site.token)),
        };
    };
    let segments = match safe_segments(rest) {
        Ok(s) => s,
        Err(msg) => return Response::text(400, msg),
    };
    match segments.first().map(String::as_str) {
        None | Some("index.html") if segments.len() <= 1 => Response {
            status: 200,
            content_type: viewer_site::content_type("index.html"),
            body: Body::Bytes(site.page().into_bytes()),
            location: None,
        },
        Some(DATA_DIR) => match site.target.data_bytes(&segments[1..]) {
            Some(bytes) => Response {
                status: 200,
                content_type: viewer_site::content_type(&segments[segments.len() - 1]),
                body: Body::Shared(bytes),
                location: None,
            },
            None => data_file(site, &segments[1..]),
        },
        Some(DIFF_FILE) if segments.len() == 1 => match &site.diff {
            Some(doc) => Response {
                status: 200,
                content_type: viewer_site::content_type(DIFF_FILE),
                body: Body::Bytes(doc.clone()),
                location: None,
            },
            None => Response::text(404, "this viewer was started without --baseline"),
        },
        Some(name) if segments.len() == 1 => match viewer_site::asset(name) {
            Some(bytes) => Response {
                status: 200,
                content_type: viewer_site::content_type(name),
                body: Body::Static(bytes),
                location: None,
            },
            None => Response::text(404, "no such file"),
        },
        _ => Response::text(404, "no such file"),
    }
}

/// A file of the session or the recording viewed, or 404.
fn data_file(site: &Site, segments: &[String]) -> Response {
    match site.target.data_file(segments) {
        Some(file) => Response {
            status: 200,
            content_type: viewer_site::content_type(&file.to_string_lossy()),
            body: Body::File(file),
            location: None,
        },
        None => Response::text(404, "no such file in the session"),
    }
}

/// Splits a URL path into percent-decoded segments, refusing `.`, `..`,
/// empty inner segments, separators and NUL inside a segment.
pub fn safe_segments(path: &str) -> Result<Vec<String>, &'static str> {
    let mut out = Vec::new();
    let parts: Vec<&str> = path.split('/').collect();
    for (k, raw) in parts.iter().enumerate() {
        if raw.is_empty() {
            if k + 1 == parts.len() {
                continue; // a trailing slash
            }
            return Err("empty path segment");
        }
        let seg = percent_decode(raw).ok_or("bad percent-encoding in the path")?;
        if seg == "." || seg == ".." {
            return Err("paths may not leave the session");
        }
        if seg.contains(['/', '\\', '\0']) {
            return Err("bad character in the path");
        }
        out.push(seg);
    }
    Ok(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

fn write_head(out: &mut impl Write, r: &Response, _head_only: bool) -> std::io::Result<()> {
    let len = match &r.body {
        Body::Bytes(b) => b.len() as u64,
        Body::Shared(b) => b.len() as u64,
        Body::Static(b) => b.len() as u64,
        Body::File(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
    };
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {len}\r\n\
         Content-Security-Policy: {CSP}\r\nX-Content-Type-Options: nosniff\r\n\
         Referrer-Policy: no-referrer\r\nCross-Origin-Resource-Policy: same-origin\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n",
        r.status,
        reason(r.status),
        r.content_type
    );
    if r.status == 405 {
        head.push_str("Allow: GET, HEAD\r\n");
    }
    if let Some(loc) = &r.location {
        head.push_str(&format!("Location: {loc}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())
}

fn write_response(stream: &mut TcpStream, r: Response, head_only: bool) -> Result<()> {
    // Open the file first so a vanished file is a 404, not a broken body.
    let (r, file) = match &r.body {
        Body::File(p) => match std::fs::File::open(p) {
            Ok(f) => (r, Some(f)),
            Err(_) => (Response::text(404, "no such file in the session"), None),
        },
        _ => (r, None),
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stream);
    write_head(&mut out, &r, head_only)?;
    if !head_only {
        match (&r.body, file) {
            (Body::Bytes(b), _) => out.write_all(b)?,
            (Body::Shared(b), _) => out.write_all(b)?,
            (Body::Static(b), _) => out.write_all(b)?,
            (Body::File(_), Some(mut f)) => {
                std::io::copy(&mut f, &mut out)?;
            }
            _ => {}
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_refuse_escapes() {
        assert_eq!(
            safe_segments("data/files/a.lsrec").unwrap(),
            ["data", "files", "a.lsrec"]
        );
        assert_eq!(safe_segments("").unwrap(), Vec::<String>::new());
        assert_eq!(safe_segments("data/").unwrap(), ["data"]);
        assert_eq!(safe_segments("data/%C3%BC%20x").unwrap(), ["data", "ü x"]);
        for bad in [
            "../x",
            "data/../../etc",
            "data/%2e%2e/x",
            "data/a%2Fb",
            "a//b",
            "a/%00",
            "a/%zz",
            "./x",
        ] {
            assert!(safe_segments(bad).is_err(), "{bad}");
        }
    }

    fn site(dir: &std::path::Path) -> Site {
        std::fs::write(
            dir.join("session.json"),
            r#"{"schemaVersion":1,"producer":"test","projectRoot":"/p",
               "target":{"kind":"project","path":""},"thresholdMs":10,"toolchains":[],
               "leanVersions":[],"startedUnixMs":0,"status":"complete",
               "counts":{"planned":0,"completed":0,"failed":0},"indexBytes":0,
               "nextCapture":1,"files":[]}"#,
        )
        .unwrap();
        Site {
            target: Target::open(dir).unwrap(),
            token: "abc".into(),
            port: 4000,
            index_html: "<html>".into(),
            diff: None,
        }
    }

    fn req(method: &str, path: &str, host: &str, origin: Option<&str>) -> Request {
        Request {
            method: method.into(),
            path: path.into(),
            host: Some(host.into()),
            origin: origin.map(Into::into),
        }
    }

    #[test]
    fn routing_checks_method_host_origin_token_and_confinement() {
        let tmp = tempfile::tempdir().unwrap();
        let s = site(tmp.path());
        let ok = "127.0.0.1:4000";
        assert_eq!(route(&req("GET", "/abc/", ok, None), &s).status, 200);
        assert_eq!(
            route(
                &req("HEAD", "/abc/data/session.json", "localhost:4000", None),
                &s
            )
            .status,
            200
        );
        assert_eq!(route(&req("GET", "/abc", ok, None), &s).status, 308);
        assert_eq!(route(&req("POST", "/abc/", ok, None), &s).status, 405);
        assert_eq!(
            route(&req("GET", "/abc/", "evil.example:4000", None), &s).status,
            403
        );
        assert_eq!(
            route(&req("GET", "/abc/", ok, Some("http://evil.example")), &s).status,
            403
        );
        assert_eq!(
            route(&req("GET", "/abc/", ok, Some("http://127.0.0.1:4000")), &s).status,
            200
        );
        assert_eq!(route(&req("GET", "/abd/", ok, None), &s).status, 403);
        assert_eq!(route(&req("GET", "/", ok, None), &s).status, 403);
        assert_eq!(
            route(&req("GET", "/abc/data/../session.json", ok, None), &s).status,
            400
        );
        assert_eq!(
            route(&req("GET", "/abc/data/%2e%2e/x", ok, None), &s).status,
            400
        );
        assert_eq!(
            route(&req("GET", "/abc/data/nothing", ok, None), &s).status,
            404
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_session_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), tmp.path().join("link")).unwrap();
        let s = site(tmp.path());
        assert_eq!(
            route(&req("GET", "/abc/data/link", "127.0.0.1:4000", None), &s).status,
            404
        );
    }

    #[test]
    fn tokens_are_random_hex() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 2 * TOKEN_BYTES);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
