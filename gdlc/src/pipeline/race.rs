//! Whether a hybrid module (a propositional network with rules joined at run time) is worth
//! generating: it is raced against the reference interpreter, in this process, and the
//! interpreter is embedded instead when the network is slower. Both play seeded random
//! playouts for a short budget of CPU time each (on threads of their own, at the same time);
//! the network runs in [`gdl_propnet::Engine`], which is what the generated module
//! runs, so no code is compiled to know. A network whose joins are expensive (chess with its
//! attack relations at run time) can be far slower than the interpreter: it may not finish one
//! state in the budget, and then the race is not waited for (the thread is left to finish its
//! step and stop): the waiting thread reads the CPU clock of each engine's thread, and an
//! engine that has spent twice its budget in one state has lost (chess's network: no state in
//! 3 s, which the race used to wait for).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use gdl_propnet::{Engine, Net};
use gdl_runtime::{Game, SplitMix64};

use crate::ast::Program;
use crate::diag::{Diagnostic, codes};

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

/// Why a race's interpreter is embedded: the reason the module's header and the warnings give.
pub fn slower(result: &Race, options: &RaceOptions) -> Diagnostic {
    Diagnostic::error(
        codes::HYBRID_SLOWER,
        Default::default(),
        format!(
            "with rules joined at run time, the network visits {:.0} states per CPU second, the \
             interpreter {:.0} (in a race of {:?} CPU time each)",
            result.network.rate(),
            result.interpreter.rate(),
            options.budget
        ),
    )
}

/// The interpreter's lap of a race, started before the network to race is built (the pipeline
/// starts it as soon as grounding has left rules to run time, so that it plays on the other
/// core while the ground program is lowered, optimised and built into a network). Dropped
/// unraced, it is told to stop.
pub struct InterpreterLap {
    running: Option<Running>,
}

impl InterpreterLap {
    /// Starts the interpreter of `program` playing its lap on a thread of its own.
    pub fn start(program: &Program, options: &RaceOptions) -> InterpreterLap {
        // The pipeline checked the program: the interpreter takes it as the front end left it.
        let checked = crate::frontend::Checked {
            program: program.clone(),
            strata: None,
            warnings: Vec::new(),
        };
        let seed = options.seed;
        let running = Meter::spawn(options.budget, move |m| {
            if let Ok(game) = crate::interp::Interpreter::from_checked(&checked, Default::default())
            {
                play_game(&game, seed, m);
            }
        });
        InterpreterLap {
            running: Some(running),
        }
    }
}

