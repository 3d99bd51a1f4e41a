//! The listing's tests: two roles of several words of moves each, with a common guard (whose
//! turn it is), moves of another guard, moves of none, and a shared input that the engine
//! lifts; the moves listed and drawn are checked against the network evaluated by hand.

use super::super::tests::{fan_table, out_edges};
use super::super::{Engine, EngineOptions, NONE, Net};
use super::{bypassed, lifted};
use gdl_runtime::SplitMix64;

/// State bits: `turn` (0), fifty pieces (1..=50), `busy` (51).
const BITS: u32 = 52;
/// Per role: its moves, the first node of its `does` inputs and of its legal outputs.
const MOVES: [u32; 2] = [200, 130];
const DOES: [u32; 2] = [BITS, BITS + MOVES[0]];
const LEGAL: [u32; 2] = [384, 640];
const NEXT: u32 = 832;
const NODES: u32 = 896;

/// The input literals (`node << 1 | negated`) of the legal output of move `m` of role `r`
/// (an and-gate of them; none: always), and its guard.
fn shape(r: usize, m: u32) -> (Vec<u32>, u32) {
    let turn = u32::from(r == 1);
    let piece = |k: u32| (1 + k % 50) << 1;
    match m {
        // The other guard (the role's "noop").
        _ if m == [70, 129][r] => (Vec::new(), turn ^ 1),
        // No guard.
        150 if r == 0 => (vec![piece(m), piece(m * 7 + 3) | 1], NONE),
        _ => {
            let mut ins = vec![piece(m + 11 * r as u32), piece(m * 3 + 1) | (m & 1)];
            if r == 0 && m % 3 == 0 {
                ins.push(51 << 1 | 1);
            }
            (ins, turn)
        }
    }
}

/// The network of [`shape`]: each legal output an and-gate of its inputs, each next-state
/// output its bit.
fn listing_net() -> Net {
    let mut thresh = vec![u32::MAX; NODES as usize];
    let mut ins: Vec<Vec<u32>> = vec![Vec::new(); NODES as usize];
    let mut legal_guard = Vec::new();
    for r in 0..2 {
        let mut guards = Vec::new();
        for m in 0..MOVES[r] {
            let (lits, guard) = shape(r, m);
            let out = (LEGAL[r] + m) as usize;
            thresh[out] = lits.len() as u32;
            ins[out] = lits;
            guards.push(guard);
        }
        legal_guard.push(guards);
    }
    for b in 0..BITS {
        ins[(NEXT + b) as usize].push(b << 1);
        thresh[(NEXT + b) as usize] = 1;
    }
    let (fan_start, fan) = fan_table(&out_edges(&ins));
    Net {
        nodes: NODES,
        bits: BITS,
        does_base: DOES.to_vec(),
        moves: MOVES.to_vec(),
        thresh,
        fan_start,
        fan,
        group_of: vec![NONE; NODES as usize],
        inner_start: vec![0; NODES as usize + 1],
        legal_base: LEGAL.to_vec(),
        legal_guard,
        next_base: NEXT,
        terminal: NODES - 1,
        goals: vec![Vec::new(), Vec::new()],
        init: vec![0],
        ..Net::default()
    }
}

/// The legal moves of role `r` in `state`, by [`shape`].
fn by_hand(state: u64, r: usize) -> Vec<u32> {
    let holds = |l: u32| (state >> (l >> 1) & 1 != 0) != (l & 1 != 0);
    (0..MOVES[r])
        .filter(|&m| {
            let (lits, guard) = shape(r, m);
            lits.iter().all(|&l| holds(l)) && (guard == NONE || holds(guard))
        })
        .collect()
}

