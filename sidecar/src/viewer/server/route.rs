//! What `view` answers to a request: the checks (GET/HEAD, Host, Origin,
//! the token) and the file each path maps to, with no HTTP machinery
//! (`http` turns the answer into hyper's response).

use std::fs::File;

use bytes::Bytes;

use super::page::Page;
use super::ranges::{Conditions, Validators};
use crate::viewer::confined::Beneath;
use crate::viewer::site::{asset, content_type, Target, DATA_DIR, DIFF_FILE};
use recording::session::MANIFEST_FILE;

/// What is served, for the life of the server.
pub struct Site {
    pub target: Target,
    /// The session directory, or the lone recording's directory, held open:
    /// data files are opened beneath it only (`viewer::confined`).
    pub files: Option<Beneath>,
    pub token: String,
    pub port: u16,
    pub page: Page,
    pub diff: Option<Bytes>,
    /// An imported recording held in memory, and what it is known by.
    pub imported: Option<(Bytes, Validators)>,
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
    /// A page, a message, an asset or the diff document.
    Bytes(Bytes),
    /// A data file, opened (and checked to be a regular file) already: what
    /// is sent is the file that was checked. Ranges and conditional
    /// requests apply.
    File(File, Validators),
    /// An imported recording held in memory; ranges apply too.
    Memory(Bytes, Validators),
}

impl Response {
    pub fn text(status: u16, msg: &str) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Body::Bytes(Bytes::from(format!("{msg}\n"))),
            location: None,
        }
    }

    fn ok(content_type: &'static str, body: Body) -> Response {
        Response {
            status: 200,
            content_type,
            body,
            location: None,
        }
    }
}

/// A request head, as far as `view` looks at it.
#[derive(Debug, Default)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub host: Option<String>,
    pub origin: Option<String>,
    pub conditions: Conditions,
}

/// Decides the response to a request (opening the data file it names).
pub fn route(req: &Request, site: &Site) -> Response {
    if req.method != "GET" && req.method != "HEAD" {
        return Response::text(405, "only GET and HEAD are allowed");
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
            body: Body::Bytes(Bytes::new()),
            location: Some(format!("/{}/", site.token)),
        };
    };
    let segments = match safe_segments(rest) {
        Ok(s) => s,
        Err(msg) => return Response::text(400, msg),
    };
    match segments.first().map(String::as_str) {
        None | Some("index.html") if segments.len() <= 1 => Response::ok(
            content_type("index.html"),
            Body::Bytes(
                site.page
                    .get(&site.target, site.diff.is_some(), site.files.as_ref()),
            ),
        ),
        Some(DATA_DIR) => data_file(site, &segments[1..]),
        Some(DIFF_FILE) if segments.len() == 1 => match &site.diff {
            Some(doc) => Response::ok(content_type(DIFF_FILE), Body::Bytes(doc.clone())),
            None => Response::text(404, "this viewer was started without --baseline"),
        },
        Some(name) if segments.len() == 1 => match asset(name) {
            Some(bytes) => Response::ok(content_type(name), Body::Bytes(Bytes::from_static(bytes))),
            None => Response::text(404, "no such file"),
        },
        _ => Response::text(404, "no such file"),
    }
}

/// A file of the session or the recording viewed (below `data/`), or 404.
fn data_file(site: &Site, segments: &[String]) -> Response {
    let Some(last) = segments.last() else {
        return Response::text(404, "no such file in the session");
    };
    let content_type = content_type(last);
    let opened = match &site.target {
        Target::Imported { name, .. } => {
            return match &site.imported {
                Some((bytes, v)) if segments.len() == 1 && last == name => {
                    Response::ok(content_type, Body::Memory(bytes.clone(), v.clone()))
                }
                _ => Response::text(404, "no such file"),
            };
        }
        Target::Recording { name, .. } if segments.len() != 1 || last != name => {
            return Response::text(404, "no such file");
        }
        Target::Recording { name, .. } => site.files.as_ref().map(|d| d.file(&[name])),
        Target::Session { .. } if segments.len() == 1 && last == MANIFEST_FILE => {
            // An unfinished session's manifest as readers see it (its
            // journal replayed); a finished one's is the file itself.
            if let Some(bytes) =
                site.page
                    .replayed_manifest(&site.target, site.diff.is_some(), site.files.as_ref())
            {
                let v = Validators::of_memory(bytes.len() as u64, std::time::SystemTime::now());
                return Response::ok(content_type, Body::Memory(bytes, v));
            }
            site.files.as_ref().map(|d| d.file(segments))
        }
        Target::Session { .. } => site.files.as_ref().map(|d| d.file(segments)),
    };
    match opened {
        Some(Ok(file)) => match file.metadata() {
            Ok(meta) => {
                let v = Validators::of_file(&meta);
                Response::ok(content_type, Body::File(file, v))
            }
            Err(_) => Response::text(404, "no such file in the session"),
        },
        _ => Response::text(404, "no such file in the session"),
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

/// `%XX` escapes decoded; `None` for a bad escape or text that is not UTF-8 (URL paths here, `leanscope://` resource URIs in `mcp/resources.rs`).
pub(crate) fn percent_decode(s: &str) -> Option<String> {
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

#[cfg(test)]
pub(super) mod tests {
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

    pub(crate) fn site(dir: &std::path::Path) -> Site {
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
            files: Some(Beneath::open(dir).unwrap()),
            token: "abc".into(),
            port: 4000,
            page: Page::new("<html>".into()),
            diff: None,
            imported: None,
        }
    }

    fn req(method: &str, path: &str, host: &str, origin: Option<&str>) -> Request {
        Request {
            method: method.into(),
            path: path.into(),
            host: Some(host.into()),
            origin: origin.map(Into::into),
            conditions: Conditions::default(),
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
}
