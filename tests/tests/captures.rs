//! The HTTP player against real manager traffic: the recorded matches of
//! `$GDL_CORPUS/captures` (ggp-base's manager and players) replayed byte for byte against our
//! player (the universal one: the interpreter and MCTS, served in this process on 127.0.0.1),
//! one player per recorded role. Each reply is held to the spirit of the recorded one: the
//! status line `HTTP/1.0 200 OK`, the recorded headers, a byte-accurate `Content-Length`, the
//! same kind of reply (ready, done, aborted, busy, INFO's status), a legal move for PLAY
//! (checked with the interpreter against the moves so far), and an error reply where
//! ggp-base's player stayed silent. Only the clocks of START are rewritten (1 s each), so that
//! the replay is fast. Skipped, after one line saying so, when the corpus is absent.
//!
//! Also: case folding end to end (an upper-cased tic-tac-toe match), and what folding merges
//! in the games of the corpus (nothing).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use gdl_player::http::{ServerOptions, folding_merges};
use gdl_player::protocol::{self, Message};
use gdl_runtime::Game;
use gdl_tests::{example, serve_universal_player};
use gdlc::CheckOptions;
use gdlc::interp::Interpreter;

/// The clocks a replayed START gets (seconds); the player keeps `MARGIN` of each.
const START_CLOCK: &str = "1";
const PLAY_CLOCK: &str = "1";
const MARGIN: Duration = Duration::from_millis(800);

/// Sends `request` as it is, closing the sending side after it when it has no
/// `Content-Length` (the body then ends with the stream); the whole reply.
fn send_raw(addr: SocketAddr, request: &[u8]) -> Result<Vec<u8>, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    s.write_all(request).map_err(|e| format!("write: {e}"))?;
    let (head, _) = split_head(request);
    if header(head, "content-length").is_none() {
        s.shutdown(std::net::Shutdown::Write)
            .map_err(|e| format!("shutdown: {e}"))?;
    }
    let mut out = Vec::new();
    s.read_to_end(&mut out)
        .map_err(|e| format!("no reply: {e}"))?;
    Ok(out)
}

/// The head (text) and the body of an HTTP message.
fn split_head(raw: &[u8]) -> (&str, &[u8]) {
    let at = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or((raw.len(), raw.len()), |i| (i, i + 4));
    (
        std::str::from_utf8(&raw[..at.0]).unwrap_or(""),
        &raw[at.1..],
    )
}

/// The value of a header (name in any case).
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// Our reply, checked against the recorded one's head: the status line, every header name
/// the recorded reply has, `Content-Type: text/acl`, a byte-accurate `Content-Length`, ASCII.
/// Returns the body.
fn check_reply(ours: &[u8], recorded: &[u8]) -> Result<String, String> {
    let (head, body) = split_head(ours);
    let shown = String::from_utf8_lossy(ours);
    if !head.starts_with("HTTP/1.0 200 OK\r\n") {
        return Err(format!("status line: {shown:?}"));
    }
    let length: Option<usize> = header(head, "content-length").and_then(|n| n.parse().ok());
    if length != Some(body.len()) {
        return Err(format!("Content-Length not the body's: {shown:?}"));
    }
    if header(head, "content-type") != Some("text/acl") {
        return Err(format!("Content-Type: {shown:?}"));
    }
    let (recorded_head, _) = split_head(recorded);
    for line in recorded_head.lines().skip(1) {
        let name = line.split(':').next().unwrap_or_default();
        if header(head, name).is_none() {
            return Err(format!("no {name} header: {shown:?}"));
        }
    }
    if !body.is_ascii() {
        return Err(format!("not ASCII: {shown:?}"));
    }
    Ok(String::from_utf8_lossy(body).into_owned())
}

/// A START with its clocks replaced by [`START_CLOCK`] and [`PLAY_CLOCK`] and its
/// `Content-Length` fixed; any other request unchanged.
fn with_short_clocks(request: &[u8]) -> Vec<u8> {
    let (head, body) = split_head(request);
    let text = String::from_utf8_lossy(body);
    let Ok(Message::Start { .. }) = protocol::parse(&text) else {
        return request.to_vec();
    };
    let clocks = text
        .trim_end()
        .strip_suffix(')')
        .and_then(|t| t.trim_end().rsplit_once(char::is_whitespace))
        .and_then(|(rest, _play)| rest.trim_end().rsplit_once(char::is_whitespace))
        .map(|(rest, _start)| format!("{rest} {START_CLOCK} {PLAY_CLOCK} )"));
    let Some(body) = clocks else {
        return request.to_vec();
    };
    let head: Vec<String> = head
        .split("\r\n")
        .map(|l| match l.split_once(':') {
            Some((n, _)) if n.eq_ignore_ascii_case("content-length") => {
                format!("{n}: {}", body.len())
            }
            _ => l.to_string(),
        })
        .collect();
    format!("{}\r\n\r\n{body}", head.join("\r\n")).into_bytes()
}

