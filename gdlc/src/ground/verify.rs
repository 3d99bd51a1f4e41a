//! The invariants of a [`GroundProgram`], checked between passes in debug builds and by the
//! tests ([`crate::pipeline::CompileOptions::verify`]): what lowering relies on.
//!
//! - every term a role, an initial fact, a rule or a join names is in the store;
//! - a rule's positive and negative literals are sorted, without duplicates; its head is no
//!   `true` nor `does` atom (those are the state and the moves, never derived);
//! - every rule and join comes from a rule of the description (`origin` in range);
//! - the rules evaluated at run time ([`super::hybrid::GroundJoins`]) are well formed
//!   (`rule_problem`): each step names a table or lazy relation that exists, with as many
//!   columns as the table, and reads only variables bound before it; a join's head variables
//!   are bound by its body, and each output has a value per head variable.

use gdl_propnet::{ALWAYS, Arg, Rule, Step, Table};

use super::GroundProgram;
use crate::ast::kw;
use crate::terms::TermId;

/// Checks `g`, made from a description of `source_rules` rules: what is wrong, if anything.
pub fn verify(g: &GroundProgram, source_rules: usize) -> Result<(), String> {
    let terms = g.store.len();
    let term = |what: &str, t: TermId| -> Result<(), String> {
        if (t as usize) < terms {
            Ok(())
        } else {
            Err(format!("{what} names term {t}, of {terms}"))
        }
    };
    for &r in &g.roles {
        term("a role", r)?;
    }
    for &i in &g.init {
        term("an initial fact", i)?;
    }
    for (i, r) in g.rules.iter().enumerate() {
        let what = format!("ground rule {i}");
        term(&what, r.head)?;
        for &l in r.pos.iter().chain(&r.neg) {
            term(&what, l)?;
        }
        if !r.pos.is_sorted_by(|a, b| a < b) || !r.neg.is_sorted_by(|a, b| a < b) {
            return Err(format!("{what}'s literals are not sorted or repeat one"));
        }
        let head = g.store.functor(r.head);
        if head == kw::TRUE || head == kw::DOES {
            return Err(format!(
                "{what} derives a `true` or `does` atom: {}",
                g.text(r.head)
            ));
        }
        if r.origin >= source_rules {
            return Err(format!(
                "{what} comes from rule {} of {source_rules}",
                r.origin
            ));
        }
    }
    let joins = &g.joins;
    let widths = tables(&joins.tables, &mut |s| {
        if s == ALWAYS {
            Ok(())
        } else {
            term("a table row's signal", s)
        }
    })?;
    for (i, rules) in joins.lazy.iter().enumerate() {
        for r in rules {
            rule_problem(r, &widths, joins.lazy.len(), Head::BoundByCaller)
                .map_err(|e| format!("a rule of lazy relation {i}: {e}"))?;
        }
    }
    for (i, j) in joins.joins.iter().enumerate() {
        let what = format!("join {i}");
        rule_problem(&j.rule, &widths, joins.lazy.len(), Head::BoundByBody)
            .map_err(|e| format!("{what}: {e}"))?;
        if j.outputs.len() != j.keys.len() {
            return Err(format!(
                "{what} has {} outputs and {} keys",
                j.outputs.len(),
                j.keys.len()
            ));
        }
        for (&o, k) in j.outputs.iter().zip(&j.keys) {
            term(&what, o)?;
            if k.len() != j.rule.head.len() {
                return Err(format!(
                    "{what} has an output of {} values for a head of {}",
                    k.len(),
                    j.rule.head.len()
                ));
            }
            for &v in k {
                term(&what, v)?;
            }
        }
        if j.origin >= source_rules {
            return Err(format!(
                "{what} comes from rule {} of {source_rules}",
                j.origin
            ));
        }
    }
    Ok(())
}

