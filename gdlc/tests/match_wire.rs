//! What `gdlc match` sends, byte for byte: against fake players that answer as the players of
//! `../shared/captures` answered, our manager's requests are compared with the ones ggp-base's
//! manager sent in the capture, request by request (request line, headers in order, a
//! byte-accurate Content-Length, message types and order, START's rules as a set and its
//! clocks, every PLAY and STOP exactly); the record ends as the capture's did. And GDL-II:
//! for a description with `sees`, PLAY and STOP carry the turn, the player's last move and
//! the percepts the interpreter computes (`--gdl1` turns that off).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gdl_player::protocol;
use gdl_runtime::Game;
use gdl_runtime::sexpr;
use gdlc::CheckOptions;
use gdlc::interp::Interpreter;
use serde_json::Value;
use support::{FakePlayer, assert_record, gdlc, read_record, reply, scratch};

/// The canonical texts of the top-level terms of `text` (or of the children of its single
/// list, with `inner`).
fn terms(text: &str) -> Vec<String> {
    let tree = sexpr::read(text);
    tree.top_level()
        .iter()
        .map(|&n| sexpr::canonical(text, &tree, n))
        .collect()
}

fn children(text: &str) -> Vec<String> {
    let tree = sexpr::read(text);
    let top = tree.top_level();
    assert_eq!(top.len(), 1, "one term: {text}");
    tree.children(top[0])
        .iter()
        .map(|&n| sexpr::canonical(text, &tree, n))
        .collect()
}

/// A request: its request line, its headers (name, value) in order, its body.
fn split_request(raw: &[u8]) -> (String, Vec<(String, String)>, String) {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a blank line");
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or_default().to_string();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').expect("a header");
            (n.to_string(), v.trim().to_string())
        })
        .collect();
    (first, headers, body.to_string())
}

/// One message of a capture.
struct Captured {
    kind: String,
    request: Vec<u8>,
    response: Vec<u8>,
}

/// The messages of a capture folder per role label, in order.
fn read_capture(dir: &Path) -> BTreeMap<String, Vec<Captured>> {
    let index = std::fs::read_to_string(dir.join("INDEX.tsv")).expect("INDEX.tsv");
    let mut rows: Vec<(String, String, String)> = index
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((
                f.first()?.to_string(),
                f.get(1)?.to_string(),
                f.get(2)?.to_string(),
            ))
        })
        .collect();
    rows.sort();
    let mut out: BTreeMap<String, Vec<Captured>> = BTreeMap::new();
    for (nn, role, kind) in rows {
        let file = |what: &str| {
            std::fs::read(dir.join(format!("{nn}-{role}-{what}.txt"))).expect("a capture file")
        };
        let (request, response) = (file("request"), file("response"));
        out.entry(role).or_default().push(Captured {
            kind,
            request,
            response,
        });
    }
    out
}

