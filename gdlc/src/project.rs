//! Projection of local variables: a positive literal whose variables partly occur nowhere else
//! in its rule reads an auxiliary relation that projects them out.
//!
//! `(<= (legal2 white (capture ?x1 ?y1 ?x3 ?y3)) (true (cell ?x1 ?y1 white ?t1)) ..
//! (true (cell ?x2 ?y2 black ?t2)) ..)` has one ground instance per combination of `?t1` and
//! `?t2` (pawn or king): four instances, each testing two state bits, for one move. With
//! `(<= (true #0 ?x ?y) (true (cell ?x ?y white ?t)))` (one auxiliary relation per literal
//! shape, shared by every rule that has it) the rule reads `(true #0 ?x1 ?y1)` and
//! `(true #1 ?x2 ?y2)` and has one instance per move: the disjunction of products becomes a
//! product of disjunctions, computed once per square for every rule that asks. Grounding does
//! less work, the circuit has fewer gates and edges, and the generated code fewer tests.
//!
//! The meaning is unchanged: the auxiliary atom holds exactly when some values of the
//! projected variables make the literal hold. `does` literals are left as they are (the
//! backends read moves directly), and so is a literal that is its rule's whole body (the rule
//! is already the projection).

use rustc_hash::FxHashMap as HashMap;

use crate::ast::kw;
use crate::normalize::{NAtom, NLit, NProgram, NRule, NTerm};

/// Rewrites `nprog`'s rules so that no positive literal (other than `does`, and other than a
/// whole body) has variables that occur nowhere else in its rule.
pub fn project(nprog: &NProgram) -> NProgram {
    let mut out = NProgram {
        symbols: nprog.symbols.clone(),
        rules: Vec::with_capacity(nprog.rules.len()),
    };
    // Per literal shape (its atom with the kept variables numbered first, then the projected
    // ones) and number of kept variables, the auxiliary relation made for it: `(cell ?x ?y ?p)`
    // keeping `?x ?y` and keeping `?x` alone have one renumbered atom.
    let mut made: HashMap<(NAtom, usize), NAtom> = HashMap::default();
    let mut aux_rules = Vec::new();
    for rule in &nprog.rules {
        let mut rule = rule.clone();
        if rule.body.len() > 1 {
            for i in 0..rule.body.len() {
                let NLit::Pos(atom) = &rule.body[i] else {
                    continue;
                };
                if atom.rel == kw::DOES {
                    continue;
                }
                let (kept, local) = split_vars(&rule, i);
                if local.is_empty() {
                    continue;
                }
                let shape = renumber(atom, &kept, &local);
                let key = (shape.clone(), kept.len());
                let head = match made.get(&key) {
                    Some(h) => h.clone(),
                    None => {
                        let name = format!("{} #{}", nprog.symbols.name(atom.rel), made.len());
                        let head = NAtom {
                            rel: out.symbols.intern(&name),
                            args: (0..kept.len() as u32).map(NTerm::Var).collect(),
                        };
                        aux_rules.push(NRule {
                            head: head.clone(),
                            body: vec![NLit::Pos(shape.clone())],
                            var_names: kept
                                .iter()
                                .chain(&local)
                                .map(|&v| rule.var_names.get(v as usize).copied())
                                .collect::<Option<Vec<_>>>()
                                .unwrap_or_default(),
                            origin: rule.origin,
                            span: rule.span,
                        });
                        made.insert(key, head.clone());
                        head
                    }
                };
                rule.body[i] = NLit::Pos(NAtom {
                    rel: head.rel,
                    args: kept.iter().map(|&v| NTerm::Var(v)).collect(),
                });
            }
        }
        out.rules.push(rule);
    }
    out.rules.extend(aux_rules);
    out
}

/// The variables of body literal `i` of `rule` in order of first occurrence: those that also
/// occur in the head or in another literal, and the others.
fn split_vars(rule: &NRule, i: usize) -> (Vec<u32>, Vec<u32>) {
    let mut elsewhere = Vec::new();
    rule.head.for_each_var(&mut |v| elsewhere.push(v));
    for (j, l) in rule.body.iter().enumerate() {
        if j != i {
            l.for_each_var(&mut |v| elsewhere.push(v));
        }
    }
    let (mut kept, mut local) = (Vec::new(), Vec::new());
    rule.body[i].for_each_var(&mut |v| {
        if kept.contains(&v) || local.contains(&v) {
            return;
        }
        if elsewhere.contains(&v) {
            kept.push(v);
        } else {
            local.push(v);
        }
    });
    (kept, local)
}

