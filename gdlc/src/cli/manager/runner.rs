//! One match, from START to STOP: the one function ([`play_match`]) that `gdlc match` and
//! `gdlc tournament` share.
//!
//! Every step, PLAY goes to the remote players at once, then the players in this process
//! choose (one after the other), then the manager waits for the remote replies (the play
//! clock plus the grace). A remote player that cannot be reached (`CE`), does not answer in
//! time (`TO`) or answers a move that is not legal or not a move (`IL <move>`) gets a random
//! legal move; it sees that move in the next PLAY. Ctrl-C stops the match between or during
//! steps (an in-process `mcts` finishes its move first): ABORT goes to the remote players and
//! the record says `isAborted`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gdl_player::http::SendError;
use gdl_runtime::{Game, SplitMix64};
use gdlc::interp::Interpreter;
use tokio::runtime::Runtime;

use super::clock::{ABORT_WAIT, Clocks};
use super::human::{Choice, Turn, listing};
use super::messages::{self, Dialect, Rules, Sight, spaced};
use super::progress::{Part, Progress, note, step_line};
use super::record::{Header, Record};
use super::seats::{Seat, Who};
use super::{client, interrupt};

type State = <Interpreter as Game>::State;
type Move = <Interpreter as Game>::Move;

/// A match ends without a terminal state after this many steps.
pub const MAX_STEPS: usize = 10_000;

/// Everything about a match but its players.
pub struct MatchSetup<'a> {
    pub match_id: String,
    pub rules: &'a Rules,
    pub dialect: Dialect,
    pub clocks: Clocks,
    /// Where the record is written after every step.
    pub out: Option<PathBuf>,
    /// Seed of the manager's own moves (the role `random`, substituted moves).
    pub seed: u64,
    pub progress: Progress,
}

/// How a match ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The goal of each role, in role order.
    Completed(Vec<i32>),
    /// Ctrl-C.
    Aborted { steps: usize },
}

/// Why a match could not go on.
#[derive(Debug)]
pub enum MatchError {
    NoLegalMove {
        role: String,
        step: usize,
    },
    /// The interpreter could not answer (past its budget).
    Engine(String),
    NoEnd,
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::NoLegalMove { role, step } => {
                write!(f, "{role} has no legal move at step {step}")
            }
            MatchError::Engine(reason) => write!(f, "{reason}"),
            MatchError::NoEnd => write!(f, "no end after {MAX_STEPS} steps"),
            MatchError::Write { path, error } => {
                write!(f, "cannot write {}: {error}", path.display())
            }
        }
    }
}

/// A state as the record writes it: `( ( cell 1 1 b ) ( control x ) )`.
fn state_text(facts: &[String]) -> String {
    let mut sorted: Vec<String> = facts.iter().map(|f| spaced(f)).collect();
    sorted.sort();
    if sorted.is_empty() {
        "( )".to_string()
    } else {
        format!("( {} )", sorted.join(" "))
    }
}

fn facts(game: &Interpreter, state: &State) -> Vec<String> {
    let mut out = Vec::new();
    game.write_state(state, &mut out);
    out
}

/// The error code of a failed exchange.
fn fault_code(e: &SendError) -> String {
    match e {
        SendError::Connect(_) => "CE".to_string(),
        SendError::Timeout | SendError::Broken(_) => "TO".to_string(),
    }
}

/// `IL <move>`, the reply cut to one line of at most 200 characters.
fn illegal(reply: &str) -> String {
    let one: Vec<&str> = reply.split_whitespace().collect();
    let one = one.join(" ");
    match one.char_indices().nth(200) {
        Some((cut, _)) => format!("IL {}...", &one[..cut]),
        None => format!("IL {one}"),
    }
}

/// One message to one remote player.
struct Request {
    role: usize,
    address: String,
    message: String,
}

/// Its answer, and how long it took.
struct Reply {
    role: usize,
    result: Result<String, SendError>,
    took: Duration,
}

