//! The order of the state bits: *planes*. The facts of one state relation of at most 64
//! facts (one state word) are grouped by their "piece" argument, the argument position with
//! the fewest distinct values (ties: one whose values are not all numbers, then the last
//! position), and ordered within a group by the other arguments, left to right, each by the
//! order of its values: numbers numerically first, then the other terms in byte order of their
//! text. So `(cell ?x ?y ?piece)` lays out all `x` pieces in coordinate order, then all `o`
//! pieces, and so on: the board is a set of bitboards in one word, and one pattern of cells (a
//! line) is the same bit offsets in every place, which the inline backend tests by shifts of
//! the state words. A larger relation keeps a cell's pieces together (the piece argument
//! last, the others in the same value order): its planes would straddle words, so that
//! "the cell is empty" and the lines would read two words (connectFour, measured slower).
//! Relations come in byte order of their name (then arity); facts of arity 0 or 1 by their
//! one value.

use rustc_hash::FxHashMap as HashMap;

use crate::ground::GroundProgram;
use crate::terms::TermId;

/// The bits of a state word: a relation of at most this many facts is laid out in planes.
const WORD: usize = 64;

/// A relation: its name and arity.
type Rel = (String, usize);
/// Per relation: the rank of each value at each argument position, and the positions in the
/// order of the sort key.
type Ranks = (Vec<HashMap<TermId, usize>>, Vec<usize>);

/// Sorts the state facts `facts` (distinct) into plane order.
pub(super) fn plane_order(g: &GroundProgram, facts: &mut [(String, TermId)]) {
    let store = &g.store;
    // Per relation (functor text, arity): the distinct values of each argument position.
    let mut values: HashMap<Rel, Vec<Vec<TermId>>> = HashMap::default();
    let mut sizes: HashMap<Rel, usize> = HashMap::default();
    for &(_, f) in facts.iter() {
        let args = store.args(f);
        let name = g.symbols.name(store.functor(f)).to_string();
        *sizes.entry((name.clone(), args.len())).or_default() += 1;
        let per_pos = values
            .entry((name, args.len()))
            .or_insert_with(|| vec![Vec::new(); args.len()]);
        for (vs, &a) in per_pos.iter_mut().zip(args) {
            vs.push(a);
        }
    }
    // Per relation: the rank of each value at each position, and the order of the positions
    // in the key (the piece position first; last in a relation larger than a word).
    let mut rank: HashMap<Rel, Ranks> = HashMap::default();
    for (rel, per_pos) in values {
        let mut ranks = Vec::with_capacity(per_pos.len());
        let mut counts = Vec::with_capacity(per_pos.len());
        for mut vs in per_pos {
            vs.sort_unstable();
            vs.dedup();
            let mut keyed: Vec<(Option<i64>, String, TermId)> = vs
                .into_iter()
                .map(|v| (number(g, v), g.text(v), v))
                .collect();
            let numeric = keyed.iter().all(|k| k.0.is_some());
            // Numbers first, numerically; then the other terms by their text.
            keyed.sort_by(|a, b| (a.0.is_none(), a.0, &a.1).cmp(&(b.0.is_none(), b.0, &b.1)));
            counts.push((keyed.len(), numeric));
            ranks.push(
                keyed
                    .into_iter()
                    .enumerate()
                    .map(|(i, k)| (k.2, i))
                    .collect(),
            );
        }
        let mut positions: Vec<usize> = (0..counts.len()).collect();
        if counts.len() >= 2
            && let Some(&piece) = positions
                .iter()
                .min_by_key(|&&p| (counts[p].0, counts[p].1, std::cmp::Reverse(p)))
        {
            positions.retain(|&p| p != piece);
            if sizes[&rel] <= WORD {
                positions.insert(0, piece);
            } else {
                positions.push(piece);
            }
        }
        rank.insert(rel, (ranks, positions));
    }
    let key = |f: TermId| -> (String, usize, Vec<usize>) {
        let args = store.args(f);
        let name = g.symbols.name(store.functor(f)).to_string();
        let k = match rank.get(&(name.clone(), args.len())) {
            Some((ranks, positions)) => positions
                .iter()
                .map(|&p| ranks[p].get(&args[p]).copied().unwrap_or(usize::MAX))
                .collect(),
            None => Vec::new(),
        };
        (name, args.len(), k)
    };
    facts.sort_by_cached_key(|&(_, f)| key(f));
}

/// The value of a number term (an integer constant), `None` for other terms.
fn number(g: &GroundProgram, t: TermId) -> Option<i64> {
    if !g.store.args(t).is_empty() {
        return None;
    }
    g.symbols.name(g.store.functor(t)).parse().ok()
}
