//! The engine's tests, on a small network built by hand.

use super::*;

/// The out-edges of each node of a network given by each gate's inputs (`source << 1 | negated`),
/// as the engine's edges (`target << 2 | negated`).
pub(super) fn out_edges(ins: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); ins.len()];
    for (t, l) in ins.iter().enumerate() {
        for &x in l {
            edges[(x >> 1) as usize].push((t as u32) << 2 | (x & 1));
        }
    }
    edges
}

/// The out-edges of each node (`edges[n]`), as a network's `fan_start` and `fan`.
pub(super) fn fan_table(edges: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut fan_start = vec![0];
    let mut fan = Vec::new();
    for l in edges {
        fan.extend_from_slice(l);
        fan_start.push(fan.len() as u32);
    }
    (fan_start, fan)
}

/// Two state bits a, b; one role with moves m0, m1; gates: x = a & !b, y = x | m1,
/// group {p, q}: p = q | y, q = p (recursive).
fn net() -> Net {
    // nodes: 0 a, 1 b, 2 m0, 3 m1, 4 x, 5 y, 6 p, 7 q, 8 terminal(=p buffer),
    // 64.. legal (m0 = a buffer, m1 = true), 128.. next (a' = y, b' = !a)
    let nodes = 130u32;
    let mut thresh = vec![u32::MAX; nodes as usize];
    thresh[4] = 2;
    thresh[5] = 1;
    thresh[6] = 1;
    thresh[7] = 1;
    thresh[8] = 1;
    thresh[64] = 1;
    thresh[65] = 0;
    thresh[128] = 1;
    thresh[129] = 1;
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
    let e = |t: u32, g: u32, neg: u32| t << 2 | g << 1 | neg;
    edges[0] = vec![e(4, 0, 0), e(64, 0, 0), e(129, 0, 1)];
    edges[1] = vec![e(4, 0, 1)];
    edges[3] = vec![e(5, 0, 0)];
    edges[4] = vec![e(5, 0, 0)];
    edges[5] = vec![e(6, 1, 0), e(128, 0, 0)];
    edges[6] = vec![e(8, 0, 0)];
    let (fan_start, fan) = fan_table(&edges);
    let mut group_of = vec![NONE; nodes as usize];
    group_of[6] = 0;
    group_of[7] = 0;
    let mut inner_start = vec![0u32; nodes as usize + 1];
    // 6 -> 7, 7 -> 6
    for (n, start) in inner_start.iter_mut().enumerate() {
        *start = match n {
            0..=6 => 0,
            7 => 1,
            _ => 2,
        };
    }
    Net {
        nodes,
        bits: 2,
        does_base: vec![2],
        moves: vec![2],
        thresh,
        fan_start,
        fan,
        group_of,
        groups: vec![(6, 8)],
        inner_start,
        inner: vec![7, 6],
        legal_base: vec![64],
        legal_guard: vec![vec![u32::MAX, 1 << 1 | 1]],
        next_base: 128,
        terminal: 8,
        goals: vec![vec![(Some(100), 6), (Some(0), 1)]],
        init: vec![0b01],
        group_join: vec![u32::MAX],
        joins: JoinProgram::default(),
        // Percepts: p0 = y (after the move), p1 = !a.
        sees: vec![vec![128, 129]],
        stuck: Vec::new(),
        rows: NextRows::default(),
    }
}

