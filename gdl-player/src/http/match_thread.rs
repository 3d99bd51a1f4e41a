//! The match thread: it owns the [`MatchEngine`] of the current match and runs the jobs the
//! server gives it in order (START, PLAY, the end of the match), logging each PLAY with the
//! engine, the search statistics, the time used, how long before the play clock ended the
//! move was handed to the server and, when it did, how long the PLAY waited in the queue.
//!
//! While a match is on and no job waits, the thread ponders ([`MatchEngine::ponder`]) in
//! slices of [`PONDER_SLICE`], looking at its queue between them: a job waits at most one
//! slice. When the engine has nothing to search (its root is proven, or it does not ponder),
//! the thread waits on its queue instead, looking again every [`IDLE`]. A player that does
//! not ponder is only asked to look ([`MatchEngine::idle`]) every [`IDLE`].

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::{EngineFactory, MatchEngine, StartRequest, log};
use crate::subprocess::Ponder;
use crate::time_control::{Deadlines, PONDER_SLICE, ponder_window};

/// A job for the match thread.
pub(super) enum Job {
    /// `Ok`: the engine's description; `Err`: why the match is not played.
    Start(StartRequest, oneshot::Sender<Result<String, String>>),
    Play {
        turn: Turn,
        /// When the PLAY arrived, when its search is to end, when its clock ends.
        deadlines: Deadlines,
        /// When the server queued the job.
        queued: Instant,
        /// Where the engine leaves a legal move as soon as it has one, for the server to send
        /// if the answer is too late.
        fallback: Arc<OnceLock<String>>,
        reply: oneshot::Sender<Played>,
    },
    /// The match ended (STOP or ABORT): drop its engine.
    End,
}

/// The match thread's answer to a PLAY.
pub(super) struct Played {
    /// The reply: the move, `nil` or `busy`.
    pub answer: String,
    /// Which engine plays the match now (for INFO), when there is one: the universal
    /// player's hands over from one to another during a match.
    pub engine: Option<String>,
}

/// What a PLAY says happened.
pub(super) enum Turn {
    /// GDL-I: the last joint move, `None` at the first PLAY.
    Moves(Option<Vec<String>>),
    /// GDL-II: the turn, our last move and what we saw.
    Percepts {
        turn: u64,
        last_move: Option<String>,
        percepts: Vec<String>,
    },
}

/// How long the match thread waits on its queue, when the engine has nothing to ponder (or
/// the player does not ponder: [`MatchEngine::idle`]), before it asks the engine again (the
/// universal player's engine may have a build to look at).
const IDLE: Duration = Duration::from_millis(250);

/// The match being played.
struct Playing {
    match_id: String,
    engine: Box<dyn MatchEngine>,
    /// PLAYs answered so far.
    steps: u64,
    /// Iterations pondered since the last PLAY.
    pondered: u64,
    /// When the last request of the match (START or PLAY) was answered.
    answered: Instant,
    /// How long after it the thread ponders ([`ponder_window`]).
    window: Duration,
    /// Whether the log said that the window has passed since the last answer.
    said_idle: bool,
}

impl Playing {
    /// Whether the thread ponders now: on, and within the window after the last answer.
    fn ponders(&self, ponder: Ponder) -> bool {
        ponder == Ponder::On && self.answered.elapsed() < self.window
    }
}

