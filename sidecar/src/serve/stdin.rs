//! The server's input: stdin, watched for its end. A client that goes away
//! without `shutdown`/`exit` closes the pipe; running captures are then
//! cancelled so that no Lean outlives its editor.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

pub struct WatchEnd<R> {
    inner: R,
    on_end: Option<Box<dyn FnOnce() + Send>>,
}

impl<R> WatchEnd<R> {
    pub fn new(inner: R, on_end: impl FnOnce() + Send + 'static) -> Self {
        WatchEnd {
            inner,
            on_end: Some(Box::new(on_end)),
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchEnd<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let wants = buf.remaining() > 0;
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &poll {
            Poll::Ready(Ok(())) => wants && buf.filled().len() == before,
            Poll::Ready(Err(_)) => true,
            Poll::Pending => false,
        };
        if ended {
            if let Some(f) = self.on_end.take() {
                f();
            }
        }
        poll
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use tokio::io::AsyncReadExt;

    #[test]
    fn tells_once_when_the_input_ends() {
        let ended = Arc::new(AtomicBool::new(false));
        let flag = ended.clone();
        let mut r = WatchEnd::new(&b"abc"[..], move || flag.store(true, Ordering::SeqCst));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut two = [0u8; 2];
            r.read_exact(&mut two).await.unwrap();
            assert!(!ended.load(Ordering::SeqCst));
            let mut rest = Vec::new();
            r.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"c");
        });
        assert!(ended.load(Ordering::SeqCst));
    }
}
