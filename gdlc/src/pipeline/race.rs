//! Whether a hybrid module (a propositional network with rules joined at run time) is worth
//! generating: it is raced against the reference interpreter, in this process, and the
//! interpreter is embedded instead when the network is slower. Both play seeded random
//! playouts for a short budget of CPU time each (on threads of their own, at the same time);
//! the network runs in [`gdl_runtime::propnet::Engine`], which is what the generated module
//! runs, so no code is compiled to know. A network whose joins are expensive (chess with its
//! attack relations at run time) can be far slower than the interpreter: it may not finish one
//! state in the budget, and then the race is not waited for (the thread is left to finish its
//! step and stop): the waiting thread reads the CPU clock of each engine's thread, and an
//! engine that has spent twice its budget in one state has lost (chess's network: no state in
//! 3 s, which the race used to wait for).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use gdl_runtime::propnet::{Engine, Net};
use gdl_runtime::{Game, SplitMix64};

use crate::ast::Program;

/// How a hybrid module is raced against the interpreter ([`super::CompileOptions::race`]).
#[derive(Clone, Debug)]
pub struct RaceOptions {
    /// Whether the race is run at all (only when a description too large to ground may embed
    /// the interpreter, [`super::LastResort::EmbeddedInterpreter`]).
    pub enabled: bool,
    /// The CPU time each engine plays for.
    pub budget: Duration,
    /// The wall-clock time the race is waited for at most (a loaded machine gives the threads
    /// less than a core each); an engine that has not finished a state by then has lost. Where
    /// the CPU clock of a thread can be read, an engine stuck in a state is known sooner.
    pub wall_limit: Duration,
    /// The network is kept when its states per CPU second are at least this many times the
    /// interpreter's. Above 1: the laps are short, so a network about as fast as the
    /// interpreter may win or lose by noise; the margin keeps such a close call on the side
    /// that cannot be slower than the interpreter.
    pub min_ratio: f64,
    /// The seed of the random playouts.
    pub seed: u64,
}

impl Default for RaceOptions {
    fn default() -> Self {
        RaceOptions {
            enabled: true,
            budget: Duration::from_millis(300),
            wall_limit: Duration::from_secs(3),
            min_ratio: 1.1,
            seed: 1,
        }
    }
}

/// What an engine did in the race.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lap {
    /// States visited (each: terminal, legal moves of every role, next state).
    pub states: u64,
    /// The CPU time (of its thread) they took.
    pub cpu: Duration,
    /// Whether the engine ran to the end of its budget (not stopped by the wall-clock limit,
    /// nor by a fault or a role without moves).
    pub finished: bool,
}

impl Lap {
    /// States per CPU second (0 when none was visited).
    pub fn rate(&self) -> f64 {
        if self.states == 0 {
            return 0.0;
        }
        self.states as f64 / self.cpu.as_secs_f64().max(1e-9)
    }
}

/// The result of a race: the two laps and the engine chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Race {
    pub network: Lap,
    pub interpreter: Lap,
    /// Whether the interpreter is embedded rather than the network generated.
    pub embed_interpreter: bool,
}

/// The decision of a race: the interpreter unless the network visited states at least
/// `min_ratio` times as fast (a network that visited none loses; so does one when neither
/// did, the interpreter being the cheaper module).
pub fn decide(network: Lap, interpreter: Lap, min_ratio: f64) -> bool {
    if network.states == 0 {
        return true;
    }
    if interpreter.states == 0 {
        return false;
    }
    network.rate() < interpreter.rate() * min_ratio
}

/// Races `net` against the interpreter of `program`.
pub fn race(net: Net, program: &Program, options: &RaceOptions) -> Race {
    let start = Instant::now();
    let net = Arc::new(net);
    let seed = options.seed;
    let network = Meter::spawn(options.budget, move |m| play_network(&net, seed, m));
    let program = program.clone();
    let interpreter = Meter::spawn(options.budget, move |m| {
        if let Ok(game) = crate::interp::Interpreter::new(&program) {
            play_game(&game, seed, m);
        }
    });
    let deadline = start + options.wall_limit;
    let network = network.wait(deadline);
    let interpreter = interpreter.wait(deadline);
    let embed_interpreter = decide(network, interpreter, options.min_ratio);
    tracing::info!(
        network_states_per_cpu_s = network.rate(),
        interpreter_states_per_cpu_s = interpreter.rate(),
        ?network,
        ?interpreter,
        elapsed = ?start.elapsed(),
        engine = if embed_interpreter { "embedded-interpreter" } else { "propnet" },
        "hybrid network raced against the interpreter"
    );
    Race {
        network,
        interpreter,
        embed_interpreter,
    }
}