/// Through random states (pieces a third of the time, either turn), each role's listing is
/// the moves of the network, and a draw is the listed move of the same draw, with the
/// generator left where the list's draw leaves it; with the shared input lifted or not.
#[test]
fn listed_and_drawn_moves_are_those_of_the_network() {
    let n = Net::decode(&listing_net().encode()).unwrap();
    for lift in [true, false] {
        let options = EngineOptions {
            lift_legal_inputs: lift,
        };
        let mut e = Engine::with_options(&n, options);
        assert_eq!(e.lowered.is_empty(), !lift, "the test needs a lifted input");
        let mut rng = SplitMix64::new(11);
        let mut l = Vec::new();
        let (mut idle, mut busy) = (0, 0);
        for step in 0..400 {
            let pieces = rng.next_u64() & rng.next_u64() & ((1 << 51) - 2);
            let state = pieces | rng.below(2) as u64 | (rng.below(2) as u64) << 51;
            e.set_state(&[state]);
            for r in 0..2 {
                let want = by_hand(state, r);
                l.clear();
                e.legal(r, &mut l);
                assert_eq!(l, want, "lift {lift}, step {step}, role {r}");
                idle += usize::from((state & 1 == 0) == (r == 0) && !want.is_empty());
                busy += usize::from(state >> 51 & 1 != 0 && r == 0 && !want.is_empty());
                let (mut a, mut b) = (SplitMix64::new(step), SplitMix64::new(step));
                let drawn = e.random_legal(r, &mut a);
                assert_eq!(drawn, (!want.is_empty()).then(|| want[b.below(want.len())]));
                assert_eq!(a.next_u64(), b.next_u64());
            }
        }
        assert!(
            idle > 50 && busy > 50,
            "the states test too little: {idle} {busy}"
        );
    }
}

/// The words a listing reads when its role's common guard fails: those with a move of another
/// guard or of none (role 0: words 1 and 2 of four; role 1: word 2 of three), and only those.
#[test]
fn an_idle_role_reads_only_the_words_of_its_moves_outside_the_guard() {
    let n = listing_net();
    let e = Engine::new(&n);
    assert_eq!(e.guards.free, vec![vec![1, 2], vec![2]]);
    // A role whose moves all have the common guard reads nothing when it fails.
    let mut all = n.clone();
    all.legal_guard[1] = vec![1 << 1; MOVES[1] as usize];
    let e = Engine::new(&all);
    assert!(e.guards.free[1].is_empty());
    let mut l = Vec::new();
    e.legal(1, &mut l);
    assert!(l.is_empty());
}

/// [`listing_net`] with each role stuck on its turn without a legal move: terminal tests it
/// from the listing, which a draw of the same values reads again instead of listing anew,
/// and which any change of the values (a state, a joint move held or let go) forgets: through
/// random states, terminal, the moves drawn and the moves listed are those of the network.
#[test]
fn a_listing_for_terminal_is_drawn_from_until_the_values_change() {
    let mut n = listing_net();
    n.stuck = (0..2)
        .map(|r| super::Stuck {
            guard: u32::from(r == 1),
            role: r,
            moves: vec![u64::MAX; MOVES[r as usize].div_ceil(64) as usize],
        })
        .collect();
    let n = Net::decode(&n.encode()).unwrap();
    let mut e = Engine::new(&n);
    let mut rng = SplitMix64::new(5);
    let mut l = Vec::new();
    let mut stuck = 0;
    for step in 0..600 {
        // No pieces a quarter of the time: the mover is stuck.
        let pieces = match rng.below(4) {
            0 => 0,
            _ => rng.next_u64() & rng.next_u64() & rng.next_u64() & ((1 << 51) - 2),
        };
        let state = pieces | rng.below(2) as u64 | (rng.below(2) as u64) << 51;
        e.set_state(&[state]);
        let mover = usize::from(state & 1 == 0);
        let want = by_hand(state, mover);
        stuck += usize::from(want.is_empty());
        let lists = e.lists;
        assert_eq!(e.terminal(), want.is_empty(), "step {step}");
        assert_eq!(e.lists, lists + 1, "terminal lists the mover's moves");
        // The other role drawn first (a random step draws in role order) keeps the listing.
        let other = 1 - mover;
        let (mut a, mut b) = (SplitMix64::new(step), SplitMix64::new(step));
        let idle = by_hand(state, other);
        let drawn = e.random_legal(other, &mut a);
        assert_eq!(drawn, (!idle.is_empty()).then(|| idle[b.below(idle.len())]));
        assert_eq!(
            e.listed, mover as u32,
            "the other role's draw keeps the listing"
        );
        let (mut a, mut b) = (SplitMix64::new(step), SplitMix64::new(step));
        let drawn = e.random_legal(mover, &mut a);
        assert_eq!(drawn, (!want.is_empty()).then(|| want[b.below(want.len())]));
        assert_eq!(e.lists, lists + 1, "the draw reads terminal's listing");
        // A joint move held, or let go, forgets the listing; so does another state.
        match step % 3 {
            0 => e.set_joint(&[0, 0]),
            1 => e.set_joint(&[]),
            _ => e.set_state(&[state ^ 1 << (1 + step % 50)]),
        }
        let after = e.state[0];
        for r in 0..2 {
            l.clear();
            e.legal(r, &mut l);
            assert_eq!(l, by_hand(after, r), "step {step}, role {r}");
            let (mut a, mut b) = (SplitMix64::new(step), SplitMix64::new(step));
            let drawn = e.random_legal(r, &mut a);
            assert_eq!(drawn, (!l.is_empty()).then(|| l[b.below(l.len())]));
        }
    }
    assert!(
        stuck > 30 && stuck < 570,
        "the states test too little: {stuck}"
    );
}

