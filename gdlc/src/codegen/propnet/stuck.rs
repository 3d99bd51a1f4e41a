//! "Whose turn it is, and it has no legal move" taken out of the network: a disjunct of
//! `terminal` of a state bit and the negation of a prop that says a role has a legal move
//! (an or of its legal moves, or of their bodies under their common guard) becomes a
//! [`Stuck`] the engine tests from the legal moves it lists anyway, and the prop, with the
//! gates only it read, leaves the network. Checkers' `stuck` read `has_legal_move`, an or of
//! every legal move's body, which gave every body fan-out and a change of its own to carry
//! (`and legal`: 7 of 37 changes a state); without it a step took 1.26-1.29x less time.

use gdl_propnet::Stuck;
use rustc_hash::FxHashMap;

use crate::ir::{Input, Ir, Lit};

/// Takes the disjuncts of `ir`'s terminal prop that the engine can test itself out of it and
/// returns them (see the [module documentation](self)). The terminal prop must be read by
/// nothing else, and the props involved by no recursive group.
pub(in crate::codegen) fn split(ir: &mut Ir) -> Vec<Stuck> {
    let Lit {
        input: Input::Prop(t),
        negated: false,
    } = ir.terminal
    else {
        return Vec::new();
    };
    let in_group = ir.group_of();
    if in_group[t as usize].is_some() || reads(ir, t) {
        return Vec::new();
    }
    let legal = LegalIndex::new(ir);
    let mut found = Vec::new();
    let mut kept = Vec::new();
    for d in std::mem::take(&mut ir.props[t as usize].disjuncts) {
        match stuck_of(ir, &legal, &in_group, &d) {
            Some(s) => found.extend(s),
            None => kept.push(d),
        }
    }
    tracing::debug!(
        taken = found.len(),
        kept = kept.len(),
        "disjuncts of terminal the engine tests from the legal moves (stuck)"
    );
    ir.props[t as usize].disjuncts = kept;
    found
}

/// Whether a prop or an output other than `terminal` reads prop `t`.
fn reads(ir: &Ir, t: u32) -> bool {
    let is_t = |l: &Lit| l.input == Input::Prop(t);
    if ir
        .props
        .iter()
        .flat_map(|p| p.disjuncts.iter().flatten())
        .any(is_t)
    {
        return true;
    }
    // `terminal` is one of the outputs.
    let mut outputs = 0;
    ir.for_each_output(&mut |l| outputs += usize::from(is_t(&l)));
    outputs > 1
}

/// The legal moves of every role by the literal that says they are legal, and by their body
/// under a guard (`legal = guard & body`, a prop of one disjunct of two literals).
struct LegalIndex {
    /// Legal literal -> (role, move).
    whole: FxHashMap<Lit, (u32, u32)>,
    /// (guard, body) -> (role, move).
    guarded: FxHashMap<(Lit, Lit), (u32, u32)>,
}

impl LegalIndex {
    fn new(ir: &Ir) -> LegalIndex {
        let mut whole = FxHashMap::default();
        let mut guarded = FxHashMap::default();
        for (r, ls) in ir.legal.iter().enumerate() {
            for (m, &l) in ls.iter().enumerate() {
                let rm = (r as u32, m as u32);
                whole.entry(l).or_insert(rm);
                if let Lit {
                    input: Input::Prop(p),
                    negated: false,
                } = l
                    && let [d] = ir.props[p as usize].disjuncts.as_slice()
                    && let [a, b] = d.as_slice()
                {
                    guarded.entry((*a, *b)).or_insert(rm);
                    guarded.entry((*b, *a)).or_insert(rm);
                }
            }
        }
        LegalIndex { whole, guarded }
    }
}

/// The [`Stuck`]s a disjunct of terminal is, if it is such: a guard and the negation of a
/// prop that holds exactly when the role has one of a set of legal moves. The guard is a state
/// bit, or a prop that is an or of state bits (amazons' `(true (turn ?player ?any))`, whose
/// turn it is in either phase), which is one [`Stuck`] per bit.
fn stuck_of(
    ir: &Ir,
    legal: &LegalIndex,
    in_group: &[Option<u32>],
    d: &[Lit],
) -> Option<Vec<Stuck>> {
    let [a, b] = d else {
        return None;
    };
    [(*a, *b), (*b, *a)].into_iter().find_map(|(guard, has)| {
        let (Input::Prop(p), true) = (has.input, has.negated) else {
            return None;
        };
        guard_bits(ir, in_group, guard)?
            .into_iter()
            .map(|bit| stuck_under(ir, legal, in_group, p, bit))
            .collect()
    })
}

/// The state bits whose or `l` is: `l` itself if it is a state bit, or the disjuncts of a
/// prop outside groups each of which is a state bit.
fn guard_bits(ir: &Ir, in_group: &[Option<u32>], l: Lit) -> Option<Vec<Lit>> {
    match (l.input, l.negated) {
        (Input::Bit(_), _) => Some(vec![l]),
        (Input::Prop(p), false) if in_group.get(p as usize)?.is_none() => {
            let ds = &ir.props.get(p as usize)?.disjuncts;
            (!ds.is_empty()).then_some(()).and_then(|()| {
                ds.iter()
                    .map(|d| match d.as_slice() {
                        [x] if matches!(x.input, Input::Bit(_)) => Some(*x),
                        _ => None,
                    })
                    .collect()
            })
        }
        _ => None,
    }
}

