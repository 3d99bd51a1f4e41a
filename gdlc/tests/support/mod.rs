//! What the tests of `gdlc match` and `gdlc tournament` share: the match record's invariants
//! ([`record_problems`], [`assert_record`]), a fake remote player that records the raw
//! requests it gets ([`FakePlayer`]), scratch files and children killed on drop. Each test
//! file uses a part of it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn gdlc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gdlc"))
}

/// A path in a scratch directory of this test binary (`<tmp>/<dir>/<name>`), removed first.
pub fn scratch(dir: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(&path);
    path
}

/// Reads a match record.
pub fn read_record(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no record at {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

/// Everything wrong with a match record (the ggp.org invariants of `protocol.md`): the keys
/// are there with their types; `len(states) == len(moves) + 1 == len(stateTimes)`,
/// `len(errors) == len(states)`; every row of `moves` and `errors` has one string per role;
/// no nulls; `randomToken` has at least 12 characters; `goalValues` (one per role) exactly
/// when completed; a match is not both completed and aborted; `stateTimes` never decrease.
pub fn record_problems(record: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut problem = |p: String| problems.push(p);
    fn nulls(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Null => out.push(format!("null at {at}")),
            Value::Array(items) => {
                for (k, item) in items.iter().enumerate() {
                    nulls(item, &format!("{at}[{k}]"), out);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    nulls(item, &format!("{at}.{k}"), out);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    nulls(record, "record", &mut found);
    found.into_iter().for_each(&mut problem);
    for key in ["matchId", "randomToken"] {
        if !record[key].is_string() {
            problem(format!("{key} is not a string"));
        }
    }
    for key in ["startTime", "startClock", "playClock", "previewClock"] {
        if !record[key].is_number() {
            problem(format!("{key} is not a number"));
        }
    }
    for key in ["isCompleted", "isAborted"] {
        if !record[key].is_boolean() {
            problem(format!("{key} is not a boolean"));
        }
    }
    if record["randomToken"].as_str().is_some_and(|t| t.len() < 12) {
        problem("randomToken is shorter than 12 characters".into());
    }
    let array = |key: &str| record[key].as_array().cloned();
    let roles = array("gameRoleNames").map_or(0, |r| r.len());
    if roles == 0 {
        problem("no gameRoleNames".into());
    }
    let (Some(states), Some(moves), Some(times), Some(errors)) = (
        array("states"),
        array("moves"),
        array("stateTimes"),
        array("errors"),
    ) else {
        problem("states, moves, stateTimes or errors is not an array".into());
        return problems;
    };
    if states.len() != moves.len() + 1 {
        problem(format!("{} states, {} moves", states.len(), moves.len()));
    }
    if states.len() != times.len() {
        problem(format!(
            "{} states, {} stateTimes",
            states.len(),
            times.len()
        ));
    }
    if states.len() != errors.len() {
        problem(format!(
            "{} states, {} error rows",
            states.len(),
            errors.len()
        ));
    }
    if !states.iter().all(Value::is_string) {
        problem("a state is not a string".into());
    }
    for (what, rows) in [("moves", &moves), ("errors", &errors)] {
        for (k, row) in rows.iter().enumerate() {
            let ok = row
                .as_array()
                .is_some_and(|r| r.len() == roles && r.iter().all(Value::is_string));
            if !ok {
                problem(format!("{what}[{k}] is not one string per role: {row}"));
            }
        }
    }
    let times: Vec<Option<u64>> = times.iter().map(Value::as_u64).collect();
    if times.iter().any(Option::is_none) || times.windows(2).any(|w| w[0] > w[1]) {
        problem(format!(
            "stateTimes are not non-decreasing numbers: {times:?}"
        ));
    }
    let completed = record["isCompleted"] == true;
    match record.get("goalValues") {
        Some(goals) if completed => {
            let ok = goals
                .as_array()
                .is_some_and(|g| g.len() == roles && g.iter().all(Value::is_i64));
            if !ok {
                problem(format!("goalValues are not one number per role: {goals}"));
            }
        }
        Some(_) => problem("goalValues in a match not completed".into()),
        None if completed => problem("a completed match without goalValues".into()),
        None => {}
    }
    if completed && record["isAborted"] == true {
        problem("completed and aborted".into());
    }
    problems
}

/// Panics with the record's problems, if it has any.
pub fn assert_record(record: &Value) {
    let problems = record_problems(record);
    assert!(problems.is_empty(), "{problems:#?}\nin {record:#}");
}

/// A column of a record's `errors` (one role), after START.
pub fn role_errors(record: &Value, role: usize) -> Vec<String> {
    record["errors"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .skip(1)
                .map(|row| row[role].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A child process killed when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for a child to end, at most `limit`; kills it (and panics) past that.
pub fn wait_with_limit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One request as a fake player got it: the raw bytes, and the body.
#[derive(Clone, Debug)]
pub struct Got {
    pub raw: Vec<u8>,
    pub body: String,
}

/// What a fake player does with a request (its body): the whole raw HTTP reply to send, or
/// `None` to hold the connection open for `hold` and close it without a reply.
pub type Answer = Box<dyn Fn(usize, &str) -> Option<Vec<u8>> + Send + Sync>;

/// A fake remote player on 127.0.0.1: it records every request and answers as `answer`
/// says (given the request's number, from 0, and its body). At most 200 connections.
pub struct FakePlayer {
    pub addr: SocketAddr,
    pub got: Arc<Mutex<Vec<Got>>>,
}

/// A reply as players send it, with `body`.
pub fn reply(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.0 200 OK\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads one request: the head, then as many bytes as its Content-Length says (or what comes
/// within the timeout).
fn read_request(s: &mut TcpStream) -> Vec<u8> {
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if raw.len() >= end + 4 + length {
                return raw;
            }
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return raw,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
}

impl FakePlayer {
    pub fn start(hold: Duration, answer: Answer) -> FakePlayer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let got: Arc<Mutex<Vec<Got>>> = Arc::default();
        let log = got.clone();
        let answer = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming().take(200) {
                let Ok(mut s) = stream else { continue };
                let raw = read_request(&mut s);
                let body = String::from_utf8_lossy(
                    raw.windows(4)
                        .position(|w| w == b"\r\n\r\n")
                        .map_or(&raw[..0], |i| &raw[i + 4..]),
                )
                .into_owned();
                let n = {
                    let mut log = log.lock().unwrap();
                    log.push(Got {
                        raw: raw.clone(),
                        body: body.clone(),
                    });
                    log.len() - 1
                };
                let answer = answer.clone();
                std::thread::spawn(move || match answer(n, &body) {
                    Some(bytes) => {
                        let _ = s.write_all(&bytes);
                    }
                    None => std::thread::sleep(hold),
                });
            }
        });
        FakePlayer { addr, got }
    }

    /// The bodies received so far.
    pub fn bodies(&self) -> Vec<String> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .map(|g| g.body.clone())
            .collect()
    }
}
