//! The server's transport: reads framed messages from the client, answers
//! the ones that are not JSON-RPC (and reads on), and dispatches the rest
//! to the `tower-lsp-server` service.
//!
//! `tower-lsp-server`'s own loop polls every message's handler, the
//! `$/cancelRequest` notification's included, in one queue limited to its
//! concurrency level, so a Cancel waits for a free slot; and it stops at
//! the first malformed message. Here only `leanscope/*` requests take a
//! slot ([`MAX_CONCURRENT_REQUESTS`]); notifications, `shutdown` and
//! `$/cancelRequest` are handled at once.
//!
//! A capture that is cancelled stops its own work and answers `-32800` once
//! it has (Lean stopped, the session marked `cancelled` and unlocked);
//! other requests are dropped by the service (its `$/cancelRequest`).

use super::log::log_line;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::future::Either;
use futures::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Notify, Semaphore};
use tokio::task::JoinSet;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Id, Request, Response};
use tower_lsp_server::{ClientSocket, Loopback, LspService};
use tower_service::Service;

use super::backend::Backend;
use super::capture::Captures;
use super::errors;
use crate::capture::CancelToken;
use leanscope::limits::{MAX_CONCURRENT_REQUESTS, MAX_WAITING_REQUESTS};
use leanscope::protocol::json_rpc::{self as message, Incoming};
use leanscope::protocol::lsp_framing::{self as framing, Frame, FramingError};

/// Methods whose handler stops its own work when cancelled and answers
/// `-32800` only once it has.
const SELF_CANCELLING: [&str; 3] = [
    "leanscope/capture",
    "leanscope/captureFolder",
    "leanscope/compareRevisions",
];

tokio::task_local! {
    static REQUEST_CANCEL: CancelToken;
}

/// The cancel flag of the request being handled (set by `$/cancelRequest`
/// for a [`SELF_CANCELLING`] method, and when the server stops).
pub fn request_cancel() -> Option<CancelToken> {
    REQUEST_CANCEL.try_with(CancelToken::clone).ok()
}

/// Why the server stopped reading.
#[derive(Debug)]
pub enum End {
    /// The `exit` notification.
    Exit,
    /// The client closed the input.
    InputEnded,
    /// The input cannot be framed any more.
    Unreadable(FramingError),
}

struct InFlight {
    method: String,
    /// It holds a slot (its handler runs).
    started: bool,
    /// Cancelled while it waited: it answers `-32800` without running.
    cancelled_early: bool,
    cancel: CancelToken,
    wake: Arc<Notify>,
}

#[derive(Clone, Default)]
struct Table(Arc<Mutex<HashMap<Id, InFlight>>>);

impl Table {
    fn lock(&self) -> MutexGuard<'_, HashMap<Id, InFlight>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

type Out = mpsc::UnboundedSender<Vec<u8>>;

fn send(out: &Out, m: &impl Serialize) {
    if let Ok(body) = serde_json::to_vec(m) {
        let _ = out.send(body);
    }
}

fn reply(out: &Out, id: Id, error: Error) {
    send(out, &Response::from_error(id, error));
}

/// Serves until `exit`, the end of the input, or input that cannot be
/// framed. Then cancels what runs and waits up to `stop_wait` for it to
/// answer.
pub async fn serve<I, O>(
    input: I,
    output: O,
    service: LspService<Backend>,
    socket: ClientSocket,
    captures: Arc<Captures>,
    stop_wait: Duration,
) -> End
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (mut server_requests, client_responses) = Loopback::split(socket);
    let (out, out_rx) = mpsc::unbounded_channel();
    let writer = tokio::spawn(write_out(output, out_rx));
    let to_client = out.clone();
    let forward = tokio::spawn(async move {
        while let Some(r) = server_requests.next().await {
            send(&to_client, &r);
        }
    });
    let mut d = Dispatch {
        service,
        out: out.clone(),
        table: Table::default(),
        slots: Arc::new(Semaphore::new(MAX_CONCURRENT_REQUESTS)),
        tasks: JoinSet::new(),
        client_responses,
    };
    let mut input = BufReader::new(input);
    let end = loop {
        let body = match framing::read_frame(&mut input).await {
            Ok(Some(Frame::Body(b))) => b,
            Ok(Some(Frame::TooLarge { length })) => {
                let e = message::too_large(length);
                log_line!("leanscope serve: {}", e.message);
                reply(&out, Id::Null, e);
                continue;
            }
            Ok(None) => break End::InputEnded,
            Err(e) => break End::Unreadable(e),
        };
        if d.message(&body).await {
            break End::Exit;
        }
        while d.tasks.try_join_next().is_some() {}
    };
    if let End::Unreadable(e) = &end {
        log_line!(
            "leanscope serve: cannot find the next message ({e}); stopping after \
             cancelling what runs"
        );
    }
    // Everything still running is cancelled and answers once it stopped.
    captures.cancel_all();
    for f in d.table.lock().values_mut() {
        f.cancel.cancel();
        f.cancelled_early |= !f.started;
        f.wake.notify_one();
    }
    let tasks = &mut d.tasks;
    let _ = tokio::time::timeout(stop_wait, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    forward.abort();
    drop(d);
    drop(out);
    let _ = tokio::time::timeout(Duration::from_secs(1), writer).await;
    end
}

struct Dispatch {
    service: LspService<Backend>,
    out: Out,
    table: Table,
    slots: Arc<Semaphore>,
    tasks: JoinSet<()>,
    client_responses: <ClientSocket as Loopback>::ResponseSink,
}

impl Dispatch {
    /// Handles one message body; true after `exit`.
    async fn message(&mut self, body: &[u8]) -> bool {
        match message::parse(body) {
            Incoming::Invalid { id, error } => {
                log_line!("leanscope serve: {}", error.message);
                reply(&self.out, id, error);
                false
            }
            Incoming::Response(r) => {
                let _ = self.client_responses.send(r).await;
                false
            }
            Incoming::Request(r) => self.request(r).await,
        }
    }