#[test]
fn values_follow_inputs() {
    let n = net();
    let text = n.encode();
    let n = Net::decode(&text).unwrap();
    let mut e = Engine::new(&n);
    // a = 1, b = 0: x = 1, y = 1, p = q = 1.
    assert!(e.terminal());
    let mut l = Vec::new();
    e.legal(0, &mut l);
    assert_eq!(l, vec![0, 1]);
    let mut out = [0u64];
    e.next(&mut out);
    assert_eq!(out[0], 0b01);
    assert_eq!(e.goal(0), Some(100));
    // b = 1: x = 0, y = 0 (no move), the group falls; m1's guard (!b) fails.
    e.set_state(&[0b11]);
    assert!(!e.terminal());
    assert_eq!(e.goal(0), Some(0));
    l.clear();
    e.legal(0, &mut l);
    assert_eq!(l, vec![0]);
    e.set_joint(&[1]);
    assert!(e.terminal());
    e.next(&mut out);
    assert_eq!(out[0], 0b01);
    e.set_joint(&[0]);
    assert!(!e.terminal());
    e.set_state(&[0b00]);
    e.next(&mut out);
    assert_eq!(out[0], 0b10);
    l.clear();
    e.legal(0, &mut l);
    assert_eq!(l, vec![1]);
    assert_eq!(e.goal(0), None);
    let mut seen = Vec::new();
    e.sees(0, &mut seen);
    assert_eq!(seen, vec![1]);
    e.set_state(&[0b01]);
    e.set_joint(&[1]);
    seen.clear();
    e.sees(0, &mut seen);
    assert_eq!(seen, vec![0]);
    e.sees(1, &mut seen);
    assert_eq!(seen, vec![0]);
    // Back to the start: same values as a fresh engine.
    e.set_joint(&[u32::MAX]);
    e.set_state(&[0b01]);
    assert!(e.terminal());
}

/// Moves with different guards: the first guard found (m0's `b`) is tested once per
/// listing, m1's (`!b`) per move.
#[test]
fn legal_moves_follow_their_guards() {
    let mut n = net();
    n.legal_guard = vec![vec![1 << 1, 1 << 1 | 1]];
    let n = Net::decode(&n.encode()).unwrap();
    let mut e = Engine::new(&n);
    let mut l = Vec::new();
    // m0 needs a (its output) and b (its guard); m1 needs !b.
    for (state, want) in [
        (0b00, vec![1]),
        (0b01, vec![1]),
        (0b11, vec![0]),
        (0b10, vec![]),
    ] {
        e.set_state(&[state]);
        l.clear();
        e.legal(0, &mut l);
        assert_eq!(l, want, "state {state:#b}");
    }
}

/// Rows over [`net`]'s next state: bit b keeps its held value unless m0 is played (a kill),
/// but m0 keeps it when a holds (a keep under a state bit, which the kill does not undo), m1
/// sets it when a holds (a set under a state bit), and the network's own output for b (`!a`)
/// is ored in after the kills.
#[test]
fn next_state_rows_add_to_the_network_s_outputs() {
    let mut n = net();
    let entry = |cond, what, mask| RowEntry {
        cond,
        at: what,
        mask,
    };
    n.rows = NextRows {
        frame: vec![0b10],
        start: vec![vec![0, 2, 3]],
        entries: vec![
            entry(u32::MAX, KILL, 0b10),
            entry(0, KEEP, 0b10),
            entry(0, SET, 0b10),
        ],
    };
    let n = Net::decode(&n.encode()).unwrap();
    assert_eq!(n.rows.entries.len(), 3);
    let mut e = Engine::new(&n);
    let mut out = [0u64];
    for (state, m, next) in [
        (0b11, 0, 0b10),
        (0b10, 0, 0b10),
        (0b11, 1, 0b11),
        (0b01, 0, 0b01),
        (0b01, 1, 0b11),
        (0b00, 0, 0b10),
        (0b10, 1, 0b11),
    ] {
        e.set_state(&[state]);
        e.set_joint(&[m]);
        e.next(&mut out);
        assert_eq!(out[0], next, "state {state:#b}, move {m}");
    }
    // Rows that do not fit the network do not decode.
    let mut bad = net();
    bad.rows = NextRows {
        frame: vec![0b10],
        start: vec![vec![0, 1]],
        entries: vec![entry(u32::MAX, KILL, 0b10)],
    };
    assert!(Net::decode(&bad.encode()).is_err());
}

#[test]
fn bad_text_is_an_error() {
    assert!(Net::decode("").is_err());
    assert!(Net::decode("!!").is_err());
    let mut t = net().encode();
    t.truncate(t.len() / 2);
    assert!(Net::decode(&t).is_err());
}

