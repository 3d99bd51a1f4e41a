//! The invariants of an [`Ir`], checked after lowering and after optimisation in debug builds
//! and by the tests ([`crate::pipeline::CompileOptions::verify`]): what code generation relies
//! on.
//!
//! - the tables agree: a `legal` entry per move of each role, a `next` per bit, goals per role
//!   (ascending by value), percepts per role or none; the initial bits ascending and in range;
//!   each role's moves in byte order, without duplicates; move sets of moves of their role,
//!   ascending;
//! - every literal reads what exists: a bit, a move, a move set, a join output in range;
//! - props are defined before they are read ("registers defined before use"): a prop reads only
//!   earlier props, or props of its own recursive group, positively; the groups are ascending,
//!   disjoint ranges of props;
//! - the rules joined at run time are well formed (`crate::ground::verify::rule_problem`),
//!   their outputs numbered in order.

use super::{Input, Ir, Lit};
use crate::ground::verify::{Head, rule_problem};

/// Checks `ir`: what is wrong, if anything.
pub fn verify(ir: &Ir) -> Result<(), String> {
    let roles = ir.roles.len();
    let count = |what: &str, n: usize, expected: usize| {
        if n == expected {
            Ok(())
        } else {
            Err(format!("{n} {what} for {expected}"))
        }
    };
    count("move lists", ir.moves.len(), roles)?;
    count("legal lists", ir.legal.len(), roles)?;
    count("goal lists", ir.goals.len(), roles)?;
    if !ir.sees.is_empty() {
        count("percept lists", ir.sees.len(), roles)?;
    }
    count("next literals", ir.next.len(), ir.bits.len())?;
    for (r, (moves, legal)) in ir.moves.iter().zip(&ir.legal).enumerate() {
        count(
            &format!("legal literals of role {r}"),
            legal.len(),
            moves.len(),
        )?;
        if !moves.is_sorted_by(|a, b| a.as_bytes() < b.as_bytes()) {
            return Err(format!(
                "the moves of role {r} are not in byte order, or repeat"
            ));
        }
    }
    if !ir.init.is_sorted_by(|a, b| a < b)
        || ir.init.last().is_some_and(|&b| b as usize >= ir.bits.len())
    {
        return Err("the initial bits are not ascending bits".into());
    }
    for (r, goals) in ir.goals.iter().enumerate() {
        if !goals.is_sorted_by_key(|g| g.value) {
            return Err(format!("the goals of role {r} are not ascending"));
        }
    }
    for (i, s) in ir.move_sets.sets.iter().enumerate() {
        let moves = ir.moves.get(s.role as usize).map_or(0, Vec::len);
        if !s.moves.is_sorted_by(|a, b| a < b)
            || s.moves.last().is_some_and(|&m| m as usize >= moves)
        {
            return Err(format!(
                "move set {i} is not ascending moves of role {}",
                s.role
            ));
        }
    }
    let outputs: usize = ir.joins.joins.iter().map(|j| j.keys.len()).sum();
    let in_range = |l: Lit| -> Result<(), String> {
        let ok = match l.input {
            Input::Const(_) | Input::Prop(_) => true,
            Input::Bit(b) => (b as usize) < ir.bits.len(),
            Input::Does { role, mv } => ir
                .moves
                .get(role as usize)
                .is_some_and(|m| (mv as usize) < m.len()),
            Input::MoveIn(s) => (s as usize) < ir.move_sets.sets.len(),
            Input::Join(o) => (o as usize) < outputs,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("literal {l} reads nothing that exists"))
        }
    };
    // Props: defined before use.
    let mut previous_end = 0;
    for g in &ir.groups {
        if g.start < previous_end || g.start >= g.end || g.end as usize > ir.props.len() {
            return Err(format!(
                "group {g:?} is not a range of props after the last"
            ));
        }
        previous_end = g.end;
    }
    let group_of = ir.group_of();
    for (p, prop) in ir.props.iter().enumerate() {
        for &l in prop.disjuncts.iter().flatten() {
            in_range(l).map_err(|e| format!("p{p}: {e}"))?;
            if let Input::Prop(q) = l.input {
                let same_group =
                    group_of[p].is_some() && group_of.get(q as usize) == Some(&group_of[p]);
                if (q as usize) >= p && !same_group {
                    return Err(format!("p{p} reads p{q}, defined after it"));
                }
                if same_group && l.negated {
                    return Err(format!(
                        "p{p} reads p{q} of its own recursive group negated"
                    ));
                }
            }
        }
    }
    let mut output = Ok(());
    ir.for_each_output(&mut |l| {
        if output.is_ok() {
            output = in_range(l).and_then(|()| match l.input {
                Input::Prop(q) if q as usize >= ir.props.len() => {
                    Err(format!("an output reads p{q}, of {}", ir.props.len()))
                }
                _ => Ok(()),
            });
        }
    });
    output?;
    // The rules joined at run time.
    let joins = &ir.joins;
    let mut widths = Vec::with_capacity(joins.tables.len());
    for (i, t) in joins.tables.iter().enumerate() {
        if t.rows.len() != t.width as usize * t.holds.len() {
            return Err(format!(
                "table {i} has {} values for {} rows of {}",
                t.rows.len(),
                t.holds.len(),
                t.width
            ));
        }
        widths.push(t.width as usize);
    }
    for (i, rules) in joins.lazy.iter().enumerate() {
        for r in rules {
            rule_problem(r, &widths, joins.lazy.len(), Head::BoundByCaller)
                .map_err(|e| format!("a rule of lazy relation {i}: {e}"))?;
        }
    }
    let mut first = 0;
    for (i, j) in joins.joins.iter().enumerate() {
        rule_problem(&j.rule, &widths, joins.lazy.len(), Head::BoundByBody)
            .map_err(|e| format!("join {i}: {e}"))?;
        if j.first_output != first {
            return Err(format!(
                "join {i}'s outputs start at {}, not {first}",
                j.first_output
            ));
        }
        if let Some(k) = j.keys.iter().find(|k| k.len() != j.rule.head.len()) {
            return Err(format!(
                "join {i} has an output of {} values for a head of {}",
                k.len(),
                j.rule.head.len()
            ));
        }
        first += j.keys.len() as u32;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{CompileOptions, Pass, run};

    const GAME: &str = include_str!("../../../examples/ticTacToe.kif");

    fn ir(stop: Pass) -> Ir {
        let a = run(GAME, &CompileOptions::default(), stop).expect("compiles");
        a.ir.expect("an IR")
    }

    #[test]
    fn the_ir_holds_its_invariants_lowered_and_optimised() {
        for stop in [Pass::Lower, Pass::Optimise] {
            let ir = ir(stop);
            assert!(!ir.props.is_empty());
            assert_eq!(verify(&ir), Ok(()), "{stop:?}");
        }
    }

    #[test]
    fn a_broken_ir_fails() {
        let ir = ir(Pass::Lower);
        let broken = |f: &dyn Fn(&mut Ir)| {
            let mut ir = ir.clone();
            f(&mut ir);
            verify(&ir).expect_err("broken")
        };
        let props = ir.props.len() as u32;
        // A prop that reads itself, or a later prop, outside a recursive group.
        let e = broken(&|ir| ir.props[0].disjuncts = vec![vec![Lit::pos(Input::Prop(0))]]);
        assert!(e.contains("defined after it"), "{e}");
        let e = broken(&|ir| ir.terminal = Lit::pos(Input::Prop(props)));
        assert!(e.contains("an output reads"), "{e}");
        let bits = ir.bits.len() as u32;
        let e = broken(&|ir| ir.props[0].disjuncts = vec![vec![Lit::pos(Input::Bit(bits))]]);
        assert!(e.contains("reads nothing"), "{e}");
        assert!(broken(&|ir| ir.next.truncate(ir.bits.len() - 1)).contains("next literals"));
        assert!(broken(&|ir| ir.legal[0].push(Lit::TRUE)).contains("legal literals"));
        assert!(broken(&|ir| ir.moves[0].reverse()).contains("byte order"));
        assert!(broken(&|ir| ir.init.push(bits)).contains("initial bits"));
        assert!(broken(&|ir| ir.goals[0].reverse()).contains("goals"));
        // A recursive group that reads its own props negated, or overlaps another.
        let e = broken(&|ir| {
            ir.groups.clear();
            ir.groups.push(0..2);
            ir.props[0].disjuncts = vec![vec![Lit::pos(Input::Prop(1)).negate()]];
        });
        assert!(e.contains("negated"), "{e}");
        assert!(broken(&|ir| ir.groups = vec![0..2, 1..3]).contains("group"));
    }
}