    async fn request(&mut self, req: Request) -> bool {
        let method = req.method().to_owned();
        let Some(id) = req.id().cloned() else {
            let forward = method != "$/cancelRequest" || self.cancel(&req);
            if forward {
                let fut = self.service.call(req);
                self.tasks.spawn(async move {
                    let _ = fut.await;
                });
            }
            return method == "exit";
        };
        match method.as_str() {
            // Nothing else may come before its answer.
            "initialize" => {
                if let Ok(Some(r)) = self.service.call(req).await {
                    send(&self.out, &r);
                }
            }
            "shutdown" => {
                let fut = self.service.call(req);
                let out = self.out.clone();
                self.tasks.spawn(async move {
                    if let Ok(Some(r)) = fut.await {
                        send(&out, &r);
                    }
                });
            }
            _ => self.queue(id, method, req),
        }
        false
    }

    /// Starts a request when a slot is free.
    fn queue(&mut self, id: Id, method: String, req: Request) {
        let cancel = CancelToken::default();
        let wake = Arc::new(Notify::new());
        {
            let mut table = self.table.lock();
            if table.contains_key(&id) {
                let e = Error {
                    code: ErrorCode::InvalidRequest,
                    message: format!("a request with id {id} is already running").into(),
                    data: Some(json!({"kind": "duplicateId"})),
                };
                reply(&self.out, id, e);
                return;
            }
            let waiting = table.values().filter(|f| !f.started).count();
            if waiting >= MAX_WAITING_REQUESTS {
                reply(
                    &self.out,
                    id,
                    errors::busy(MAX_CONCURRENT_REQUESTS, waiting),
                );
                return;
            }
            table.insert(
                id.clone(),
                InFlight {
                    method,
                    started: false,
                    cancelled_early: false,
                    cancel: cancel.clone(),
                    wake: wake.clone(),
                },
            );
        }
        let fut = self.service.call(req);
        let (slots, table, out) = (self.slots.clone(), self.table.clone(), self.out.clone());
        self.tasks.spawn(async move {
            let acquire = std::pin::pin!(slots.acquire_owned());
            let woken = std::pin::pin!(wake.notified());
            let permit = match futures::future::select(acquire, woken).await {
                Either::Left((p, _)) => p.ok(),
                Either::Right(((), _)) => None,
            };
            let runs = match table.lock().get_mut(&id) {
                Some(f) if !f.cancelled_early && permit.is_some() => {
                    f.started = true;
                    true
                }
                _ => false,
            };
            let response = if runs {
                REQUEST_CANCEL.scope(cancel, fut).await.ok().flatten()
            } else {
                drop(fut);
                Some(Response::from_error(id.clone(), Error::request_cancelled()))
            };
            drop(permit);
            table.lock().remove(&id);
            if let Some(r) = response {
                send(&out, &r);
            }
        });
    }

    /// `$/cancelRequest`: true when the service is to drop the handler too.
    fn cancel(&self, req: &Request) -> bool {
        let id = req
            .params()
            .and_then(|p| p.get("id"))
            .and_then(|v| serde_json::from_value::<Id>(v.clone()).ok());
        let Some(id) = id else {
            log_line!("leanscope serve: $/cancelRequest without a usable id");
            return false;
        };
        let mut table = self.table.lock();
        let Some(f) = table.get_mut(&id) else {
            return true;
        };
        if !f.started {
            f.cancelled_early = true;
            f.wake.notify_one();
            return true;
        }
        if SELF_CANCELLING.contains(&f.method.as_str()) {
            log_line!(
                "leanscope serve: request {id} ({}) cancelled; stopping Lean",
                f.method
            );
            f.cancel.cancel();
            return false;
        }
        true
    }
}

async fn write_out<O: AsyncWrite + Unpin>(mut out: O, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(body) = rx.recv().await {
        let head = format!("Content-Length: {}\r\n\r\n", body.len());
        let wrote = async {
            out.write_all(head.as_bytes()).await?;
            out.write_all(&body).await?;
            out.flush().await
        };
        if wrote.await.is_err() {
            // The client is gone; what is left goes nowhere.
            break;
        }
    }
}