/// The edges visited (what the cost model of gdlc reads) count each visited out-edge and
/// one per visited node, whatever the engine's layout.
#[test]
fn visits_count_edges_and_nodes() {
    let n = net();
    let mut e = Engine::new(&n);
    let start = e.visits;
    e.set_state(&[0b11]);
    e.set_joint(&[1]);
    e.set_joint(&[0]);
    e.set_state(&[0b00]);
    e.set_state(&[0b01]);
    e.set_joint(&[u32::MAX]);
    assert_eq!(e.visits - start, 56);
}

/// Whatever the order of the changes (some gates change and change back within a step),
/// the values and counts the engine ends with are those of a full evaluation; and so they
/// are when a propagation goes over its budget (here none) and the engine starts afresh.
#[test]
fn incremental_values_are_those_of_a_full_evaluation() {
    for budget in [None, Some(0)] {
        incremental_values_match(budget);
    }
}

fn incremental_values_match(budget: Option<u64>) {
    let n = net();
    let mut e = Engine::new(&n);
    if let Some(b) = budget {
        e.budget = b;
    }
    let mut rng = gdl_runtime::SplitMix64::new(7);
    for _ in 0..300 {
        let state = rng.below(4) as u64;
        let joint = [rng.below(3) as u32].map(|m| m.checked_sub(1).unwrap_or(u32::MAX));
        e.set_state(&[state]);
        e.set_joint(&joint);
        let mut full = Engine::new(&n);
        full.state = vec![state];
        full.joint = joint.to_vec();
        full.evaluate_all();
        assert_eq!(e.value, full.value, "state {state:#b}, move {joint:?}");
        let counts = |x: &Engine| x.nodes.iter().map(|n| n.count).collect::<Vec<_>>();
        assert_eq!(counts(&e), counts(&full));
    }
}

/// A move drawn without listing is the listed move of the same draw, the generator left
/// where the list's draw leaves it; a role without moves draws nothing; a random step is
/// the draws, the joint move and the next state.
#[test]
fn random_draws_are_those_of_the_list() {
    let mut n = net();
    n.legal_guard = vec![vec![1 << 1, 1 << 1 | 1]];
    let n = Net::decode(&n.encode()).unwrap();
    let mut e = Engine::new(&n);
    let mut listed = Engine::new(&n);
    let mut l = Vec::new();
    let mut states = gdl_runtime::SplitMix64::new(3);
    for seed in 0..200 {
        let state = states.below(4) as u64;
        e.set_state(&[state]);
        listed.set_state(&[state]);
        l.clear();
        listed.legal(0, &mut l);
        let (mut a, mut b) = (
            gdl_runtime::SplitMix64::new(seed),
            gdl_runtime::SplitMix64::new(seed),
        );
        let want = (!l.is_empty()).then(|| l[b.below(l.len())]);
        assert_eq!(e.random_legal(0, &mut a), want, "state {state:#b}");
        assert_eq!(a.next_u64(), b.next_u64());
        let (mut a, mut b) = (
            gdl_runtime::SplitMix64::new(seed),
            gdl_runtime::SplitMix64::new(seed),
        );
        let mut next = [0u64];
        let stepped = e.random_step(&mut a, &mut next);
        match want {
            None => assert_eq!(stepped, Err(0)),
            Some(_) => {
                assert_eq!(stepped, Ok(()));
                let m = l[b.below(l.len())];
                listed.set_joint(&[m]);
                let mut expected = [0u64];
                listed.next(&mut expected);
                assert_eq!(next, expected, "state {state:#b}, move {m}");
            }
        }
    }
}

/// Eleven state bits: `busy` (0) and one per move (1..=10); one role with ten moves, move `m`
/// legal when `!busy` and bit `m + 1`: an and-gate each, `busy` an input of all ten.
fn shared_input_net() -> Net {
    let nodes = 192u32;
    let mut thresh = vec![u32::MAX; nodes as usize];
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
    for m in 0..10u32 {
        thresh[64 + m as usize] = 2;
        edges[0].push((64 + m) << 2 | 1);
        edges[1 + m as usize].push((64 + m) << 2);
    }
    let (fan_start, fan) = fan_table(&edges);
    Net {
        nodes,
        bits: 11,
        does_base: vec![11],
        moves: vec![10],
        thresh,
        fan_start,
        fan,
        group_of: vec![NONE; nodes as usize],
        inner_start: vec![0; nodes as usize + 1],
        legal_base: vec![64],
        legal_guard: vec![vec![NONE; 10]],
        next_base: 128,
        terminal: 21,
        goals: vec![Vec::new()],
        init: vec![0],
        ..Net::default()
    }
}