/// Amazons' arrows, small: per role a "fire" turn bit (0, 1), eight cells (2..10); for each of
/// 16 targets `c` an or-gate `x_c = cell(c % 8) | !cell((c + 3) % 8)` (node 42 + c), which both
/// roles' legal outputs read under their turn (`fire c` of role `r` is `turn_r & x_c`).
fn arrow_net() -> Net {
    let (bits, nodes) = (10u32, 256u32);
    let legal = [64u32, 128];
    let mut thresh = vec![u32::MAX; nodes as usize];
    let mut ins: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
    for c in 0..16u32 {
        let x = (42 + c) as usize;
        ins[x] = vec![(2 + c % 8) << 1, (2 + (c + 3) % 8) << 1 | 1];
        thresh[x] = 1;
        for (r, &base) in legal.iter().enumerate() {
            ins[(base + c) as usize] = vec![(r as u32) << 1, (x as u32) << 1];
            thresh[(base + c) as usize] = 2;
        }
    }
    for b in 0..bits {
        ins[(192 + b) as usize].push(b << 1);
        thresh[(192 + b) as usize] = 1;
    }
    let (fan_start, fan) = fan_table(&out_edges(&ins));
    Net {
        nodes,
        bits,
        does_base: vec![10, 26],
        moves: vec![16, 16],
        thresh,
        fan_start,
        fan,
        group_of: vec![NONE; nodes as usize],
        inner_start: vec![0; nodes as usize + 1],
        legal_base: legal.to_vec(),
        legal_guard: vec![vec![NONE; 16]; 2],
        next_base: 192,
        terminal: nodes - 1,
        goals: vec![Vec::new(), Vec::new()],
        init: vec![0],
        ..Net::default()
    }
}

/// An or-gate that only legal outputs read, each left with it alone once the turn is lifted,
/// is bypassed: the outputs read its inputs, and a change of a cell that changes where an
/// arrow may land is the cell's change alone (three before: the cell, `x_0`, `x_8`); the
/// moves listed are those of the network, through random states.
#[test]
fn an_or_gate_read_only_by_lifted_legal_outputs_is_bypassed() {
    let n = Net::decode(&arrow_net().encode()).unwrap();
    let by = bypassed(&n, &lifted(&n));
    assert!((42..58).all(|x| by[x].is_some()), "{by:?}");
    assert_eq!(by[42].as_deref(), Some(&[64, 128][..]));
    let mut e = Engine::new(&n);
    e.set_state(&[0x3ff]);
    let popped = e.popped;
    // x_0 and x_8 fall with cell 0 (cell 3 holds); x_5 and x_13 hold by cell 5.
    e.set_state(&[0x3ff & !(1 << 2)]);
    assert_eq!(e.popped - popped, 1);
    let mut rng = SplitMix64::new(5);
    let mut l = Vec::new();
    for step in 0..300 {
        let state = rng.next_u64() & 0x3ff;
        e.set_state(&[state]);
        let cell = |k: u32| state >> (2 + k % 8) & 1 != 0;
        for r in 0..2 {
            let want: Vec<u32> = (0..16)
                .filter(|&c| state >> r & 1 != 0 && (cell(c) || !cell(c + 3)))
                .collect();
            l.clear();
            e.legal(r, &mut l);
            assert_eq!(l, want, "step {step}, role {r}");
        }
    }
}