/// One exchange of `INDEX.tsv`.
struct Row {
    nn: String,
    label: String,
    kind: String,
    accepted_ms: u64,
    reply: String,
}

fn rows(folder: &Path) -> Vec<Row> {
    let index = std::fs::read_to_string(folder.join("INDEX.tsv")).unwrap_or_default();
    index
        .lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Some(Row {
                nn: c.first()?.to_string(),
                label: c.get(1)?.to_string(),
                kind: c.get(2)?.to_string(),
                accepted_ms: c.get(3)?.parse().ok()?,
                reply: c.get(9).unwrap_or(&"").to_string(),
            })
        })
        .collect()
}

/// The game as the interpreter plays it, to check our moves: the state after the moves of
/// the PLAYs so far.
struct Referee {
    game: Interpreter,
    role: usize,
    state: <Interpreter as Game>::State,
}

/// Replays the exchanges of one role, in the order the manager made them, against a player
/// of our own; the first reply that is not right, with the file it answers.
fn replay(folder: &Path, rows: &[&Row]) -> Result<usize, String> {
    let addr = serve_universal_player(ServerOptions {
        name: "gdlc".into(),
        margin: MARGIN,
        ..ServerOptions::default()
    });
    let mut referee: Option<Referee> = None;
    let mut checked = 0;
    for row in rows {
        if row.kind == "EMPTY" {
            continue; // a connection refused: nothing was sent.
        }
        let name = format!("{}-{}", row.nn, row.label);
        let at = |e: String| format!("{}/{name}: {e}", folder.display());
        let request = std::fs::read(folder.join(format!("{name}-request.txt")))
            .map_err(|e| at(e.to_string()))?;
        let recorded = std::fs::read(folder.join(format!("{name}-response.txt")))
            .map_err(|e| at(e.to_string()))?;
        let request = with_short_clocks(&request);
        let ours = send_raw(addr, &request).map_err(at)?;
        let body = check_reply(&ours, &recorded).map_err(at)?;
        let (head, message) = split_head(&request);
        let message = String::from_utf8_lossy(message);
        let parsed = match head.split_whitespace().next() {
            Some("POST") => protocol::parse(&message),
            _ => protocol::parse(""),
        };
        let expect = |want: &str| match body == want {
            true => Ok(()),
            false => Err(at(format!("{body:?}, not {want:?}"))),
        };
        match row.kind.as_str() {
            "HTTP-OPTIONS" => expect("")?,
            // ggp-base's player said nothing; ours says what is wrong.
            "GARBAGE" | "FOO" => {
                if !body.starts_with("error: ") {
                    return Err(at(format!("{body:?}, not an error")));
                }
            }
            "INFO" => {
                let recorded_status = ["available", "busy"]
                    .into_iter()
                    .find(|s| row.reply.contains(&format!("( status {s} )")))
                    .ok_or_else(|| at(format!("recorded INFO {:?}", row.reply)))?;
                let name_and_status = format!("( ( name gdlc ) ( status {recorded_status} ) ");
                if !body.starts_with(&name_and_status) {
                    return Err(at(format!("{body:?}, not {recorded_status}")));
                }
            }
            // ggp-base's player never answers PREVIEW (the manager records a timeout).
            "PREVIEW" => expect("ready")?,
            "START" => {
                let Ok(Message::Start { role, rules, .. }) = parsed else {
                    return Err(at(format!("not a START: {parsed:?}")));
                };
                expect("ready")?;
                let game = Interpreter::from_source(rules.as_str(), &CheckOptions::default())
                    .map_err(|e| at(format!("the rules do not check: {:?}", e.first())))?;
                let role = (0..game.role_count())
                    .find(|&r| game.role_name(r) == role)
                    .ok_or_else(|| at(format!("no role {role}")))?;
                let state = game.initial_state();
                referee = Some(Referee { game, role, state });
            }
            "PLAY" if row.reply == "busy" => expect("busy")?,
            "PLAY" => {
                let Ok(Message::Play { moves, .. }) = parsed else {
                    return Err(at(format!("not a PLAY: {parsed:?}")));
                };
                let r = referee
                    .as_mut()
                    .ok_or_else(|| at("a PLAY before START".into()))?;
                if let Some(moves) = moves {
                    let joint: Option<Vec<_>> = moves
                        .iter()
                        .enumerate()
                        .map(|(role, m)| r.game.parse_move(role, m))
                        .collect();
                    let joint = joint.ok_or_else(|| at(format!("recorded moves {moves:?}")))?;
                    let mut next = r.state.clone();
                    r.game.next_state(&r.state, &joint, &mut next);
                    r.state = next;
                }
                let mut legal = Vec::new();
                r.game.legal_moves(&r.state, r.role, &mut legal);
                let ours = r.game.parse_move(r.role, &body);
                if !ours.is_some_and(|m| legal.contains(&m)) {
                    return Err(at(format!("{body:?} is not a legal move")));
                }
            }
            "STOP" if row.reply == "busy" => expect("busy")?,
            "STOP" => expect("done")?,
            "ABORT" => expect(&row.reply)?,
            other => return Err(at(format!("an exchange of kind {other}"))),
        }
        checked += 1;
    }
    Ok(checked)
}