/// An input that many legal outputs share is tested when moves are listed instead of kept as
/// an edge into each: the moves listed are those of the network, through every change of
/// state, and the values and counts the engine keeps are those of a full evaluation.
#[test]
fn a_shared_input_of_legal_outputs_is_tested_when_listing() {
    let n = Net::decode(&shared_input_net().encode()).unwrap();
    let mut e = Engine::new(&n);
    assert_eq!(e.lowered.len(), 10);
    let mut rng = gdl_runtime::SplitMix64::new(5);
    let mut l = Vec::new();
    for _ in 0..300 {
        let state = rng.next_u64() & 0x7ff;
        e.set_state(&[state]);
        l.clear();
        e.legal(0, &mut l);
        let want: Vec<u32> = (0..10)
            .filter(|m| state & 1 == 0 && state >> (m + 1) & 1 != 0)
            .collect();
        assert_eq!(l, want, "state {state:#b}");
        let mut full = Engine::new(&n);
        full.state = vec![state];
        full.evaluate_all();
        assert_eq!(e.value, full.value, "state {state:#b}");
        let counts = |x: &Engine| x.nodes.iter().map(|n| n.count).collect::<Vec<_>>();
        assert_eq!(counts(&e), counts(&full));
    }
    // An output read otherwise (here a goal) keeps its input.
    let mut read = shared_input_net();
    read.goals = vec![vec![(Some(100), 64)]];
    assert_eq!(Engine::new(&read).lowered.len(), 9);
}

/// Goals read by gates that the engine renumbers (see `order.rs`) are read in the network's
/// numbering by `goal` and `goal_values` alike.
#[test]
fn goal_values_read_renumbered_gates() {
    // Bits a (0), b (1); move m (2); gates p = a (3), q = b (4), r = q & !a (5), t = p & b (6),
    // which the engine places as p, q, t, r; legal output at 64 (always), next at 128.
    let nodes = 130u32;
    let mut thresh = vec![u32::MAX; nodes as usize];
    for (n, t) in [(3, 1), (4, 1), (5, 2), (6, 2), (64, 0), (128, 1), (129, 1)] {
        thresh[n] = t;
    }
    let e = |t: u32, neg: u32| t << 2 | neg;
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
    edges[0] = vec![e(3, 0), e(5, 1), e(128, 0)];
    edges[1] = vec![e(4, 0), e(6, 0), e(129, 0)];
    edges[3] = vec![e(6, 0)];
    edges[4] = vec![e(5, 0)];
    let (fan_start, fan) = fan_table(&edges);
    let net = Net {
        nodes,
        bits: 2,
        does_base: vec![2],
        moves: vec![1],
        thresh,
        fan_start,
        fan,
        group_of: vec![NONE; nodes as usize],
        inner_start: vec![0; nodes as usize + 1],
        legal_base: vec![64],
        legal_guard: vec![vec![u32::MAX]],
        next_base: 128,
        terminal: 3,
        goals: vec![vec![(Some(100), 6), (Some(0), 5)]],
        init: vec![0b11],
        ..Net::default()
    };
    let order = order::locality_order(&net);
    assert_ne!(order.new_of[5], 5, "the test needs a renumbered goal gate");
    let mut engine = Engine::new(&net);
    let mut values = Vec::new();
    for (state, goal) in [(0b11, Some(100)), (0b10, Some(0)), (0b01, None)] {
        engine.set_state(&[state]);
        assert_eq!(engine.goal(0), goal, "state {state:#b}");
        engine.goal_values(0, &mut values);
        assert_eq!(values, goal.into_iter().map(Some).collect::<Vec<_>>());
    }
}

