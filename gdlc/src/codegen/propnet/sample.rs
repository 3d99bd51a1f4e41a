//! Sampled playouts on a network, and what the propnet backend decides from them: which
//! literals [`optimise::demux`] reads through blocks of their selectors.

use gdl_propnet::Net;

use super::build::{Signal, build_plain, output_only};
use crate::ir::{Input, Ir};
use crate::optimise;

/// [`optimise::demux`] on `ir`, with the activity of its literals sampled on its network.
/// Returns the activity of the state bits, when it sampled them (any network of the game
/// plays the same states).
pub(super) fn demux(ir: &mut Ir) -> Option<Vec<optimise::Activity>> {
    // The legal moves read by their output only keep their guard (see `legal_guards`).
    let only = output_only(ir);
    let mut keep = vec![false; ir.props.len()];
    for l in ir.legal.iter().flatten() {
        if let Input::Prop(p) = l.input
            && only[p as usize]
        {
            keep[p as usize] = true;
        }
    }
    let mut options = optimise::DemuxOptions {
        keep,
        ..Default::default()
    };
    // Every bit a selector, until the sample says which are.
    options.bits = vec![optimise::Activity::default(); ir.bits.len()];
    let candidates = optimise::demux_candidates(ir, &options);
    if candidates.is_empty() {
        return None;
    }
    let (net, signals) = build_plain(ir);
    let watched: Vec<(Input, Signal)> = candidates
        .into_iter()
        .filter_map(|i| Some((i, signals.of(i)?)))
        .collect();
    let limit = Limit {
        states: 1000,
        work: Some(DEMUX_WORK),
        engine: Default::default(),
    };
    let s = sample(
        &net,
        limit,
        &watched.iter().map(|w| w.1).collect::<Vec<_>>(),
    );
    tracing::debug!(
        states = s.states.len(),
        visits = s.visits,
        nodes = net.nodes,
        "demux sample"
    );
    options.bits = s.bits;
    options.states = s.states;
    options.inputs = watched.iter().map(|w| w.0).zip(s.watched).collect();
    optimise::demux(ir, &options);
    Some(options.bits)
}

/// [`optimise::guard_chains`] on `ir`, with the activity of the state bits: `bits`, else
/// sampled on its network (when some conjunction is a candidate).
pub(super) fn guard_chains(ir: &mut Ir, bits: Option<Vec<optimise::Activity>>) -> bool {
    let at = std::time::Instant::now();
    let bits = match bits {
        Some(bits) => bits,
        None if optimise::guard_chain_candidates(ir) => {
            let (net, _) = build_plain(ir);
            let limit = Limit {
                states: 1000,
                work: Some(DEMUX_WORK),
                engine: Default::default(),
            };
            sample(&net, limit, &[]).bits
        }
        None => return false,
    };
    let sampled = at.elapsed();
    let options = optimise::ChainOptions {
        bits,
        ..Default::default()
    };
    let props = ir.props.len();
    let changed = optimise::guard_chains(ir, &options);
    tracing::debug!(
        ?sampled,
        took = ?at.elapsed(),
        props,
        added = ir.props.len() - props,
        "guard chains"
    );
    changed
}

/// Per state bit of `ir`, the fraction of the states of a few seeded random playouts on its
/// network in which it holds (1,000 states, fewer past [`HELD_WORK`]): what the inline
/// backend's blocks of legal moves are decided from (`inline/guards.rs`). The same on every
/// machine (counted work, seed 1).
pub(crate) fn bits_held(ir: &Ir) -> Vec<optimise::Activity> {
    let at = std::time::Instant::now();
    let (net, _) = build_plain(ir);
    let limit = Limit {
        states: 1000,
        work: Some(HELD_WORK),
        engine: Default::default(),
    };
    let held = sample(&net, limit, &[]).bits;
    tracing::debug!(took = ?at.elapsed(), nodes = net.nodes, "bits held");
    held
}

/// The work of the sample of [`bits_held`]: a tenth of [`DEMUX_WORK`] (about 0.1 s).
const HELD_WORK: u64 = DEMUX_WORK / 10;

/// The work (see [`Limit::work`]) of the sample [`demux`] plays: 1,000 states of a network
/// that visits 100,000 edges per state. amazonsTorus (1.3 million nodes, 40,400 recursive
/// groups re-evaluated at every state) took 5.7 s for 1,000 states; its activities are as
/// clear after the first hundred.
const DEMUX_WORK: u64 = 100_000_000;