/// The [`Stuck`] "state bit `bit` holds and `!p`", when `p` says the role has a legal move
/// while `bit` holds.
fn stuck_under(
    ir: &Ir,
    legal: &LegalIndex,
    in_group: &[Option<u32>],
    p: u32,
    bit: Lit,
) -> Option<Stuck> {
    let Input::Bit(guard_bit) = bit.input else {
        return None;
    };
    let moves = has_legal_move(ir, legal, in_group, p, bit)?;
    let (role, _) = *moves.first()?;
    let count = ir.moves.get(role as usize)?.len();
    let mut words = vec![0u64; count.div_ceil(64)];
    for &(r, m) in &moves {
        if r != role {
            return None;
        }
        *words.get_mut(m as usize / 64)? |= 1 << (m % 64);
    }
    Some(Stuck {
        guard: guard_bit << 1 | u32::from(bit.negated),
        role,
        moves: words,
    })
}

/// The moves (role, move) whose legality prop `p` is the or of while `bit` (the disjunct's
/// state bit) holds, if it is one: an or (through props of single-literal disjuncts) of legal
/// literals; an or of the bodies of legal moves `bit & body` (speedChess's `hasAnyLegalMove`,
/// an or of `legalMove`, where `legal` is `control & legalMove`: while `bit` holds, a body
/// holds exactly when its move is legal); or one disjunct `guard & q` with `q` an or of the
/// bodies of legal moves `guard & body`.
fn has_legal_move(
    ir: &Ir,
    legal: &LegalIndex,
    in_group: &[Option<u32>],
    p: u32,
    bit: Lit,
) -> Option<Vec<(u32, u32)>> {
    let prop = ir.props.get(p as usize)?;
    if in_group[p as usize].is_some() {
        return None;
    }
    let whole = Lit::pos(Input::Prop(p));
    // An or of legal moves, or of the bodies of legal moves under the disjunct's own bit.
    if let Some(moves) =
        or_of(ir, in_group, whole, |l| legal.whole.get(&l).copied()).or_else(|| {
            or_of(ir, in_group, whole, |l| {
                legal.guarded.get(&(bit, l)).copied()
            })
        })
    {
        return Some(moves);
    }
    // A guard and an or of the bodies of legal moves under that guard.
    let [d] = prop.disjuncts.as_slice() else {
        return None;
    };
    let [a, b] = d.as_slice() else {
        return None;
    };
    [(*a, *b), (*b, *a)]
        .into_iter()
        .find_map(|(guard, q)| or_of(ir, in_group, q, |l| legal.guarded.get(&(guard, l)).copied()))
}

/// The moves of the leaves of `l` when it is an or of literals that `move_of` gives a move
/// (see [`leaves`]).
fn or_of(
    ir: &Ir,
    in_group: &[Option<u32>],
    l: Lit,
    move_of: impl Fn(Lit) -> Option<(u32, u32)>,
) -> Option<Vec<(u32, u32)>> {
    let mut moves = Vec::new();
    leaves(ir, in_group, l, &mut |x| {
        move_of(x).map(|rm| moves.push(rm)).is_some()
    })
    .then_some(moves)
}

/// Whether `l` is an or of literals that `leaf` accepts (it calls `leaf` on each): `l` itself,
/// or a prop outside groups each of whose disjuncts is one literal that is such an or.
fn leaves(ir: &Ir, in_group: &[Option<u32>], l: Lit, leaf: &mut impl FnMut(Lit) -> bool) -> bool {
    if leaf(l) {
        return true;
    }
    let (Input::Prop(p), false) = (l.input, l.negated) else {
        return false;
    };
    if in_group[p as usize].is_some() {
        return false;
    }
    let ds = &ir.props[p as usize].disjuncts;
    !ds.is_empty()
        && ds
            .iter()
            .all(|d| matches!(d.as_slice(), [x] if leaves(ir, in_group, *x, leaf)))
}

#[cfg(test)]
mod tests {
    use super::super::in_process::tests::{ir_of, plays_as_interpreter};