/// A random network of `seed`: twelve state bits, one role of four moves, 48 gates (and, or,
/// or another threshold of two to five inputs among the nodes before it, some negated), four
/// legal outputs and the twelve next-state outputs reading the gates.
fn random_net(seed: u64) -> Net {
    let mut rng = gdl_runtime::SplitMix64::new(seed);
    let nodes = 192u32;
    let mut thresh = vec![u32::MAX; nodes as usize];
    let mut ins: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
    let gates = (16..64u32).chain(64..68).chain(128..140);
    for g in gates {
        // Outputs read the gates; gates read what comes before them.
        let from = if g < 64 { g } else { 64 };
        let k = 2 + rng.below(4) as u32;
        for _ in 0..k {
            let s = rng.below(from as usize) as u32;
            ins[g as usize].push(s << 1 | u32::from(rng.below(3) == 0));
        }
        let k = ins[g as usize].len() as u32;
        thresh[g as usize] = match rng.below(4) {
            0 | 1 => k,
            2 => 1,
            _ => 1 + rng.below(k as usize) as u32,
        };
    }
    let (fan_start, fan) = fan_table(&out_edges(&ins));
    Net {
        nodes,
        bits: 12,
        does_base: vec![12],
        moves: vec![4],
        thresh,
        fan_start,
        fan,
        group_of: vec![NONE; nodes as usize],
        inner_start: vec![0; nodes as usize + 1],
        legal_base: vec![64],
        legal_guard: vec![vec![NONE; 4]],
        next_base: 128,
        terminal: 63,
        goals: vec![Vec::new()],
        init: vec![rng.next_u64() & 0xfff],
        ..Net::default()
    }
}

/// On random networks, through random changes of state and move, the engine (built by
/// `options`) keeps the values and counts of a full evaluation.
fn random_networks_match(options: EngineOptions) {
    for seed in 0..40 {
        let n = random_net(seed);
        let mut e = Engine::with_options(&n, options);
        let mut rng = gdl_runtime::SplitMix64::new(seed + 1000);
        for step in 0..200 {
            let state = rng.next_u64() & 0xfff;
            let joint = [rng.below(5) as u32].map(|m| m.checked_sub(1).unwrap_or(u32::MAX));
            e.set_state(&[state]);
            e.set_joint(&joint);
            let mut full = Engine::with_options(&n, options);
            full.state = vec![state];
            full.joint = joint.to_vec();
            full.evaluate_all();
            assert_eq!(e.value, full.value, "net {seed}, step {step}");
            let counts = |x: &Engine| x.nodes.iter().map(|n| n.count).collect::<Vec<_>>();
            assert_eq!(counts(&e), counts(&full), "net {seed}, step {step}");
        }
    }
}

#[test]
fn random_networks_keep_the_values_of_a_full_evaluation() {
    random_networks_match(EngineOptions::default());
    random_networks_match(EngineOptions {
        lift_legal_inputs: false,
    });
}

/// A network of 600 state bits (ten words, the last one partial): 400 gates of two to four
/// random inputs (bits or gates before them, some negated), and the next-state outputs, each
/// its bit.
fn wide_net(seed: u64) -> Net {
    let mut rng = gdl_runtime::SplitMix64::new(seed);
    let (bits, first, next_base) = (600u32, 600u32, 1024u32);
    let nodes = 1664u32;
    let mut thresh = vec![u32::MAX; nodes as usize];
    let mut ins: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
    for g in first..first + 400 {
        let k = 2 + rng.below(3) as u32;
        for _ in 0..k {
            let s = rng.below(g as usize) as u32;
            ins[g as usize].push(s << 1 | u32::from(rng.below(3) == 0));
        }
        thresh[g as usize] = if rng.below(2) == 0 { k } else { 1 };
    }
    for b in 0..bits {
        ins[(next_base + b) as usize].push(b << 1);
        thresh[(next_base + b) as usize] = 1;
    }
    let (fan_start, fan) = fan_table(&out_edges(&ins));
    Net {
        nodes,
        bits,
        thresh,
        fan_start,
        fan,
        group_of: vec![NONE; nodes as usize],
        inner_start: vec![0; nodes as usize + 1],
        next_base,
        terminal: first + 399,
        init: vec![0; 10],
        ..Net::default()
    }
}

