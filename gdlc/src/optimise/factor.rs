//! Factoring of literals common to the disjuncts of a prop.
//!
//! - A prop whose disjuncts all contain the literals `G` becomes `G & q`, where the new prop
//!   `q` is the disjunction of what is left: `(control & a) | (control & b)` becomes
//!   `control & (a | b)`.
//! - A prop that is a disjunction of props `r_i`, each one conjunction containing `G`, becomes
//!   `G & (r'_1 | r'_2 | ..)` where `r'_i` is `r_i` without `G`; each `r_i` then reads its
//!   `r'_i`. `(has_legal_move red)`, the disjunction of every legal move of red, stops reading
//!   the legal moves, which each read `(control red)`: those become read by their output only,
//!   and the propnet tests `(control red)` once when it lists moves instead of fanning its
//!   change out to every move (see [`crate::codegen::propnet`]).
//!
//! Both are equivalences, so every output keeps its value.

use rustc_hash::FxHashSet as HashSet;

use crate::ir::{Input, Ir, Lit, Prop};

/// Factors every prop outside recursive groups (see the module documentation).
#[allow(clippy::needless_range_loop)] // Props index several tables.
pub fn factor(ir: &mut Ir) {
    let n = ir.props.len();
    let group_of = ir.group_of();
    // New props, numbered from `n`, and before which old prop each goes.
    let mut added: Vec<(u32, Prop)> = Vec::new();
    let ir_origins: Vec<Vec<u32>> = ir.props.iter().map(|p| p.origins.clone()).collect();
    // A new prop (placed before prop `before`), as a literal.
    let add =
        |before: u32, text: String, disjuncts: Vec<Vec<Lit>>, added: &mut Vec<(u32, Prop)>| {
            // A factored part comes from the rules of the prop it is factored from.
            let origins = ir_origins[before as usize].clone();
            added.push((
                before,
                Prop {
                    text,
                    disjuncts,
                    origins,
                },
            ));
            Lit::pos(Input::Prop((n + added.len() - 1) as u32))
        };
    // Common literals of all disjuncts.
    for p in 0..n {
        if group_of[p].is_some() || ir.props[p].disjuncts.len() < 2 {
            continue;
        }
        let common = common_literals(&ir.props[p].disjuncts);
        if common.is_empty() {
            continue;
        }
        let rest: Vec<Vec<Lit>> = ir.props[p]
            .disjuncts
            .iter()
            .map(|c| c.iter().copied().filter(|l| !common.contains(l)).collect())
            .collect();
        let mut conj: Vec<Lit> = common;
        if !rest.iter().any(Vec::is_empty) {
            let text = format!("{} (factored)", ir.props[p].text);
            conj.push(add(p as u32, text, rest, &mut added));
        }
        ir.props[p].disjuncts = vec![conj];
    }
    // Disjunctions of single conjunctions with common literals.
    for h in 0..n {
        if group_of[h].is_some() || ir.props[h].disjuncts.len() < 2 {
            continue;
        }
        let Some(rs) = ir.props[h]
            .disjuncts
            .iter()
            .map(|c| match c[..] {
                [l] if !l.negated => match l.input {
                    Input::Prop(r)
                        if (r as usize) < n
                            && group_of[r as usize].is_none()
                            && ir.props[r as usize].disjuncts.len() == 1 =>
                    {
                        Some(r)
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect::<Option<Vec<u32>>>()
        else {
            continue;
        };
        let conjs: Vec<Vec<Lit>> = rs
            .iter()
            .map(|&r| ir.props[r as usize].disjuncts[0].clone())
            .collect();
        let common = common_literals(&conjs);
        if common.is_empty() {
            continue;
        }
        let mut lifted: Vec<Vec<Lit>> = Vec::with_capacity(rs.len());
        for &r in &rs {
            let conj = &ir.props[r as usize].disjuncts[0];
            let rest: Vec<Lit> = conj
                .iter()
                .copied()
                .filter(|l| !common.contains(l))
                .collect();
            let lit = match rest[..] {
                [] => None,
                [l] => Some(l),
                _ => {
                    let text = format!(
                        "{} (without its common literals)",
                        ir.props[r as usize].text
                    );
                    let q = add(r, text, vec![rest], &mut added);
                    let mut c = common.clone();
                    c.push(q);
                    ir.props[r as usize].disjuncts = vec![c];
                    Some(q)
                }
            };
            match lit {
                Some(l) => lifted.push(vec![l]),
                // A conjunction of the common literals only: the whole is `G`.
                None => {
                    lifted.clear();
                    break;
                }
            }
        }
        let mut conj = common;
        if !lifted.is_empty() {
            let text = format!("{} (without its common literals)", ir.props[h].text);
            conj.push(add(h as u32, text, lifted, &mut added));
        }
        ir.props[h].disjuncts = vec![conj];
    }
    if !added.is_empty() {
        insert(ir, added);
    }
}

/// The literals every conjunction has, in the order of the first one.
fn common_literals(conjs: &[Vec<Lit>]) -> Vec<Lit> {
    let Some((first, rest)) = conjs.split_first() else {
        return Vec::new();
    };
    let sets: Vec<HashSet<Lit>> = rest.iter().map(|c| c.iter().copied().collect()).collect();
    let mut out: Vec<Lit> = Vec::new();
    for &l in first {
        if !out.contains(&l) && sets.iter().all(|s| s.contains(&l)) {
            out.push(l);
        }
    }
    out
}

/// Inserts the new props (numbered from the old count, each before an old prop) and
/// renumbers every reference.
#[allow(clippy::needless_range_loop)]
fn insert(ir: &mut Ir, added: Vec<(u32, Prop)>) {
    let n = ir.props.len();
    let total = n + added.len();
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, (b, _)) in added.iter().enumerate() {
        before[*b as usize].push(n + k);
    }
    // A new prop may itself go before a new prop's target: place new props before old
    // ones recursively (they only ever go before an old prop or before another new one).
    let mut order: Vec<usize> = Vec::with_capacity(total);
    for p in 0..n {
        order.extend(before[p].iter().copied());
        order.push(p);
    }
    let mut index = vec![0u32; total];
    for (i, &p) in order.iter().enumerate() {
        index[p] = i as u32;
    }
    let mut old: Vec<Option<Prop>> = std::mem::take(&mut ir.props)
        .into_iter()
        .map(Some)
        .collect();
    old.extend(added.into_iter().map(|(_, p)| Some(p)));
    let re = |l: Lit| match l.input {
        Input::Prop(p) => Lit {
            input: Input::Prop(index[p as usize]),
            negated: l.negated,
        },
        _ => l,
    };
    ir.props = order
        .iter()
        .map(|&p| {
            let mut prop = old[p].take().unwrap_or(Prop {
                text: String::new(),
                disjuncts: Vec::new(),
                origins: Vec::new(),
            });
            for c in &mut prop.disjuncts {
                for l in c.iter_mut() {
                    *l = re(*l);
                }
            }
            prop
        })
        .collect();
    ir.map_outputs(&mut |l| re(l));
    for g in &mut ir.groups {
        *g = index[g.start as usize]..index[g.end as usize - 1] + 1;
    }
}
