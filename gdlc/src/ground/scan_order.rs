//! The order in which a rule evaluated at run time ([`super::hybrid`]) scans its positive
//! literals: the one expected to cost least, from estimates of each literal's table.
//!
//! A scan visits the rows of its table that agree with the variables bound so far (all of them
//! when none is bound), and passes on those that hold, each of which runs the rest of the body.
//! The cost of an order is the rows visited plus the rows passed on, summed over its scans,
//! each multiplied by the rows the scans before it passed on. For bodies of up to
//! [`EXACT_UP_TO`] scans the cheapest order is found exactly (over the subsets of scans
//! placed, as a query planner does); longer ones take the cheapest next scan at each step.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::Grounder;
use super::join::{self, rel_key};
use crate::ast::kw;
use crate::normalize::{NAtom, NLit, NRule};
use crate::terms::TermId;

/// The most scans whose order is searched exactly (2^n subsets).
const EXACT_UP_TO: usize = 12;

/// What visiting a row costs against passing one on (a signal test and a key comparison,
/// against the rest of the body).
const VISIT_COST: f64 = 1.0 / 16.0;

/// The positive literals of `rule` read from tables (not lazy relations), by index in its body,
/// in the order to scan them, the variables `bound` being given.
pub(super) fn scan_order(g: &Grounder<'_>, rule: &NRule, bound: &[u32]) -> Vec<usize> {
    let mut scans: Vec<(usize, Vec<u32>, ScanEstimate)> = rule
        .body
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l {
            NLit::Pos(a) if !g.lazy.contains_key(&rel_key(a)) => {
                Some((i, l.distinct_vars(), ScanEstimate::of(g, a)))
            }
            _ => None,
        })
        .collect();
    let n = scans.len();
    if n <= 1 {
        return scans.into_iter().map(|(i, ..)| i).collect();
    }
    if n > EXACT_UP_TO {
        return greedy(&mut scans, bound);
    }
    // best[s]: the cheapest order of the scans in subset `s`: (cost, rows passed on, last).
    let full = (1usize << n) - 1;
    let mut best: Vec<Option<(f64, f64, usize)>> = vec![None; full + 1];
    best[0] = Some((0.0, 1.0, usize::MAX));
    for s in 0..full {
        let Some((cost, rows, _)) = best[s] else {
            continue;
        };
        let mut vars: Vec<u32> = bound.to_vec();
        for (k, (_, cols, _)) in scans.iter().enumerate() {
            if s >> k & 1 == 1 {
                vars.extend(cols);
            }
        }
        for (k, (_, cols, e)) in scans.iter_mut().enumerate() {
            if s >> k & 1 == 1 {
                continue;
            }
            let (visited, passed) = e.per_lookup(cols, &vars);
            let next = (
                cost + rows * (visited * VISIT_COST + passed),
                rows * passed,
                k,
            );
            let t = s | 1 << k;
            if best[t].is_none_or(|(c, r, _)| (next.0, next.1) < (c, r)) {
                best[t] = Some(next);
            }
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut s = full;
    while s != 0 {
        let Some((_, _, k)) = best[s] else { break };
        order.push(scans[k].0);
        s &= !(1 << k);
    }
    order.reverse();
    order
}

/// The cheapest next scan at each step.
fn greedy(scans: &mut [(usize, Vec<u32>, ScanEstimate)], bound: &[u32]) -> Vec<usize> {
    let mut vars: Vec<u32> = bound.to_vec();
    let mut left: Vec<usize> = (0..scans.len()).collect();
    let mut order = Vec::with_capacity(scans.len());
    while !left.is_empty() {
        let Some((p, _)) = left
            .iter()
            .enumerate()
            .map(|(p, &k)| {
                let (_, cols, e) = &mut scans[k];
                let (visited, passed) = e.per_lookup(cols, &vars);
                (p, visited * VISIT_COST + passed)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
        else {
            break;
        };
        let k = left.remove(p);
        vars.extend(&scans[k].1);
        order.push(scans[k].0);
    }
    order
}

/// What a scan of a positive literal is expected to meet at run time: its rows (the atoms the
/// literal can match), how many of them hold in a typical state, and how many distinct keys
/// each set of bound columns has.
///
/// A static fact always holds. A state fact (`true`) is counted as holding when it holds in
/// the initial state: a board has its squares' contents, a marker its one position, out of
/// far more atoms (mummymaze's explorer is at one of 837 positions; scanning its position
/// first, instead of the moves from every square, made the join 100 times faster). At most
/// one move of each role holds (`does`). Any other dynamic relation may hold on all its atoms.
struct ScanEstimate {
    width: usize,
    rows: f64,
    /// The rows' values, `width` a row.
    values: Vec<TermId>,
    holding: f64,
    /// Per mask of bound columns, its distinct keys among the rows.
    keys: HashMap<u64, f64>,
}

impl ScanEstimate {
    fn of(g: &Grounder<'_>, a: &NAtom) -> ScanEstimate {
        let rel = rel_key(a);
        let dynamic = g.dynamic.contains(&rel);
        let cols = NLit::Pos(a.clone()).distinct_vars();
        let mut values = Vec::new();
        let (mut rows, mut initially) = (0usize, 0usize);
        let mut roles: HashSet<TermId> = HashSet::default();
        for &atom in g.db.atoms(rel) {
            let Some(vals) = join::match_atom(a, atom, &g.store) else {
                continue;
            };
            rows += 1;
            values.extend(
                cols.iter()
                    .map(|&v| vals.get(v as usize).copied().flatten().unwrap_or(0)),
            );
            let args = g.store.args(atom);
            if a.rel == kw::TRUE
                && g.store
                    .get(kw::INIT, args)
                    .is_some_and(|init| g.db.contains(init))
            {
                initially += 1;
            }
            if a.rel == kw::DOES
                && let Some(&role) = args.first()
            {
                roles.insert(role);
            }
        }
        let holding = match a.rel {
            _ if !dynamic => rows,
            kw::TRUE => initially.max(1),
            kw::DOES => roles.len(),
            _ => rows,
        };
        ScanEstimate {
            width: cols.len(),
            rows: rows.max(1) as f64,
            values,
            holding: holding.min(rows) as f64,
            keys: HashMap::default(),
        }
    }

    /// Per lookup with the variables `bound` (the literal's columns are `cols`): the rows
    /// visited and the rows passed on.
    fn per_lookup(&mut self, cols: &[u32], bound: &[u32]) -> (f64, f64) {
        let mask = cols
            .iter()
            .enumerate()
            .filter(|(_, v)| bound.contains(v))
            .fold(0u64, |m, (c, _)| m | 1u64 << c.min(63));
        let width = self.width.max(1);
        let rows = self.rows;
        let values = &self.values;
        let keys = *self.keys.entry(mask).or_insert_with(|| {
            let distinct: HashSet<Vec<TermId>> = values
                .chunks(width)
                .map(|row| {
                    row.iter()
                        .enumerate()
                        .filter(|(c, _)| mask >> (*c).min(63) & 1 == 1)
                        .map(|(_, &x)| x)
                        .collect()
                })
                .collect();
            distinct.len().max(1) as f64
        });
        (rows / keys, self.holding / keys)
    }
}