/// The CPU time of this thread (the wall clock where the system does not tell it).
fn cpu_now(wall: Instant) -> Duration {
    gdl_runtime::bench::thread_cpu_time().unwrap_or_else(|| wall.elapsed())
}

/// The shared counters of one engine's thread.
struct Meter {
    budget: Duration,
    /// The thread's CPU clock, once it has started (see [`ThreadClock`]).
    clock: std::sync::Mutex<Option<ThreadClock>>,
    stop: AtomicBool,
    states: AtomicU64,
    cpu_nanos: AtomicU64,
    finished: AtomicBool,
    done: std::sync::Mutex<bool>,
    signal: std::sync::Condvar,
}

/// A thread playing, and its counters.
struct Running(Arc<Meter>);

impl Meter {
    fn spawn(budget: Duration, play: impl FnOnce(&Meter) + Send + 'static) -> Running {
        let meter = Arc::new(Meter {
            budget,
            clock: std::sync::Mutex::new(None),
            stop: AtomicBool::new(false),
            states: AtomicU64::new(0),
            cpu_nanos: AtomicU64::new(0),
            finished: AtomicBool::new(false),
            done: std::sync::Mutex::new(false),
            signal: std::sync::Condvar::new(),
        });
        let m = Arc::clone(&meter);
        let spawned = std::thread::Builder::new()
            .name("gdlc-race".into())
            .spawn(move || {
                if let (Ok(mut clock), Some(c)) = (m.clock.lock(), ThreadClock::this_thread()) {
                    *clock = Some(c);
                }
                play(&m);
                if let Ok(mut done) = m.done.lock() {
                    *done = true;
                }
                m.signal.notify_all();
            });
        if spawned.is_err() {
            // No thread: a lap of no states.
            meter.stop.store(true, Ordering::Relaxed);
            if let Ok(mut done) = meter.done.lock() {
                *done = true;
            }
        }
        Running(meter)
    }

    /// Counts a state visited; whether to go on. The clock is read at powers of two and then
    /// every 256 states, so that a fast engine is not slowed by reading it.
    fn tick(&self, states: u64, wall: Instant, cpu0: Duration) -> bool {
        if states.is_power_of_two() || states % 256 == 0 {
            let cpu = cpu_now(wall).saturating_sub(cpu0);
            self.cpu_nanos
                .store(cpu.as_nanos() as u64, Ordering::Relaxed);
            self.states.store(states, Ordering::Relaxed);
            if cpu >= self.budget {
                self.finished.store(true, Ordering::Relaxed);
                return false;
            }
        }
        !self.stop.load(Ordering::Relaxed)
    }
}

/// The CPU clock of a thread, read from another one (Linux: the thread's `schedstat`).
struct ThreadClock {
    path: std::path::PathBuf,
    start: Duration,
}

impl ThreadClock {
    /// The clock of the calling thread, from now; `None` where the system does not tell it.
    fn this_thread() -> Option<ThreadClock> {
        let task = std::fs::read_link("/proc/thread-self").ok()?;
        let path = std::path::Path::new("/proc").join(task).join("schedstat");
        let start = Self::read(&path)?;
        Some(ThreadClock { path, start })
    }

    fn read(path: &std::path::Path) -> Option<Duration> {
        let text = std::fs::read_to_string(path).ok()?;
        let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
        Some(Duration::from_nanos(nanos))
    }

    /// The CPU time the thread has spent since the clock was made.
    fn elapsed(&self) -> Option<Duration> {
        Some(Self::read(&self.path)?.saturating_sub(self.start))
    }
}

/// How often a waiting race reads the CPU clocks of its engines' threads.
const POLL: Duration = Duration::from_millis(10);

/// An engine that has spent this many times its budget of CPU time without ending its lap is
/// in a state slower than the whole budget: its lap is taken as it is (an engine stops itself
/// at its budget after the state it is in, so a fast one is never cut).
const STUCK_BUDGETS: u32 = 2;

