//! The per-move tables of the next state that the engine reads instead of propagating a joint
//! move through the network ([`NextRows`]; see `gdl_propnet::rows`).
//!
//! A next-state bit `b` goes into the tables when every disjunct of its rule is one of
//!
//! - its frame, `(true b)` and negated literals each of which reads the moves of one role, or
//!   is a prop whose every conjunction reads the moves of one role and at most one state bit
//!   (`(true b) & !(affected x y)`, where a cell is affected by a move from or to it, or by an
//!   en-passant capture when `(canEnPassantCapture x)` holds): at most one such disjunct;
//! - a conjunction that reads the moves of one role and at most one state bit (the move puts
//!   a piece there);
//! - a conjunction that reads no move (left to the network).
//!
//! The moves that make a literal of one role hold are known before the game runs, so each
//! disjunct becomes entries of the rows of its moves: the frame's negated literals kill `b`,
//! the second kind sets it (under the state bit, when there is one). The bit's next-state
//! output in the network keeps the third kind only, so that a move no longer reaches it.

use gdl_propnet::{KEEP, KILL, NextRows, RowEntry, SET};
use rustc_hash::FxHashMap;

use crate::codegen::move_values::{MoveValues, distribute};
use crate::ir::{Input, Ir, Lit};
use crate::optimise;

/// The most moves of a role whose rows are built (each literal's values are a vector of them).
const MAX_MOVES: usize = 1 << 16;

/// The most conjunctions a next-state rule is distributed into.
const MAX_EXPANSION: usize = 64;

/// The most entries in all rows.
const MAX_ENTRIES: usize = 1 << 22;

/// A move's row as it is filled: (what, condition, word) -> bits.
type Row = FxHashMap<(u32, u32, u32), u64>;

/// What one disjunct of a next-state rule does (see the module documentation).
enum Part {
    /// Reads no move.
    Rest,
    /// `(true b)` and the literals that kill it: per literal, its conjunctions of one role's
    /// moves and at most one state bit, as (role, the moves' literals, condition).
    Frame(Vec<(u32, Vec<Lit>, Option<Lit>)>),
    /// `(true b)` and literals of moves that keep it: per conjunction of one role's moves
    /// and at most one state bit, (role, the moves' literals, condition).
    Keep(Vec<(u32, Vec<Lit>, Option<Lit>)>),
    /// Sets `b`: (role, the moves' literals, condition).
    Set(u32, Vec<Lit>, Option<Lit>),
}

