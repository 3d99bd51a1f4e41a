//! MCTS iterations per second on an embedded game with 1 and 2 (or N) threads: the search of
//! `gdl_player::ParallelMcts` from the initial state for S seconds per thread count.
//!
//! ```sh
//! cargo run --release --example mcts_speed -- connectFour 5 2
//! cargo run --release --example mcts_speed -- connectFour 5 2 baseline
//! cargo run --release --example mcts_speed -- connectFour 5 2 mcts mast
//! cargo run --release --example mcts_speed --features corpus-games -- 3pConnectFour 5 1
//! cargo run --release --example mcts_speed --features corpus-games -- hex 5 1 mcts nst plain grave
//! ```
//!
//! The fourth argument is the search (`mcts`, the default, or `baseline`), the fifth the
//! playout policy (`uniform`, the default, `mast`, `decisive`, `anti-decisive`), the sixth the
//! expansion (`plain`, the default, or `decisive`), the seventh the AMAF statistics of selection
//! (`off`, the default, `rave`, `grave`).
//!
//! A last line plays one game, each role searched by its own player with MAX_THREADS threads
//! for a tenth of SECONDS a move (at least 50 ms; 300 plies at most), and gives the longest
//! pause between moves: the time `observe` takes to move a player's tree to the next state
//! (`observe_ms_max`, the tree kept and, when its store is full, its least recently visited
//! nodes freed) and the most a `choose` ran past its deadline (`late_ms_max`).
//!
//! On Linux each line also gives `cpus`, the processor time the process used during the search
//! divided by its duration (from `/proc/self/stat`, in the kernel's 1/100 s ticks): with 2
//! threads on a machine busy with other work it is below 2, and the speed-up with it.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_examples::breakthrough::Breakthrough;
use gdl_examples::{GAMES, connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use gdl_player::{
    AmafMode, AmafOptions, Expansion, MctsOptions, ParallelMcts, Player, PlayoutPolicy, Search,
};
use gdl_runtime::Game;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("connectFour", String::as_str);
    let seconds: f64 = match args.get(1).map(|s| s.parse()) {
        None => 5.0,
        Some(Ok(s)) if s > 0.0 => s,
        Some(_) => return usage(),
    };
    let threads: usize = match args.get(2).map(|s| s.parse()) {
        None => 2,
        Some(Ok(t)) if t > 0 => t,
        Some(_) => return usage(),
    };
    let search = match args.get(3).map(|s| Search::parse(s)) {
        None => Search::Mcts,
        Some(Some(s)) => s,
        Some(None) => return usage(),
    };
    let playout = match args.get(4).map(|s| PlayoutPolicy::parse(s)) {
        None => PlayoutPolicy::Uniform,
        Some(Some(p)) => p,
        Some(None) => return usage(),
    };
    let expansion = match args.get(5).map(|s| Expansion::parse(s)) {
        None => Expansion::Plain,
        Some(Some(e)) => e,
        Some(None) => return usage(),
    };
    let amaf = match args.get(6).map(|s| AmafMode::parse(s)) {
        None => AmafMode::Off,
        Some(Some(m)) => m,
        Some(None) => return usage(),
    };
    let options = MctsOptions {
        search,
        playout,
        expansion,
        amaf: AmafOptions {
            mode: amaf,
            ..AmafOptions::default()
        },
        ..MctsOptions::default()
    };
    match name {
        "ticTacToe" => speed(&TicTacToe, name, seconds, threads, &options),
        "connectFour" => speed(&ConnectFour, name, seconds, threads, &options),
        "breakthrough" => speed(&Breakthrough, name, seconds, threads, &options),
        #[cfg(feature = "corpus-games")]
        "englishDraughts" => speed(
            &gdl_examples::english_draughts::EnglishDraughts,
            name,
            seconds,
            threads,
            &options,
        ),
        #[cfg(feature = "corpus-games")]
        "reversi" => speed(
            &gdl_examples::reversi::Reversi,
            name,
            seconds,
            threads,
            &options,
        ),
        #[cfg(feature = "corpus-games")]
        "hex" => speed(&gdl_examples::hex::Hex, name, seconds, threads, &options),
        #[cfg(feature = "corpus-games")]
        "3pConnectFour" => speed(
            &gdl_examples::three_player_connect_four::ThreePlayerConnectFour,
            name,
            seconds,
            threads,
            &options,
        ),
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: mcts_speed [{}] [SECONDS] [MAX_THREADS] [mcts|baseline] \
         [uniform|mast|nst|decisive|anti-decisive|anti-decisive-nst] [plain|decisive] [off|rave|grave]",
        GAMES.join("|")
    );
    ExitCode::FAILURE
}