/// The width of each table, once every row is checked: as many values as the width, and a
/// signal that `signal` accepts.
fn tables(
    tables: &[Table],
    signal: &mut impl FnMut(u32) -> Result<(), String>,
) -> Result<Vec<usize>, String> {
    let mut widths = Vec::with_capacity(tables.len());
    for (i, t) in tables.iter().enumerate() {
        if t.rows.len() != t.width as usize * t.signals.len() {
            return Err(format!(
                "table {i} has {} values for {} rows of {}",
                t.rows.len(),
                t.signals.len(),
                t.width
            ));
        }
        for &s in &t.signals {
            signal(s).map_err(|e| format!("table {i}: {e}"))?;
        }
        widths.push(t.width as usize);
    }
    Ok(widths)
}

/// Where the head variables of a rule evaluated at run time get their values.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Head {
    /// A lazy relation's rule: the caller binds the head.
    BoundByCaller,
    /// A join: the body binds the head.
    BoundByBody,
}

/// What is wrong with a rule evaluated at run time over tables of `widths` and `lazy` lazy
/// relations, if anything: a variable out of range or read before it is bound, a table or
/// relation that does not exist, a scan with another number of columns than its table.
pub(crate) fn rule_problem(
    rule: &Rule,
    widths: &[usize],
    lazy: usize,
    head: Head,
) -> Result<(), String> {
    let mut bound = vec![false; rule.vars as usize];
    let var = |a: &Arg| match *a {
        Arg::Var(v) if v >= rule.vars => Err(format!("variable {v} of {}", rule.vars)),
        Arg::Var(v) => Ok(Some(v as usize)),
        Arg::Const(_) => Ok(None),
    };
    if head == Head::BoundByCaller {
        for a in &rule.head {
            if let Some(v) = var(a)? {
                bound[v] = true;
            }
        }
    }
    let read = |bound: &[bool], v: usize, step: usize| {
        if bound[v] {
            Ok(())
        } else {
            Err(format!("step {step} reads variable {v} before it is bound"))
        }
    };
    for (k, step) in rule.steps.iter().enumerate() {
        match step {
            Step::Scan { table, cols, .. } | Step::Absent { table, cols } => {
                let width = widths
                    .get(*table as usize)
                    .ok_or_else(|| format!("step {k} reads table {table}, of {}", widths.len()))?;
                if *width != cols.len() || cols.len() >= 64 {
                    return Err(format!(
                        "step {k} has {} columns for a table of {width}",
                        cols.len()
                    ));
                }
                if let Some(&c) = cols.iter().find(|&&c| c >= rule.vars) {
                    return Err(format!("step {k} names variable {c} of {}", rule.vars));
                }
                match step {
                    Step::Scan { bound: mask, .. } => {
                        for (i, &c) in cols.iter().enumerate() {
                            if mask >> i & 1 == 1 {
                                read(&bound, c as usize, k)?;
                            }
                        }
                        cols.iter().for_each(|&c| bound[c as usize] = true);
                    }
                    _ => {
                        for &c in cols {
                            read(&bound, c as usize, k)?;
                        }
                    }
                }
            }
            Step::Call { relation, args, .. } => {
                if *relation as usize >= lazy {
                    return Err(format!("step {k} calls relation {relation}, of {lazy}"));
                }
                for a in args {
                    if let Some(v) = var(a)? {
                        read(&bound, v, k)?;
                    }
                }
            }
            Step::Compare { a, b, .. } => {
                for a in [a, b] {
                    if let Some(v) = var(a)? {
                        read(&bound, v, k)?;
                    }
                }
            }
        }
    }
    if head == Head::BoundByBody {
        for a in &rule.head {
            if let Some(v) = var(a)?
                && !bound[v]
            {
                return Err(format!("head variable {v} is not bound by the body"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{CompileOptions, Pass, run};

    const GAME: &str = include_str!("../../../examples/ticTacToe.kif");

    fn ground() -> (GroundProgram, usize) {
        let a = run(GAME, &CompileOptions::default(), Pass::Ground).expect("grounds");
        let rules = a.program.rules.len();
        (a.ground.expect("a ground program"), rules)
    }

    #[test]
    fn a_ground_program_holds_its_invariants() {
        let (g, rules) = ground();
        assert!(!g.rules.is_empty());
        assert_eq!(verify(&g, rules), Ok(()));
    }

    #[test]
    fn a_broken_ground_program_fails() {
        let (g, rules) = ground();
        let broken = |f: &dyn Fn(&mut GroundProgram)| {
            let mut g = g.clone();
            f(&mut g);
            verify(&g, rules).expect_err("broken")
        };
        let terms = g.store.len() as TermId;
        assert!(broken(&|g| g.rules[0].head = terms).contains("names term"));
        assert!(broken(&|g| g.init.push(terms + 7)).contains("an initial fact"));
        let with_two = g
            .rules
            .iter()
            .position(|r| r.pos.len() >= 2)
            .expect("a rule of two");
        assert!(broken(&|g| g.rules[with_two].pos.reverse()).contains("not sorted"));
        assert!(broken(&|g| g.rules[0].origin = rules).contains("comes from rule"));
        let a_true = g.rules.iter().find_map(|r| {
            r.pos
                .iter()
                .copied()
                .find(|&p| g.store.functor(p) == kw::TRUE)
        });
        let a_true = a_true.expect("a rule reads the state");
        assert!(broken(&|g| g.rules[0].head = a_true).contains("`true`"));
    }

    #[test]
    fn a_rule_that_reads_a_variable_before_binding_it_fails() {
        let scan = |cols: Vec<u32>, bound| Step::Scan {
            table: 0,
            cols,
            bound,
        };
        let rule = |steps| Rule {
            vars: 2,
            head: vec![Arg::Var(0)],
            steps,
        };
        let good = rule(vec![
            scan(vec![0, 1], 0),
            Step::Compare {
                a: Arg::Var(0),
                b: Arg::Var(1),
                equal: false,
            },
        ]);
        assert_eq!(rule_problem(&good, &[2], 0, Head::BoundByBody), Ok(()));
        // Compared before the scan binds it.
        let compare_first = rule(vec![
            Step::Compare {
                a: Arg::Var(0),
                b: Arg::Const(3),
                equal: true,
            },
            scan(vec![0, 1], 0),
        ]);
        let e = rule_problem(&compare_first, &[2], 0, Head::BoundByBody).expect_err("unbound");
        assert!(e.contains("before it is bound"), "{e}");
        // A scan looked up by a column not bound yet.
        let e = rule_problem(
            &rule(vec![scan(vec![0, 1], 0b10)]),
            &[2],
            0,
            Head::BoundByBody,
        )
        .expect_err("unbound");
        assert!(e.contains("before it is bound"), "{e}");
        // A head variable no step binds, unless the caller binds it (a lazy relation's rule).
        let head_only = rule(vec![Step::Absent {
            table: 0,
            cols: vec![0, 0],
        }]);
        assert!(rule_problem(&head_only, &[2], 0, Head::BoundByBody).is_err());
        assert_eq!(
            rule_problem(&head_only, &[2], 0, Head::BoundByCaller),
            Ok(())
        );
        // A table of another width, a table or a relation that does not exist.
        assert!(rule_problem(&good, &[3], 0, Head::BoundByBody).is_err());
        assert!(rule_problem(&good, &[], 0, Head::BoundByBody).is_err());
        let call = rule(vec![
            scan(vec![0, 1], 0),
            Step::Call {
                relation: 0,
                args: vec![Arg::Var(1)],
                negated: false,
            },
        ]);
        assert!(rule_problem(&call, &[2], 0, Head::BoundByBody).is_err());
        assert_eq!(rule_problem(&call, &[2], 1, Head::BoundByBody), Ok(()));
    }
}
