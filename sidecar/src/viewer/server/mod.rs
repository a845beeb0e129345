//! The HTTP server of `leanscope view` (the command is `commands::view`):
//! serves the viewer and a session's (or a recording's) data to a browser,
//! on 127.0.0.1 only, under a random token, GET/HEAD only, with Host and
//! Origin checks, a strict CSP, and files opened beneath the session
//! directory only (`viewer::confined`).
//!
//! The HTTP is hyper's HTTP/1.1, one request per connection, on tokio.
//! A client that is slow or idle cannot lock a user out: each connection
//! is a cheap task, up to [`MAX_CONNECTIONS`] at once; its request head
//! must arrive within [`HEAD_READ_TIMEOUT`] (a byte now and then does not
//! extend it), and a write that makes no progress for [`WRITE_TIMEOUT`]
//! ends the connection. Heads over [`MAX_REQUEST_HEAD_BYTES`] get 431.

mod http;
mod page;
mod ranges;
pub(crate) mod route;

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use bytes::Bytes;
use hyper_util::rt::{TokioIo, TokioTimer};

use crate::viewer::confined::Beneath;
use crate::viewer::site::{index_html, Target};
use leanscope::limits::{MAX_CONNECTIONS, MAX_REQUEST_HEAD_BYTES};
use page::Page;
use ranges::Validators;
use route::Site;

/// How long a connection may take to send its whole request head.
pub const HEAD_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a write may wait for the client to take bytes.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// The pause after a failed accept (out of descriptors, say) before the next.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);
/// Descriptors kept apart from the connections (files being sent, the
/// runtime's own).
#[cfg(unix)]
const SPARE_DESCRIPTORS: u64 = 256;
/// Threads answering requests.
const WORKER_THREADS: usize = 2;
/// Random bytes in the URL token.
const TOKEN_BYTES: usize = 16;

/// Serves `target` (and the diff document `diff`, if any) on 127.0.0.1:`port`
/// (0 picks a free one) until the process is stopped. Prints the page's URL
/// (with `fragment`, such as `#tab=diff`) and, with `open_page`, opens it in
/// a browser.
pub fn run(
    target: Target,
    diff: Option<Vec<u8>>,
    port: u16,
    fragment: &str,
    open_page: bool,
) -> Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    listener.set_nonblocking(true)?;
    let port = listener.local_addr()?.port();
    let token = random_token();
    let url = format!("http://127.0.0.1:{port}/{token}/{fragment}");
    let site = Arc::new(site(target, diff, token, port)?);
    raise_descriptor_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKER_THREADS)
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    let listener = {
        let _in_runtime = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    println!("{url}");
    std::io::stdout().flush().ok();
    if open_page {
        if let Err(e) = open_browser(&url) {
            eprintln!("leanscope: could not open a browser ({e}); open {url} yourself");
        }
    }
    runtime.block_on(serve(listener, site));
    Ok(())
}

fn site(target: Target, diff: Option<Vec<u8>>, token: String, port: u16) -> Result<Site> {
    let files = match &target {
        Target::Session { dir } => Some(dir.clone()),
        Target::Recording { file, .. } => file.parent().map(|p| p.to_path_buf()),
        Target::Imported { .. } => None,
    };
    let files = match files {
        Some(dir) => {
            Some(Beneath::open(&dir).with_context(|| format!("cannot open {}", dir.display()))?)
        }
        None => None,
    };
    let imported = match &target {
        Target::Imported { bytes, .. } => Some((
            Bytes::from_owner(SharedBytes(bytes.clone())),
            Validators::of_memory(bytes.len() as u64, SystemTime::now()),
        )),
        _ => None,
    };
    Ok(Site {
        page: Page::new(index_html(&target, diff.is_some())?),
        diff: diff.map(Bytes::from),
        target,
        files,
        token,
        port,
        imported,
    })
}

/// An imported recording's bytes, shared with the target (not copied).
struct SharedBytes(Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Accepts connections for ever.
async fn serve(listener: tokio::net::TcpListener, site: Arc<Site>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(_) => {
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            // Without waiting: what does not fit the socket's buffer is lost.
            let _ = stream.try_write(TOO_MANY);
            continue;
        };
        let site = site.clone();
        tokio::spawn(async move {
            connection(stream, site).await;
            drop(slot);
        });
    }
}

const TOO_MANY: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
Content-Length: 21\r\nConnection: close\r\n\r\ntoo many connections\n";

/// One connection: one request, its answer, then close.
async fn connection(stream: tokio::net::TcpStream, site: Arc<Site>) {
    let _ = stream.set_nodelay(true);
    let mut io = tokio_io_timeout::TimeoutStream::new(stream);
    io.set_write_timeout(Some(WRITE_TIMEOUT));
    let io = TokioIo::new(Box::pin(io));
    let service = hyper::service::service_fn(move |req| {
        let site = site.clone();
        async move { Ok::<_, std::convert::Infallible>(http::respond(req, site).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_READ_TIMEOUT)
        .max_buf_size(MAX_REQUEST_HEAD_BYTES)
        .keep_alive(false)
        .serve_connection(io, service)
        .await;
}

/// Raises the soft limit on open descriptors towards the hard one, so
/// that [`MAX_CONNECTIONS`] connections can be open at once. (Windows
/// has no such limit on sockets.)
#[cfg(unix)]
fn raise_descriptor_limit() {
    let want = MAX_CONNECTIONS as u64 + SPARE_DESCRIPTORS;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit on a struct we own.
    // rlim_t is u64 on Linux, not on every Unix.
    #[allow(clippy::unnecessary_cast)]
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && (lim.rlim_cur as u64) < want {
            lim.rlim_cur = want.min(lim.rlim_max as u64) as libc::rlim_t;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

#[cfg(not(unix))]
fn raise_descriptor_limit() {}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 2 * TOKEN_BYTES);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