    /// Whose turn it is takes a free cell it may take; a player without one is stuck, which
    /// ends the game (the only way it ends).
    const TAKE: &str = "
        (role a) (role b)
        (init (control a)) (init (free 1)) (init (free 2)) (init (free 3)) (init (free 4))
        (may a 1) (may a 2) (may a 4) (may b 2) (may b 3) (may b 4)
        (<= (legal ?p (take ?c)) (true (control ?p)) (true (free ?c)) (may ?p ?c))
        (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
        (<= (taken ?c) (does ?p (take ?c)))
        (<= (next (free ?c)) (true (free ?c)) (not (taken ?c)))
        (<= (next (control b)) (true (control a)))
        (<= (next (control a)) (true (control b)))
        (<= (hasmove ?p) (legal ?p (take ?c)))
        (<= terminal (true (control ?p)) (not (hasmove ?p)))
        (<= (goal ?p 0) (true (control ?p)))
        (<= (goal ?p 100) (role ?p) (not (true (control ?p))))
    ";

    /// Asserts that `net` tests a `stuck` disjunct of each of the two roles itself.
    fn both_roles_taken_out(net: &gdl_propnet::Net) {
        let roles: Vec<u32> = net.stuck.iter().map(|s| s.role).collect();
        assert_eq!(
            roles,
            [0, 1],
            "both roles' `stuck` disjuncts leave the network"
        );
    }

    #[test]
    fn a_turn_without_legal_moves_is_tested_by_the_engine() {
        let (a, ir) = ir_of(TAKE);
        let net = super::super::module_net(&ir);
        both_roles_taken_out(&net);
        // Each tests the role's `take` moves, not its `noop`.
        for s in &net.stuck {
            let moves = &ir.moves[s.role as usize];
            for (m, text) in moves.iter().enumerate() {
                let tested = s.moves[m / 64] >> (m % 64) & 1 != 0;
                assert_eq!(tested, text.starts_with("(take"), "{text}");
            }
        }
        assert!(plays_as_interpreter(&a, &ir, &net, 1..=40, 50) > 0);
    }

    /// "Has a legal move" as an or of the bodies of the legal moves, whose guard (whose turn it
    /// is) is the terminal disjunct's own state bit (speedChess's `hasAnyLegalMove`).
    #[test]
    fn an_or_of_the_bodies_under_the_disjuncts_bit_is_tested_by_the_engine() {
        let text = TAKE
            .replace(
                "(<= (legal ?p (take ?c)) (true (control ?p)) (true (free ?c)) (may ?p ?c))",
                "(<= (canTake ?p ?c) (true (free ?c)) (may ?p ?c))
                 (<= (legal ?p (take ?c)) (true (control ?p)) (canTake ?p ?c))",
            )
            .replace(
                "(<= (hasmove ?p) (legal ?p (take ?c)))",
                "(<= (hasmove ?p) (canTake ?p ?c))",
            );
        let (a, ir) = ir_of(&text);
        let net = super::super::module_net(&ir);
        both_roles_taken_out(&net);
        assert!(plays_as_interpreter(&a, &ir, &net, 1..=40, 50) > 0);
    }

    /// A turn of two phases (take a cell, then take another): terminal's
    /// `(true (control ?p ?phase)) (not (hasmove ?p))` factors to "`?p` has the turn in one
    /// of the phases and no legal move", an or of two state bits as the guard (amazons'
    /// `(true (turn ?player ?any))`), which is tested as one stuck disjunct per bit.
    #[test]
    fn a_guard_that_is_an_or_of_state_bits_is_tested_by_the_engine() {
        let text = "
            (role a) (role b)
            (init (control a 1)) (init (free 1)) (init (free 2)) (init (free 3))
            (init (free 4)) (init (free 5)) (init (free 6))
            (may a 1) (may a 2) (may a 4) (may a 6) (may b 2) (may b 3) (may b 4) (may b 5)
            (<= (legal ?p (take ?c)) (true (control ?p ?k)) (true (free ?c)) (may ?p ?c))
            (<= (legal a noop) (true (control b ?k)))
            (<= (legal b noop) (true (control a ?k)))
            (<= (taken ?c) (does ?p (take ?c)))
            (<= (next (free ?c)) (true (free ?c)) (not (taken ?c)))
            (<= (next (control ?p 2)) (true (control ?p 1)))
            (<= (next (control b 1)) (true (control a 2)))
            (<= (next (control a 1)) (true (control b 2)))
            (<= (hasmove ?p) (legal ?p ?m))
            (<= terminal (true (control ?p ?k)) (not (hasmove ?p)))
            (<= (goal ?p 0) (true (control ?p ?k)))
            (<= (goal a 100) (true (control b ?k)))
            (<= (goal b 100) (true (control a ?k)))
        ";
        let (a, ir) = ir_of(text);
        let net = super::super::module_net(&ir);
        let mut roles: Vec<u32> = net.stuck.iter().map(|s| s.role).collect();
        roles.sort_unstable();
        assert_eq!(roles, [0, 0, 1, 1], "one stuck disjunct per role and phase");
        assert!(plays_as_interpreter(&a, &ir, &net, 1..=40, 50) > 0);
    }

    /// A goal that reads "has a legal move" too keeps it in the network, and the game plays
    /// the same.
    #[test]
    fn a_stuck_prop_that_a_goal_reads_plays_as_the_interpreter() {
        let text = TAKE.replace(
            "(<= (goal ?p 0) (true (control ?p)))",
            "(<= (goal ?p 0) (true (control ?p)) (hasmove ?p))
             (<= (goal ?p 0) (true (control ?p)) (not (hasmove ?p)))",
        );
        let (a, ir) = ir_of(&text);
        let net = super::super::module_net(&ir);
        assert!(plays_as_interpreter(&a, &ir, &net, 1..=20, 50) > 0);
    }
}