/// Takes the next-state bits whose rules fit into per-move tables out of `ir`'s network (their
/// outputs keep the disjuncts that read no move) and returns the tables; empty when no bit
/// fits.
pub(super) fn extract(ir: &mut Ir) -> NextRows {
    if ir.roles.is_empty() || ir.moves.iter().any(|m| m.len() > MAX_MOVES) {
        return NextRows::default();
    }
    let reads = reads_moves(ir);
    let mut values = MoveValues::new(ir);
    let words = ir.bits.len().div_ceil(64).max(1);
    let mut frame = vec![0u64; words];
    let mut rows: Vec<Vec<Row>> = ir
        .moves
        .iter()
        .map(|m| vec![FxHashMap::default(); m.len()])
        .collect();
    let mut entries = 0usize;
    // The bits taken into the rows, with the disjuncts left to the network; the number of
    // bits that read a move and are not.
    let mut taken = Vec::new();
    let mut left = 0usize;
    for b in 0..ir.bits.len() as u32 {
        let l = ir.next[b as usize];
        if free(&reads, l) {
            continue;
        }
        let Some(disjuncts) = expand(ir, &values, &reads, &[l]) else {
            left += 1;
            continue;
        };
        let Some(parts) = disjuncts
            .iter()
            .map(|c| part(ir, &values, &reads, b, c))
            .collect::<Option<Vec<Part>>>()
        else {
            left += 1;
            continue;
        };
        if parts.iter().filter(|p| matches!(p, Part::Frame(_))).count() > 1 {
            left += 1;
            continue;
        }
        // Each entry: (role, the moves' literals, condition, what it does).
        let mut effects = Vec::new();
        let mut rest = Vec::new();
        let mut framed = false;
        for (p, c) in parts.into_iter().zip(disjuncts) {
            match p {
                Part::Rest => rest.push(c),
                Part::Frame(kills) => {
                    framed = true;
                    effects.extend(kills.into_iter().map(|(r, m, cond)| (r, m, cond, KILL)));
                }
                Part::Keep(keeps) => {
                    effects.extend(keeps.into_iter().map(|(r, m, cond)| (r, m, cond, KEEP)));
                }
                Part::Set(r, m, cond) => effects.push((r, m, cond, SET)),
            }
        }
        let (word, bit) = (b / 64, 1u64 << (b % 64));
        let mut added = Vec::new();
        for (r, lits, cond, kill) in effects {
            let holds = values.conj_values(ir, r, &lits);
            let cond = cond.map_or(u32::MAX, |c| match c.input {
                Input::Bit(x) => x << 1 | u32::from(c.negated),
                _ => u32::MAX,
            });
            for (m, _) in holds
                .iter()
                .enumerate()
                .filter(|&(m, &h)| h && m < holds.len() - 1)
            {
                added.push((r, m, cond, kill));
            }
        }
        if entries + added.len() > MAX_ENTRIES {
            left += 1;
            continue;
        }
        for (r, m, cond, what) in added {
            let e = rows[r as usize][m].entry((what, cond, word)).or_default();
            if *e == 0 {
                entries += 1;
            }
            *e |= bit;
        }
        if framed {
            frame[word as usize] |= bit;
        }
        taken.push((b, rest));
    }
    tracing::debug!(
        framed = frame.iter().map(|w| w.count_ones()).sum::<u32>(),
        taken = taken.len(),
        left,
        entries,
        "next-state rows"
    );
    // Rows that set bits only, beside bits that still read moves through the network, save
    // no propagation of the joint move (hex: its cells' placements, with the moves still read
    // by the connections: 7-10% slower, the rows read for nothing).
    if taken.is_empty() || (left > 0 && frame.iter().all(|&w| w == 0)) {
        return NextRows::default();
    }
    for (b, rest) in taken {
        ir.next[b as usize] = match &rest[..] {
            [] => Lit::FALSE,
            [c] if c.len() == 1 => c[0],
            _ => {
                ir.props.push(crate::ir::Prop {
                    text: format!("(next {})", ir.bits[b as usize]),
                    disjuncts: rest,
                    origins: Vec::new(),
                });
                Lit::pos(Input::Prop(ir.props.len() as u32 - 1))
            }
        };
    }
    optimise::simplify(ir);
    optimise::remove_dead(ir);
    let mut start = Vec::with_capacity(rows.len());
    let mut flat = Vec::with_capacity(entries);
    for role in rows {
        let mut s = Vec::with_capacity(role.len() + 1);
        s.push(flat.len() as u32);
        for mv in role {
            // Kills first (the engine applies every kill before anything else).
            let mut es: Vec<(u32, u32, u32, u64)> = mv
                .into_iter()
                .map(|((what, cond, word), mask)| (what, word, cond, mask))
                .collect();
            es.sort_unstable();
            let es = es.into_iter().map(|(what, word, cond, mask)| RowEntry {
                cond,
                at: word << 2 | what,
                mask,
            });
            flat.extend(es);
            s.push(flat.len() as u32);
        }
        start.push(s);
    }
    NextRows {
        frame,
        start,
        entries: flat,
    }
}

