//! `view`'s HTTP on hyper: a request head becomes a `route::Request`
//! (a repeated or non-text Host or Origin is a 400), and a
//! `route::Response` becomes hyper's response with the headers every
//! answer carries (CSP and the rest), ranges and conditional requests
//! applied to data files, and files streamed in chunks.

use std::convert::Infallible;
use std::io::{self, Seek, SeekFrom};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full, StreamBody};
use hyper::body::Frame;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};

use super::ranges::{self, Conditions, Selection, Validators};
use super::route::{self, Body, Request, Response, Site};
use crate::viewer::site::CSP;

/// The body of every response.
pub type ResponseBody = http_body_util::combinators::UnsyncBoxBody<Bytes, io::Error>;

/// How much of a file is read and sent at a time.
pub const FILE_CHUNK_BYTES: usize = 64 * 1024;

/// Answers one request (routing runs on the blocking pool: it opens files
/// and may build the page).
pub async fn respond(
    req: hyper::Request<hyper::body::Incoming>,
    site: Arc<Site>,
) -> hyper::Response<ResponseBody> {
    let head_only = req.method() == hyper::Method::HEAD;
    let parsed = match request(&req) {
        Ok(r) => r,
        Err(msg) => return build(Response::text(400, msg), &Conditions::default(), head_only),
    };
    let conditions = parsed.conditions.clone();
    let answer = tokio::task::spawn_blocking(move || route::route(&parsed, &site)).await;
    let resp = answer.unwrap_or_else(|_| Response::text(500, "the request could not be answered"));
    build(resp, &conditions, head_only)
}

/// The parts of the head `route` looks at.
fn request<B>(req: &hyper::Request<B>) -> Result<Request, &'static str> {
    let h = req.headers();
    Ok(Request {
        method: req.method().as_str().to_string(),
        path: req.uri().path().to_string(),
        host: single(
            h,
            header::HOST,
            "more than one Host header",
            "the Host header is not text",
        )?,
        origin: single(
            h,
            header::ORIGIN,
            "more than one Origin header",
            "the Origin header is not text",
        )?,
        conditions: Conditions {
            range: first(h, header::RANGE),
            if_range: first(h, header::IF_RANGE),
            if_none_match: first(h, header::IF_NONE_MATCH),
            if_modified_since: first(h, header::IF_MODIFIED_SINCE),
        },
    })
}

/// A header that must appear at most once, as text.
fn single(
    h: &HeaderMap,
    name: HeaderName,
    repeated: &'static str,
    not_text: &'static str,
) -> Result<Option<String>, &'static str> {
    let mut values = h.get_all(name).iter();
    let Some(v) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(repeated);
    }
    v.to_str()
        .map(|s| Some(s.trim().to_string()))
        .map_err(|_| not_text)
}