/// Plays the capture's game against fakes that answer as its players did, and compares.
fn compare_with_capture(folder: &str, game: &str) {
    let Some(dir) = gdl_tests::corpus_path("match_wire", &format!("captures/{folder}")) else {
        return;
    };
    let Some(kif) = gdl_tests::corpus_path("match_wire", &format!("games/ggp-repository/{game}"))
    else {
        return;
    };
    let capture = read_capture(&dir);
    let rules = std::fs::read_to_string(&kif).expect("the game");
    let interp = Interpreter::from_source(rules.as_str(), &CheckOptions::default()).expect("game");
    let roles: Vec<String> = (0..interp.role_count())
        .map(|r| interp.role_name(r).to_string())
        .collect();
    let start = |role: &str| {
        let (_, _, body) = split_request(&capture[role][0].request);
        children(&body)
    };
    let their_start = start(&roles[0]);
    let their_id = their_start[1].clone();
    let (startclock, playclock) = (their_start[4].clone(), their_start[5].clone());

    let fakes: Vec<FakePlayer> = roles
        .iter()
        .map(|role| {
            let responses: Arc<Vec<Vec<u8>>> =
                Arc::new(capture[role].iter().map(|c| c.response.clone()).collect());
            FakePlayer::start(
                Duration::ZERO,
                Box::new(move |n, _| Some(responses.get(n).cloned().unwrap_or(reply("done")))),
            )
        })
        .collect();
    let out = scratch("match-wire", &format!("{folder}.json"));
    let mut command = gdlc();
    command.arg("match").arg(&kif);
    for f in &fakes {
        command.args(["--player", &f.addr.to_string()]);
    }
    let result = command
        .args(["--startclock", &startclock, "--playclock", &playclock])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("gdlc match runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    let record = read_record(&out);
    assert_record(&record);
    let our_id = record["matchId"].as_str().expect("an id").to_string();

    for (role, fake) in roles.iter().zip(&fakes) {
        let ours = fake.got.lock().unwrap().clone();
        let theirs = &capture[role];
        let kinds = |v: Vec<String>| v.join(" ");
        assert_eq!(
            kinds(ours.iter().map(|g| children(&g.body)[0].clone()).collect()),
            kinds(theirs.iter().map(|c| c.kind.clone()).collect()),
            "the messages to {role}"
        );
        for (k, (our, their)) in ours.iter().zip(theirs).enumerate() {
            let (our_line, our_headers, our_body) = split_request(&our.raw);
            let (their_line, their_headers, their_body) = split_request(&their.request);
            let at = format!("{role}, message {k} ({})", their.kind);
            assert_eq!(our_line, their_line, "{at}");
            let names =
                |h: &[(String, String)]| h.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
            assert_eq!(names(&our_headers), names(&their_headers), "{at}");
            for ((name, ours), (_, theirs)) in our_headers.iter().zip(&their_headers) {
                match name.as_str() {
                    "Host" => assert_eq!(ours, "127.0.0.1", "{at}"),
                    // The player's name when the manager knows it (`Random` in connectFour's
                    // capture); ours knows none.
                    "Receiver" => assert_eq!(ours, "", "{at}"),
                    "Content-Length" => {
                        assert_eq!(ours, &our_body.len().to_string(), "{at}")
                    }
                    _ => assert_eq!(ours, theirs, "{at}: {name}"),
                }
            }
            if their.kind == "START" {
                let (o, t) = (children(&our_body), children(&their_body));
                assert_eq!(o.len(), t.len(), "{at}: {our_body}");
                assert_eq!(o[0], t[0]);
                assert_eq!(o[2], t[2], "{at}: the role");
                assert_eq!(o[4..], t[4..], "{at}: the clocks");
                let set = |rules: &str| children(rules).into_iter().collect::<BTreeSet<_>>();
                let (our_rules, their_rules) = (set(&o[3]), set(&t[3]));
                assert_eq!(
                    our_rules
                        .symmetric_difference(&their_rules)
                        .collect::<Vec<_>>(),
                    Vec::<&String>::new(),
                    "{at}: the rules"
                );
            } else {
                assert_eq!(our_body, their_body.replace(&their_id, &our_id), "{at}");
            }
        }
    }
    // The record ends as the capture's: the same moves, states (as sets of facts), goals.
    let theirs: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("match.json")).expect("match.json"))
            .expect("JSON");
    assert_eq!(record["moves"], theirs["moves"]);
    assert_eq!(record["goalValues"], theirs["goalValues"]);
    let states = |r: &Value| -> Vec<BTreeSet<String>> {
        r["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| children(s.as_str().unwrap()).into_iter().collect())
            .collect()
    };
    assert_eq!(states(&record), states(&theirs));
    let errors: Vec<Vec<String>> = serde_json::from_value(record["errors"].clone()).unwrap();
    assert!(errors.iter().flatten().all(String::is_empty), "{errors:?}");
}

#[test]
fn tic_tac_toe_requests_are_the_captured_ones() {
    compare_with_capture("ticTacToe", "ticTacToe.kif");
}

#[test]
fn connect_four_requests_are_the_captured_ones() {
    compare_with_capture("connectFour", "connectFour.kif");
}

fn guess_number() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gdl2/guessNumber.kif")
}