fn speed<G: Game + Sync>(
    game: &G,
    name: &str,
    seconds: f64,
    max_threads: usize,
    options: &MctsOptions,
) -> ExitCode
where
    G::State: Send + Sync,
    G::Move: Send,
{
    let mut base = 0.0;
    for threads in 1..=max_threads {
        rate_line(game, name, seconds, threads, options, &mut base);
    }
    pause_line(game, name, seconds, max_threads, options);
    ExitCode::SUCCESS
}

/// Searches `game`'s initial state for `seconds` with `threads` threads and prints the rate
/// (its speed-up over `base`, the rate with one thread, which this sets when `threads` is 1).
fn rate_line<G: Game + Sync>(
    game: &G,
    name: &str,
    seconds: f64,
    threads: usize,
    options: &MctsOptions,
    base: &mut f64,
) where
    G::State: Send + Sync,
    G::Move: Send,
{
    let mut p = ParallelMcts::new(options.clone(), threads);
    p.start(game, 0, Instant::now());
    let state = game.initial_state();
    let cpu = cpu_seconds();
    let start = Instant::now();
    p.choose(game, &state, start + Duration::from_secs_f64(seconds));
    let elapsed = start.elapsed().as_secs_f64();
    let cpus = cpu_seconds()
        .zip(cpu)
        .map(|(after, before)| format!(" cpus={:.2}", (after - before) / elapsed))
        .unwrap_or_default();
    let rate = p.stats().iterations as f64 / elapsed;
    if threads == 1 {
        *base = rate;
    }
    println!(
        "game={name} search={} threads={threads} iterations_per_sec={rate:.0} speedup={:.2} \
         nodes={}{cpus}",
        p.name(),
        rate / base.max(1e-9),
        p.stats().nodes
    );
}

/// The most plies of the game [`pause_line`] plays.
const MAX_PLIES: usize = 300;

/// Plays one game of `game`, a player of `threads` threads for each role at a tenth of
/// `seconds` a move, and prints the longest pauses between moves (see the module's text).
fn pause_line<G: Game + Sync>(
    game: &G,
    name: &str,
    seconds: f64,
    threads: usize,
    options: &MctsOptions,
) where
    G::State: Send + Sync,
    G::Move: Send,
{
    let per_move = Duration::from_secs_f64((seconds / 10.0).max(0.05));
    let roles = game.role_count();
    let mut players: Vec<ParallelMcts<G>> = (0..roles)
        .map(|_| ParallelMcts::new(options.clone(), threads))
        .collect();
    for (role, p) in players.iter_mut().enumerate() {
        p.start(game, role, Instant::now());
    }
    let (mut state, mut next) = (game.initial_state(), game.initial_state());
    let (mut observe_max, mut late_max) = (Duration::ZERO, Duration::ZERO);
    let (mut plies, mut scratch, mut joint) = (0, Vec::new(), Vec::new());
    while plies < MAX_PLIES && !game.is_terminal(&state) {
        joint.clear();
        for (role, p) in players.iter_mut().enumerate() {
            game.legal_moves(&state, role, &mut scratch);
            let deadline = Instant::now() + per_move;
            // A role with one move (or none) plays it without a search.
            let searched = (scratch.len() > 1)
                .then(|| p.choose(game, &state, deadline))
                .flatten();
            late_max = late_max.max(Instant::now().saturating_duration_since(deadline));
            match searched.or_else(|| scratch.first().cloned()) {
                Some(m) => joint.push(m),
                None => {
                    println!("game={name} pause: role {role} has no legal move at ply {plies}");
                    return;
                }
            }
        }
        game.next_state(&state, &joint, &mut next);
        for p in &mut players {
            let start = Instant::now();
            p.observe(game, &joint, &next);
            observe_max = observe_max.max(start.elapsed());
        }
        std::mem::swap(&mut state, &mut next);
        plies += 1;
    }
    println!(
        "game={name} search={} threads={threads} move_ms={} plies={plies} \
         observe_ms_max={:.1} late_ms_max={:.1}",
        players.first().map_or("none", |p| p.name()),
        per_move.as_millis(),
        observe_max.as_secs_f64() * 1e3,
        late_max.as_secs_f64() * 1e3,
    );
}

/// The processor time (user and system) this process has used, in seconds: fields 14 and 15
/// of `/proc/self/stat`, in ticks of 1/100 s. `None` where there is no such file.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}
