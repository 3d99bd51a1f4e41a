//! Legal outputs that read one prop given a copy each (the network's copy of the IR only).
//!
//! A prop of one conjunction that only legal outputs of one role read, several of them (the
//! promotions of one pawn move to a queen, a rook, a bishop or a knight, whose bodies are the
//! same), is built as a gate of its own that the outputs read: the literal the role's guard
//! tests once per listing (whose turn it is, see `build::legal_guards`) stays one of its
//! inputs. speedChess had 22 such gates a role, so `(control ?p)` had 24 out-edges, visited at
//! each change of turn (48 visits a state). Each reader but the first gets a copy of the prop,
//! so that each is an output's own conjunction, built in the output range without the guard.

use crate::ir::{Input, Ir, Lit};

/// Gives each legal output but the first that reads a shared prop (as the
/// [module documentation](self) says) a copy of it.
pub(super) fn unshare_legal(ir: &mut Ir) {
    let n = ir.props.len();
    // Per prop: whether something other than one role's legal outputs reads it (or reads it
    // negated), and the role whose outputs read it.
    let mut other = vec![false; n];
    let mut role = vec![u32::MAX; n];
    let read = |l: Lit, other: &mut [bool]| {
        if let Input::Prop(q) = l.input {
            other[q as usize] = true;
        }
    };
    for prop in &ir.props {
        prop.disjuncts
            .iter()
            .flatten()
            .for_each(|&l| read(l, &mut other));
    }
    ir.next.iter().for_each(|&l| read(l, &mut other));
    read(ir.terminal, &mut other);
    ir.goals
        .iter()
        .flatten()
        .for_each(|g| read(g.when, &mut other));
    ir.sees
        .iter()
        .flatten()
        .for_each(|p| read(p.when, &mut other));
    ir.joins
        .tables
        .iter()
        .flat_map(|t| &t.holds)
        .for_each(|&l| read(l, &mut other));
    let mut readers = vec![0u32; n];
    for (r, legal) in ir.legal.iter().enumerate() {
        for &l in legal {
            let Input::Prop(q) = l.input else { continue };
            let q = q as usize;
            if l.negated || (role[q] != u32::MAX && role[q] != r as u32) {
                other[q] = true;
            }
            role[q] = r as u32;
            readers[q] += 1;
        }
    }
    let group_of = ir.group_of();
    let shared: Vec<bool> = (0..n)
        .map(|q| {
            !other[q]
                && readers[q] >= 2
                && group_of[q].is_none()
                && matches!(&ir.props[q].disjuncts[..], [c] if c.len() >= 2)
        })
        .collect();
    let mut first = vec![true; n];
    for r in 0..ir.legal.len() {
        for m in 0..ir.legal[r].len() {
            let Input::Prop(q) = ir.legal[r][m].input else {
                continue;
            };
            let q = q as usize;
            if !shared[q] || std::mem::take(&mut first[q]) {
                continue;
            }
            let copy = ir.props[q].clone();
            ir.legal[r][m] = Lit::pos(Input::Prop(ir.props.len() as u32));
            ir.props.push(copy);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::in_process::tests::{ir_of, plays_as_interpreter};

    /// Whose turn it is takes a free cell of 40, as an x or an o: the two moves of a cell have
    /// the same body, one prop that both legal outputs read.
    fn marks() -> String {
        let mut text = String::from(
            "(role a) (role b) (init (control a)) (mark x) (mark o)
             (<= (legal ?p (take ?c ?m)) (true (control ?p)) (true (free ?c)) (mark ?m))
             (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
             (<= (taken ?c) (does ?p (take ?c ?m)))
             (<= (next (free ?c)) (true (free ?c)) (not (taken ?c)))
             (<= (next (control b)) (true (control a)))
             (<= (next (control a)) (true (control b)))
             (<= open (true (free ?c)))
             (<= terminal (not open))
             (<= (goal ?p 50) (role ?p))",
        );
        for c in 1..=40 {
            text.push_str(&format!(" (init (free {c}))"));
        }
        text
    }

    /// Each legal output gets a conjunction of its own, built without the guard: whose turn it
    /// is feeds no gate of the moves (before, each cell's shared prop read it: 40 out-edges).
    #[test]
    fn moves_of_one_body_each_get_their_own_gate_without_the_guard() {
        let (a, ir) = ir_of(&marks());
        let net = super::super::module_net(&ir);
        let control = ir
            .bits
            .iter()
            .position(|b| b == "(control a)")
            .expect("a state bit");
        let fan = net.fan_start[control + 1] - net.fan_start[control];
        assert!(fan <= 4, "(control a) has {fan} out-edges");
        assert!(plays_as_interpreter(&a, &ir, &net, 1..=20, 60) > 0);
    }
}