/// A match of guessNumber (the guesser a fake that always answers `( guess 3 )`, the role
/// `random` the manager's) with `extra` arguments; the record and the bodies the fake got.
fn guess_match(extra: &[&str], name: &str) -> (Value, Vec<String>) {
    let fake = FakePlayer::start(
        Duration::ZERO,
        Box::new(|_, body| {
            Some(reply(if body.contains("START") {
                "ready"
            } else if body.contains("STOP") {
                "done"
            } else {
                "( guess 3 )"
            }))
        }),
    );
    let out = scratch("match-wire", name);
    let result = gdlc()
        .arg("match")
        .arg(guess_number())
        .args(["--player", &fake.addr.to_string()])
        .args(["--startclock", "1", "--playclock", "1", "--seed", "7"])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("gdlc match runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let record = read_record(&out);
    assert_record(&record);
    assert_eq!(record["isCompleted"], true);
    (record, fake.bodies())
}

#[test]
fn gdl2_messages_carry_turn_last_move_and_percepts() {
    let (record, bodies) = guess_match(&[], "guess.json");
    let rules = std::fs::read_to_string(guess_number()).expect("the fixture");
    let game = Interpreter::from_source(rules.as_str(), &CheckOptions::default()).expect("game");
    let guesser = (0..game.role_count())
        .find(|&r| game.role_name(r) == "guesser")
        .expect("a guesser");
    let id = record["matchId"].as_str().unwrap();
    let moves: Vec<Vec<String>> = serde_json::from_value(record["moves"].clone()).unwrap();
    assert!(!moves.is_empty());
    // What the guesser sees after each step, replayed on the interpreter.
    let mut state = game.initial_state();
    let mut seen = Vec::new();
    for step in &moves {
        let joint: Vec<_> = step
            .iter()
            .enumerate()
            .map(|(r, m)| game.parse_move(r, m).expect("a move"))
            .collect();
        let mut p = Vec::new();
        game.percepts(&state, &joint, guesser, &mut p);
        seen.push(p);
        let mut next = state.clone();
        game.next_state(&state, &joint, &mut next);
        state = next;
    }
    assert_eq!(
        bodies.len(),
        moves.len() + 2,
        "START, a PLAY per step, STOP: {bodies:?}"
    );
    assert!(bodies[0].starts_with(&format!("( START {id} guesser (")));
    for (turn, body) in bodies[1..bodies.len() - 1].iter().enumerate() {
        let Ok(protocol::Message::PlayPercepts {
            match_id,
            turn: t,
            last_move,
            percepts,
        }) = protocol::parse(body)
        else {
            panic!("not a GDL-II PLAY: {body}");
        };
        assert_eq!(match_id, id);
        assert_eq!(t as usize, turn, "{body}");
        if turn == 0 {
            assert!(body.ends_with(" 0 NIL NIL )"), "{body}");
            assert_eq!(last_move, None);
        } else {
            assert_eq!(last_move, Some(terms(&moves[turn - 1][guesser])[0].clone()));
            assert_eq!(percepts, seen[turn - 1], "{body}");
        }
    }
    // STOP: the same slots, after the last step.
    let stop = children(bodies.last().unwrap());
    assert_eq!(stop[0], "STOP");
    assert_eq!(stop[2], moves.len().to_string());
    assert_eq!(stop[3], terms(moves.last().unwrap()[guesser].as_str())[0]);
    let last_seen = seen.last().unwrap();
    let stop_seen = if stop[4] == "NIL" {
        vec![]
    } else {
        children(&stop[4])
    };
    assert_eq!(&stop_seen, last_seen);
    // The first step only allows noop: `( guess 3 )` is illegal there, legal after.
    assert_eq!(record["errors"][1][guesser], "IL ( guess 3 )");
    assert_eq!(record["moves"][0][guesser], "noop");
    assert_eq!(record["errors"][2][guesser], "");
}

#[test]
fn gdl1_messages_when_asked_for() {
    let (record, bodies) = guess_match(&["--gdl1"], "guess-gdl1.json");
    let id = record["matchId"].as_str().unwrap();
    assert_eq!(bodies[1], format!("( PLAY {id} NIL )"));
    assert!(
        bodies[2].starts_with(&format!("( PLAY {id} (noop ")),
        "{}",
        bodies[2]
    );
    assert!(
        bodies
            .last()
            .unwrap()
            .starts_with(&format!("( STOP {id} ("))
    );
}
