//! A player in another process, spoken to over its standard input and output. This is how the universal player (`gdlc play` without a game) hands a match to
//! the compiled game once it is built: it runs the game's binary as `BIN engine`, tells it the
//! role, replays the joint moves played so far, and from then on asks it for each move.
//!
//! The exchange is one request a line, fields separated by tabs, and one reply line for each,
//! both starting with the request's number N, in order:
//!
//! | request | reply |
//! |---|---|
//! | N `start` ROLE T | N `ready` (after searching from the initial state until T) |
//! | N `observe` M1 ... Mn | N `ok` (the joint move, in role order, applied) |
//! | N `choose` T | N `move` MOVE REPORT (searched until T; REPORT may be empty) |
//! | N `beliefs` | N `ok` (a GDL-II match: from now on played from beliefs) |
//! | N `percepts` T MOVE P1 ... Pn | N `ok` (our last move and what we saw after it, the beliefs updated until T at most) |
//! | N `opponents` JUDGMENTS | N `ok` (what the engine that played before judged of the other roles: [`Player::adopt_judgments`]) |
//!
//! After `beliefs`, `choose` chooses from the beliefs ([`Beliefs`]), `observe` is refused, and
//! the engine does not ponder.
//!
//! T is a deadline on the system clock, in milliseconds since the Unix epoch (both processes
//! run on one machine), so that a request read late is not searched for longer.
//!
//! Any request may instead get N `error` WHY. Moves are GDL text ([`Game::move_text`]); tabs
//! and line breaks in them are sent as spaces (GDL does not tell them apart). End of input
//! ends the engine. The numbers let the client stop waiting for a late reply and go on: the
//! engine answers its requests in order, and the client skips the replies it gave up on.
//!
//! Between requests the engine ponders ([`Player::ponder`], unless [`Ponder::Off`]): it
//! searches from the last state in slices of [`PONDER_SLICE`], looking for a request between
//! them, so a request waits one slice at most; when there is nothing to search (no role yet,
//! or the root is proven), or no request came for [`ENGINE_PONDER_WINDOW`] (the client has
//! left the match), it waits for the next request. The REPORT of `move` then ends with
//! `; K pondered`, the iterations pondered since the last `choose`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::time_control::{ENGINE_PONDER_WINDOW, PONDER_SLICE, from_epoch_millis, to_epoch_millis};
use crate::{Beliefs, Observed, Player, Spelling};
use gdl_runtime::Game;

/// Whether a player searches on the opponents' time, between requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ponder {
    On,
    Off,
}

impl Ponder {
    /// `on` or `off`.
    pub fn parse(text: &str) -> Option<Ponder> {
        match text {
            "on" => Some(Ponder::On),
            "off" => Some(Ponder::Off),
            _ => None,
        }
    }

    /// `on` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            Ponder::On => "on",
            Ponder::Off => "off",
        }
    }
}

/// The lines of `input`, read on a thread of their own (so that the engine can ponder while
/// none has come); the receiver is disconnected at the end of `input`, after a read error
/// (sent first).
pub fn read_lines(
    input: impl BufRead + Send + 'static,
) -> std::io::Result<mpsc::Receiver<std::io::Result<String>>> {
    let (sender, lines) = mpsc::channel();
    std::thread::Builder::new()
        .name("engine-requests".into())
        .spawn(move || {
            for line in input.lines() {
                let failed = line.is_err();
                if sender.send(line).is_err() || failed {
                    break;
                }
            }
        })?;
    Ok(lines)
}