impl Drop for InterpreterLap {
    fn drop(&mut self) {
        if let Some(r) = &self.running {
            r.0.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// Races `net` against the interpreter's lap `interpreter` (started already, or now). The
/// interpreter is waited for first: once its rate is known, the network's lap is cut as soon as
/// it cannot reach `min_ratio` times it (see [`Running::wait`]), a loss the full lap would only
/// have confirmed.
pub fn race_with(net: Net, mut interpreter: InterpreterLap, options: &RaceOptions) -> Race {
    let start = Instant::now();
    let net = Arc::new(net);
    let seed = options.seed;
    let network = Meter::spawn(options.budget, move |m| play_network(&net, seed, m));
    // Waited for as long from the race's start as before it started early (a loaded machine
    // may have lent it little of the time since).
    let interpreter = match interpreter.running.take() {
        Some(r) => r.wait(start + options.wall_limit, None),
        None => Lap::default(),
    };
    let beat = (interpreter.states > 0).then(|| interpreter.rate() * options.min_ratio);
    let network = network.wait(start + options.wall_limit, beat);
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
    gdl_tools::bench::thread_cpu_time().unwrap_or_else(|| wall.elapsed())
}

/// The shared counters of one engine's thread.
struct Meter {
    budget: Duration,
    /// The thread's CPU clock, once it has started (see [`ThreadClock`]).
    clock: std::sync::Mutex<Option<ThreadClock>>,
    /// The reading of `clock` when the lap's own CPU clock started (nanoseconds; `u64::MAX`
    /// until then): the lap's CPU time is that clock's reading less this.
    lap_start: AtomicU64,
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
            lap_start: AtomicU64::new(u64::MAX),
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

    /// Notes that the lap's CPU clock starts now (see [`Meter::lap_start`]).
    fn lap_started(&self) {
        let at = self
            .clock
            .lock()
            .ok()
            .and_then(|c| c.as_ref().and_then(ThreadClock::elapsed));
        if let Some(at) = at {
            self.lap_start
                .store(at.as_nanos() as u64, Ordering::Relaxed);
        }
    }

    /// The CPU time of the lap so far, read from another thread (`None` before it started or
    /// where the system does not tell it).
    fn lap_cpu(&self, clock: Duration) -> Option<Duration> {
        let start = self.lap_start.load(Ordering::Relaxed);
        (start != u64::MAX).then(|| clock.saturating_sub(Duration::from_nanos(start)))
    }

    /// Counts a state visited; whether to go on. The clock is read at powers of two and then
    /// every 256 states ([`is_tick`]), so that a fast engine is not slowed by reading it.
    fn tick(&self, states: u64, wall: Instant, cpu0: Duration) -> bool {
        if is_tick(states) {
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

/// Whether the lap's clock is read after `states` states (see [`Meter::tick`]).
fn is_tick(states: u64) -> bool {
    states.is_power_of_two() || states % 256 == 0
}

/// The first count of states past `states` after which the clock is read.
fn next_tick(states: u64) -> u64 {
    let power = (states + 1).next_power_of_two();
    power.min((states / 256 + 1) * 256)
}

/// Whether a lap that has counted `states` (at its last tick) and spent `cpu` of its own CPU
/// time, at least its `budget`, has lost to `beat` states per CPU second: it stops at its
/// next tick ([`next_tick`]), after more CPU time, so its rate cannot pass
/// `next_tick(states) / cpu`.
fn lost(states: u64, cpu: Duration, budget: Duration, beat: f64) -> bool {
    cpu >= budget && (next_tick(states) as f64) < beat * cpu.as_secs_f64()
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
    /// time in one state, or at `deadline` (then it is told to stop). With `beat`, also as
    /// soon as the lap cannot end at that many states per CPU second or more ([`lost`]): the
    /// rate it is taken at is then below `beat` too, as the whole lap's would have been.
    fn wait(self, deadline: Instant, beat: Option<f64>) -> Lap {
        let m = &self.0;
        let mut stuck_cpu = None;
        let mut lost_at = None;
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
                if let (Some(beat), Some(lap)) = (beat, cpu.and_then(|c| m.lap_cpu(c))) {
                    let states = m.states.load(Ordering::Relaxed);
                    if lost(states, lap, m.budget, beat) {
                        lost_at = Some((states, lap));
                        break;
                    }
                }
            }
        }
        m.stop.store(true, Ordering::Relaxed);
        if let Some((states, cpu)) = lost_at {
            return Lap {
                states,
                cpu,
                finished: false,
            };
        }
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
    m.lap_started();
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
                    e.step(&joint, &mut state);
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
    m.lap_started();
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
        let lap = running.wait(start + Duration::from_secs(20), None);
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
    fn a_lap_certain_to_lose_is_cut_at_its_budget() {
        let budget = Duration::from_millis(20);
        let running = Meter::spawn(budget, |m| {
            m.lap_started();
            // One state that never ends, until told to stop.
            let mut x = 0u64;
            while !m.stop.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        });
        // The interpreter did 1,000 states per CPU second: a lap of no state yet, at 20 ms of
        // CPU time, ends at one state at most, 50 a second at best.
        let lap = running.wait(Instant::now() + Duration::from_secs(20), Some(1000.0));
        assert_eq!(lap.states, 0);
        assert!(!lap.finished);
        if std::path::Path::new("/proc/thread-self/schedstat").exists() {
            assert!(lap.cpu >= budget, "{lap:?}");
            // Not waited for until it is stuck (twice its budget); a loaded machine may be
            // late by a poll or two.
            assert!(lap.cpu < budget * STUCK_BUDGETS, "{lap:?}");
        }
    }

    #[test]
    fn a_lap_is_lost_only_when_its_next_tick_cannot_reach_the_rate() {
        assert_eq!(
            (0..6).map(next_tick).collect::<Vec<_>>(),
            [1, 2, 4, 4, 8, 8]
        );
        assert_eq!(next_tick(256), 512);
        assert_eq!(next_tick(600), 768);
        let ms = Duration::from_millis;
        // Before its budget a lap may still speed up.
        assert!(!lost(0, ms(299), ms(300), 1000.0));
        assert!(lost(0, ms(300), ms(300), 1000.0));
        // 2,560 states at 300 ms: the next tick is 2,816, 9,387 a second at best.
        assert!(lost(2560, ms(300), ms(300), 9400.0));
        assert!(!lost(2560, ms(300), ms(300), 9300.0));
        for n in 1..5000 {
            assert!(is_tick(next_tick(n)) && (n + 1..next_tick(n)).all(|k| !is_tick(k)));
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
