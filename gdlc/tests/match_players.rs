//! Whole matches between our manager and our players on 127.0.0.1: tic-tac-toe and Connect
//! Four between the universal player (`gdlc play`, any game: the interpreter, then the
//! compiled game when its build is done) and the player for one game (`gdlc play FILE
//! --engine interpreted`), and one tic-tac-toe match of the compiled player (`gdlc play FILE`,
//! built through the tests' build cache). Every match
//! completes with no error of any player, and its record keeps the ggp.org invariants.

mod support;

use std::net::SocketAddr;
use std::sync::Mutex;

use gdl_tests::example;
use support::{Killed, assert_record, gdlc, read_record, role_errors, scratch};

/// A player process and where it listens.
struct Running {
    _child: Killed,
    addr: SocketAddr,
}

fn universal() -> Running {
    let (child, addr) = gdl_tests::spawn_player(env!("CARGO_BIN_EXE_gdlc"), &[]);
    Running {
        _child: Killed(child),
        addr,
    }
}

fn interpreted(game: &str) -> Running {
    let (child, addr) = gdl_tests::spawn_player(
        env!("CARGO_BIN_EXE_gdlc"),
        &[&example(game), "--engine", "interpreted"],
    );
    Running {
        _child: Killed(child),
        addr,
    }
}

/// `gdlc play FILE`: the compiled player, built through the tests' build cache
/// ([`gdl_tests::test_cache`]; its first build takes minutes; later runs find it there).
fn compiled(game: &str) -> Running {
    let mut command = gdl_tests::player_command(env!("CARGO_BIN_EXE_gdlc"));
    command.arg(example(game));
    let (child, addr) = gdl_tests::spawn_listening(&mut command);
    Running {
        _child: Killed(child),
        addr,
    }
}

/// Plays `game` between two remote players; checks the record and that nobody erred.
fn match_between(game: &str, players: [&Running; 2], name: &str) {
    // One match at a time: players that think side by side on a loaded machine could miss
    // the clock, and this test is about errors.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = scratch("match-players", name);
    let result = gdlc()
        .args(["match", &example(game)])
        .args(["--player", &players[0].addr.to_string()])
        .args(["--player", &players[1].addr.to_string()])
        .args(["--startclock", "3", "--playclock", "1", "--grace", "1"])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("gdlc match runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(stdout.starts_with("goals "), "{stdout}");
    let record = read_record(&out);
    assert_record(&record);
    assert_eq!(record["isCompleted"], true, "{stderr}");
    assert!(
        record["errors"][0]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e == ""),
        "START: {record}"
    );
    for role in 0..2 {
        let errors = role_errors(&record, role);
        assert!(errors.iter().all(String::is_empty), "{errors:?}\n{stderr}");
    }
    // The goals printed are the record's.
    let goals: Vec<i64> = record["goalValues"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g.as_i64())
        .collect();
    let printed: Vec<i64> = stdout
        .split_whitespace()
        .skip(1)
        .filter_map(|p| p.split('=').nth(1)?.parse().ok())
        .collect();
    assert_eq!(goals, printed);
}

#[test]
fn tic_tac_toe_universal_against_interpreted() {
    let (a, b) = (universal(), interpreted("ticTacToe.kif"));
    match_between("ticTacToe.kif", [&a, &b], "ttt.json");
}

#[test]
fn connect_four_interpreted_against_universal() {
    let (a, b) = (interpreted("connectFour.kif"), universal());
    match_between("connectFour.kif", [&a, &b], "c4.json");
}

#[test]
fn tic_tac_toe_compiled_against_universal() {
    let (a, b) = (compiled("ticTacToe.kif"), universal());
    match_between("ticTacToe.kif", [&a, &b], "ttt-compiled.json");
}

/// A GDL-II match through our manager (PLAYs with percepts: the rules have `sees`) and the
/// universal player, which plays it from beliefs with the network (ground at START); the
/// manager plays the `random` role.
#[test]
fn a_gdl2_match_with_the_universal_player() {
    let mut child = gdl_tests::player_command(env!("CARGO_BIN_EXE_gdlc"))
        .spawn()
        .expect("the player starts");
    let (addr, log) = gdl_tests::listening_with_log(&mut child);
    let _child = Killed(child);
    let game = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/gdl2/guessNumber.kif")
        .display()
        .to_string();
    let out = scratch("match-players", "guess.json");
    let result = gdlc()
        .args(["match", &game, "--player", &addr.to_string()])
        .args(["--startclock", "2", "--playclock", "1", "--grace", "1"])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("gdlc match runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    let record = read_record(&out);
    assert_record(&record);
    assert_eq!(record["isCompleted"], true, "{stderr}");
    let errors = role_errors(&record, 0);
    assert!(errors.iter().all(String::is_empty), "{errors:?}\n{stderr}");
    // Every move by the network, from beliefs (or by the compiled game, when a build cache
    // from an earlier run holds the game).
    let mut lines = Vec::new();
    while let Ok(line) = log.recv_timeout(std::time::Duration::from_secs(1)) {
        lines.push(line);
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("a GDL-II game, the network plays from beliefs")),
        "{lines:#?}"
    );
    // Not every line naming a step is a move's: "the compiled game plays from step 2".
    assert!(
        lines
            .iter()
            .any(|l| l.contains(" by propnet (") || l.contains(" by compiled (")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains(" by interpreted")),
        "a move by the interpreter: {lines:#?}"
    );
}