/// The next job; until it comes, ponders the match being played (a failing engine drops
/// the match). `None` when the server is gone.
fn next_job(queue: &Receiver<Job>, playing: &mut Option<Playing>, ponder: Ponder) -> Option<Job> {
    loop {
        let Some(p) = playing.as_mut() else {
            return queue.recv().ok();
        };
        if !p.ponders(ponder) {
            if ponder == Ponder::On && !p.said_idle {
                p.said_idle = true;
                log(&format!(
                    "{}: no request for {} s: pondering stops until the next one",
                    p.match_id,
                    p.window.as_secs()
                ));
            }
            match queue.recv_timeout(IDLE) {
                Ok(job) => return Some(job),
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Err(why) = guarded(|| {
                p.engine.idle();
                Ok(())
            }) {
                log(&format!("{}: {why}: the match is dropped", p.match_id));
                *playing = None;
            }
            continue;
        }
        match queue.try_recv() {
            Ok(job) => return Some(job),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {}
        }
        let until = Instant::now() + PONDER_SLICE;
        match guarded(|| Ok(p.engine.ponder(until))) {
            Ok(0) => match queue.recv_timeout(IDLE) {
                Ok(job) => return Some(job),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return None,
            },
            Ok(n) => p.pondered += n,
            Err(why) => {
                log(&format!("{}: {why}: the match is dropped", p.match_id));
                *playing = None;
            }
        }
    }
}

/// Runs the jobs in order until the server is dropped, pondering between them.
pub(super) fn run(mut factory: EngineFactory, queue: Receiver<Job>, ponder: Ponder) {
    let mut playing: Option<Playing> = None;
    while let Some(job) = next_job(&queue, &mut playing, ponder) {
        match job {
            Job::Start(start, reply_to) => {
                playing = None;
                let answer = match guarded(|| factory(&start)) {
                    Ok(engine) => {
                        let describe = engine.describe();
                        playing = Some(Playing {
                            match_id: start.match_id.clone(),
                            engine,
                            steps: 0,
                            pondered: 0,
                            answered: Instant::now(),
                            window: ponder_window(start.play_clock),
                            said_idle: false,
                        });
                        Ok(describe)
                    }
                    Err(why) => Err(why),
                };
                let _ = reply_to.send(answer);
            }
            Job::Play {
                turn,
                deadlines,
                queued,
                fallback,
                reply,
            } => {
                // A ponder slice, at most, if the thread was pondering.
                let waited = queued.elapsed();
                let unplayed = |answer: &str| Played {
                    answer: answer.to_string(),
                    engine: None,
                };
                let (played, line) = match playing.as_mut() {
                    Some(p) => match guarded(|| Ok(p.play(&turn, &deadlines, &fallback))) {
                        Ok((played, line)) => (played, Some(line)),
                        Err(why) => {
                            let line = format!("{}: {why}: the match is dropped", p.match_id);
                            playing = None;
                            (unplayed("nil"), Some(line))
                        }
                    },
                    None => (unplayed(super::reply::BUSY), None),
                };
                let _ = reply.send(played);
                // Logged once the move is on its way.
                if let Some(line) = line {
                    let replied = deadlines.replied(Instant::now());
                    let waited = waited.as_millis();
                    match waited {
                        0 => log(&format!("{line}, {replied}")),
                        _ => log(&format!("{line}, {replied} (queued {waited} ms)")),
                    }
                }
            }
            Job::End => playing = None,
        }
    }
}

/// Runs `job`; a panic in it (a bug of an engine) is an `Err` that says so, so that the match
/// thread, and the player, live on.
fn guarded<T>(job: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)) {
        Ok(r) => r,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!("the engine failed: {what}"))
        }
    }
}

/// `<match> step N: <move> by <engine> (<stats>) in 1.23 s`.
fn play_line(id: &str, step: u64, m: &str, by: &str, stats: Option<&str>, used: f64) -> String {
    let stats = stats.map_or(String::new(), |s| format!(" ({s})"));
    format!("{id} step {step}: {m} by {by}{stats} in {used:.2} s")
}

