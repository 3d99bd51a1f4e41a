//! The manager's HTTP client: one new connection per message, the request exactly as
//! ggp-base's manager writes it (`protocol.md`, `../shared/captures`):
//!
//! ```text
//! POST / HTTP/1.0
//! Accept: text/delim
//! Host: <host>
//! Sender: GAMESERVER
//! Receiver: <player name, empty when unknown>
//! Content-Type: text/acl
//! Content-Length: <bytes>
//! ```
//!
//! The reply is read until its `Content-Length` is in, or to the end of the stream when it
//! has none; its body is returned trimmed.

use std::time::Duration;

use gdl_player::http::SendError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The longest reply read (a move is short; a reply longer than this is no move).
const MAX_REPLY: usize = 1 << 20;

/// The bytes of the request carrying `message` to the player at `address` (`host:port`).
pub fn request(address: &str, message: &str) -> Vec<u8> {
    let host = address
        .rsplit_once(':')
        .map_or(address, |(host, _)| host)
        .trim_start_matches('[')
        .trim_end_matches(']');
    let mut out = format!(
        "POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: {host}\r\nSender: GAMESERVER\r\n\
         Receiver: \r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n",
        message.len()
    )
    .into_bytes();
    out.extend_from_slice(message.as_bytes());
    out
}

/// Where a complete reply's body is: `Some(range)` once the head and the whole body (as its
/// `Content-Length` says) are in; `None` while more is needed.
fn body_of(reply: &[u8], ended: bool) -> Option<Result<std::ops::Range<usize>, SendError>> {
    let (head_end, sep) = match find(reply, b"\r\n\r\n") {
        Some(i) => (i, 4),
        None => match find(reply, b"\n\n") {
            Some(i) => (i, 2),
            None if ended => {
                return Some(Err(SendError::Broken(
                    "a reply without a blank line".into(),
                )));
            }
            None => return None,
        },
    };
    let head = String::from_utf8_lossy(&reply[..head_end]);
    let mut lines = head.lines();
    let status = lines.next().unwrap_or_default();
    let mut words = status.split_whitespace();
    if !words.next().is_some_and(|w| w.starts_with("HTTP/")) {
        return Some(Err(SendError::Broken(format!("not HTTP: {status}"))));
    }
    if words.next() != Some("200") {
        return Some(Err(SendError::Broken(format!("status {status}"))));
    }
    let length = lines.find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    });
    let start = head_end + sep;
    match length {
        Some(n) if reply.len() >= start.saturating_add(n) => Some(Ok(start..start + n)),
        _ if ended => Some(Ok(start..reply.len())),
        _ => None,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Sends `message` to the player at `address` and returns the reply's body, trimmed; gives up
/// after `wait`.
pub async fn send(address: &str, message: &str, wait: Duration) -> Result<String, SendError> {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| SendError::Connect(e.to_string()))?;
        let broken = |e: std::io::Error| SendError::Broken(e.to_string());
        stream
            .write_all(&request(address, message))
            .await
            .map_err(broken)?;
        let mut reply = Vec::new();
        loop {
            let n = stream.read_buf(&mut reply).await.map_err(broken)?;
            if reply.len() > MAX_REPLY {
                return Err(SendError::Broken("a reply longer than 1 MiB".into()));
            }
            if let Some(body) = body_of(&reply, n == 0) {
                let body = body?;
                return Ok(String::from_utf8_lossy(&reply[body]).trim().to_string());
            }
        }
    };
    match tokio::time::timeout(wait, exchange).await {
        Ok(r) => r,
        Err(_) => Err(SendError::Timeout),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_spelt_as_ggp_base_does() {
        let r = String::from_utf8(request("127.0.0.1:9147", "( PLAY m NIL )")).unwrap();
        assert_eq!(
            r,
            "POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: 127.0.0.1\r\nSender: GAMESERVER\r\n\
             Receiver: \r\nContent-Type: text/acl\r\nContent-Length: 14\r\n\r\n( PLAY m NIL )"
        );
    }

    #[test]
    fn replies_are_read_by_length_or_to_the_end() {
        let full = b"HTTP/1.0 200 OK\r\nContent-length: 5\r\n\r\nready";
        assert!(matches!(body_of(full, false), Some(Ok(r)) if &full[r.clone()] == b"ready"));
        assert!(body_of(&full[..full.len() - 1], false).is_none());
        let open = b"HTTP/1.0 200 OK\r\n\r\nnoop";
        assert!(body_of(open, false).is_none());
        assert!(matches!(body_of(open, true), Some(Ok(r)) if &open[r.clone()] == b"noop"));
        assert!(matches!(
            body_of(b"HTTP/1.0 500 Oops\r\n\r\n", true),
            Some(Err(_))
        ));
        assert!(matches!(body_of(b"( mark 1 1 )", true), Some(Err(_))));
    }
}
