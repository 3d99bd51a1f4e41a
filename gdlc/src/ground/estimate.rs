//! Row estimates of the tables of join rules (see [`super::hybrid`]), by which their scans
//! are ordered.
//!
//! A table lists every atom a literal can match, but at run time only the rows whose atom
//! holds count: the explorer of a maze has a location table of every cell and one row that
//! holds. A scan is estimated by the rows it *yields* (the rows of its index bucket that hold)
//! and, to break ties, the rows it *visits* (its bucket):
//!
//! - a static table holds in full;
//! - a `true` table holds about as many rows as the initial state has facts that match the
//!   literal (at least one);
//! - a `does` table holds at most one row per role the literal can name;
//! - another dynamic table may hold every row.
//!
//! The bucket of a lookup by bound columns is the table's rows divided by its distinct keys
//! on those columns (counted once per table and columns).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gdl_runtime::propnet::Table;

use super::Grounder;
use super::join::{self, rel_key};
use crate::ast::kw;
use crate::normalize::{NAtom, NTerm};

/// A positive literal's table, before its scan is placed, with what estimates need.
pub(crate) struct Candidate {
    pub table: Table,
    /// The rows expected to hold at once.
    holding: f64,
    /// Distinct keys per column mask.
    keys: HashMap<u64, usize>,
}

/// What a scan is expected to cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ScanEstimate {
    /// Rows that hold per lookup.
    pub yields: f64,
    /// Rows looked at per lookup.
    pub visits: f64,
}

impl ScanEstimate {
    /// The order of scans: fewest rows yielded, then fewest visited.
    pub fn cmp(&self, other: &ScanEstimate) -> std::cmp::Ordering {
        self.yields
            .total_cmp(&other.yields)
            .then(self.visits.total_cmp(&other.visits))
    }
}

impl Candidate {
    /// The table `table` of literal `a`, with the rows expected to hold.
    pub fn new(g: &Grounder<'_>, a: &NAtom, table: Table) -> Candidate {
        let rows = table.signals.len();
        let holding = holding_rows(g, a, rows);
        Candidate {
            table,
            holding,
            keys: HashMap::default(),
        }
    }

    /// The estimate of a scan looked up by the columns of `mask`.
    pub fn estimate(&mut self, mask: u64) -> ScanEstimate {
        let rows = self.table.signals.len();
        if rows == 0 {
            return ScanEstimate {
                yields: 0.0,
                visits: 0.0,
            };
        }
        let keys = if mask == 0 {
            1
        } else {
            let t = &self.table;
            *self
                .keys
                .entry(mask)
                .or_insert_with(|| distinct_keys(t, mask))
        };
        let bucket = rows as f64 / keys.max(1) as f64;
        ScanEstimate {
            yields: bucket * self.holding / rows as f64,
            visits: bucket,
        }
    }
}

/// The number of distinct values of the columns of `mask` among the rows of `t`.
fn distinct_keys(t: &Table, mask: u64) -> usize {
    let w = t.width as usize;
    if w == 0 {
        return 1;
    }
    let mut seen: HashSet<Vec<u32>> = HashSet::default();
    for row in t.rows.chunks_exact(w) {
        let key: Vec<u32> = row
            .iter()
            .enumerate()
            .filter(|(c, _)| mask >> c & 1 == 1)
            .map(|(_, &v)| v)
            .collect();
        seen.insert(key);
    }
    seen.len()
}

/// The rows of literal `a`'s table (`rows` of them) expected to hold at once.
fn holding_rows(g: &Grounder<'_>, a: &NAtom, rows: usize) -> f64 {
    if !g.dynamic.contains(&rel_key(a)) {
        return rows as f64;
    }
    let held = match a.rel {
        kw::TRUE => {
            // As many as the initial state has.
            let pattern = NAtom {
                rel: kw::INIT,
                args: a.args.clone(),
            };
            g.db.atoms((kw::INIT, 1))
                .iter()
                .filter(|&&atom| join::match_atom(&pattern, atom, &g.store).is_some())
                .count()
                .max(1)
        }
        kw::DOES => match a.args.first() {
            Some(NTerm::Var(_)) => g.db.atoms((kw::ROLE, 1)).len().max(1),
            _ => 1,
        },
        _ => rows,
    };
    held.min(rows) as f64
}