/// `atom` with variable `kept[k]` renamed `k` and `local[k]` renamed `kept.len() + k`.
fn renumber(atom: &NAtom, kept: &[u32], local: &[u32]) -> NAtom {
    fn term(t: &NTerm, map: &dyn Fn(u32) -> u32) -> NTerm {
        match t {
            NTerm::Var(v) => NTerm::Var(map(*v)),
            NTerm::Const(c) => NTerm::Const(*c),
            NTerm::Func(f, args) => NTerm::Func(*f, args.iter().map(|a| term(a, map)).collect()),
        }
    }
    let map = |v: u32| {
        kept.iter()
            .chain(local)
            .position(|&x| x == v)
            .map_or(v, |p| p as u32)
    };
    NAtom {
        rel: atom.rel,
        args: atom.args.iter().map(|a| term(a, &map)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::text::rule;
    use crate::normalize::{NormalizeOptions, normalize};

    fn projected(src: &str) -> String {
        let (program, diags) = crate::frontend::Syntax::Kif.parse(src);
        assert!(diags.is_empty(), "{diags:?}");
        let n = normalize(&program, NormalizeOptions::default()).unwrap();
        let p = project(&n);
        let mut lines: Vec<String> = p.rules.iter().map(|r| rule(r, &p)).collect();
        lines.sort();
        lines.join("\n")
    }

    #[test]
    fn a_literal_s_local_variables_are_projected_once_per_shape() {
        let text = projected(
            "(role white) (init (cell a 1 white pawn))
             (<= (legal white (jump ?x ?y ?u ?v))
                 (true (cell ?x ?y white ?t1)) (true (cell ?u ?v black ?t2)) (adj ?x ?y ?u ?v))
             (<= (legal white (go ?x ?y)) (true (cell ?x ?y white ?t)) (true (control white)))
             (<= (has ?x) (true (cell ?x ?y ?p ?t)))
             (adj a 1 b 2)
             (<= (next (cell ?x ?y ?p ?t)) (true (cell ?x ?y ?p ?t)) (does white (go ?a ?b)))
             (<= terminal (true (cell ?x ?y ?p ?t)) (true (control ?r)))
             (<= (legal white (look ?x)) (true (cell ?x ?y ?p ?t)) (true (control white)))
             (<= (legal white (put ?x ?y)) (true (cell ?x ?y ?p ?t)) (true (control white)))",
        );
        // `(true (cell ?x ?y white ?t))` has one relation for both legal rules; `does` and a
        // whole body (`has`) are kept. One renumbered atom keeping 0, 1 or 2 variables
        // (`terminal`, `look`, `put`) is three relations (alexChess lost moves when they
        // were one).
        let expected = "\
(<= (adj a 1 b 2) )
(<= (init (cell a 1 white pawn)) )
(<= (legal white (go ?0 ?1)) (true #0 ?0 ?1) (true (control white)))
(<= (legal white (jump ?0 ?1 ?2 ?3)) (true #0 ?0 ?1) (true #1 ?2 ?3) (adj ?0 ?1 ?2 ?3))
(<= (legal white (look ?0)) (true #4 ?0) (true (control white)))
(<= (legal white (put ?0 ?1)) (true #5 ?0 ?1) (true (control white)))
(<= (next (cell ?0 ?1 ?2 ?3)) (true (cell ?0 ?1 ?2 ?3)) (does white (go ?4 ?5)))
(<= (role white) )
(<= (terminal) (true #2) (true #3))
(<= (true #0 ?0 ?1) (true (cell ?0 ?1 white ?2)))
(<= (true #1 ?0 ?1) (true (cell ?0 ?1 black ?2)))
(<= (true #2) (true (cell ?0 ?1 ?2 ?3)))
(<= (true #3) (true (control ?0)))
(<= (true #4 ?0) (true (cell ?0 ?1 ?2 ?3)))
(<= (true #5 ?0 ?1) (true (cell ?0 ?1 ?2 ?3)))";
        assert_eq!(text, expected, "{text}");
    }
}