fn first(h: &HeaderMap, name: HeaderName) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// hyper's response for `r`.
pub fn build(r: Response, c: &Conditions, head_only: bool) -> hyper::Response<ResponseBody> {
    let mut status = r.status;
    let mut extra: Vec<(HeaderName, String)> = Vec::new();
    if status == 405 {
        extra.push((header::ALLOW, "GET, HEAD".into()));
    }
    if let Some(loc) = &r.location {
        extra.push((header::LOCATION, loc.clone()));
    }
    let (len, body): (Option<u64>, ResponseBody) = match r.body {
        Body::Bytes(b) => (Some(b.len() as u64), full(b)),
        Body::Memory(bytes, v) => {
            let (s, part) = data_part(c, &v, &mut extra);
            status = s;
            match part {
                Some((start, end)) => {
                    let b = bytes.slice(start as usize..=end as usize);
                    (Some(b.len() as u64), full(b))
                }
                None => (Some(0), empty()),
            }
        }
        Body::File(file, v) => {
            let (s, part) = data_part(c, &v, &mut extra);
            status = s;
            match part {
                Some((start, end)) => {
                    let n = end - start + 1;
                    (
                        Some(n),
                        if head_only {
                            empty()
                        } else {
                            file_body(file, start, n)
                        },
                    )
                }
                None => (Some(0), empty()),
            }
        }
    };
    let mut resp = hyper::Response::new(if head_only { empty() } else { body });
    *resp.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let h = resp.headers_mut();
    let mut set = |name: HeaderName, value: &str| {
        if let Ok(v) = HeaderValue::from_str(value) {
            h.insert(name, v);
        }
    };
    if status != 304 {
        set(header::CONTENT_TYPE, r.content_type);
        if let Some(n) = len {
            set(header::CONTENT_LENGTH, &n.to_string());
        }
    }
    set(header::CONTENT_SECURITY_POLICY, CSP);
    set(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(header::REFERRER_POLICY, "no-referrer");
    set(
        HeaderName::from_static("cross-origin-resource-policy"),
        "same-origin",
    );
    set(header::CACHE_CONTROL, "no-store");
    set(header::CONNECTION, "close");
    for (name, value) in extra {
        set(name, &value);
    }
    resp
}

/// The status and the bytes (inclusive bounds; `None`: no body) a data
/// file's answer gets, with its validator and range headers added.
fn data_part(
    c: &Conditions,
    v: &Validators,
    extra: &mut Vec<(HeaderName, String)>,
) -> (u16, Option<(u64, u64)>) {
    extra.push((header::ACCEPT_RANGES, "bytes".into()));
    extra.push((header::ETAG, v.etag.clone()));
    extra.push((header::LAST_MODIFIED, v.last_modified()));
    match ranges::select(c, v) {
        Selection::NotModified => (304, None),
        Selection::Unsatisfiable => {
            extra.push((header::CONTENT_RANGE, format!("bytes */{}", v.len)));
            (416, None)
        }
        Selection::Part { start, end } => {
            extra.push((
                header::CONTENT_RANGE,
                format!("bytes {start}-{end}/{}", v.len),
            ));
            (206, Some((start, end)))
        }
        Selection::Whole if v.len == 0 => (200, None),
        Selection::Whole => (200, Some((0, v.len - 1))),
    }
}

fn full(b: Bytes) -> ResponseBody {
    Full::new(b)
        .map_err(|never: Infallible| match never {})
        .boxed_unsync()
}

fn empty() -> ResponseBody {
    Empty::new()
        .map_err(|never: Infallible| match never {})
        .boxed_unsync()
}

/// `n` bytes of `file` from `start`, read a chunk at a time as the client
/// takes them (at most one chunk in memory per response).
fn file_body(mut file: std::fs::File, start: u64, n: u64) -> ResponseBody {
    use tokio::io::AsyncReadExt;
    if let Err(e) = file.seek(SeekFrom::Start(start)) {
        let failed = futures::stream::once(async move { Err::<Frame<Bytes>, _>(e) });
        return StreamBody::new(failed).boxed_unsync();
    }
    let file = tokio::fs::File::from_std(file);
    let chunks = futures::stream::unfold((file, n), |(mut f, left)| async move {
        if left == 0 {
            return None;
        }
        let mut buf = vec![0u8; (left.min(FILE_CHUNK_BYTES as u64)) as usize];
        match f.read(&mut buf).await {
            Ok(0) => Some((
                Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file shrank while it was sent",
                )),
                (f, 0),
            )),
            Ok(k) => {
                buf.truncate(k);
                Some((Ok(Frame::data(Bytes::from(buf))), (f, left - k as u64)))
            }
            Err(e) => Some((Err(e), (f, 0))),
        }
    });
    StreamBody::new(chunks).boxed_unsync()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(lines: &[(&str, &str)]) -> hyper::Request<()> {
        let mut b = hyper::Request::builder().uri("/abc/");
        for (k, v) in lines {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap()
    }

    #[test]
    fn repeated_or_binary_host_and_origin_are_bad_requests() {
        assert!(request(&head(&[("host", "127.0.0.1:1")])).is_ok());
        assert_eq!(
            request(&head(&[("host", "127.0.0.1:1"), ("host", "evil:1")])).unwrap_err(),
            "more than one Host header"
        );
        assert_eq!(
            request(&head(&[("origin", "http://a"), ("origin", "http://b")])).unwrap_err(),
            "more than one Origin header"
        );
        let mut r = head(&[]);
        r.headers_mut()
            .insert(header::HOST, HeaderValue::from_bytes(b"\xff:1").unwrap());
        assert_eq!(request(&r).unwrap_err(), "the Host header is not text");
    }

    #[test]
    fn every_answer_carries_the_security_headers() {
        let r = build(Response::text(405, "no"), &Conditions::default(), false);
        assert_eq!(r.status(), 405);
        let h = r.headers();
        assert_eq!(h["content-security-policy"], CSP);
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert_eq!(h["referrer-policy"], "no-referrer");
        assert_eq!(h["cross-origin-resource-policy"], "same-origin");
        assert_eq!(h["cache-control"], "no-store");
        assert_eq!(h["allow"], "GET, HEAD");
        assert_eq!(h["content-length"], "3");
    }
}