/// How long [`sample`] plays.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limit {
    /// At most this many states.
    pub(super) states: u64,
    /// Once past [`MIN_STATES`], at most this much work: edges visited, plus the nodes of the
    /// network's recursive groups once per state (the engine may settle each group at every
    /// state, and does not count that work in its visits). Counted, not timed, so the sample
    /// and what the compiler decides from it do not depend on the machine.
    pub(super) work: Option<u64>,
    /// How the sampled engine is built.
    pub(super) engine: gdl_propnet::EngineOptions,
}

/// The states a sample with a work limit plays at least.
const MIN_STATES: u64 = 100;

/// What [`sample`] measured.
pub(super) struct Sample {
    /// Edges visited per state.
    pub(super) visits: f64,
    /// Per state bit, its activity.
    bits: Vec<optimise::Activity>,
    /// Per watched signal, its activity (read after the state change and after the joint
    /// move).
    watched: Vec<optimise::Activity>,
    /// The states played, in order (kept when watching signals).
    states: Vec<Vec<u64>>,
}

/// A few seeded random playouts (within `limit`) on the network, watching the values of
/// `watch`.
pub(super) fn sample(net: &Net, limit: Limit, watch: &[Signal]) -> Sample {
    use gdl_propnet::Engine;
    use gdl_runtime::SplitMix64;
    let mut e = Engine::with_options(net, limit.engine);
    let mut rng = SplitMix64::new(1);
    let mut state = net.init.clone();
    let mut joint = vec![0u32; net.moves.len()];
    let mut moves = Vec::new();
    let mut states = 0u64;
    let bits = net.bits as usize;
    // Per bit and per watched signal: (reads true, changes), and the last value read.
    let mut bit_counts = vec![(0u64, 0u64); bits];
    let mut counts = vec![(0u64, 0u64); watch.len()];
    let mut last: Vec<bool> = watch.iter().map(|_| false).collect();
    let mut last_state = net.init.clone();
    let mut reads = 0u64;
    let mut played = Vec::new();
    let start = e.visits;
    let group_nodes: u64 = net.groups.iter().map(|&(a, b)| u64::from(b - a)).sum();
    // Whether the states played so far are enough.
    let enough = |e: &Engine, states: u64| {
        states >= limit.states
            || limit.work.is_some_and(|work| {
                states >= MIN_STATES && (e.visits - start) + states * group_nodes >= work
            })
    };
    let read = |e: &Engine, counts: &mut [(u64, u64)], last: &mut [bool]| {
        for ((s, c), v) in watch.iter().zip(counts.iter_mut()).zip(last.iter_mut()) {
            let x = e.node_value(s.node) != s.neg;
            c.0 += u64::from(x);
            c.1 += u64::from(x != *v);
            *v = x;
        }
    };
    'playouts: for _ in 0..50 {
        state.copy_from_slice(&net.init);
        for _ in 0..1000 {
            e.set_state(&state);
            states += 1;
            for (b, c) in bit_counts.iter_mut().enumerate() {
                let x = state[b / 64] >> (b % 64) & 1;
                c.0 += x;
                c.1 += x ^ last_state[b / 64] >> (b % 64) & 1;
            }
            last_state.copy_from_slice(&state);
            if !watch.is_empty() {
                played.push(state.clone());
            }
            read(&e, &mut counts, &mut last);
            reads += 1;
            if e.terminal() || enough(&e, states) {
                break;
            }
            for (r, j) in joint.iter_mut().enumerate() {
                moves.clear();
                e.legal(r, &mut moves);
                // A role without a legal move ends the playout: `terminal` says so too,
                // unless it was taken out of the network (`stuck.rs`).
                if moves.is_empty() {
                    continue 'playouts;
                }
                *j = moves[rng.below(moves.len())];
            }
            e.set_joint(&joint);
            read(&e, &mut counts, &mut last);
            reads += 1;
            e.next(&mut state);
        }
        if enough(&e, states) {
            break;
        }
    }
    let s = states.max(1) as f64;
    let activity = |&(held, changes): &(u64, u64), reads: f64| optimise::Activity {
        held: held as f64 / reads,
        changes: changes as f64 / s,
    };
    Sample {
        visits: (e.visits - start) as f64 / s,
        bits: bit_counts.iter().map(|c| activity(c, s)).collect(),
        watched: counts
            .iter()
            .map(|c| activity(c, reads.max(1) as f64))
            .collect(),
        states: played,
    }
}