/// States of several words, changed a few bits at a time (most words unchanged, which
/// `set_state` skips four at a time), at times anew, at times given short (the missing words
/// read as zero): the engine keeps the values and counts of a full evaluation, and the next
/// state is the state.
#[test]
fn wide_states_change_a_few_words_at_a_time() {
    for seed in 0..8 {
        let n = wide_net(seed);
        let mut e = Engine::new(&n);
        let mut rng = gdl_runtime::SplitMix64::new(seed + 77);
        let mut state = vec![0u64; 10];
        for step in 0..300 {
            match rng.below(8) {
                0 => state.iter_mut().for_each(|w| *w = rng.next_u64()),
                _ => {
                    for _ in 0..1 + rng.below(3) {
                        let b = rng.below(600);
                        state[b / 64] ^= 1 << (b % 64);
                    }
                }
            }
            state[9] &= (1 << 24) - 1;
            let given = if rng.below(10) == 0 { 6 } else { 10 };
            state[given..].iter_mut().for_each(|w| *w = 0);
            e.set_state(&state[..given]);
            let mut full = Engine::new(&n);
            full.state = state.clone();
            full.evaluate_all();
            assert_eq!(e.value, full.value, "net {seed}, step {step}");
            let counts = |x: &Engine| x.nodes.iter().map(|n| n.count).collect::<Vec<_>>();
            assert_eq!(counts(&e), counts(&full), "net {seed}, step {step}");
            let mut next = vec![0u64; 10];
            e.next(&mut next);
            assert_eq!(next, state, "net {seed}, step {step}");
        }
    }
}

/// The engine keeps each run of a node's out-edges (plain, plain negated) ascending by its
/// own numbering of their targets, so that a change visits its targets' records in memory
/// order, whatever the network's numbering was.
#[test]
fn each_run_of_edges_is_ascending_in_the_engine_numbering() {
    let mut renumbered = 0;
    for seed in 0..40 {
        let n = random_net(seed);
        let e = Engine::new(&n);
        renumbered += usize::from(
            e.order
                .old_of
                .iter()
                .enumerate()
                .any(|(i, &o)| i != o as usize),
        );
        for node in 0..n.nodes {
            let (start, end) = e.fan(node);
            let p = e.edges[start] as usize;
            let (pos, negs) = e.edges[start + 1..end].split_at(p);
            for run in [pos, negs] {
                assert!(
                    run.windows(2).all(|w| w[0] >> 2 <= w[1] >> 2),
                    "net {seed}, node {node}"
                );
            }
        }
    }
    assert!(
        renumbered > 0,
        "no network was renumbered: the test tests nothing"
    );
}

/// What the engine holds between steps: every count, every value and the joint move (and it
/// has nothing left to propagate or settle).
fn held(e: &mut Engine) -> (Vec<i32>, Vec<u64>, Vec<u32>) {
    assert!(e.stack.is_empty());
    assert_eq!(e.pending.take(), None);
    let counts = e.nodes.iter().map(|n| n.count).collect();
    (counts, e.value.clone(), e.joint.clone())
}

/// A joint move set from none held with its propagation logged, then let go of from the log:
/// the engine holds exactly what it held before (every count, every value, no move), and
/// while the move was held, the values of a full evaluation; `logged` says whether the log
/// must have been complete (else the move was propagated back).
fn undo_restores(n: &Net, budget: Option<u64>, logged: bool, seed: u64) {
    let mut e = Engine::new(n);
    if let Some(b) = budget {
        e.budget = b;
    }
    let bits = (1u64 << n.bits) - 1;
    let mut rng = gdl_runtime::SplitMix64::new(seed);
    for step in 0..200 {
        let state = rng.next_u64() & bits;
        let joint = [rng.below(n.moves[0] as usize + 1) as u32];
        e.set_state(&[state]);
        let before = held(&mut e);
        e.set_joint_logged(&joint);
        let none = joint[0] >= n.moves[0];
        let mut full = Engine::new(n);
        full.state = vec![state];
        full.joint = vec![if none { u32::MAX } else { joint[0] }];
        full.evaluate_all();
        let moved = held(&mut e);
        assert_eq!(moved.1, full.value, "seed {seed}, step {step}");
        // (No move to set is nothing to undo.)
        assert_eq!(e.log.armed, logged || none, "seed {seed}, step {step}");
        e.let_go();
        assert_eq!(held(&mut e), before, "seed {seed}, step {step}");
        // A move set while another is held is propagated back.
        e.set_joint(&[0]);
        e.set_joint_logged(&joint);
        assert!(!e.log.armed);
        e.let_go();
        assert_eq!(held(&mut e), before, "seed {seed}, step {step}");
    }
}