/// Per prop: whether it reads a move (or may: a group member, a join).
fn reads_moves(ir: &Ir) -> Vec<bool> {
    let group_of = ir.group_of();
    let mut reads = vec![true; ir.props.len()];
    for p in 0..ir.props.len() {
        if group_of[p].is_some() {
            continue;
        }
        reads[p] = ir.props[p]
            .disjuncts
            .iter()
            .flatten()
            .any(|&l| match l.input {
                Input::Const(_) | Input::Bit(_) => false,
                Input::Prop(q) => q as usize >= p || reads[q as usize],
                Input::Does { .. } | Input::MoveIn(_) | Input::Join(_) => true,
            });
    }
    reads
}

/// Whether prop `p` is a member of a recursive group.
fn reads_group(ir: &Ir, p: u32) -> bool {
    ir.groups.iter().any(|g| g.contains(&p))
}

/// Whether `l` reads no move.
fn free(reads: &[bool], l: Lit) -> bool {
    match l.input {
        Input::Const(_) | Input::Bit(_) => true,
        Input::Prop(q) => !reads.get(q as usize).copied().unwrap_or(true),
        Input::Does { .. } | Input::MoveIn(_) | Input::Join(_) => false,
    }
}

/// What disjunct `c` of next-state bit `b`'s rule does, or `None` when it fits no table.
fn part(ir: &Ir, values: &MoveValues, reads: &[bool], b: u32, c: &[Lit]) -> Option<Part> {
    if c.iter().all(|&l| free(reads, l)) {
        return Some(Part::Rest);
    }
    let held = Lit::pos(Input::Bit(b));
    if c.contains(&held) {
        let others: Vec<Lit> = c.iter().copied().filter(|&l| l != held).collect();
        if others.iter().any(|l| !l.negated) {
            return one_role(ir, values, &others).map(|k| Part::Keep(vec![k]));
        }
        let mut kills = Vec::new();
        for &l in &others {
            let pos = Lit {
                negated: false,
                ..l
            };
            for d in expand(ir, values, reads, &[pos])? {
                kills.push(one_role(ir, values, &d)?);
            }
        }
        return Some(Part::Frame(kills));
    }
    let (r, m, cond) = one_role(ir, values, c)?;
    Some(Part::Set(r, m, cond))
}

/// The disjuncts `c` is the or of, once each positive prop that reads a move and is no
/// literal of one role's moves is distributed over it (the factored frame of skirmish's cells,
/// `(true b) & (kept by a move | kept by the state)`), or `None` past [`MAX_EXPANSION`].
fn expand(ir: &Ir, values: &MoveValues, reads: &[bool], c: &[Lit]) -> Option<Vec<Vec<Lit>>> {
    distribute(ir, c, MAX_EXPANSION, |l| match l.input {
        Input::Prop(q) => {
            !free(reads, l)
                && !reads_group(ir, q)
                && values.roles(ir, l).is_none_or(|m| m.count_ones() > 1)
        }
        _ => false,
    })
}

/// A conjunction of literals of one role's moves and at most one state bit: the role, the
/// moves' literals and the state bit's literal.
fn one_role(ir: &Ir, values: &MoveValues, c: &[Lit]) -> Option<(u32, Vec<Lit>, Option<Lit>)> {
    let mut roles = 0u64;
    let mut cond = None;
    let mut moves = Vec::new();
    for &l in c {
        if let Input::Bit(_) = l.input {
            if cond.replace(l).is_some() {
                return None;
            }
            continue;
        }
        roles |= values.roles(ir, l)?;
        moves.push(l);
    }
    (roles.count_ones() == 1).then(|| (roles.trailing_zeros(), moves, cond))
}

#[cfg(test)]
mod tests {
    use super::super::in_process::tests::{ir_of, plays_as_interpreter};
    use super::{KEEP, KILL, SET};