/// The next request line; until it comes, ponders with `player` until `ponder_until` (none:
/// not at all) and adds the iterations to `pondered`. `None` at the end of the input.
fn next_request<G: Game, P: Player<G>>(
    requests: &mpsc::Receiver<std::io::Result<String>>,
    game: &G,
    player: &mut P,
    ponder_until: Option<Instant>,
    pondered: &mut u64,
) -> Option<std::io::Result<String>> {
    loop {
        match requests.try_recv() {
            Ok(line) => return Some(line),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) => {}
        }
        let now = Instant::now();
        let searched = match ponder_until {
            Some(until) if now < until => player.ponder(game, (now + PONDER_SLICE).min(until)),
            _ => 0,
        };
        if searched == 0 {
            // Nothing to search until a request changes the state.
            return requests.recv().ok();
        }
        *pondered += searched;
    }
}

/// Serves `player` on `game`: reads the requests from `requests` (see [`read_lines`]) and
/// writes the replies to `output`, until the requests end (the `engine` sub-command of a
/// compiled game's binary); ponders between requests unless `ponder` is off. `report`
/// describes the last search for the `move` reply (e.g. iterations and nodes).
pub fn serve<G: Game, P: Player<G>>(
    game: &G,
    player: &mut P,
    requests: mpsc::Receiver<std::io::Result<String>>,
    mut output: impl Write,
    ponder: Ponder,
    report: impl Fn(&P) -> String,
) -> std::io::Result<()> {
    let mut state = game.initial_state();
    let mut next = state.clone();
    let mut role = None;
    let mut pondered = 0u64;
    let mut beliefs: Option<Beliefs<G>> = None;
    let mut last = Instant::now();
    loop {
        let pondering = ponder == Ponder::On && role.is_some() && beliefs.is_none();
        let until = pondering.then(|| last + ENGINE_PONDER_WINDOW);
        let Some(line) = next_request(&requests, game, player, until, &mut pondered) else {
            return Ok(());
        };
        last = Instant::now();
        let line = line?;
        let line = line.trim_end_matches('\r');
        let (number, request) = line.split_once('\t').unwrap_or(("0", line));
        let fields: Vec<&str> = request.split('\t').collect();
        let reply = match fields.as_slice() {
            ["start", name, until] => match (find_role(game, name), from_epoch_millis(until)) {
                (Some(r), Some(deadline)) => {
                    role = Some(r);
                    beliefs = None;
                    state = game.initial_state();
                    pondered = 0;
                    player.start(game, r, deadline);
                    "ready".to_string()
                }
                (None, _) => format!("error\tthe game has no role `{name}`"),
                (_, None) => format!("error\tnot a deadline: {until}"),
            },
            ["beliefs"] => match role {
                None => "error\tno role yet: `start` first".to_string(),
                Some(_) => {
                    beliefs = Some(Beliefs::new(Spelling::Exact));
                    "ok".to_string()
                }
            },
            ["percepts", until, ours, percepts @ ..] => {
                match (role, from_epoch_millis(until), beliefs.as_mut()) {
                    (None, _, _) => "error\tno role yet: `start` first".to_string(),
                    (_, None, _) => format!("error\tnot a deadline: {until}"),
                    (_, _, None) => "error\tnot a GDL-II match: `beliefs` first".to_string(),
                    (Some(r), Some(until), Some(b)) => {
                        let turn = Observed {
                            ours: ours.to_string(),
                            percepts: percepts.iter().map(|p| p.to_string()).collect(),
                        };
                        match b.observe(game, r, &turn, until) {
                            Ok(()) => "ok".to_string(),
                            Err(why) => format!("error\t{}", one_line(&why)),
                        }
                    }
                }
            }
            ["opponents", text] => match role {
                None => "error\tno role yet: `start` first".to_string(),
                Some(_) => match player.adopt_judgments(game, text) {
                    Ok(()) => "ok".to_string(),
                    Err(why) => format!("error\t{}", one_line(&why)),
                },
            },
            ["observe", ..] if beliefs.is_some() => {
                "error\ta GDL-II match: `percepts`, not `observe`".to_string()
            }
            ["observe", moves @ ..] => match parse_joint(game, moves) {
                Ok(joint) => {
                    game.next_state(&state, &joint, &mut next);
                    player.observe(game, &joint, &next);
                    std::mem::swap(&mut state, &mut next);
                    "ok".to_string()
                }
                Err(why) => format!("error\t{why}"),
            },
            ["choose", until] => match (role, from_epoch_millis(until), beliefs.as_mut()) {
                (None, _, _) => "error\tno role yet: `start` first".to_string(),
                (_, None, _) => format!("error\tnot a deadline: {until}"),
                (Some(r), Some(deadline), Some(b)) => believed_move(game, r, b, deadline),
                (Some(r), Some(deadline), None) => match player.choose(game, &state, deadline) {
                    Some(m) => {
                        let mut said = report(player);
                        match std::mem::take(&mut pondered) {
                            0 => {}
                            n if said.is_empty() => said = format!("{n} pondered"),
                            n => said.push_str(&format!("; {n} pondered")),
                        }
                        format!(
                            "move\t{}\t{}",
                            one_line(&game.move_text(r, m)),
                            one_line(&said)
                        )
                    }
                    None => "error\tno legal move".to_string(),
                },
            },
            _ => format!("error\tunknown request: {}", one_line(request)),
        };
        writeln!(output, "{number}\t{reply}")?;
        output.flush()?;
    }
}