/// Letting go of a move from the log restores counts (of gates and of group members), the
/// values of the gates that changed (pushed), of the outputs that changed (not pushed) and
/// of the move's inputs, and the joint move held: on the hand-built network (a recursive
/// group, outputs toggled) and on random ones; and when the propagation gave up (a budget of
/// none), the move is propagated back instead.
#[test]
fn letting_go_from_the_log_restores_what_the_engine_held() {
    undo_restores(&net(), None, true, 1);
    undo_restores(&net(), Some(0), false, 2);
    for seed in 0..40 {
        undo_restores(&random_net(seed), None, true, seed + 77);
    }
}

/// [`Engine::step`] (the move let go of after the step in the trial's pairs and, if measured
/// cheaper, every step after it) writes the next state that setting the move and reading the
/// network writes, whether the states follow each other (a playout) or jump (a tree's
/// iterations).
fn step_writes_next(n: &Net, seed: u64) {
    let mut stepped = Engine::new(n);
    let mut plain = Engine::new(n);
    let bits = (1u64 << n.bits) - 1;
    let mut rng = gdl_runtime::SplitMix64::new(seed);
    let mut state = rng.next_u64() & bits;
    for step in 0..1300 {
        if rng.below(4) == 0 {
            state = rng.next_u64() & bits;
        }
        let joint = [rng.below(n.moves[0] as usize + 1) as u32];
        let (mut a, mut b) = ([0u64], [0u64]);
        stepped.set_state(&[state]);
        stepped.step(&joint, &mut a);
        plain.set_state(&[state]);
        plain.set_joint(&joint);
        plain.next(&mut b);
        assert_eq!(a, b, "seed {seed}, step {step}");
        state = a[0] & bits;
    }
}

#[test]
fn a_step_writes_what_setting_the_move_then_reading_the_network_writes() {
    step_writes_next(&net(), 3);
    for seed in 0..40 {
        step_writes_next(&random_net(seed), seed + 177);
    }
}

/// A `Stuck` disjunct of terminal holds when its state bit does and the role has none of its
/// moves legal; it survives the text form, and a guard past the state bits does not decode.
#[test]
fn a_role_without_legal_moves_on_its_turn_is_terminal() {
    let mut n = net();
    // Terminal also when b holds and m0 (legal when a holds) is not legal.
    n.stuck = vec![super::Stuck {
        guard: 1 << 1,
        role: 0,
        moves: vec![0b01],
    }];
    let text = n.encode();
    let n = Net::decode(&text).unwrap();
    assert_eq!(n.stuck.len(), 1);
    let mut e = Engine::new(&n);
    // a = 0, b = 1: no legal move (m1's guard !b fails), the network's terminal is false.
    e.set_state(&[0b10]);
    let mut l = Vec::new();
    e.legal(0, &mut l);
    assert!(l.is_empty());
    assert!(e.terminal());
    // a = 1, b = 1: m0 is legal.
    e.set_state(&[0b11]);
    assert!(!e.terminal());
    // a = 0, b = 0: the guard fails (m1 is legal, outside the disjunct's moves anyway).
    e.set_state(&[0b00]);
    assert!(!e.terminal());
    let mut bad = net();
    bad.stuck = vec![super::Stuck {
        guard: 2 << 1,
        role: 0,
        moves: vec![1],
    }];
    assert!(Net::decode(&bad.encode()).is_err());
}
