//! The engine protocol's GDL-II requests (`beliefs`, `percepts`, `choose` from beliefs) on a
//! toy game with a hidden coin, served and asked through [`serve`] and [`Engine`].

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Ponder, serve};
use crate::time_control::to_epoch_millis;
use crate::{Mcts, MctsOptions, Observed};
use gdl_runtime::Game;

/// `random` tosses a coin (`heads` or `tails`) that the guesser does not see; the guesser
/// then guesses it blind (`(guess heads)`: 100 if right) or first plays `peek`, sees
/// `(coin heads)` or `(coin tails)`, and guesses (90 if right). Wrong guesses score 0.
struct Coin;

/// Moves: 0 `heads`, 1 `tails`, 2 `wait`, 3 `peek`, 4 `(guess heads)`, 5 `(guess tails)`.
const TEXTS: [&str; 6] = [
    "heads",
    "tails",
    "wait",
    "peek",
    "(guess heads)",
    "(guess tails)",
];
const SIDES: [&str; 2] = ["heads", "tails"];

/// The step (0: the toss, 1: peek or guess, 2: guess after a peek, 3: over), the coin, and
/// the guesser's goal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Toss {
    step: u8,
    coin: u8,
    goal: i32,
}

impl Game for Coin {
    type State = Toss;
    type Move = u8;
    fn role_count(&self) -> usize {
        2
    }
    fn role_name(&self, role: usize) -> &str {
        ["random", "guesser"][role.min(1)]
    }
    fn initial_state(&self) -> Toss {
        Toss {
            step: 0,
            coin: 0,
            goal: 0,
        }
    }
    fn is_terminal(&self, state: &Toss) -> bool {
        state.step == 3
    }
    fn legal_moves(&self, state: &Toss, role: usize, out: &mut Vec<u8>) {
        out.clear();
        match (state.step, role) {
            (3, _) => {}
            (0, 0) => out.extend([0, 1]),
            (_, 0) | (0, _) => out.push(2),
            (1, _) => out.extend([3, 4, 5]),
            _ => out.extend([4, 5]),
        }
    }
    fn next_state(&self, state: &Toss, joint: &[u8], next: &mut Toss) {
        *next = state.clone();
        match (state.step, joint[1]) {
            (0, _) => {
                next.coin = joint[0];
                next.step = 1;
            }
            (_, 3) => next.step = 2,
            (step, guess) => {
                let right = guess - 4 == state.coin;
                next.goal = match (right, step) {
                    (false, _) => 0,
                    (true, 1) => 100,
                    (true, _) => 90,
                };
                next.step = 3;
            }
        }
    }
    fn goal(&self, state: &Toss, role: usize) -> Option<i32> {
        Some(if role == 1 { state.goal } else { 0 })
    }
    fn write_move(&self, _role: usize, mv: u8, out: &mut String) {
        out.push_str(TEXTS[usize::from(mv).min(5)]);
    }
    fn parse_move(&self, role: usize, text: &str) -> Option<u8> {
        let mv = TEXTS.iter().position(|t| *t == text)? as u8;
        match role {
            0 => (mv <= 2).then_some(mv),
            _ => (mv >= 2).then_some(mv),
        }
    }
    fn write_state(&self, state: &Toss, out: &mut Vec<String>) {
        out.push(format!("(step {})", state.step));
    }
    fn percepts(&self, state: &Toss, joint: &[u8], role: usize, out: &mut Vec<String>) {
        if role == 1 && state.step == 1 && joint[1] == 3 {
            out.push(format!("(coin {})", SIDES[usize::from(state.coin)]));
        }
    }
}

/// An engine serving [`Coin`] on a thread, asked one request at a time.
struct Served {
    requests: Option<mpsc::Sender<std::io::Result<String>>>,
    replies: mpsc::Receiver<String>,
    server: Option<JoinHandle<std::io::Result<()>>>,
    asked: u64,
}

impl Served {
    fn new() -> Served {
        let (requests, lines) = mpsc::channel();
        let (sent, replies) = mpsc::channel();
        let server = std::thread::spawn(move || {
            let mut player = Mcts::new(MctsOptions::default());
            serve(
                &Coin,
                &mut player,
                lines,
                Lines(sent, Vec::new()),
                Ponder::On,
                |_| String::new(),
            )
        });
        Served {
            requests: Some(requests),
            replies,
            server: Some(server),
            asked: 0,
        }
    }

    /// The reply to `request` (without its number).
    fn ask(&mut self, request: &str) -> String {
        self.asked += 1;
        let sender = self.requests.as_ref().expect("serving");
        sender
            .send(Ok(format!("{}\t{request}", self.asked)))
            .unwrap();
        let reply = self.replies.recv_timeout(Duration::from_secs(20)).unwrap();
        let (n, reply) = reply.split_once('\t').unwrap();
        assert_eq!(n, self.asked.to_string());
        reply.to_string()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        drop(self.requests.take());
        if let Some(server) = self.server.take() {
            let _ = server.join();
        }
    }
}

