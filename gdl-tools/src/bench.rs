//! The benchmark loop behind every published GDL speed figure: random playouts for a fixed
//! time, single thread ([`run`]); on several threads at once, [`run_shared`] (a game threads
//! can share, as compiled games are) or [`run_each`] (one game made per thread, as the
//! interpreter needs), each thread with its own seed, the counts added up.
//!
//! From the initial state, while the state is not terminal, one uniform random draw per role
//! (also for a role whose only move is `noop`) picks each role's move
//! ([`Game::random_legal_move`]), and the next state is computed, both in one call
//! ([`Game::random_step`]); at the terminal state every role's goal value is read. The loop
//! counts playouts
//! and states (steps + 1 per playout) and sums the goal values, whose averages are a cheap
//! check that the engine plays the game it should.
//!
//! [`BenchResult::line`] prints the one-line summary shared by every engine:
//!
//! ```text
//! game=ticTacToe engine=compiled seconds=10.000 playouts=41700000 playouts_per_sec=4170000.0 states_per_sec=33510000.0 cpu_seconds=9.981 playouts_per_cpu_sec=4177938.1 avg_goal xplayer=64.82 oplayer=35.18
//! ```
//!
//! The rates are per second of wall-clock time, the figure every published GDL speed uses.
//! On a shared machine the playing threads also wait for a CPU: where the system tells the
//! time a thread ran ([`thread_cpu_time`], Linux), `cpu_seconds` is the playing threads' CPU
//! time (summed over threads) and `playouts_per_cpu_sec` the playouts per second of it, which
//! moves less with the load.

use std::fmt::{self, Write as _};
use std::time::{Duration, Instant};

use gdl_runtime::{Game, SplitMix64};

/// Options of [`run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchOptions {
    /// How long to play. The loop stops after the first playout that ends past it.
    pub duration: Duration,
    /// The seed of the move chooser.
    pub seed: u64,
    /// A playout longer than this is an error (the game does not end).
    pub max_steps: usize,
    /// Threads playing at once ([`run_shared`], [`run_each`]; [`run`] plays on one). Thread
    /// `t` draws its moves with seed `seed + t`.
    pub threads: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            duration: Duration::from_secs(10),
            seed: 1,
            max_steps: 100_000,
            threads: 1,
        }
    }
}

/// What a benchmark measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// The roles, in order.
    pub roles: Vec<String>,
    /// Finished playouts.
    pub playouts: u64,
    /// States visited: steps + 1 per playout.
    pub states: u64,
    /// The time the playouts took.
    pub elapsed: Duration,
    /// The sum of each role's goal values over the playouts where it had one.
    pub goal_sums: Vec<i64>,
    /// For each role, how many terminal states gave it no goal value (or several).
    pub undefined_goals: Vec<u64>,
    /// The threads that played (the counts are their sums; `elapsed` the longest).
    pub threads: usize,
    /// The CPU time of the playing threads (summed), where the system tells it.
    pub cpu: Option<Duration>,
}

/// The CPU time the calling thread has run, where the system tells it (Linux:
/// `/proc/thread-self/schedstat`); `None` elsewhere.
pub fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Why a benchmark stopped early: the game is not playable by random moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// A role had no legal move in a non-terminal state.
    NoLegalMove {
        playout: u64,
        step: usize,
        role: String,
    },
    /// A playout reached the step limit without a terminal state.
    StepLimit { playout: u64, steps: usize },
    /// The game could not answer a query ([`Game::fault`]).
    Fault { playout: u64, reason: String },
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::NoLegalMove {
                playout,
                step,
                role,
            } => write!(
                f,
                "playout {playout}: role {role} has no legal move in the non-terminal state of \
                 step {step}"
            ),
            BenchError::Fault { playout, reason } => write!(f, "playout {playout}: {reason}"),
            BenchError::StepLimit { playout, steps } => {
                write!(
                    f,
                    "playout {playout}: no terminal state after {steps} steps"
                )
            }
        }
    }
}

impl std::error::Error for BenchError {}

/// How many states to visit between two looks at the clock.
const CLOCK_EVERY_STATES: u64 = 256;

