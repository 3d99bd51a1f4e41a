//! `gdlc match` on 127.0.0.1: a match against `gdlc play`, and against faulty players (not
//! listening, answering garbage, never answering); every match completes, its record keeps
//! the ggp.org invariants, and the faults are in `errors`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use gdl_tests::example;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("match-cli");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// Runs `gdlc match` on tic-tac-toe, `x` played by `x`, `o` by a random player in process;
/// returns the record.
fn run_match(x: &str, name: &str, playclock: &str) -> serde_json::Value {
    let out = scratch(name);
    let _ = std::fs::remove_file(&out);
    let result = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args([
            "match",
            &example("ticTacToe.kif"),
            "--player",
            x,
            "--player",
            "random",
        ])
        .args([
            "--startclock",
            "2",
            "--playclock",
            playclock,
            "--grace",
            "0.3",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("gdlc match runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&result.stdout).starts_with("goals x="));
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("a record")).expect("JSON");
    let len = |k: &str| record[k].as_array().map_or(0, Vec::len);
    assert_eq!(len("states"), len("moves") + 1, "{record}");
    assert_eq!(len("states"), len("stateTimes"));
    assert_eq!(len("states"), len("errors"));
    assert_eq!(record["isCompleted"], true);
    assert_eq!(len("goalValues"), 2);
    record
}

/// The error codes of role `x` (column 0) after START.
fn x_errors(record: &serde_json::Value) -> Vec<String> {
    record["errors"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .skip(1)
                .map(|row| row[0].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_match_against_gdlc_play() {
    let (child, addr) = gdl_tests::spawn_player(env!("CARGO_BIN_EXE_gdlc"), &[]);
    let player = Killed(child);
    let record = run_match(&addr.to_string(), "played.json", "1");
    assert!(x_errors(&record).iter().all(String::is_empty), "{record}");
    drop(player);
}

#[test]
fn a_player_not_listening_is_ce() {
    // A port just freed: nothing listens there.
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let record = run_match(&addr.to_string(), "ce.json", "1");
    assert!(x_errors(&record).iter().all(|e| e == "CE"), "{record}");
}

/// A fake player: answers every request with `reply` (or never, with `None`), forever.
fn fake_player(reply: Option<&'static str>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().take(100) {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
                let _ = s.read(&mut buf);
                match reply {
                    Some(body) => {
                        let _ = write!(
                            s,
                            "HTTP/1.0 200 OK\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        );
                    }
                    // Never answers: holds the connection past the clock.
                    None => std::thread::sleep(Duration::from_secs(5)),
                }
            });
        }
    });
    addr
}

#[test]
fn garbage_moves_are_il() {
    let addr = fake_player(Some("( this is no move"));
    let record = run_match(&addr.to_string(), "il.json", "1");
    let errors = x_errors(&record);
    assert!(errors.iter().all(|e| e.starts_with("IL ")), "{errors:?}");
}

#[test]
fn a_player_that_never_answers_is_to() {
    let addr = fake_player(None);
    let record = run_match(&addr.to_string(), "to.json", "0.5");
    let errors = x_errors(&record);
    assert!(errors.iter().all(|e| e == "TO"), "{errors:?}");
}
