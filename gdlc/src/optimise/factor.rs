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
//! - With [`factor_groups`] (the propnet backend's network), when not all of them share
//!   literals, the disjuncts that do are factored by groups: the disjuncts of a prop that
//!   read the literal most of them read (at least two: [`MIN_GROUP_IN_PROP`]), or the props
//!   of a disjunction (at least [`MIN_GROUP`]), then the same among the rest.
//!   `(anyLegalMove white)` of amazons, the disjunction of `noop` (its own turn test), 1,456
//!   queen moves reading `(turn white move)` and 64 arrow shots reading `(turn white fire)`,
//!   becomes `noop | (turn white move) & (moves ..) | (turn white fire) & (shots ..)`.
//!
//! All are equivalences, so every output keeps its value.

use crate::ir::{Input, Ir, Lit, Prop};

/// Which literals [`factor_with`] factors out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shared {
    /// Those every disjunct shares.
    ByAll,
    /// Those every disjunct shares, else those groups of disjuncts share.
    ByGroups,
}

/// Factors the literals every disjunct of a prop shares, in every prop outside recursive
/// groups (the first two points of the module documentation).
pub fn factor(ir: &mut Ir) {
    factor_with(ir, Shared::ByAll);
}

/// [`factor`], and also the literals groups of disjuncts share (the last point of the module
/// documentation). It saves a propnet the fan-out of such literals; straight-line code gains
/// nothing from it and grows, so only the propnet backend asks for it.
pub fn factor_groups(ir: &mut Ir) {
    factor_with(ir, Shared::ByGroups);
}

/// Factors every prop outside recursive groups (see the module documentation).
#[allow(clippy::needless_range_loop)] // Props index several tables.
fn factor_with(ir: &mut Ir, shared: Shared) {
    let n = ir.props.len();
    let group_of = ir.group_of();
    // New props, numbered from `n`, and before which old prop each goes.
    let mut added: Vec<(u32, Prop)> = Vec::new();
    // A new prop (placed before prop `before`), as a literal; its origins are set at the end.
    let add =
        |before: u32, text: String, disjuncts: Vec<Vec<Lit>>, added: &mut Vec<(u32, Prop)>| {
            added.push((
                before,
                Prop {
                    text,
                    disjuncts,
                    origins: Vec::new(),
                },
            ));
            Lit::pos(Input::Prop((n + added.len() - 1) as u32))
        };
    // Common literals of all disjuncts, or of groups of them.
    for p in 0..n {
        if group_of[p].is_some() || ir.props[p].disjuncts.len() < 2 {
            continue;
        }
        let disjuncts = std::mem::take(&mut ir.props[p].disjuncts);
        let found = groups(&disjuncts, shared, MIN_GROUP_IN_PROP);
        if found.is_empty() {
            ir.props[p].disjuncts = disjuncts;
            continue;
        }
        let whole = found.len() == 1 && found[0].0.len() == disjuncts.len();
        let mut taken = vec![false; disjuncts.len()];
        let mut factored = Vec::new();
        for (k, (members, common)) in found.into_iter().enumerate() {
            let rest: Vec<Vec<Lit>> = members
                .iter()
                .map(|&i| {
                    taken[i] = true;
                    let c = &disjuncts[i];
                    c.iter().copied().filter(|l| !common.contains(l)).collect()
                })
                .collect();
            let mut conj: Vec<Lit> = common;
            if !rest.iter().any(Vec::is_empty) {
                let text = if whole {
                    format!("{} (factored)", ir.props[p].text)
                } else {
                    format!("{} (factored, group {})", ir.props[p].text, k + 1)
                };
                conj.push(add(p as u32, text, rest, &mut added));
            }
            factored.push(conj);
        }
        let mut out: Vec<Vec<Lit>> = disjuncts
            .into_iter()
            .zip(&taken)
            .filter(|&(_, &t)| !t)
            .map(|(c, _)| c)
            .collect();
        out.extend(factored);
        ir.props[p].disjuncts = out;
    }
    // Disjunctions of single conjunctions with common literals: all of them, or the
    // groups of them that share a literal.
    for h in 0..n {
        if group_of[h].is_some() || ir.props[h].disjuncts.len() < 2 {
            continue;
        }
        // Per disjunct, the prop it reads when it is one positive literal of a prop of one
        // conjunction (outside groups).
        let single: Vec<Option<u32>> = ir.props[h]
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
            .collect();
        // All of them when they share literals, else groups of them (of MIN_GROUP or more
        // when some disjuncts are not single conjunctions).
        let members: Vec<(usize, u32)> = single
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (i, r)))
            .collect();
        let conjs: Vec<&[Lit]> = members
            .iter()
            .map(|&(_, r)| &ir.props[r as usize].disjuncts[0][..])
            .collect();
        let all = members.len() == single.len();
        let found: Vec<(Vec<usize>, Vec<Lit>)> = groups(&conjs, shared, MIN_GROUP)
            .into_iter()
            .filter(|(g, common)| !common.is_empty() && (all || g.len() >= MIN_GROUP))
            .collect();
        let whole = found.len() == 1 && found[0].0.len() == single.len();
        let mut taken = vec![false; single.len()];
        let mut groups_of_h: Vec<Vec<Lit>> = Vec::new();
        for (k, (group, common)) in found.into_iter().enumerate() {
            let rs: Vec<u32> = group.iter().map(|&j| members[j].1).collect();
            for &j in &group {
                taken[members[j].0] = true;
            }
            let text = if whole {
                format!("{} (without its common literals)", ir.props[h].text)
            } else {
                format!("{} (group {})", ir.props[h].text, k + 1)
            };
            let conj = lift(ir, h as u32, &rs, common, text, &mut |b, t, d| {
                add(b, t, d, &mut added)
            });
            groups_of_h.push(conj);
        }
        if !groups_of_h.is_empty() {
            let mut disjuncts: Vec<Vec<Lit>> = ir.props[h]
                .disjuncts
                .iter()
                .zip(&taken)
                .filter(|&(_, &t)| !t)
                .map(|(c, _)| c.clone())
                .collect();
            disjuncts.extend(groups_of_h);
            ir.props[h].disjuncts = disjuncts;
        }
    }
    if !added.is_empty() {
        // A factored part comes from the rules of the prop it is factored from (whose origins
        // factoring leaves as they were).
        for (before, prop) in &mut added {
            prop.origins.clone_from(&ir.props[*before as usize].origins);
        }
        insert(ir, added);
    }
}