impl Running {
    /// The lap, once the thread is done, has spent [`STUCK_BUDGETS`] times its budget of CPU
    /// time in one state, or at `deadline` (then it is told to stop).
    fn wait(self, deadline: Instant) -> Lap {
        let m = &self.0;
        let mut stuck_cpu = None;
        if let Ok(mut done) = m.done.lock() {
            while !*done {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                match m.signal.wait_timeout(done, left.min(POLL)) {
                    Ok((d, _)) => done = d,
                    Err(_) => break,
                }
                if *done {
                    break;
                }
                let cpu = m
                    .clock
                    .lock()
                    .ok()
                    .and_then(|c| c.as_ref().and_then(ThreadClock::elapsed));
                if let Some(cpu) = cpu.filter(|&c| c >= m.budget * STUCK_BUDGETS) {
                    stuck_cpu = Some(cpu);
                    break;
                }
            }
        }
        m.stop.store(true, Ordering::Relaxed);
        let states = m.states.load(Ordering::Relaxed);
        Lap {
            states,
            // The states counted so far over all the time spent (the state it is in not
            // counted).
            cpu: stuck_cpu
                .unwrap_or_else(|| Duration::from_nanos(m.cpu_nanos.load(Ordering::Relaxed))),
            finished: m.finished.load(Ordering::Relaxed),
        }
    }
}

/// The longest playout: then a new one starts.
const MAX_STEPS: usize = 1000;

/// Random playouts of the network, as the generated module plays them.
fn play_network(net: &Net, seed: u64, m: &Meter) {
    let wall = Instant::now();
    let cpu0 = cpu_now(wall);
    let mut e = Engine::new(net);
    let mut rng = SplitMix64::new(seed);
    let mut state = net.init.clone();
    let mut joint = vec![0u32; net.moves.len()];
    let mut moves = Vec::new();
    let mut states = 0u64;
    loop {
        state.copy_from_slice(&net.init);
        for _ in 0..MAX_STEPS {
            e.set_state(&state);
            let terminal = e.terminal();
            let mut stuck = false;
            if !terminal {
                for (r, j) in joint.iter_mut().enumerate() {
                    moves.clear();
                    e.legal(r, &mut moves);
                    if moves.is_empty() {
                        stuck = true;
                        break;
                    }
                    *j = moves[rng.below(moves.len())];
                }
                if !stuck {
                    e.set_joint(&joint);
                    e.next(&mut state);
                }
            }
            states += 1;
            if !m.tick(states, wall, cpu0) {
                return;
            }
            if terminal {
                break;
            }
            if stuck {
                // Not playable by random moves: what was measured stands.
                return;
            }
        }
    }
}

/// Random playouts of `game` (the interpreter).
fn play_game<G: Game>(game: &G, seed: u64, m: &Meter) {
    let wall = Instant::now();
    let cpu0 = cpu_now(wall);
    let mut rng = SplitMix64::new(seed);
    let (mut scratch, mut joint) = (Vec::new(), Vec::new());
    let mut states = 0u64;
    loop {
        let mut state = game.initial_state();
        let mut next = game.initial_state();
        for _ in 0..MAX_STEPS {
            let terminal = game.is_terminal(&state);
            let stuck = !terminal
                && game
                    .random_step(&state, &mut rng, &mut scratch, &mut joint, &mut next)
                    .is_err();
            states += 1;
            if !m.tick(states, wall, cpu0) || stuck || game.fault().is_some() {
                return;
            }
            if terminal {
                break;
            }
            std::mem::swap(&mut state, &mut next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lap(states: u64, millis: u64) -> Lap {
        Lap {
            states,
            cpu: Duration::from_millis(millis),
            finished: true,
        }
    }

    #[test]
    fn an_engine_stuck_in_one_state_is_not_waited_for() {
        let budget = Duration::from_millis(20);
        let running = Meter::spawn(budget, |m| {
            // One state that never ends, until told to stop.
            let mut x = 0u64;
            while !m.stop.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        });
        let start = Instant::now();
        let lap = running.wait(start + Duration::from_secs(20));
        assert_eq!(lap.states, 0);
        assert!(!lap.finished);
        if std::path::Path::new("/proc/thread-self/schedstat").exists() {
            assert!(lap.cpu >= budget * STUCK_BUDGETS, "{lap:?}");
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{:?}",
                start.elapsed()
            );
        }
    }

    #[test]
    fn the_network_is_kept_only_when_it_is_at_least_as_fast() {
        assert!(!decide(lap(200, 100), lap(100, 100), 1.0));
        assert!(decide(lap(50, 100), lap(100, 100), 1.0));
        assert!(decide(lap(150, 100), lap(100, 100), 2.0));
        // No state in the budget: the network loses, whatever the interpreter did.
        assert!(decide(lap(0, 0), lap(0, 0), 1.0));
        assert!(decide(lap(0, 0), lap(3, 100), 1.0));
        assert!(!decide(lap(3, 100), lap(0, 0), 1.0));
    }
}
