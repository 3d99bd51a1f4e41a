//! A small client of `gdlc lsp` for the tests: the real binary spawned, JSON-RPC over its
//! standard input and output with `Content-Length` framing, every wait bounded so that a hung
//! server fails the test instead of hanging it. Each test file uses a part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a test waits for one message.
pub const WAIT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Messages read while waiting for another one.
    stash: Vec<Value>,
    next_id: i64,
}

impl Client {
    /// Starts `gdlc lsp` (not initialized).
    pub fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gdlc"))
            .args(["lsp", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("gdlc lsp starts");
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take();
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            while let Some(body) = read_frame(&mut out) {
                let value: Value = serde_json::from_slice(&body).expect("the server writes JSON");
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            messages,
            stash: Vec::new(),
            next_id: 1,
        }
    }

    /// Starts the server and goes through `initialize` / `initialized`; returns the
    /// capabilities.
    pub fn initialized() -> (Client, Value) {
        let mut c = Client::start();
        let result = c.request("initialize", json!({"processId": null, "capabilities": {}}));
        c.notify("initialized", json!({}));
        (c, result["capabilities"].clone())
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("the server reads");
    }

    pub fn send(&mut self, message: &Value) {
        self.send_all(std::slice::from_ref(message));
    }

    /// Sends messages in one write (which the server reads at once when it is under the
    /// pipe's atomic 4 KiB).
    pub fn send_all(&mut self, messages: &[Value]) {
        let mut framed = Vec::new();
        for message in messages {
            let body = message.to_string();
            framed.extend(format!("Content-Length: {}\r\n\r\n", body.len()).bytes());
            framed.extend_from_slice(body.as_bytes());
        }
        self.send_raw(&framed);
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The whole response to a request (`result` or `error`).
    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// Sends a request and returns its result; panics on an error response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        let response = self.response(id);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// The first message (stashed or new) that `wanted` accepts.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.stash.iter().position(&wanted) {
            return self.stash.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(m) if wanted(&m) => return m,
                Ok(m) => self.stash.push(m),
                Err(RecvTimeoutError::Timeout) => panic!("no awaited message in {WAIT:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
            }
        }
    }

    /// The messages read so far and not yet awaited, in the order they came.
    pub fn take_stash(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.stash)
    }

    /// The diagnostics published for `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == json!(version)
        });
        m["params"]["diagnostics"]
            .as_array()
            .expect("a list")
            .clone()
    }

    pub fn open(&mut self, uri: &str, language: &str, version: i64, text: &str) {
        let item = json!({"uri": uri, "languageId": language, "version": version, "text": text});
        self.notify("textDocument/didOpen", json!({ "textDocument": item }));
    }

    pub fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            }),
        );
    }

    /// `shutdown`, `exit`, and the exit status.
    pub fn shutdown(mut self) -> Option<i32> {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        self.notify("exit", Value::Null);
        self.stdin = None;
        self.wait_exit()
    }

    /// The exit status, once the server has ended (within [`WAIT`]).
    pub fn wait_exit(&mut self) -> Option<i32> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("status") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("status").is_none()
    }

    /// The processor time (user and system) the server has used, in seconds: fields 14 and
    /// 15 of `/proc/PID/stat`, in ticks of 1/100 s. `None` where there is no such file.
    pub fn cpu_seconds(&self) -> Option<f64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        // The command name (field 2) is in parentheses: count after it.
        let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
        let utime: f64 = fields.get(11)?.parse().ok()?;
        let stime: f64 = fields.get(12)?.parse().ok()?;
        Some((utime + stime) / 100.0)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_frame(out: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).ok()? == 0 {
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
    let mut body = vec![0; length?];
    out.read_exact(&mut body).ok()?;
    Some(body)
}

/// A request with its id, to send with [`Client::send_all`].
pub fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A `$/cancelRequest` notification.
pub fn cancel(params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": params})
}

/// The protocol's position (line, UTF-16 column) of the `nth` (from 0) occurrence of
/// `needle` in `text`, plus `shift` bytes.
pub fn position(text: &str, needle: &str, nth: usize, shift: usize) -> Value {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} in the text"))
        .0
        + shift;
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .encode_utf16()
        .count();
    json!({"line": line, "character": column})
}

/// A range from `(line, character)` to `(line, character)`.
pub fn range(a: (u32, u32), b: (u32, u32)) -> Value {
    json!({"start": {"line": a.0, "character": a.1}, "end": {"line": b.0, "character": b.1}})
}