/// The capture folders, or `None` after a line saying the corpus is absent.
fn capture_folders() -> Option<Vec<PathBuf>> {
    let dir = gdl_tests::corpus_path("captures", "captures")?;
    let entries = std::fs::read_dir(&dir).expect("readable captures");
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("INDEX.tsv").exists())
        .collect();
    folders.sort();
    Some(folders)
}

/// Every recorded exchange, replayed: each role of a folder against a player of its own, the
/// roles at once (as the manager spoke to them).
#[test]
fn recorded_matches_replayed_against_our_player() {
    let Some(folders) = capture_folders() else {
        return;
    };
    assert!(folders.len() >= 8, "only {} capture folders", folders.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for folder in &folders {
        let mut rows = rows(folder);
        rows.sort_by_key(|r| r.accepted_ms);
        let mut labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        labels.sort();
        labels.dedup();
        let results: Vec<Result<usize, String>> = std::thread::scope(|s| {
            let jobs: Vec<_> = labels
                .iter()
                .map(|label| {
                    let mine: Vec<&Row> = rows.iter().filter(|r| r.label == *label).collect();
                    s.spawn(move || replay(folder, &mine))
                })
                .collect();
            jobs.into_iter()
                .map(|j| j.join().unwrap_or_else(|_| Err("panicked".into())))
                .collect()
        });
        for r in results {
            match r {
                Ok(n) => checked += n,
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 150, "only {checked} exchanges checked");
    eprintln!("captures: {checked} recorded exchanges answered as they should be");
}

/// A START rewritten with short clocks still reads, with those clocks and the same rules.
#[test]
fn clock_rewriting_keeps_the_message() {
    let rules = "( role a ) ( init ( p ) )";
    let message = format!("( START m.1 a ({rules}) 30 15 )");
    let request = format!(
        "POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n{message}",
        message.len()
    );
    let rewritten = with_short_clocks(request.as_bytes());
    let (head, body) = split_head(&rewritten);
    assert_eq!(
        header(head, "content-length"),
        Some(body.len().to_string().as_str())
    );
    let parsed = protocol::parse(&String::from_utf8_lossy(body));
    assert_eq!(
        parsed,
        Ok(Message::Start {
            match_id: "m.1".into(),
            role: "a".into(),
            rules: rules.into(),
            start_clock: 1.0,
            play_clock: 1.0,
        })
    );
}

/// Sends a message as the Dresden manager does: upper-cased.
fn post_upper(addr: SocketAddr, message: &str) -> String {
    gdl_tests::post(addr, &message.to_uppercase())
}

/// An upper-cased tic-tac-toe match (as Dresden sends it) against a player that folds case:
/// every move legal; without folding, the roles and moves do not match the rules'.
#[test]
fn case_folding_plays_upper_cased_tic_tac_toe() {
    let rules = std::fs::read_to_string(example("ticTacToe.kif")).expect("readable");
    let game = Interpreter::from_source(rules.as_str(), &CheckOptions::default()).expect("game");
    let addr = serve_universal_player(ServerOptions {
        margin: MARGIN,
        case_fold: true,
        ..ServerOptions::default()
    });
    assert_eq!(
        post_upper(addr, &format!("( START m.1 x ({rules}) 1 1 )")),
        "ready"
    );
    let mut state = game.initial_state();
    let mut last: Option<String> = None;
    let mut legal = Vec::new();
    for _ in 0..3 {
        let message = match &last {
            None => "( PLAY m.1 NIL )".to_string(),
            Some(joint) => format!("( PLAY m.1 ({joint}) )"),
        };
        let ours = post_upper(addr, &message);
        let mv = game
            .parse_move(0, &ours)
            .unwrap_or_else(|| panic!("not a move of x: {ours}"));
        game.legal_moves(&state, 0, &mut legal);
        assert!(legal.contains(&mv), "{ours} is not legal");
        game.legal_moves(&state, 1, &mut legal);
        let joint = [mv, legal[0]];
        last = Some(format!("{ours} {}", game.move_text(1, legal[0])));
        let mut next = state.clone();
        game.next_state(&state, &joint, &mut next);
        state = next;
    }
    assert_eq!(post_upper(addr, "( ABORT m.1 )"), "aborted");
    // Without folding the player plays the upper-cased rules as they are: its moves are
    // upper-cased, spelled as no move of the rules it was given.
    let plain = serve_universal_player(ServerOptions {
        margin: MARGIN,
        ..ServerOptions::default()
    });
    assert_eq!(
        post_upper(plain, &format!("( START m.2 x ({rules}) 1 1 )")),
        "ready"
    );
    let ours = post_upper(plain, "( PLAY m.2 NIL )");
    assert!(game.parse_move(0, &ours).is_none(), "{ours}");
    assert_eq!(ours, ours.to_uppercase());
}

/// Folding merges nothing in the games of the corpus: no game spells one constant (or the
/// variables of one rule) in two ways, so the warning has no false alarms there; a game that
/// did is caught.
#[test]
fn folding_merges_nothing_in_the_corpus() {
    if gdl_tests::corpus_path("captures", "games").is_none() {
        return;
    }
    let games = gdl_tests::corpus_games();
    let merging: Vec<String> = games
        .iter()
        .filter_map(|g| {
            let text = gdl_tests::read_game(&g.kif);
            let merges = folding_merges(&text);
            (!merges.is_empty()).then(|| format!("{}: {merges:?}", g.name))
        })
        .collect();
    assert!(merging.is_empty(), "{merging:?}");
    let chess = games
        .iter()
        .find(|g| gdl_tests::read_game(&g.kif).contains("nextFile"))
        .expect("a game with nextFile");
    let text = gdl_tests::read_game(&chess.kif) + "(<= (p ?x) (nextfile ?x))";
    assert!(
        folding_merges(&text).contains(&vec!["nextFile".to_string(), "nextfile".into()]),
        "{}",
        chess.name
    );
}

/// Every POSTed request of the recorded matches reads as the message type `INDEX.tsv`
/// gives it; the garbage ones are errors.
#[test]
fn recorded_requests_read() {
    let Some(dir) = gdl_tests::corpus_path("recorded_requests_read", "captures") else {
        return;
    };
    let folders = std::fs::read_dir(&dir).expect("the captures folder reads");
    let mut read = 0;
    for folder in folders.flatten() {
        let Ok(index) = std::fs::read_to_string(folder.path().join("INDEX.tsv")) else {
            continue;
        };
        for row in index.lines().skip(1) {
            let cols: Vec<&str> = row.split('\t').collect();
            let [nn, label, kind, ..] = cols[..] else {
                continue;
            };
            let path = folder.path().join(format!("{nn}-{label}-request.txt"));
            let raw = std::fs::read_to_string(&path).unwrap_or_default();
            let Some((head, body)) = raw.split_once("\r\n\r\n").or(raw.split_once("\n\n")) else {
                continue;
            };
            if !head.starts_with("POST") {
                continue;
            }
            match (kind, protocol::parse(body)) {
                ("GARBAGE" | "FOO", Err(_)) => {}
                (_, Ok(m)) if m.kind() == kind => read += 1,
                (_, r) => panic!("{} ({kind}): {r:?}\n{body}", path.display()),
            }
        }
    }
    assert!(read > 100, "only {read} requests read");
}