/// Plays random playouts of `game` for `options.duration` and counts them.
pub fn run<G: Game>(game: &G, options: &BenchOptions) -> Result<BenchResult, BenchError> {
    let roles = game.role_count();
    let mut rng = SplitMix64::new(options.seed);
    let mut result = BenchResult {
        roles: (0..roles).map(|r| game.role_name(r).to_string()).collect(),
        playouts: 0,
        states: 0,
        elapsed: Duration::ZERO,
        goal_sums: vec![0; roles],
        undefined_goals: vec![0; roles],
        threads: 1,
        cpu: None,
    };
    let initial = game.initial_state();
    let mut state = initial.clone();
    let mut next = initial.clone();
    let mut moves: Vec<G::Move> = Vec::new();
    let mut joint: Vec<G::Move> = Vec::with_capacity(roles);
    let start = Instant::now();
    let cpu_start = thread_cpu_time();
    let mut states_at_last_look = 0;
    loop {
        state.clone_from(&initial);
        let mut steps = 0;
        while !game.is_terminal(&state) {
            if steps == options.max_steps {
                return Err(BenchError::StepLimit {
                    playout: result.playouts,
                    steps,
                });
            }
            if let Err(r) = game.random_step(&state, &mut rng, &mut moves, &mut joint, &mut next) {
                // A game that cannot answer (an engine past its budget) has no moves.
                if let Some(reason) = game.fault() {
                    return Err(BenchError::Fault {
                        playout: result.playouts,
                        reason,
                    });
                }
                return Err(BenchError::NoLegalMove {
                    playout: result.playouts,
                    step: steps,
                    role: game.role_name(r).to_string(),
                });
            }
            std::mem::swap(&mut state, &mut next);
            steps += 1;
        }
        for r in 0..roles {
            match game.goal(&state, r) {
                Some(v) => result.goal_sums[r] += i64::from(v),
                None => result.undefined_goals[r] += 1,
            }
        }
        if let Some(reason) = game.fault() {
            return Err(BenchError::Fault {
                playout: result.playouts,
                reason,
            });
        }
        result.playouts += 1;
        result.states += steps as u64 + 1;
        if result.states - states_at_last_look >= CLOCK_EVERY_STATES {
            states_at_last_look = result.states;
            let elapsed = start.elapsed();
            if elapsed >= options.duration {
                result.elapsed = elapsed;
                result.cpu = cpu_start
                    .zip(thread_cpu_time())
                    .map(|(a, b)| b.saturating_sub(a));
                return Ok(result);
            }
        }
    }
}

/// [`run`] on `options.threads` threads sharing `game`; the results added up.
pub fn run_shared<G: Game + Sync>(
    game: &G,
    options: &BenchOptions,
) -> Result<BenchResult, BenchError> {
    run_each(&|| Ok(game), options)
}

/// [`run`] on `options.threads` threads, each playing a game `make` makes for it (an error
/// from `make` stops the benchmark as a [`BenchError::Fault`]); the results added up.
pub fn run_each<G: Game, M: std::ops::Deref<Target = G>>(
    make: &(dyn Fn() -> Result<M, String> + Sync),
    options: &BenchOptions,
) -> Result<BenchResult, BenchError> {
    let threads = options.threads.max(1);
    let one = |t: usize| {
        let game = make().map_err(|reason| BenchError::Fault { playout: 0, reason })?;
        let options = BenchOptions {
            seed: options.seed.wrapping_add(t as u64),
            ..options.clone()
        };
        run(&*game, &options)
    };
    let results: Vec<Result<BenchResult, BenchError>> = if threads == 1 {
        vec![one(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || one(t))).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(BenchError::Fault {
                            playout: 0,
                            reason: "a benchmark thread panicked".to_string(),
                        })
                    })
                })
                .collect()
        })
    };
    let mut total: Option<BenchResult> = None;
    for r in results {
        let r = r?;
        match &mut total {
            None => total = Some(r),
            Some(t) => {
                t.playouts += r.playouts;
                t.states += r.states;
                t.elapsed = t.elapsed.max(r.elapsed);
                t.threads += r.threads;
                t.cpu = t.cpu.zip(r.cpu).map(|(a, b)| a + b);
                for (a, b) in t.goal_sums.iter_mut().zip(&r.goal_sums) {
                    *a += b;
                }
                for (a, b) in t.undefined_goals.iter_mut().zip(&r.undefined_goals) {
                    *a += b;
                }
            }
        }
    }
    total.ok_or(BenchError::Fault {
        playout: 0,
        reason: "no thread played".to_string(),
    })
}