/// Output that sends each line written to a channel.
struct Lines(mpsc::Sender<String>, Vec<u8>);

impl std::io::Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            match b {
                b'\n' => {
                    let line = String::from_utf8_lossy(&self.1).into_owned();
                    let _ = self.0.send(line);
                    self.1.clear();
                }
                _ => self.1.push(b),
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A deadline `ms` from now, as the protocol sends it.
fn within(ms: u64) -> u128 {
    to_epoch_millis(Instant::now() + Duration::from_millis(ms))
}

/// The guesser's whole match as the engine plays it from beliefs, the coin showing `side`
/// when peeked at: the engine peeks (worth 90 for sure, a blind guess 50 on average), then
/// names the side it saw.
fn play_coin(side: &str) {
    let mut engine = Served::new();
    assert_eq!(
        engine.ask(&format!("start\tguesser\t{}", within(0))),
        "ready"
    );
    assert_eq!(engine.ask("beliefs"), "ok");
    let first = engine.ask(&format!("choose\t{}", within(50)));
    assert!(first.starts_with("move\twait\t"), "{first}");
    assert_eq!(
        engine.ask(&format!("percepts\t{}\twait", within(200))),
        "ok"
    );
    let second = engine.ask(&format!("choose\t{}", within(400)));
    assert!(second.starts_with("move\tpeek\t"), "{second}");
    // The report is the beliefs' (two particles, one for each side of the coin).
    assert!(second.contains("particles"), "{second}");
    let seen = format!("percepts\t{}\tpeek\t(coin {side})", within(200));
    assert_eq!(engine.ask(&seen), "ok");
    let third = engine.ask(&format!("choose\t{}", within(200)));
    assert!(
        third.starts_with(&format!("move\t(guess {side})\t")),
        "{third}"
    );
}

#[test]
fn a_gdl2_match_is_played_from_beliefs_fed_with_percepts() {
    play_coin("heads");
    play_coin("tails");
}

#[test]
fn gdl2_requests_come_in_order_or_are_refused() {
    let mut engine = Served::new();
    let soon = within(20);
    let refused = ["beliefs".to_string(), format!("percepts\t{soon}\twait")];
    for r in &refused {
        let reply = engine.ask(r);
        assert!(reply.starts_with("error\tno role yet"), "{r}: {reply}");
    }
    assert_eq!(engine.ask(&format!("start\tguesser\t{soon}")), "ready");
    let reply = engine.ask(&format!("percepts\t{soon}\twait"));
    assert!(reply.contains("`beliefs` first"), "{reply}");
    assert_eq!(engine.ask("beliefs"), "ok");
    for (request, why) in [
        (
            format!("percepts\t{soon}\tfly"),
            "`fly` is not a move of ours",
        ),
        ("percepts\tsoon\twait".to_string(), "not a deadline"),
        (
            "observe\theads\twait".to_string(),
            "`percepts`, not `observe`",
        ),
    ] {
        let reply = engine.ask(&request);
        assert!(
            reply.starts_with("error\t") && reply.contains(why),
            "{request}: {reply}"
        );
    }
    // A new match (`start`) is GDL-I again until told otherwise.
    assert_eq!(engine.ask(&format!("start\tguesser\t{soon}")), "ready");
    assert_eq!(engine.ask("observe\theads\twait"), "ok");
}

/// The client's requests, answered by a served engine through a pipe: the replies of
/// `beliefs`, `percepts` and `choose` are read.
#[cfg(unix)]
#[test]
fn the_client_sends_beliefs_and_percepts() {
    let script = "read a; printf '1\\tready\\n'; read b; printf '2\\tok\\n'; \
         read c; case \"$c\" in *'\tpercepts\t'*'\tpeek\t(coin heads)') printf '3\\tok\\n';; \
         *) printf '3\\terror\\tbad %s\\n' \"$c\";; esac; \
         read d; printf '4\\tmove\\t(guess heads)\\t2 particles\\n'";
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    let mut engine = super::Engine::spawn(command).unwrap();
    let slack = Duration::from_secs(5);
    let soon = Instant::now() + Duration::from_millis(10);
    engine.start("guesser", soon, slack).unwrap();
    engine.beliefs(slack).unwrap();
    let turn = Observed {
        ours: "peek".to_string(),
        percepts: vec!["(coin heads)".to_string()],
    };
    engine.percepts(&turn, soon, slack).unwrap();
    let chosen = engine.choose(soon, slack).unwrap();
    assert_eq!(chosen.text, "(guess heads)");
    assert_eq!(chosen.report, "2 particles");
}
