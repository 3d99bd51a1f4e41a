//! Random playouts straight on a network's engine, as the generated propnet games make them
//! (the state synced before every query), to measure the engine without building a game:
//!
//! ```text
//! cargo run --release -p gdl-propnet --example propnet_bench -- NET_FILE [PLAYOUTS [step]]
//! ```
//!
//! `NET_FILE` holds the text of a network (the `NET_TEXT` literal of a game generated with
//! `gdlc build --backend propnet`, without the line continuations). It prints playouts per
//! second of CPU time (the machine may be shared) and the edges visited per state, split
//! between state changes and joint moves.

use std::time::Instant;

use gdl_propnet::{Engine, Net};
use gdl_runtime::SplitMix64;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: propnet_bench NET_FILE [PLAYOUTS]");
        std::process::exit(2);
    };
    let playouts: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    // `step`: each step is the engine's `random_step` (the same draws), as generated games
    // play; otherwise the moves are listed and the joint move set.
    let step_mode = args.get(3).is_some_and(|s| s == "step");
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let net = match Net::decode(&text) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("{path}: {}", e.0);
            std::process::exit(1);
        }
    };
    let roles = net.moves.len();
    let mut e = Engine::new(&net);
    let mut rng = SplitMix64::new(1);
    let mut state = net.init.clone();
    let mut next = net.init.clone();
    let mut joint = vec![0u32; roles];
    let mut moves = Vec::new();
    let mut states = 0u64;
    let mut goal_sum = 0i64;
    let mut phase = [0u64; 2];
    let start = Instant::now();
    let cpu0 = cpu_seconds().unwrap_or(0.0);
    for _ in 0..playouts {
        state.copy_from_slice(&net.init);
        for step in 0.. {
            if step == 100_000 {
                eprintln!("no terminal state after {step} steps");
                std::process::exit(1);
            }
            states += 1;
            let v0 = e.visits;
            e.set_state(&state);
            phase[0] += e.visits - v0;
            if e.terminal() {
                break;
            }
            let v0 = e.visits;
            if step_mode {
                // As the generated games play: the engine draws and steps.
                if e.random_step(&mut rng, &mut next).is_err() {
                    eprintln!("no legal move");
                    std::process::exit(1);
                }
            } else {
                for (r, j) in joint.iter_mut().enumerate() {
                    moves.clear();
                    e.set_state(&state);
                    e.legal(r, &mut moves);
                    if moves.is_empty() {
                        eprintln!("no legal move");
                        std::process::exit(1);
                    }
                    *j = moves[rng.below(moves.len())];
                }
                e.set_state(&state);
                e.set_joint(&joint);
                e.next(&mut next);
            }
            phase[1] += e.visits - v0;
            std::mem::swap(&mut state, &mut next);
        }
        for r in 0..roles {
            e.set_state(&state);
            goal_sum += i64::from(e.goal(r).unwrap_or(0));
        }
    }
    let wall = start.elapsed().as_secs_f64();
    // Time on the CPU (the machine may be shared), from the scheduler's statistics.
    let secs = cpu_seconds().map_or(wall, |c| c - cpu0);
    println!(
        "nodes={} edges={} gates={} playouts={playouts} states={states} cpu_po/s={:.0} wall={wall:.2}s visits/state={:.0} goal_sum={goal_sum}",
        net.nodes,
        net.fan.len(),
        net.thresh.iter().filter(|&&t| t != u32::MAX).count(),
        playouts as f64 / secs,
        e.visits as f64 / states as f64,
    );
    println!(
        "visits/state: state change {:.0}, joint move {:.0}",
        phase[0] as f64 / states as f64,
        phase[1] as f64 / states as f64
    );
}

/// The CPU seconds this (single-threaded) example has run, where the system tells it.
fn cpu_seconds() -> Option<f64> {
    gdl_tools::bench::thread_cpu_time().map(|d| d.as_secs_f64())
}