type Exchange = tokio::task::JoinHandle<(Result<String, SendError>, Duration)>;

/// Requests on their way.
struct Pending(Vec<(usize, Exchange)>);

impl Pending {
    fn send(runtime: &Runtime, requests: Vec<Request>, wait: Duration) -> Pending {
        Pending(
            requests
                .into_iter()
                .map(|q| {
                    let task = runtime.spawn(async move {
                        let began = Instant::now();
                        let result = client::send(&q.address, &q.message, wait).await;
                        (result, began.elapsed())
                    });
                    (q.role, task)
                })
                .collect(),
        )
    }

    fn cancel(self) {
        for (_, task) in self.0 {
            task.abort();
        }
    }

    /// Every reply (each exchange ends by its own wait).
    async fn all(tasks: Vec<(usize, Exchange)>) -> Vec<Reply> {
        let mut out = Vec::with_capacity(tasks.len());
        for (role, task) in tasks {
            let (result, took) = task
                .await
                .unwrap_or_else(|e| (Err(SendError::Broken(e.to_string())), Duration::ZERO));
            out.push(Reply { role, result, took });
        }
        out
    }

    /// Every reply; `None` (the exchanges dropped) when Ctrl-C comes first.
    fn replies(self, runtime: &Runtime) -> Option<Vec<Reply>> {
        let handles: Vec<_> = self.0.iter().map(|(_, t)| t.abort_handle()).collect();
        let replies = runtime.block_on(async {
            tokio::select! {
                replies = Pending::all(self.0) => Some(replies),
                () = interrupt::wait() => None,
            }
        });
        if replies.is_none() {
            for h in handles {
                h.abort();
            }
        }
        replies
    }

    /// Every reply, whatever Ctrl-C says.
    fn finish(self, runtime: &Runtime) -> Vec<Reply> {
        runtime.block_on(Pending::all(self.0))
    }
}

/// A match in progress.
struct Match<'a> {
    setup: &'a MatchSetup<'a>,
    runtime: &'a Runtime,
    roles: Vec<String>,
    record: Record,
}

impl Match<'_> {
    fn save(&self) -> Result<(), MatchError> {
        self.record
            .save(self.setup.out.as_deref())
            .map_err(|error| MatchError::Write {
                path: self.setup.out.clone().unwrap_or_default(),
                error,
            })
    }

    /// The same message to every remote player.
    fn to_remotes(&self, seats: &[Seat], message: impl Fn(usize) -> String) -> Vec<Request> {
        seats
            .iter()
            .enumerate()
            .filter_map(|(role, s)| {
                s.address().map(|a| Request {
                    role,
                    address: a.to_string(),
                    message: message(role),
                })
            })
            .collect()
    }

    /// ABORT to every remote player (1 s each, at once); the record says `isAborted`.
    fn abort(&mut self, seats: &[Seat]) -> Result<Outcome, MatchError> {
        let id = self.record.match_id().to_string();
        let requests = self.to_remotes(seats, |_| messages::abort(&id));
        Pending::send(self.runtime, requests, ABORT_WAIT).finish(self.runtime);
        self.record.abort();
        self.save()?;
        let steps = self.record.steps();
        note(&format!("match {id} aborted after {steps} steps"));
        Ok(Outcome::Aborted { steps })
    }
}