impl Playing {
    /// The move to send with the engine that chose it, and the log line of the PLAY (without
    /// the time left on the clock).
    fn play(
        &mut self,
        turn: &Turn,
        deadlines: &Deadlines,
        fallback: &OnceLock<String>,
    ) -> (Played, String) {
        self.steps += 1;
        let pondered = std::mem::take(&mut self.pondered);
        let mut leave = |m: String| {
            let _ = fallback.set(m);
        };
        let deadline = deadlines.search;
        let result = match turn {
            Turn::Moves(moves) => self.engine.play(moves.as_deref(), deadline, &mut leave),
            Turn::Percepts {
                turn,
                last_move,
                percepts,
            } => self
                .engine
                .play_percepts(*turn, last_move.as_deref(), percepts, deadline),
        };
        let used = deadlines.arrived.elapsed().as_secs_f64();
        let (id, step, by) = (&self.match_id, self.steps, self.engine.describe());
        let (answer, line) = match result {
            Ok(m) => {
                let stats = match (self.engine.last_stats(), pondered) {
                    (stats, 0) => stats,
                    (Some(s), n) => Some(format!("{s}; {n} pondered")),
                    (None, n) => Some(format!("{n} pondered")),
                };
                let line = play_line(id, step, &m, &by, stats.as_deref(), used);
                (m, line)
            }
            Err(why) => {
                let line = format!("{id} step {step}: {why} ({by}, {used:.2} s)");
                // Still a move: the manager substitutes a legal one.
                ("nil".to_string(), line)
            }
        };
        let played = Played {
            answer,
            engine: Some(by),
        };
        (self.answered, self.said_idle) = (Instant::now(), false);
        (played, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mcts, MctsOptions, Player};
    use gdl_runtime::toy::Countdown;

    #[test]
    fn a_panicking_engine_is_an_error() {
        let r: Result<(), String> = guarded(|| panic!("boom"));
        assert_eq!(r, Err("the engine failed: boom".to_string()));
        assert_eq!(guarded(|| Ok(3)), Ok(3));
    }

    /// Past the window after the last answer the thread stops pondering, and still takes the
    /// next job; the next answer opens the window again.
    #[test]
    fn pondering_stops_past_the_window_until_the_next_answer() {
        use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
        let calls = Arc::new(AtomicU64::new(0));
        let engine = crate::http::tests::Pondering {
            calls: Arc::clone(&calls),
            looks: Arc::new(AtomicU64::new(0)),
            searching: true,
        };
        let window = Duration::from_millis(150);
        let mut playing = Some(Playing {
            match_id: "m".into(),
            engine: Box::new(engine),
            steps: 0,
            pondered: 0,
            answered: Instant::now(),
            window,
            said_idle: false,
        });
        let (jobs, queue) = std::sync::mpsc::channel();
        let seen = Arc::clone(&calls);
        // The slices' count well after the window (its last slice ended by 170 ms), then
        // just before the job.
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let after_window = seen.load(SeqCst);
            std::thread::sleep(Duration::from_millis(300));
            let before_job = seen.load(SeqCst);
            (jobs.send(Job::End).is_ok(), after_window, before_job)
        });
        let began = Instant::now();
        assert!(matches!(
            next_job(&queue, &mut playing, Ponder::On),
            Some(Job::End)
        ));
        assert!(began.elapsed() >= Duration::from_millis(600));
        let (sent, after_window, before_job) = sender.join().unwrap();
        assert!(sent);
        assert!(after_window >= 2, "{after_window} slices");
        assert_eq!(after_window, before_job, "a slice past the window");
        let p = playing.as_mut().expect("the match is kept");
        assert!(p.said_idle && !p.ponders(Ponder::On));
        let deadlines = Deadlines::play(Instant::now(), Duration::from_secs(1), Duration::ZERO);
        p.play(&Turn::Moves(None), &deadlines, &OnceLock::new());
        assert!(p.ponders(Ponder::On) && !p.said_idle);
    }

    #[test]
    fn the_play_line_names_engine_stats_and_time() {
        let game = Countdown::new(10);
        let mut mcts = Mcts::new(MctsOptions {
            max_iterations: Some(50),
            ..MctsOptions::default()
        });
        let far = Instant::now() + std::time::Duration::from_secs(60);
        mcts.start(&game, 0, far);
        let state = gdl_runtime::Game::initial_state(&game);
        assert!(mcts.choose(&game, &state, far).is_some());
        let stats = mcts.report().expect("MCTS reports");
        // Every end of the countdown gives 100: the root is proven before the budget is used.
        let iterations: u64 = stats
            .split(" iterations, ")
            .next()
            .and_then(|n| n.parse().ok())
            .expect("iterations first");
        assert!((1..=50).contains(&iterations), "{stats}");
        assert!(stats.contains(" nodes, value 1.00 (proven)"), "{stats}");
        assert_eq!(
            play_line("m.1", 3, "(minus 1)", "compiled", Some(&stats), 1.234),
            format!("m.1 step 3: (minus 1) by compiled ({stats}) in 1.23 s")
        );
        assert_eq!(
            play_line("m.1", 1, "noop", "interpreted", None, 0.5),
            "m.1 step 1: noop by interpreted in 0.50 s"
        );
    }
}