/// The literals every conjunction has, in the order of the first one: those of the first
/// narrowed by each other conjunction in turn (no set per conjunction: most disjunctions
/// share nothing, which the first few conjunctions tell).
fn common_literals<'a>(mut conjs: impl Iterator<Item = &'a [Lit]>) -> Vec<Lit> {
    let Some(first) = conjs.next() else {
        return Vec::new();
    };
    let mut out: Vec<Lit> = Vec::new();
    for &l in first {
        if !out.contains(&l) {
            out.push(l);
        }
    }
    for c in conjs {
        if out.is_empty() {
            break;
        }
        out.retain(|l| c.contains(l));
    }
    out
}

/// Groups of conjunctions that share literals, each with the literals its members share: all
/// of them when they share some; else, while at least `min` of those not grouped yet share a
/// literal, those that read the literal most of them read (with [`Shared::ByGroups`]).
/// Indices into `conjs`.
fn groups<C: AsRef<[Lit]>>(conjs: &[C], shared: Shared, min: usize) -> Vec<(Vec<usize>, Vec<Lit>)> {
    let common = common_literals(conjs.iter().map(AsRef::as_ref));
    if !common.is_empty() {
        return vec![((0..conjs.len()).collect(), common)];
    }
    if shared == Shared::ByAll {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut free: Vec<usize> = (0..conjs.len()).collect();
    if free.len() < min {
        return out;
    }
    // The readers of each literal among the free conjunctions, counted once and decreased as
    // groups are taken (a literal no free conjunction reads any more counts 0, and 0 is
    // below `min`).
    let mut counts: rustc_hash::FxHashMap<Lit, usize> = Default::default();
    for c in conjs {
        for &l in c.as_ref() {
            *counts.entry(l).or_default() += 1;
        }
    }
    // Each non-constant literal once, under a count at least its count now (counts only
    // decrease): the top is the literal most free conjunctions read (the least literal of
    // those) once its count is the current one, else it goes back under that count. (Scanning
    // every count for each group was quadratic: alexChess's props of many disjuncts, 4% of
    // its compile.)
    let mut heap: std::collections::BinaryHeap<Counted> = counts
        .iter()
        .filter(|(l, _)| l.constant().is_none())
        .map(|(&l, &k)| (k, std::cmp::Reverse(l)))
        .collect();
    while free.len() >= min {
        let Some((g, k)) = most_read(&counts, &mut heap) else {
            break;
        };
        if k < min {
            break;
        }
        let (members, rest): (Vec<usize>, Vec<usize>) =
            free.iter().partition(|&&i| conjs[i].as_ref().contains(&g));
        for &i in &members {
            for l in conjs[i].as_ref() {
                if let Some(k) = counts.get_mut(l) {
                    *k -= 1;
                }
            }
        }
        heap.push((counts.get(&g).copied().unwrap_or(0), std::cmp::Reverse(g)));
        let common = common_literals(members.iter().map(|&i| conjs[i].as_ref()));
        out.push((members, common));
        free = rest;
    }
    out
}

/// A literal under a count, the greatest count first, then the least literal.
type Counted = (usize, std::cmp::Reverse<Lit>);

/// The top of `heap` whose count is its count in `counts` (see [`groups`]), the others put
/// back under their count.
fn most_read(
    counts: &rustc_hash::FxHashMap<Lit, usize>,
    heap: &mut std::collections::BinaryHeap<Counted>,
) -> Option<(Lit, usize)> {
    while let Some((k, std::cmp::Reverse(l))) = heap.pop() {
        let now = counts.get(&l).copied().unwrap_or(0);
        if now == k {
            return Some((l, k));
        }
        heap.push((now, std::cmp::Reverse(l)));
    }
    None
}

/// The smallest group of props of a disjunction sharing a literal that is factored when the
/// other props do not share it.
const MIN_GROUP: usize = 8;

/// The smallest group of disjuncts of one prop sharing a literal that is factored when the
/// other disjuncts do not share it: two, since `g & a | g & b | c` as `g & (a | b) | c` has
/// fewer edges and `g` fans out to one gate fewer, and the new `a | b` is often the same in
/// many props (hash-consed to one gate): hex's `(next (connected ?k ?m ?n))` reads
/// `(step ?k) & (does .. (place ?m ?n))` and `(step ?k) & (transfer into ?m ?n)`, and factored
/// each `(step ?k)` fans out to 81 gates instead of 162. Measured (visits per state of the
/// profile, the sampled playouts of `gdlc emit` at trace level): hex 1,301 -> 1,088, chess_200
/// 1,733 -> 1,515, checkers 578 -> 525, skirmish 962 -> 945; 3 keeps hex as it was and
/// chess_200 at 1,644. (Groups of fewer than [`MIN_GROUP`] props of a disjunction measured no
/// gain: hex and skirmish unchanged, checkers and speedChess a few visits more.)
const MIN_GROUP_IN_PROP: usize = 2;

/// The disjunction of the props `rs` (each one conjunction containing the literals `common`)
/// as `common & q`, `q` the disjunction of what is left of each; each `r` with more than one
/// literal left reads its remainder, a new prop. A prop left with the common literals only
/// makes the whole `common`. `add(before, text, disjuncts)` makes a new prop.
fn lift(
    ir: &mut Ir,
    h: u32,
    rs: &[u32],
    common: Vec<Lit>,
    text: String,
    add: &mut impl FnMut(u32, String, Vec<Vec<Lit>>) -> Lit,
) -> Vec<Lit> {
    let mut lifted: Vec<Vec<Lit>> = Vec::with_capacity(rs.len());
    for &r in rs {
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
                let q = add(r, text, vec![rest]);
                let mut c = common.clone();
                c.push(q);
                ir.props[r as usize].disjuncts = vec![c];
                Some(q)
            }
        };
        match lit {
            Some(l) => lifted.push(vec![l]),
            // A conjunction of the common literals only: the whole is `common`.
            None => {
                lifted.clear();
                break;
            }
        }
    }
    let mut conj = common;
    if !lifted.is_empty() {
        conj.push(add(h, text, lifted));
    }
    conj
}