impl BenchResult {
    /// Playouts per second.
    pub fn playouts_per_sec(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// States per second.
    pub fn states_per_sec(&self) -> f64 {
        self.states as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Playouts per second of the playing threads' CPU time, where it is known.
    pub fn playouts_per_cpu_sec(&self) -> Option<f64> {
        let cpu = self.cpu?.as_secs_f64();
        (cpu > 0.0).then(|| self.playouts as f64 / cpu)
    }

    /// The average goal value of `role` over the playouts that gave it one.
    pub fn avg_goal(&self, role: usize) -> Option<f64> {
        let defined = self.playouts - self.undefined_goals.get(role)?;
        (defined > 0).then(|| self.goal_sums[role] as f64 / defined as f64)
    }

    /// The one-line summary:
    /// `game=G engine=E seconds=S playouts=N playouts_per_sec=P states_per_sec=Q
    /// [cpu_seconds=C playouts_per_cpu_sec=R] avg_goal role1=A1 role2=A2 ...` (the CPU fields
    /// where the CPU time is known), where an average is `undef` when the role never had a goal value,
    /// and is followed by `(undef=K)` when it lacked one in K playouts. Played on several
    /// threads, `threads=T` follows the engine.
    pub fn line(&self, game: &str, engine: &str) -> String {
        let threads = if self.threads > 1 {
            format!(" threads={}", self.threads)
        } else {
            String::new()
        };
        let mut s = format!(
            "game={game} engine={engine}{threads} seconds={:.3} playouts={} playouts_per_sec={:.1} \
             states_per_sec={:.1}",
            self.elapsed.as_secs_f64(),
            self.playouts,
            self.playouts_per_sec(),
            self.states_per_sec()
        );
        if let (Some(cpu), Some(rate)) = (self.cpu, self.playouts_per_cpu_sec()) {
            let _ = write!(
                s,
                " cpu_seconds={:.3} playouts_per_cpu_sec={rate:.1}",
                cpu.as_secs_f64()
            );
        }
        s.push_str(" avg_goal");
        for (r, name) in self.roles.iter().enumerate() {
            let _ = match self.avg_goal(r) {
                Some(v) => write!(s, " {name}={v:.2}"),
                None => write!(s, " {name}=undef"),
            };
            let undefined = self.undefined_goals[r];
            if undefined > 0 && undefined < self.playouts {
                let _ = write!(s, "(undef={undefined})");
            }
        }
        s
    }
}

/// The fields of a summary line printed by [`BenchResult::line`], as `key=value` pairs in
/// order (the role averages after `avg_goal` included). Tokens without `=` other than
/// `avg_goal` are ignored.
pub fn parse_line(line: &str) -> Vec<(&str, &str)> {
    line.split_whitespace()
        .filter_map(|t| t.split_once('='))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl_runtime::toy::Countdown;

    #[test]
    fn counts_playouts_states_and_goals() {
        let options = BenchOptions {
            duration: Duration::from_millis(20),
            ..BenchOptions::default()
        };
        let r = run(&Countdown::new(1), &options).unwrap();
        assert!(r.playouts > 0);
        assert_eq!(r.states, r.playouts * 2);
        assert_eq!(r.avg_goal(0), Some(100.0));
        let line = r.line("countdown", "test");
        let fields = parse_line(&line);
        assert_eq!(fields[0], ("game", "countdown"));
        assert!(fields.contains(&("only", "100.00")), "{line}");
        assert!(line.contains(" avg_goal only=100.00"), "{line}");
        // Where Linux tells the CPU time, it is at most the wall-clock time of one thread and
        // the line carries it.
        if thread_cpu_time().is_some() {
            let cpu = r.cpu.expect("the CPU time of the loop");
            assert!(
                cpu > Duration::ZERO && cpu <= r.elapsed,
                "{cpu:?} {:?}",
                r.elapsed
            );
            let per_cpu: f64 = fields
                .iter()
                .find(|f| f.0 == "playouts_per_cpu_sec")
                .and_then(|f| f.1.parse().ok())
                .expect("playouts_per_cpu_sec");
            assert!(per_cpu >= r.playouts_per_sec() * 0.99, "{line}");
        }
    }

    #[test]
    fn the_cpu_time_of_a_thread_grows_with_work() {
        let Some(before) = thread_cpu_time() else {
            return;
        };
        let mut x = 1u64;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(30) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let after = thread_cpu_time().expect("still readable");
        assert!(after > before);
        assert!(after - before <= start.elapsed() + Duration::from_millis(5));
    }

    #[test]
    fn threads_add_up() {
        let options = BenchOptions {
            duration: Duration::from_millis(30),
            threads: 3,
            ..BenchOptions::default()
        };
        let game = Countdown::new(1);
        let r = run_shared(&game, &options).unwrap();
        assert_eq!(r.threads, 3);
        assert_eq!(r.states, r.playouts * 2);
        assert_eq!(r.goal_sums[0], 100 * r.playouts as i64);
        if thread_cpu_time().is_some() {
            // Three threads' CPU time, each at most the longest thread's wall-clock time.
            let cpu = r.cpu.expect("summed over the threads");
            assert!(cpu <= r.elapsed * 3, "{cpu:?} {:?}", r.elapsed);
        }
        assert!(
            r.line("countdown", "test")
                .contains(" engine=test threads=3 seconds=")
        );
        // A game that cannot be made is an error, not a panic.
        let e = run_each::<Countdown, Box<Countdown>>(&|| Err("no game".into()), &options);
        assert!(matches!(e, Err(BenchError::Fault { reason, .. }) if reason == "no game"));
        let e = run_shared(
            &Countdown::new(1000),
            &BenchOptions {
                max_steps: 5,
                ..options
            },
        );
        assert!(matches!(e, Err(BenchError::StepLimit { steps: 5, .. })));
    }

    #[test]
    fn a_game_that_never_ends_is_an_error() {
        let options = BenchOptions {
            duration: Duration::from_millis(20),
            max_steps: 10,
            ..BenchOptions::default()
        };
        let e = run(&Countdown::new(1000), &options).unwrap_err();
        assert_eq!(
            e,
            BenchError::StepLimit {
                playout: 0,
                steps: 10
            }
        );
    }
}