/// The reply to `choose` in a GDL-II match: the move chosen from `beliefs`.
fn believed_move<G: Game>(
    game: &G,
    role: usize,
    beliefs: &mut Beliefs<G>,
    deadline: Instant,
) -> String {
    match beliefs.choose(game, role, deadline) {
        Ok(m) => format!(
            "move\t{}\t{}",
            one_line(&m),
            one_line(&beliefs.stats().unwrap_or_default())
        ),
        Err(why) => format!("error\t{}", one_line(&why)),
    }
}

/// The index of the role named `name` (any case).
pub(crate) fn find_role<G: Game>(game: &G, name: &str) -> Option<usize> {
    (0..game.role_count()).find(|&r| game.role_name(r).eq_ignore_ascii_case(name))
}

fn parse_joint<G: Game>(game: &G, moves: &[&str]) -> Result<Vec<G::Move>, String> {
    if moves.len() != game.role_count() {
        return Err(format!(
            "{} moves for {} roles",
            moves.len(),
            game.role_count()
        ));
    }
    moves
        .iter()
        .enumerate()
        .map(|(r, m)| {
            game.parse_move(r, m)
                .ok_or_else(|| format!("`{m}` is not a move of {}", game.role_name(r)))
        })
        .collect()
}

/// `text` without tabs or line breaks.
fn one_line(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

/// Why an engine in another process did not answer.
#[derive(Debug)]
pub enum EngineError {
    /// It could not be started, or its input broke.
    Io(std::io::Error),
    /// Its output ended (it exited).
    Exited,
    /// No reply in time.
    Timeout,
    /// It replied `error` (the reason), or something that is not a reply.
    Refused(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Io(e) => write!(f, "{e}"),
            EngineError::Exited => write!(f, "the engine exited"),
            EngineError::Timeout => write!(f, "the engine did not answer in time"),
            EngineError::Refused(why) => write!(f, "the engine refused: {why}"),
        }
    }
}

/// A move chosen by an engine in another process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    pub text: String,
    /// What its search did, in its own words.
    pub report: String,
}

/// An engine in another process (see the module documentation). Dropping it ends the process.
pub struct Engine {
    child: Child,
    input: ChildStdin,
    replies: mpsc::Receiver<String>,
    /// The number of the last request.
    asked: u64,
}