/// Plays one match of `game` between `seats` (one per role, in role order) and returns how it
/// ended. The record is written after START, after every step and at the end.
pub fn play_match(
    game: &Interpreter,
    setup: &MatchSetup,
    seats: &mut [Seat],
    runtime: &Runtime,
) -> Result<Outcome, MatchError> {
    let n = game.role_count();
    let roles: Vec<String> = (0..n).map(|r| game.role_name(r).to_string()).collect();
    let clocks = setup.clocks;
    let id = setup.match_id.clone();
    let mut m = Match {
        setup,
        runtime,
        record: Record::new(Header {
            match_id: id.clone(),
            start_clock: clocks.start_secs,
            play_clock: clocks.play_secs,
            roles: roles.clone(),
            players: seats.iter().map(|s| s.name.clone()).collect(),
        }),
        roles,
    };
    let steps = setup.progress == Progress::Steps;
    if steps {
        let who: Vec<String> = m
            .roles
            .iter()
            .zip(seats.iter())
            .map(|(r, s)| format!("{r} = {}", s.name))
            .collect();
        note(&format!(
            "match {id}: {}; start clock {}s, play clock {}s{}",
            who.join(", "),
            clocks.start_secs,
            clocks.play_secs,
            match setup.dialect {
                Dialect::Gdl1 => "",
                Dialect::Gdl2 => ", GDL-II messages",
            }
        ));
    }

    // START, to every remote player at once, while the players here get ready.
    let requests = m.to_remotes(seats, |r| {
        messages::start(&id, &m.roles[r], setup.rules, &clocks)
    });
    let pending = Pending::send(runtime, requests, clocks.start_wait());
    let deadline = Instant::now() + clocks.start;
    for (r, seat) in seats.iter_mut().enumerate() {
        if let Who::Local(p) = &mut seat.who {
            p.start(game, r, deadline);
        }
    }
    let Some(replies) = pending.replies(runtime) else {
        return m.abort(seats);
    };
    let mut errors = vec![String::new(); n];
    for reply in replies {
        match reply.result {
            Ok(text) if text.eq_ignore_ascii_case("ready") => {}
            Ok(text) => note(&format!(
                "START to {}: `{}` instead of ready",
                m.roles[reply.role],
                illegal(&text).trim_start_matches("IL ")
            )),
            Err(e) => {
                note(&format!("START to {}: {e}", m.roles[reply.role]));
                errors[reply.role] = fault_code(&e);
            }
        }
    }
    let mut state = game.initial_state();
    m.record.begin(state_text(&facts(game, &state)), errors);
    m.save()?;

    let mut rng = SplitMix64::new(setup.seed);
    // The last joint move (GDL text per role) and, in GDL-II, what each role saw.
    let mut last: Option<Vec<String>> = None;
    let mut seen: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut legal: Vec<Vec<Move>> = vec![Vec::new(); n];
    let mut next = state.clone();
    loop {
        if interrupt::requested() {
            return m.abort(seats);
        }
        if game.is_terminal(&state) {
            break;
        }
        let step = m.record.steps() + 1;
        if step > MAX_STEPS {
            return Err(MatchError::NoEnd);
        }
        for (r, moves) in legal.iter_mut().enumerate() {
            game.legal_moves(&state, r, moves);
            if let Some(reason) = Game::fault(game) {
                return Err(MatchError::Engine(reason));
            }
            if moves.is_empty() {
                return Err(MatchError::NoLegalMove {
                    role: m.roles[r].clone(),
                    step,
                });
            }
        }
        let requests = m.to_remotes(seats, |r| match setup.dialect {
            Dialect::Gdl1 => messages::play(&id, last.as_deref()),
            Dialect::Gdl2 => messages::play_gdl2(
                &id,
                &Sight {
                    turn: step - 1,
                    last_move: last.as_ref().map(|l| l[r].as_str()),
                    percepts: &seen[r],
                },
            ),
        });
        let pending = Pending::send(runtime, requests, clocks.play_wait());
        let deadline = Instant::now() + clocks.play;
        let mut joint = Vec::with_capacity(n);
        let mut took: Vec<Option<Duration>> = vec![None; n];
        for (r, seat) in seats.iter_mut().enumerate() {
            let random = legal[r][rng.below(legal[r].len())];
            let began = Instant::now();
            let chosen = match &mut seat.who {
                Who::Local(p) => {
                    let chosen = p.choose(game, &state, deadline);
                    took[r] = Some(began.elapsed());
                    chosen.filter(|c| legal[r].contains(c)).unwrap_or(random)
                }
                Who::Human(h) => {
                    let moves: Vec<String> =
                        legal[r].iter().map(|&c| game.move_text(r, c)).collect();
                    let view = match setup.dialect {
                        Dialect::Gdl1 => listing(&facts(game, &state)),
                        Dialect::Gdl2 if seen[r].is_empty() => "  (you saw nothing)\n".into(),
                        Dialect::Gdl2 => format!("  you saw:\n{}", listing(&seen[r])),
                    };
                    let turn = Turn {
                        role: &m.roles[r],
                        step,
                        view: &view,
                        moves: &moves,
                        play_clock: clocks.play,
                    };
                    match h.choose(&turn) {
                        Choice::Move(i) => {
                            took[r] = Some(began.elapsed());
                            legal[r][i]
                        }
                        Choice::Interrupted => break,
                    }
                }
                Who::Remote(_) | Who::Manager => random,
            };
            joint.push(chosen);
        }
        if joint.len() < n {
            // A person was asked when Ctrl-C came.
            pending.cancel();
            return m.abort(seats);
        }
        let Some(replies) = pending.replies(runtime) else {
            return m.abort(seats);
        };
        let mut errors = vec![String::new(); n];
        for reply in replies {
            let r = reply.role;
            took[r] = Some(reply.took);
            match reply.result {
                Ok(text) => match game.parse_move(r, &text).filter(|c| legal[r].contains(c)) {
                    Some(c) => joint[r] = c,
                    None => errors[r] = illegal(&text),
                },
                Err(e) => errors[r] = fault_code(&e),
            }
        }
        if interrupt::requested() {
            return m.abort(seats);
        }
        let texts: Vec<String> = joint
            .iter()
            .enumerate()
            .map(|(r, &c)| game.move_text(r, c))
            .collect();
        if setup.dialect == Dialect::Gdl2 {
            for (r, s) in seen.iter_mut().enumerate() {
                s.clear();
                game.percepts(&state, &joint, r, s);
            }
        }
        game.next_state(&state, &joint, &mut next);
        if let Some(reason) = Game::fault(game) {
            return Err(MatchError::Engine(reason));
        }
        for seat in seats.iter_mut() {
            if let Who::Local(p) = &mut seat.who {
                p.observe(game, &joint, &next);
            }
        }
        std::mem::swap(&mut state, &mut next);
        if steps {
            let parts: Vec<Part> = (0..n)
                .map(|r| Part {
                    role: &m.roles[r],
                    text: &texts[r],
                    took: took[r],
                    error: &errors[r],
                })
                .collect();
            note(&step_line(step, &parts, clocks.play));
        }
        m.record.step(
            texts.iter().map(|t| spaced(t)).collect(),
            state_text(&facts(game, &state)),
            errors,
        );
        m.save()?;
        last = Some(texts);
    }

    // STOP, to every remote player at once; the match is over whatever they answer.
    let turn = m.record.steps();
    let requests = m.to_remotes(seats, |r| match setup.dialect {
        Dialect::Gdl1 => messages::stop(&id, last.as_deref()),
        Dialect::Gdl2 => messages::stop_gdl2(
            &id,
            &Sight {
                turn,
                last_move: last.as_ref().map(|l| l[r].as_str()),
                percepts: &seen[r],
            },
        ),
    });
    Pending::send(runtime, requests, clocks.play_wait()).finish(runtime);
    let goals: Vec<i32> = (0..n).map(|r| game.goal(&state, r).unwrap_or(0)).collect();
    m.record.complete(goals.clone());
    m.save()?;
    Ok(Outcome::Completed(goals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_illegal_replies_are_written_as_the_record_wants() {
        assert_eq!(
            state_text(&["(control x)".into(), "(cell 1 1 b)".into()]),
            "( ( cell 1 1 b ) ( control x ) )"
        );
        assert_eq!(state_text(&[]), "( )");
        assert_eq!(illegal("( mark\n 1 1"), "IL ( mark 1 1");
        assert_eq!(illegal(&"a".repeat(300)).len(), 3 + 200 + 3);
    }
}
