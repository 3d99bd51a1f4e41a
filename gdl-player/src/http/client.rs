//! The client side: a message sent to a player as game managers send it.

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request};

/// Why a message to a player got no reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendError {
    /// No connection (`CE` in a match record).
    Connect(String),
    /// No reply in time (`TO`).
    Timeout,
    /// The connection broke, or the reply was not HTTP (`TO`: the manager got no move).
    Broken(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Connect(e) => write!(f, "cannot connect: {e}"),
            SendError::Timeout => write!(f, "no reply in time"),
            SendError::Broken(e) => write!(f, "no reply: {e}"),
        }
    }
}

/// Sends `message` to the player at `address` (`host:port`) as game managers do (`POST /`,
/// `text/acl`) and returns the reply's body, trimmed; gives up after `timeout`.
pub async fn send(address: &str, message: &str, timeout: Duration) -> Result<String, SendError> {
    let exchange = async {
        let stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| SendError::Connect(e.to_string()))?;
        let io = hyper_util::rt::TokioIo::new(stream);
        let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| SendError::Broken(e.to_string()))?;
        tokio::spawn(connection);
        let request = Request::builder()
            .method(Method::POST)
            .uri("/")
            .header("Host", address)
            .header("Accept", "text/delim")
            .header("Sender", "GAMESERVER")
            .header("Content-Type", "text/acl")
            .body(Full::new(Bytes::from(message.to_string())))
            .map_err(|e| SendError::Broken(e.to_string()))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| SendError::Broken(e.to_string()))?;
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| SendError::Broken(e.to_string()))?
            .to_bytes();
        Ok(String::from_utf8_lossy(&body).trim().to_string())
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(r) => r,
        Err(_) => Err(SendError::Timeout),
    }
}
