//! The HTTP framing around hyper: the request head is read before hyper sees it, so that a
//! POST without `Content-Length` (and without `Transfer-Encoding`) has its body read to the end
//! of the stream, as `protocol.md` asks, within a size and a time bound, and is handed to hyper
//! with a `Content-Length`. Also the replies (status line `HTTP/1.0 200 OK`, the protocol's
//! headers, ASCII) and the URL decoding of GET.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Response, Version};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};

/// The longest request head read (bytes); a longer head is passed to hyper, which refuses it.
const MAX_HEAD: usize = 64 * 1024;

/// Why a request could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The body is longer than the limit (bytes).
    TooLarge(usize),
    /// The head or the body did not arrive within the limit.
    Slow(Duration),
    /// The connection broke, or the bytes were not HTTP.
    Broken(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::TooLarge(n) => write!(f, "the request is longer than {n} bytes"),
            ReadError::Slow(t) => write!(f, "the request did not arrive within {t:?}"),
            ReadError::Broken(e) => write!(f, "cannot read the request: {e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// The bounds on reading one request.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    pub max_body: usize,
    pub time: Duration,
}

/// The start of a connection, read before hyper takes it over.
pub(super) struct Prepared {
    /// The bytes read so far, rewritten when a body without length was read to the end.
    pub prefix: Vec<u8>,
    /// Set when the request must be answered with an error whatever hyper reads.
    pub problem: Option<ReadError>,
}

/// Reads the request head from `stream` (and, for a POST without `Content-Length` and without
/// `Transfer-Encoding`, the body up to the end of the stream: at most `bounds.max_body` bytes,
/// until `bounds.time` has passed; what arrived by then is the body). `Err` when the head does
/// not arrive in time: there is nothing to answer.
pub(super) async fn prepare<S: AsyncRead + Unpin>(
    stream: &mut S,
    bounds: Bounds,
) -> Result<Prepared, ReadError> {
    let deadline = tokio::time::Instant::now() + bounds.time;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = head_end(&buf) {
            break end;
        }
        if buf.len() > MAX_HEAD {
            // Not a head we read: hyper answers or closes.
            return Ok(Prepared {
                prefix: buf,
                problem: None,
            });
        }
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            Err(_) => return Err(ReadError::Slow(bounds.time)),
            Ok(Err(e)) => return Err(ReadError::Broken(e.to_string())),
            // The end before a whole head: hyper says what is wrong, if anything.
            Ok(Ok(0)) => {
                return Ok(Prepared {
                    prefix: buf,
                    problem: None,
                });
            }
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    if !needs_body_to_end(&buf[..head_end.start]) {
        return Ok(Prepared {
            prefix: buf,
            problem: None,
        });
    }
    // The body is whatever comes until the client closes its side.
    let mut body = buf.split_off(head_end.end);
    buf.truncate(head_end.start);
    let mut problem = None;
    loop {
        if body.len() > bounds.max_body {
            problem = Some(ReadError::TooLarge(bounds.max_body));
            body.clear();
            break;
        }
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            // What arrived in time is the body.
            Err(_) | Ok(Ok(0)) => break,
            Ok(Err(e)) => {
                problem = Some(ReadError::Broken(e.to_string()));
                body.clear();
                break;
            }
            Ok(Ok(n)) => body.extend_from_slice(&chunk[..n]),
        }
    }
    buf.extend_from_slice(format!("\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes());
    buf.extend_from_slice(&body);
    Ok(Prepared {
        prefix: buf,
        problem,
    })
}

/// Where the blank line that ends the head is: `start` is the end of the last header line
/// (before its line break), `end` the start of the body.
fn head_end(buf: &[u8]) -> Option<std::ops::Range<usize>> {
    (0..buf.len()).find_map(|i| {
        if buf[i..].starts_with(b"\r\n\r\n") {
            Some(i..i + 4)
        } else if buf[i..].starts_with(b"\n\r\n") {
            Some(i..i + 3)
        } else if buf[i..].starts_with(b"\n\n") {
            Some(i..i + 2)
        } else {
            None
        }
    })
}

/// Whether a head (without its final blank line) is a POST whose body has no length: no
/// `Content-Length` and no `Transfer-Encoding` (header names in any case).
fn needs_body_to_end(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.lines();
    let is_post = lines
        .next()
        .is_some_and(|l| l.split_whitespace().next() == Some("POST"));
    is_post
        && !lines.any(|l| {
            let name = l.split(':').next().unwrap_or_default().trim();
            name.eq_ignore_ascii_case("content-length")
                || name.eq_ignore_ascii_case("transfer-encoding")
        })
}

/// A stream that gives `prefix` before the rest of `inner`; writes go to `inner`.
pub(super) struct Prefixed<S> {
    prefix: Vec<u8>,
    at: usize,
    inner: S,
}

impl<S> Prefixed<S> {
    pub fn new(prefix: Vec<u8>, inner: S) -> Self {
        Prefixed {
            prefix,
            at: 0,
            inner,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Prefixed<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.at < this.prefix.len() {
            let n = buf.remaining().min(this.prefix.len() - this.at);
            buf.put_slice(&this.prefix[this.at..this.at + n]);
            this.at += n;
            if this.at == this.prefix.len() {
                this.prefix = Vec::new();
                this.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Prefixed<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// The headers of every reply: the content type and the CORS headers.
const HEADERS: [(&str, &str); 5] = [
    ("Content-Type", "text/acl"),
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
    ("Access-Control-Allow-Headers", "Content-Type"),
    ("Access-Control-Allow-Age", "86400"),
];

/// An `HTTP/1.0 200 OK` with the protocol's headers (hyper adds the `Content-Length`).
pub(super) fn respond(body: String) -> Response<Full<Bytes>> {
    // Replies are ASCII.
    let body: String = body
        .chars()
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect();
    let mut r = Response::new(Full::new(Bytes::from(body)));
    // hyper answers an HTTP/1.0 request in 1.0 anyway, and keeps 1.0 for a 1.1 request.
    *r.version_mut() = Version::HTTP_10;
    for (name, value) in HEADERS {
        r.headers_mut()
            .insert(name, hyper::header::HeaderValue::from_static(value));
    }
    r
}

/// `%28+INFO+%29` -> `( INFO )`.
pub(super) fn url_decode(path: &str) -> String {
    let b = path.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_end_at_the_blank_line() {
        assert_eq!(head_end(b"POST / HTTP/1.0\r\n\r\nbody"), Some(15..19));
        assert_eq!(head_end(b"POST / HTTP/1.0\n\nbody"), Some(15..17));
        assert_eq!(head_end(b"POST / HTTP/1.0\r\nA: b\r\n"), None);
    }

    #[test]
    fn only_a_post_without_length_reads_to_the_end() {
        assert!(needs_body_to_end(
            b"POST / HTTP/1.0\r\nContent-Type: text/acl"
        ));
        assert!(!needs_body_to_end(b"POST / HTTP/1.0\r\ncontent-LENGTH: 8"));
        assert!(!needs_body_to_end(
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked"
        ));
        assert!(!needs_body_to_end(b"GET /%28+INFO+%29 HTTP/1.0\r\nHost: x"));
    }

    fn bounds() -> Bounds {
        Bounds {
            max_body: 100,
            time: Duration::from_secs(5),
        }
    }

    fn prepared(input: &[u8], bounds: Bounds) -> Prepared {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let mut input = input;
        rt.block_on(prepare(&mut input, bounds)).expect("a head")
    }

    #[test]
    fn a_body_without_length_gets_one() {
        let p = prepared(
            b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\n\r\n( INFO )",
            bounds(),
        );
        assert_eq!(
            String::from_utf8_lossy(&p.prefix),
            "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: 8\r\n\r\n( INFO )"
        );
        assert_eq!(p.problem, None);
    }

    #[test]
    fn a_body_with_length_passes_unchanged() {
        let raw = b"POST / HTTP/1.0\r\nContent-Length: 8\r\n\r\n( INFO )";
        let p = prepared(raw, bounds());
        assert_eq!(p.prefix, raw);
        assert_eq!(p.problem, None);
    }

    #[test]
    fn a_body_without_length_is_bounded() {
        let mut raw = b"POST / HTTP/1.0\r\n\r\n".to_vec();
        raw.extend(std::iter::repeat_n(b'x', 1000));
        let p = prepared(&raw, bounds());
        assert_eq!(p.problem, Some(ReadError::TooLarge(100)));
        assert!(String::from_utf8_lossy(&p.prefix).ends_with("Content-Length: 0\r\n\r\n"));
    }

    #[test]
    fn url_decoding() {
        assert_eq!(url_decode("%28+INFO+%29"), "( INFO )");
        assert_eq!(url_decode("a%2"), "a%2");
        assert_eq!(url_decode("%zz"), "%zz");
    }
}