/// Inserts the new props (numbered from the old count, each before an old prop) and
/// renumbers every reference.
#[allow(clippy::needless_range_loop)]
pub(super) fn insert(ir: &mut Ir, added: Vec<(u32, Prop)>) {
    let n = ir.props.len();
    let total = n + added.len();
    // The new props by the old prop they go before (in the order added), each with its
    // number: a stable sort, not a vector per old prop.
    let mut slots: Vec<(u32, usize)> = added
        .iter()
        .enumerate()
        .map(|(k, &(b, _))| (b, n + k))
        .collect();
    slots.sort_by_key(|&(b, _)| b);
    let mut index = vec![0u32; total];
    let mut at = 0;
    let mut i = 0u32;
    for p in 0..n {
        while let Some(&(b, k)) = slots.get(at)
            && b as usize == p
        {
            index[k] = i;
            i += 1;
            at += 1;
        }
        index[p] = i;
        i += 1;
    }
    // None should go after the last old prop; if one did, it goes last.
    for &(_, k) in &slots[at..] {
        index[k] = i;
        i += 1;
    }
    let re = |l: Lit| match l.input {
        Input::Prop(p) => Lit {
            input: Input::Prop(index[p as usize]),
            negated: l.negated,
        },
        _ => l,
    };
    let mut new: Vec<Option<Prop>> = added.into_iter().map(|(_, p)| Some(p)).collect();
    let mut props = Vec::with_capacity(total);
    let mut at = 0;
    // Each prop moved once, renumbered as it is moved.
    let place = |mut prop: Prop, props: &mut Vec<Prop>| {
        for c in &mut prop.disjuncts {
            for l in c.iter_mut() {
                *l = re(*l);
            }
        }
        props.push(prop);
    };
    for (p, prop) in std::mem::take(&mut ir.props).into_iter().enumerate() {
        while let Some(&(b, k)) = slots.get(at)
            && b as usize == p
        {
            at += 1;
            if let Some(q) = new[k - n].take() {
                place(q, &mut props);
            }
        }
        place(prop, &mut props);
    }
    for &(_, k) in &slots[at..] {
        if let Some(q) = new[k - n].take() {
            place(q, &mut props);
        }
    }
    ir.props = props;
    ir.map_outputs(&mut |l| re(l));
    for g in &mut ir.groups {
        *g = index[g.start as usize]..index[g.end as usize - 1] + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`groups`] as it was written first: the most read literal found by scanning every count
    /// for each group.
    fn groups_by_scan(conjs: &[Vec<Lit>], min: usize) -> Vec<(Vec<usize>, Vec<Lit>)> {
        let common = common_literals(conjs.iter().map(AsRef::as_ref));
        if !common.is_empty() {
            return vec![((0..conjs.len()).collect(), common)];
        }
        let mut out = Vec::new();
        let mut free: Vec<usize> = (0..conjs.len()).collect();
        let mut counts: rustc_hash::FxHashMap<Lit, usize> = Default::default();
        for c in conjs {
            for &l in c {
                *counts.entry(l).or_default() += 1;
            }
        }
        while free.len() >= min {
            let Some((g, k)) = counts
                .iter()
                .map(|(&l, &k)| (l, k))
                .filter(|&(l, _)| l.constant().is_none())
                .max_by_key(|&(l, k)| (k, std::cmp::Reverse(l)))
            else {
                break;
            };
            if k < min {
                break;
            }
            let (members, rest): (Vec<usize>, Vec<usize>) =
                free.iter().partition(|&&i| conjs[i].contains(&g));
            for &i in &members {
                for l in &conjs[i] {
                    if let Some(k) = counts.get_mut(l) {
                        *k -= 1;
                    }
                }
            }
            let common = common_literals(members.iter().map(|&i| conjs[i].as_ref()));
            out.push((members, common));
            free = rest;
        }
        out
    }

    #[test]
    fn groups_are_those_of_a_scan_of_every_count() {
        let mut rng = gdl_runtime::SplitMix64::new(7);
        for case in 0..300 {
            let bits = 2 + rng.below(12) as u32;
            let conjs: Vec<Vec<Lit>> = (0..1 + rng.below(40))
                .map(|_| {
                    let mut c: Vec<Lit> = (0..1 + rng.below(5))
                        .map(|_| {
                            let l = Lit::pos(Input::Bit(rng.below(bits as usize) as u32));
                            if rng.below(4) == 0 { l.negate() } else { l }
                        })
                        .collect();
                    c.sort_unstable();
                    c.dedup();
                    c
                })
                .collect();
            for min in [2, 3, MIN_GROUP] {
                assert_eq!(
                    groups(&conjs, Shared::ByGroups, min),
                    groups_by_scan(&conjs, min),
                    "case {case}, min {min}: {conjs:?}"
                );
            }
        }
    }
}