    /// Two roles move at once along a line of six cells, each touching the cells it leaves
    /// and enters: a cell keeps its pieces unless touched (by either role, or by `a`'s zap
    /// while `armed` holds: a kill under a state bit), a move puts its piece where it goes,
    /// `b` grows a piece of its own while `armed` does not hold (a set under a state bit), and
    /// `b` may hold a cell, which then keeps its pieces though touched (a keep).
    const LINE: &str = "(role a) (role b)
        (init (cell 1 a)) (init (cell 2 a)) (init (cell 5 b)) (init (cell 6 b)) (init (step 0))
        (pos 1) (pos 2) (pos 3) (pos 4) (pos 5) (pos 6)
        (adj 1 2) (adj 2 3) (adj 3 4) (adj 4 5) (adj 5 6)
        (adj 2 1) (adj 3 2) (adj 4 3) (adj 5 4) (adj 6 5)
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
        (succ 7 8) (succ 8 9) (succ 9 10)
        (<= (legal ?r (move ?c ?d)) (true (cell ?c ?r)) (adj ?c ?d))
        (<= (legal ?r noop) (role ?r))
        (<= (legal a (zap ?c)) (pos ?c))
        (<= (legal b (grow ?c)) (pos ?c))
        (<= (legal b (hold ?c)) (pos ?c))
        (<= (touched ?c) (does ?r (move ?c ?d)))
        (<= (touched ?d) (does ?r (move ?c ?d)))
        (<= (touched ?c) (does a (zap ?c)) (true armed))
        (<= (next (cell ?c ?r)) (true (cell ?c ?r)) (not (touched ?c)))
        (<= (next (cell ?d ?r)) (does ?r (move ?c ?d)))
        (<= (next (cell ?c b)) (does b (grow ?c)) (not (true armed)))
        (<= (next (cell ?c ?r)) (true (cell ?c ?r)) (does b (hold ?c)))
        (<= (next armed) (not (true armed)))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 10)))
        (<= (goal ?r 50) (role ?r))";

    /// Every cell's next-state bits come from the rows, so that no output of the network reads
    /// a move (before, each move fanned out to the gates of the cells it touches), and the
    /// network with its rows plays as the interpreter, both roles' moves at once.
    #[test]
    fn a_move_s_effects_on_the_next_state_are_read_from_its_row() {
        let (a, ir) = ir_of(LINE);
        let net = super::super::module_net(&ir);
        let cells = ir.bits.iter().filter(|b| b.starts_with("(cell")).count();
        let framed: u32 = net.rows.frame.iter().map(|w| w.count_ones()).sum();
        assert_eq!(framed as usize, cells, "{:?}", ir.bits);
        // A conditional kill (the zap), a conditional set (the growth) and a keep (the hold).
        let has = |what, cond: bool| {
            net.rows
                .entries
                .iter()
                .any(|e| e.at & 3 == what && (e.cond != u32::MAX) == cond)
        };
        assert!(has(KILL, true) && has(KILL, false));
        assert!(has(SET, true) && has(SET, false));
        assert!(has(KEEP, false));
        for (r, &base) in net.does_base.iter().enumerate() {
            for n in base..base + net.moves[r] {
                let fan = net.fan_start[n as usize + 1] - net.fan_start[n as usize];
                assert_eq!(fan, 0, "role {r}'s move node {n} has out-edges");
            }
        }
        assert!(plays_as_interpreter(&a, &ir, &net, 1..=40, 20) > 0);
    }

    /// A frame of two disjuncts (`(true b) & !x | (true b) & !y`, which is no one kill) stays in
    /// the network, and the game still plays as the interpreter.
    #[test]
    fn a_bit_of_two_frames_stays_in_the_network() {
        let text = LINE.replace(
            "(<= (next armed) (not (true armed)))",
            "(<= (next armed) (not (true armed)))
             (<= (next (cell ?c ?r)) (true (cell ?c ?r)) (not (does a noop)))",
        );
        let (a, ir) = ir_of(&text);
        let net = super::super::module_net(&ir);
        assert!(net.rows.frame.iter().all(|&w| w == 0));
        assert!(plays_as_interpreter(&a, &ir, &net, 1..=40, 20) > 0);
    }
}
