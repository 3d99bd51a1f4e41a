//! `gdlc play` on 127.0.0.1: whole tic-tac-toe matches with this test as the game manager
//! (the other role played at random here), every move of the player checked legal with the
//! interpreter, with the interpreter only, with the network in the player's process from the
//! first move, and with a build that fails (the network plays on); a player for one game
//! refusing another. (The universal player switching to the
//! compiled game is tested in `cli_build.rs`, with the other tests that build games.)

use std::net::SocketAddr;
use std::process::Child;

use gdl_tests::{example, listening_with_log, player_command, post, wait_for_line};

/// A `gdlc play` child, killed when dropped.
struct Player {
    child: Child,
    addr: SocketAddr,
    log: std::sync::mpsc::Receiver<String>,
}

impl Drop for Player {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_player(extra: &[&str]) -> Player {
    let mut child = player_command(env!("CARGO_BIN_EXE_gdlc"))
        .args(extra)
        .spawn()
        .expect("the player starts");
    let (addr, log) = listening_with_log(&mut child);
    Player { child, addr, log }
}

/// The player's log says `needle` within a minute.
fn logs(player: &Player, needle: &str) {
    if let Err(seen) = wait_for_line(&player.log, needle, std::time::Duration::from_secs(60)) {
        panic!("the log does not say {needle:?}: {seen:#?}");
    }
}

#[test]
fn a_whole_match_with_the_interpreter() {
    let player = start_player(&["--engine", "interpreted"]);
    play_tic_tac_toe(&player);
    logs(&player, "playing x with the interpreter (compiling is off)");
}

#[test]
fn a_whole_match_with_the_network_from_the_first_move() {
    let player = start_player(&["--engine", "propnet"]);
    play_tic_tac_toe(&player);
    let log = log_so_far(&player);
    assert!(
        log.iter()
            .any(|l| l.contains("the network plays from step 1")),
        "{log:#?}"
    );
    let steps: Vec<&String> = log.iter().filter(|l| l.contains("test.1 step ")).collect();
    assert!(steps.len() >= 5, "{log:#?}");
    assert!(
        steps.iter().all(|l| l.contains(" by propnet (")),
        "a move not by the network: {steps:#?}"
    );
    // No AMAF statistics unless asked, though every move of tic-tac-toe is a placement.
    assert!(!steps.iter().any(|l| l.contains("amaf")), "{steps:#?}");
}

#[test]
fn a_whole_match_with_grave_selection() {
    let player = start_player(&["--engine", "propnet", "--amaf", "grave"]);
    play_tic_tac_toe(&player);
}

#[test]
fn amaf_auto_chooses_grave_where_moves_are_placements() {
    let player = start_player(&["--engine", "propnet", "--amaf", "auto"]);
    play_tic_tac_toe(&player);
    logs(&player, "amaf auto: grave (100% of");
}

#[test]
fn a_failed_build_leaves_the_match_to_the_network() {
    let player = start_player(&["--runtime", "/nonexistent/gdl-runtime"]);
    play_tic_tac_toe(&player);
    logs(&player, "the network plays on");
}

/// The player's log lines until it is quiet for a second.
fn log_so_far(player: &Player) -> Vec<String> {
    let mut lines = Vec::new();
    while let Ok(line) = player.log.recv_timeout(std::time::Duration::from_secs(1)) {
        lines.push(line);
    }
    lines
}

/// A whole match of tic-tac-toe (the player is `x`, every move of its checked legal),
/// between two INFO requests answered `available`.
fn play_tic_tac_toe(player: &Player) {
    assert!(post(player.addr, "( INFO )").contains("available"));
    gdl_tests::play_tic_tac_toe(
        player.addr,
        gdl_tests::TicTacToeMatch {
            id: "test.1",
            start_clock: 5,
            before_play: &mut |_| {},
        },
    );
    assert!(post(player.addr, "( INFO )").contains("available"));
}

#[test]
fn a_player_of_one_game_refuses_another() {
    let player = start_player(&["--engine", "interpreted", &example("ticTacToe.kif")]);
    let other = std::fs::read_to_string(example("connectFour.kif")).expect("readable");
    let reply = post(player.addr, &format!("( START m red ({other}) 5 1 )"));
    assert_eq!(reply, "busy");
    let own = std::fs::read_to_string(example("ticTacToe.kif")).expect("readable");
    assert_eq!(
        post(player.addr, &format!("( START m x ({own}) 5 1 )")),
        "ready"
    );
    assert_eq!(post(player.addr, "( ABORT m )"), "aborted");
}

#[test]
fn bad_rules_are_refused_with_busy() {
    let player = start_player(&["--engine", "interpreted"]);
    assert_eq!(
        post(
            player.addr,
            "( START m x ((role x) (<= (legal x ?m))) 5 1 )"
        ),
        "busy"
    );
    assert!(post(player.addr, "( INFO )").contains("available"));
}

#[test]
fn a_whole_match_without_pondering_and_bad_ponder_values() {
    let player = start_player(&["--engine", "interpreted", "--ponder", "off"]);
    play_tic_tac_toe(&player);
    for bad in ["maybe", "", "ON"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gdlc"))
            .args([
                "play",
                "--port",
                "0",
                "--bind",
                "127.0.0.1",
                "--ponder",
                bad,
            ])
            .output()
            .expect("gdlc runs");
        assert_eq!(out.status.code(), Some(2), "--ponder {bad:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("--ponder"), "{said}");
    }
}

#[test]
fn an_unknown_search_playout_expansion_amaf_or_factoring_is_a_usage_error() {
    for bad in [
        ["--search", "uct"],
        ["--playout", "gibbs"],
        ["--expansion", "eager"],
        ["--amaf", "uct"],
        ["--factoring", "always"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gdlc"))
            .arg("play")
            .args(bad)
            .args(["--port", "0"])
            .output()
            .expect("gdlc runs");
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(bad[1]) && stderr.contains(bad[0]),
            "{stderr}"
        );
    }
}