impl Engine {
    /// Runs `command` with piped standard input and output (standard error is inherited: the
    /// engine's log goes where ours goes).
    pub fn spawn(mut command: Command) -> Result<Engine, EngineError> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(EngineError::Io)?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EngineError::Exited);
        };
        // Replies are read on a thread of their own, so that waiting for one has a deadline.
        let (sender, replies) = mpsc::channel();
        std::thread::Builder::new()
            .name("engine-replies".into())
            .spawn(move || {
                for line in BufReader::new(output).lines() {
                    let Ok(line) = line else { break };
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(EngineError::Io)?;
        Ok(Engine {
            child,
            input,
            replies,
            asked: 0,
        })
    }

    /// One request and its reply, waited for until `until` (replies to earlier requests
    /// that came too late are skipped).
    fn ask(&mut self, request: &str, until: Instant) -> Result<String, EngineError> {
        self.asked += 1;
        let number = self.asked.to_string();
        writeln!(self.input, "{number}\t{request}")
            .and_then(|()| self.input.flush())
            .map_err(EngineError::Io)?;
        loop {
            let wait = until.saturating_duration_since(Instant::now());
            let line = match self.replies.recv_timeout(wait) {
                Ok(line) => line,
                Err(mpsc::RecvTimeoutError::Timeout) => return Err(EngineError::Timeout),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(EngineError::Exited),
            };
            match line.split_once('\t') {
                Some((n, reply)) if n == number => {
                    return match reply.strip_prefix("error\t") {
                        Some(why) => Err(EngineError::Refused(why.to_string())),
                        None => Ok(reply.to_string()),
                    };
                }
                // A late reply to a request given up on: skipped, unless it says the engine
                // failed (it may no longer be in the state the client thinks).
                Some((n, reply)) if n.parse::<u64>().is_ok_and(|n| n < self.asked) => {
                    if let Some(why) = reply.strip_prefix("error\t") {
                        return Err(EngineError::Refused(format!(
                            "an earlier request failed: {why}"
                        )));
                    }
                }
                _ => return Err(EngineError::Refused(format!("unexpected reply `{line}`"))),
            }
        }
    }

    fn expect(&mut self, request: &str, until: Instant, reply: &str) -> Result<(), EngineError> {
        match self.ask(request, until)? {
            r if r == reply => Ok(()),
            other => Err(EngineError::Refused(format!("unexpected reply `{other}`"))),
        }
    }

    /// Plays `role` from the initial state, searching until `deadline`; waits for the reply
    /// until `deadline` plus `slack`.
    pub fn start(
        &mut self,
        role: &str,
        deadline: Instant,
        slack: Duration,
    ) -> Result<(), EngineError> {
        self.expect(
            &format!("start\t{}\t{}", one_line(role), to_epoch_millis(deadline)),
            deadline + slack,
            "ready",
        )
    }

    /// Applies a joint move (in role order); waits `patience` for the reply.
    pub fn observe(&mut self, moves: &[String], patience: Duration) -> Result<(), EngineError> {
        let mut request = "observe".to_string();
        for m in moves {
            request.push('\t');
            request.push_str(&one_line(m));
        }
        self.expect(&request, Instant::now() + patience, "ok")
    }

    /// Hands over what the player that played before judged of the other roles
    /// ([`Player::judgments`]); waits `patience` for the reply.
    pub fn opponents(&mut self, judgments: &str, patience: Duration) -> Result<(), EngineError> {
        self.expect(
            &format!("opponents\t{}", one_line(judgments)),
            Instant::now() + patience,
            "ok",
        )
    }

    /// Plays the match from beliefs from now on (GDL-II); waits `patience` for the reply.
    pub fn beliefs(&mut self, patience: Duration) -> Result<(), EngineError> {
        self.expect("beliefs", Instant::now() + patience, "ok")
    }

    /// Our last move and what we saw after it, the beliefs updated until `until`; waits for
    /// the reply until `until` plus `slack`.
    pub fn percepts(
        &mut self,
        turn: &Observed,
        until: Instant,
        slack: Duration,
    ) -> Result<(), EngineError> {
        let mut request = format!(
            "percepts\t{}\t{}",
            to_epoch_millis(until),
            one_line(&turn.ours)
        );
        for p in &turn.percepts {
            request.push('\t');
            request.push_str(&one_line(p));
        }
        self.expect(&request, until + slack, "ok")
    }

    /// The move to play, searched until `deadline`; waits for the reply until `deadline` plus
    /// `slack`.
    pub fn choose(&mut self, deadline: Instant, slack: Duration) -> Result<Chosen, EngineError> {
        let reply = self.ask(
            &format!("choose\t{}", to_epoch_millis(deadline)),
            deadline + slack,
        )?;
        let mut fields = reply.splitn(3, '\t');
        match (fields.next(), fields.next(), fields.next()) {
            (Some("move"), Some(text), report) if !text.trim().is_empty() => Ok(Chosen {
                text: text.to_string(),
                report: report.unwrap_or("").to_string(),
            }),
            _ => Err(EngineError::Refused(format!("unexpected reply `{reply}`"))),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests_beliefs;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mcts, MctsOptions};
    use gdl_runtime::toy::Countdown;

    /// The requests' replies, served by [`serve`] on the countdown game.
    fn exchange(requests: &str) -> Vec<String> {
        let game = Countdown::new(5);
        let mut player = Mcts::new(MctsOptions {
            max_iterations: Some(200),
            ..MctsOptions::default()
        });
        let mut out = Vec::new();
        let input = std::io::Cursor::new(requests.as_bytes().to_vec());
        let requests = read_lines(input).unwrap();
        serve(&game, &mut player, requests, &mut out, Ponder::Off, |p| {
            format!("{} iterations", p.stats().iterations)
        })
        .unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn serves_start_observe_choose() {
        let soon = to_epoch_millis(Instant::now() + Duration::from_millis(20));
        let replies = exchange(&format!(
            "1\tstart\tONLY\t{soon}\n2\tobserve\t(minus 2)\n3\tchoose\t{soon}\n"
        ));
        assert_eq!(replies[..2], ["1\tready", "2\tok"]);
        let fields: Vec<&str> = replies[2].split('\t').collect();
        assert_eq!(fields[..2], ["3", "move"]);
        // From 3, taking 1 or 2 are both legal; the reply is one of them, with its report.
        assert!(
            ["(minus 1)", "(minus 2)"].contains(&fields[2]),
            "{fields:?}"
        );
        // The report is the closure's (the countdown is proven before the budget is used).
        let n: u64 = fields[3]
            .strip_suffix(" iterations")
            .and_then(|n| n.parse().ok())
            .expect("the report");
        assert!((1..=200).contains(&n), "{fields:?}");
    }

    /// `opponents` hands the judgments of the engine that played before to this one's
    /// tree (what it says is in the settings of the next report); one it cannot read, or
    /// one before `start`, is refused with the reason.
    #[test]
    fn serves_opponents_judged_before() {
        let game = Countdown::new(5);
        let mut player = Mcts::new(MctsOptions {
            max_iterations: Some(200),
            ..MctsOptions::default()
        });
        let soon = to_epoch_millis(Instant::now() + Duration::from_millis(20));
        let requests = format!(
            "1\topponents\tONLY:-3.5:5\n2\tstart\tONLY\t{soon}\n\
             3\topponents\tNOBODY:-3.5:5\n4\topponents\tONLY:x:5\n\
             5\topponents\tONLY:-3.5:5\n6\tchoose\t{soon}\n"
        );
        let input = std::io::Cursor::new(requests.into_bytes());
        let mut out = Vec::new();
        serve(
            &game,
            &mut player,
            read_lines(input).unwrap(),
            &mut out,
            Ponder::Off,
            |p| p.report().unwrap_or_default(),
        )
        .unwrap();
        let replies: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(replies[0], "1\terror\tno role yet: `start` first");
        assert_eq!(replies[1], "2\tready");
        assert_eq!(replies[2], "3\terror\tthe game has no role `NOBODY`");
        assert_eq!(replies[3], "4\terror\tnot a ratio: `x`");
        assert_eq!(replies[4], "5\tok");
        assert!(
            replies[5].starts_with("6\tmove\t") && replies[5].contains("searched as random: only"),
            "{}",
            replies[5]
        );
    }

    /// Output that sends what is written to a channel.
    struct Sent(mpsc::Sender<u8>);

    impl Write for Sent {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            for &b in buf {
                let _ = self.0.send(b);
            }
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The next line sent, waited for at most 10 s.
    fn line_of(bytes: &mpsc::Receiver<u8>) -> String {
        let mut line = Vec::new();
        while let Ok(b) = bytes.recv_timeout(Duration::from_secs(10)) {
            if b == b'\n' {
                break;
            }
            line.push(b);
        }
        String::from_utf8(line).unwrap()
    }

    /// An engine on a long countdown, fed requests over time: with pondering on, it searches
    /// between them, says so in its report, and still answers at once.
    fn pondered_between_requests(ponder: Ponder) -> (String, Duration) {
        let (requests, lines) = mpsc::channel();
        let (sent, replies) = mpsc::channel();
        let server = std::thread::spawn(move || {
            let game = Countdown::new(1000);
            let mut player = Mcts::new(MctsOptions::default());
            serve(&game, &mut player, lines, Sent(sent), ponder, |p| {
                format!("{} iterations", p.stats().iterations)
            })
        });
        let now = || to_epoch_millis(Instant::now());
        requests
            .send(Ok(format!("1\tstart\tonly\t{}", now())))
            .unwrap();
        assert_eq!(line_of(&replies), "1\tready");
        std::thread::sleep(Duration::from_millis(300));
        let asked = Instant::now();
        requests.send(Ok(format!("2\tchoose\t{}", now()))).unwrap();
        let reply = line_of(&replies);
        let took = asked.elapsed();
        drop(requests);
        server.join().unwrap().unwrap();
        (reply, took)
    }

    #[test]
    fn the_engine_ponders_between_requests_and_answers_promptly() {
        let (reply, took) = pondered_between_requests(Ponder::On);
        assert!(took < Duration::from_secs(1), "{took:?}");
        let report = reply.rsplit('\t').next().unwrap();
        let pondered: u64 = report
            .strip_suffix(" pondered")
            .and_then(|r| r.rsplit("; ").next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{reply}"));
        assert!(pondered > 0, "{reply}");
        let (reply, took) = pondered_between_requests(Ponder::Off);
        assert!(took < Duration::from_secs(1), "{took:?}");
        assert!(reply.starts_with("2\tmove\t"), "{reply}");
        assert!(!reply.contains("pondered"), "{reply}");
    }

    /// A player that ponders a slice at a time (sleeping through it) and notes when.
    struct Sleeper(Vec<Instant>);

    impl Player<Countdown> for Sleeper {
        fn name(&self) -> &str {
            "sleeper"
        }
        fn choose(&mut self, _: &Countdown, _: &u32, _: Instant) -> Option<u8> {
            None
        }
        fn ponder(&mut self, _: &Countdown, deadline: Instant) -> u64 {
            self.0.push(Instant::now());
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
            1
        }
    }

    /// Pondering ends at its limit (the client gone quiet), and the next request still comes.
    #[test]
    fn pondering_stops_at_its_limit_and_the_request_still_comes() {
        let (requests, lines) = mpsc::channel();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            requests.send(Ok("1\tchoose\t0".to_string()))
        });
        let mut player = Sleeper(Vec::new());
        let (began, mut pondered) = (Instant::now(), 0);
        let limit = began + Duration::from_millis(100);
        let line = next_request(
            &lines,
            &Countdown::new(5),
            &mut player,
            Some(limit),
            &mut pondered,
        );
        assert_eq!(line.map(|l| l.ok()), Some(Some("1\tchoose\t0".to_string())));
        assert!(began.elapsed() >= Duration::from_millis(400));
        sender.join().unwrap().unwrap();
        // Slices until the limit, none after it (the last one cut to end there).
        assert!(
            pondered >= 2 && pondered as usize == player.0.len(),
            "{pondered}"
        );
        assert!(player.0.iter().all(|&t| t < limit), "{:?}", player.0.last());
    }

    #[test]
    fn ponder_flags() {
        assert_eq!(Ponder::parse("on"), Some(Ponder::On));
        assert_eq!(Ponder::parse("off"), Some(Ponder::Off));
        assert_eq!(Ponder::parse("yes"), None);
        for p in [Ponder::On, Ponder::Off] {
            assert_eq!(Ponder::parse(p.as_str()), Some(p));
        }
    }

    #[test]
    fn refuses_what_it_cannot_do() {
        let replies = exchange(
            "1\tchoose\t10\n2\tstart\tnobody\t0\n3\tstart\tonly\tsoon\n4\tstart\tonly\t0\n\
             5\tobserve\t(minus 9)\n6\tobserve\t(minus 1)\t(minus 1)\n7\thello\n",
        );
        assert_eq!(replies.len(), 7);
        for (i, r) in replies.iter().enumerate() {
            let (n, r) = r.split_once('\t').unwrap();
            assert_eq!(n, (i + 1).to_string());
            assert_eq!(r.starts_with("error\t"), i != 3, "{i}: {r}");
        }
        assert!(replies[1].contains("no role `nobody`"));
        assert!(replies[4].contains("(minus 9)"));
    }

    /// A fake engine: a shell script that answers each line as `script` says.
    #[cfg(unix)]
    fn fake(script: &str) -> Engine {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        Engine::spawn(command).unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn client_reads_replies_and_faults() {
        let soon = |ms| Instant::now() + Duration::from_millis(ms);
        let slack = Duration::from_secs(5);
        let mut e = fake(
            "read a; printf '1\\tready\\n'; read b; printf '2\\tok\\n'; \
             read c; printf '3\\tmove\\t( mark 1 1 )\\t9 iterations\\n'; \
             read d; printf '4\\terror\\tno legal move\\n'; read e; echo what",
        );
        e.start("x", soon(10), slack).unwrap();
        e.observe(&["noop".into(), "(mark 2 2)".into()], slack)
            .unwrap();
        let chosen = e.choose(soon(10), slack).unwrap();
        assert_eq!(chosen.text, "( mark 1 1 )");
        assert_eq!(chosen.report, "9 iterations");
        assert!(
            matches!(e.choose(soon(10), slack), Err(EngineError::Refused(w)) if w == "no legal move")
        );
        assert!(matches!(
            e.choose(soon(10), slack),
            Err(EngineError::Refused(_))
        ));
        // The script has ended: its output is closed.
        assert!(matches!(
            e.choose(soon(10), slack),
            Err(EngineError::Exited | EngineError::Io(_))
        ));
        // An engine that never answers.
        let mut silent = fake("sleep 30");
        let asked = Instant::now();
        let r = silent.start("x", soon(0), Duration::from_millis(200));
        assert!(matches!(r, Err(EngineError::Timeout)), "{r:?}");
        assert!(asked.elapsed() < Duration::from_secs(10));
        // A late reply is skipped: the next request gets its own.
        let mut late = fake("read a; sleep 1; printf '1\\tready\\n'; read b; printf '2\\tok\\n'");
        let r = late.start("x", soon(0), Duration::from_millis(100));
        assert!(matches!(r, Err(EngineError::Timeout)), "{r:?}");
        late.observe(&["noop".into()], slack).unwrap();
    }

    #[test]
    fn a_missing_program_is_an_error() {
        let r = Engine::spawn(Command::new("/nonexistent/gdlc-engine"));
        assert!(matches!(r, Err(EngineError::Io(_))));
    }
}
