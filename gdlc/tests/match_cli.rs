//! `gdlc match` on 127.0.0.1: a match against `gdlc play`, and against faulty players (not
//! listening, answering garbage, never answering); every match completes, its record keeps
//! the ggp.org invariants, and the faults are in `errors`. A person at the terminal (`human`,
//! fed through a pipe: bad lines, a number, a move's text, then a closed input). Ctrl-C
//! (SIGINT): ABORT to the remote player, a record that says `isAborted`, exit code 130.

mod support;

use std::io::Write;
use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;

use gdl_tests::example;
use serde_json::{Value, json};
use support::{
    FakePlayer, Killed, assert_record, gdlc, read_record, record_problems, reply, role_errors,
    scratch, wait_with_limit,
};

/// Runs `gdlc match` on tic-tac-toe, `x` played by `x`, `o` by a random player in process;
/// returns the record.
fn run_match(x: &str, name: &str, playclock: &str) -> Value {
    let out = scratch("match-cli", name);
    let result = gdlc()
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
    // One progress line per step, with the play clock.
    let record = read_record(&out);
    let steps = record["moves"].as_array().map_or(0, Vec::len);
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("step ")).count(),
        steps,
        "{stderr}"
    );
    assert!(stderr.contains("[play clock "), "{stderr}");
    assert_record(&record);
    assert_eq!(record["isCompleted"], true);
    record
}

#[test]
fn the_record_checker_finds_broken_records() {
    let good = json!({
        "matchId": "m", "randomToken": "abcdefghijklmnop", "startTime": 1, "startClock": 5,
        "playClock": 1, "previewClock": -1, "gameRoleNames": ["x", "o"],
        "states": ["( a )", "( b )"], "moves": [["noop", "( mark 1 1 )"]],
        "stateTimes": [1, 2], "errors": [["", ""], ["TO", ""]],
        "isCompleted": true, "isAborted": false, "goalValues": [0, 100]
    });
    assert_eq!(record_problems(&good), Vec::<String>::new());
    let broken = |change: &dyn Fn(&mut Value)| {
        let mut r = good.clone();
        change(&mut r);
        record_problems(&r)
    };
    assert!(!broken(&|r| r["moves"] = json!([])).is_empty());
    assert!(!broken(&|r| r["errors"] = json!([["", ""]])).is_empty());
    assert!(!broken(&|r| r["moves"][0] = json!(["noop"])).is_empty());
    assert!(!broken(&|r| r["states"][1] = Value::Null).is_empty());
    assert!(!broken(&|r| r["randomToken"] = json!("short")).is_empty());
    assert!(!broken(&|r| r["stateTimes"] = json!([2, 1])).is_empty());
    assert!(!broken(&|r| r["isCompleted"] = json!(false)).is_empty());
    assert!(
        !broken(&|r| {
            r.as_object_mut().unwrap().remove("goalValues");
        })
        .is_empty()
    );
    assert!(!broken(&|r| r["isAborted"] = json!(true)).is_empty());
    assert!(
        !broken(&|r| {
            r.as_object_mut().unwrap().remove("matchId");
        })
        .is_empty()
    );
}

#[test]
fn a_match_against_gdlc_play() {
    let (child, addr) = gdl_tests::spawn_player(env!("CARGO_BIN_EXE_gdlc"), &[]);
    let player = Killed(child);
    let record = run_match(&addr.to_string(), "played.json", "1");
    assert!(
        role_errors(&record, 0).iter().all(String::is_empty),
        "{record}"
    );
    drop(player);
}

#[test]
fn a_player_not_listening_is_ce() {
    // A port just freed: nothing listens there.
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let record = run_match(&addr.to_string(), "ce.json", "1");
    assert_eq!(record["errors"][0][0], "CE", "{record}");
    assert!(
        role_errors(&record, 0).iter().all(|e| e == "CE"),
        "{record}"
    );
}

#[test]
fn garbage_moves_are_il() {
    let fake = FakePlayer::start(
        Duration::ZERO,
        Box::new(|_, _| Some(reply("( this is no move"))),
    );
    let record = run_match(&fake.addr.to_string(), "il.json", "1");
    let errors = role_errors(&record, 0);
    assert!(
        errors.iter().all(|e| e == "IL ( this is no move"),
        "{errors:?}"
    );
}

#[test]
fn a_player_that_never_answers_is_to() {
    let fake = FakePlayer::start(Duration::from_secs(5), Box::new(|_, _| None));
    let record = run_match(&fake.addr.to_string(), "to.json", "0.5");
    let errors = role_errors(&record, 0);
    assert!(errors.iter().all(|e| e == "TO"), "{errors:?}");
}

#[test]
fn a_person_plays_through_standard_input() {
    let out = scratch("match-cli", "human.json");
    let mut child = gdlc()
        .args([
            "match",
            &example("ticTacToe.kif"),
            "--player",
            "human",
            "--player",
            "random",
            "--startclock",
            "0",
            "--playclock",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gdlc match runs");
    // Step 1: two bad lines, then a move's text; step 3: a move no longer legal, then a
    // number; then the input closes (step 5 on: random moves).
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"hello\n0\nmark 2 2\n\n(mark 2 2)\n1\n")
        .expect("write");
    let status = wait_with_limit(&mut child, Duration::from_secs(60));
    let result = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&result.stdout).starts_with("goals x="));
    for said in [
        "`hello` is not a legal move",
        "0 is not between 1 and 9",
        "`(mark 2 2)` is not a legal move",
        "standard input is closed",
        "    1  (mark 1 1)",
        "x: noop, the only legal move",
    ] {
        assert!(stderr.contains(said), "`{said}` not in {stderr}");
    }
    let record = read_record(&out);
    assert_record(&record);
    assert_eq!(record["isCompleted"], true);
    assert_eq!(record["moves"][0][0], "( mark 2 2 )");
    // `1` is the first of the legal moves in text order: the first blank cell.
    let state = record["states"][2].as_str().expect("a state");
    let first_blank = (1..=3)
        .flat_map(|r| (1..=3).map(move |c| (r, c)))
        .find(|(r, c)| state.contains(&format!("( cell {r} {c} b )")))
        .expect("a blank cell");
    assert_eq!(
        record["moves"][2][0],
        format!("( mark {} {} )", first_blank.0, first_blank.1)
    );
}

#[test]
fn ctrl_c_aborts_the_match() {
    // A slow player: ready at once, then each move after 3 s (more than the test waits).
    let fake = FakePlayer::start(
        Duration::ZERO,
        Box::new(|_, body| {
            if body.contains("PLAY") {
                std::thread::sleep(Duration::from_secs(3));
            }
            Some(reply(if body.contains("START") {
                "ready"
            } else if body.contains("ABORT") {
                "aborted"
            } else {
                "noop"
            }))
        }),
    );
    let out = scratch("match-cli", "aborted.json");
    let mut child = Killed(
        gdlc()
            .args([
                "match",
                &example("ticTacToe.kif"),
                "--player",
                "random",
                "--player",
                &fake.addr.to_string(),
                "--startclock",
                "1",
                "--playclock",
                "10",
            ])
            .arg("--out")
            .arg(&out)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("gdlc match runs"),
    );
    // Interrupt while the first PLAY waits for its reply.
    let start = std::time::Instant::now();
    while !fake.bodies().iter().any(|b| b.contains("PLAY")) {
        assert!(start.elapsed() < Duration::from_secs(30), "no PLAY came");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.0.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = wait_with_limit(&mut child.0, Duration::from_secs(20));
    let mut stderr = String::new();
    if let Some(mut e) = child.0.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
    }
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("aborted"), "{stderr}");
    let record = read_record(&out);
    assert_record(&record);
    assert_eq!(record["isAborted"], true);
    assert_eq!(record["isCompleted"], false);
    let id = record["matchId"].as_str().expect("an id");
    let bodies = fake.bodies();
    assert_eq!(
        bodies.last().map(String::as_str),
        Some(format!("( ABORT {id} )").as_str()),
        "{bodies:?}"
    );
}

#[test]
fn a_player_that_closes_without_a_reply_is_to() {
    let fake = FakePlayer::start(Duration::ZERO, Box::new(|_, _| None));
    let record = run_match(&fake.addr.to_string(), "closes.json", "1");
    let errors = role_errors(&record, 0);
    assert!(errors.iter().all(|e| e == "TO"), "{errors:?}");
}

#[test]
fn a_well_formed_illegal_move_is_il() {
    let fake = FakePlayer::start(
        Duration::ZERO,
        Box::new(|_, body: &str| {
            let upper = body.to_ascii_uppercase();
            Some(reply(if upper.contains("PLAY") {
                "( mark 9 9 )"
            } else if upper.contains("START") {
                "ready"
            } else {
                "done"
            }))
        }),
    );
    let record = run_match(&fake.addr.to_string(), "illegal.json", "1");
    let errors = role_errors(&record, 0);
    assert!(!errors.is_empty());
    assert!(errors.iter().all(|e| e == "IL ( mark 9 9 )"), "{errors:?}");
}
