//! The two fixpoints of grounding: the exact one of the static relations (component by
//! component, with stratified negation) and the relaxed reachability of the dynamic ones.
//! Both are semi-naive: after the first round, a rule is joined once per positive literal of a
//! relation that grew, that literal reading only the atoms new in the last round.

use crate::diag::codes;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::scc::tarjan_scc;
use petgraph::graph::DiGraph;

use super::GroundError;
use crate::ast::kw;
use crate::diag::Diagnostic;
use crate::normalize::{NAtom, NLit, NRule};
use crate::terms::{TermId, TupleSet};

use super::Grounder;
use super::join::{self, Exhausted, JoinError, JoinRequest, NegMode, RelKey, rel_key};
use super::{hybrid, split};

/// The static rules grouped by strongly connected component of their relations, in
/// dependency order; fails on negation inside a component.
pub fn static_components<'a>(rules: &[&'a NRule]) -> Result<Vec<Vec<&'a NRule>>, GroundError> {
    let mut graph: DiGraph<RelKey, ()> = DiGraph::new();
    let mut node = HashMap::default();
    let mut get =
        |g: &mut DiGraph<RelKey, ()>, k: RelKey| *node.entry(k).or_insert_with(|| g.add_node(k));
    for r in rules {
        let h = get(&mut graph, rel_key(&r.head));
        for lit in &r.body {
            if let NLit::Pos(a) | NLit::Neg(a) = lit {
                let b = get(&mut graph, rel_key(a));
                graph.update_edge(b, h, ());
            }
        }
    }
    let mut sccs = tarjan_scc(&graph);
    sccs.reverse();
    let mut comp_of: HashMap<RelKey, usize> = HashMap::default();
    for (c, scc) in sccs.iter().enumerate() {
        for &n in scc {
            comp_of.insert(graph[n], c);
        }
    }
    let mut comps: Vec<Vec<&NRule>> = vec![Vec::new(); sccs.len()];
    let mut errors = Vec::new();
    for r in rules {
        let c = comp_of[&rel_key(&r.head)];
        for lit in &r.body {
            if let NLit::Neg(a) = lit
                && comp_of.get(&rel_key(a)) == Some(&c)
            {
                errors.push(Diagnostic::error(
                    codes::NEGATIVE_CYCLE,
                    r.span,
                    "this rule depends on its own negation: the description is not stratified",
                ));
            }
        }
        comps[c].push(r);
    }
    if errors.is_empty() {
        Ok(comps)
    } else {
        Err(GroundError {
            kind: super::GroundErrorKind::NegativeCycle,
            diagnostics: errors,
            defer: None,
        })
    }
}

/// Computes the atoms of one component of static rules, exactly.
pub fn static_component(g: &mut Grounder<'_>, component: &[&NRule]) -> Result<(), GroundError> {
    let mut growing: HashSet<RelKey> = component.iter().map(|r| rel_key(&r.head)).collect();
    let inside = growing.clone();
    let neg = NegMode::open_in(&inside);
    let mut rules: Vec<NRule> = component.iter().map(|&r| r.clone()).collect();
    fixpoint(g, &mut rules, &mut growing, &neg, Feed::No)?;
    Ok(())
}

/// The relaxed reachability of the dynamic relations from the `init` facts; returns the
/// number of rounds. `rules` may be split on the way (see [`fixpoint`]).
pub fn reach(
    g: &mut Grounder<'_>,
    init: &[TermId],
    rules: &mut Vec<NRule>,
) -> Result<usize, GroundError> {
    let mut seeds: Vec<TermId> = init.to_vec();
    seeds.extend(
        g.db.atoms((kw::NEXT, 1))
            .iter()
            .map(|&a| g.store.args(a)[0]),
    );
    for x in seeds {
        let t = g.store.intern(kw::TRUE, &[x]);
        g.db.insert(&g.store, (kw::TRUE, 1), t);
    }
    for a in g.db.atoms((kw::LEGAL, 2)).to_vec() {
        let args = g.store.args(a).to_vec();
        let t = g.store.intern(kw::DOES, &args);
        g.db.insert(&g.store, (kw::DOES, 2), t);
    }
    let dynamic = g.dynamic.clone();
    let neg = NegMode::open_in(&dynamic);
    let mut growing = dynamic.clone();
    fixpoint(g, rules, &mut growing, &neg, Feed::Yes)
}

/// Whether derived `next` and `legal` atoms are fed back as `true` and `does` atoms.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    No,
    Yes,
}

/// How much join work one rule may do in one round before it is split (see
/// [`super::split`]): a rule such as `(<= (total ?t) (g a ?n1) (g b ?n2) (sum ?n1 ?n2 ?s) ..)`
/// joins every combination of its variables though its head has one.
const SPLIT_WORK: u64 = 2_000_000;

/// How much join work one rule may do over the rounds of a fixpoint (each round's under
/// [`SPLIT_WORK`]) before it is split: racer4's `legal_speed` (its rules once split on
/// [`SPLIT_WORK`]) joined the positions reached with every speed again in each of its 190
/// rounds, 100 of the fixpoint's 112 million join steps, where split so it does 34 million
/// in all (and its instantiation is no longer too large: it grounds).
const SPLIT_TOTAL: u64 = 2 * SPLIT_WORK;

/// Runs `rules` to a fixpoint semi-naively; `growing` are the relations that may gain atoms
/// meanwhile. A rule whose join is too much work is replaced by the rules of a split (their
/// auxiliary relations join `growing`). Returns the number of rounds.
pub fn fixpoint(
    g: &mut Grounder<'_>,
    rules: &mut Vec<NRule>,
    growing: &mut HashSet<RelKey>,
    neg_mode: &dyn Fn(&NAtom) -> NegMode,
    feed: Feed,
) -> Result<usize, GroundError> {
    let mut lo = 0;
    let mut hi = g.db.count();
    let mut rounds = 0;
    // Rules that read lazy relations are evaluated at run time.
    let mut joins: Vec<NRule> = Vec::new();
    rules.retain(|r| {
        let lazy = r.body.iter().any(|l| match l {
            NLit::Pos(a) | NLit::Neg(a) => g.lazy.contains_key(&rel_key(a)),
            _ => false,
        });
        if lazy {
            joins.push(r.clone());
        }
        !lazy
    });
    // Per join rule, the rule its head atoms are derived by (see [`relaxed_join`]), and
    // whether it is to run in full in the current round.
    let mut stand_ins: Vec<(Option<NRule>, bool, hybrid::HeadsSeen)> = joins
        .iter()
        .map(|r| (relaxed_join(g, r), true, Default::default()))
        .collect();
    // Rules to run in full in the current round (new ones, from splits).
    let mut full: Vec<bool> = vec![true; rules.len()];
    // The join work each rule has done in the rounds so far (see [`SPLIT_TOTAL`]).
    let mut spent: Vec<u64> = vec![0; rules.len()];
    loop {
        for (rule, (stand_in, first, seen)) in joins.iter().zip(&mut stand_ins) {
            if let Some(r) = stand_in {
                derive(g, r, *first, growing, (lo, hi), neg_mode, feed, u64::MAX)?;
                *first = false;
                continue;
            }
            for head in hybrid::head_atoms_if_grown(g, rule, seen)? {
                if g.db.insert(&g.store, rel_key(&rule.head), head) && feed == Feed::Yes {
                    feed_back(g, &rule.head, head);
                }
            }
            g.check_atoms(rule)?;
        }
        let mut i = 0;
        while i < rules.len() {
            let splittable = split::splittable(&rules[i]);
            // A rule that has done more than its share over the rounds is split before its
            // join, when it can be (else it is joined, and tried again after as much work).
            let early = if splittable && spent[i] >= SPLIT_TOTAL {
                split_rule(g, &rules[i])
            } else {
                None
            };
            let s = match early {
                Some(s) => Some(s),
                None => {
                    let cap = if splittable { SPLIT_WORK } else { u64::MAX };
                    let left = g.budget.work_left;
                    let done = derive(
                        g,
                        &rules[i],
                        full[i],
                        growing,
                        (lo, hi),
                        neg_mode,
                        feed,
                        cap,
                    )?;
                    spent[i] = if spent[i] >= SPLIT_TOTAL {
                        0
                    } else {
                        spent[i] + (left - g.budget.work_left)
                    };
                    if done {
                        full[i] = false;
                        i += 1;
                        continue;
                    }
                    split_rule(g, &rules[i])
                }
            };
            match s {
                Some(s) => {
                    let aux_rel = rel_key(&s.aux.head);
                    growing.insert(aux_rel);
                    if s.aux.body.iter().any(|l| match l {
                        NLit::Pos(a) | NLit::Neg(a) => g.dynamic.contains(&rel_key(a)),
                        _ => false,
                    }) {
                        g.dynamic.insert(aux_rel);
                    }
                    rules[i] = s.residual;
                    rules.insert(i, s.aux);
                    full[i] = true;
                    full.insert(i, true);
                    spent[i] = 0;
                    spent.insert(i, 0);
                }
                None if g.hybrid && feed == Feed::Yes => {
                    // Too large to ground: evaluated at run time from now on.
                    let rule = rules.remove(i);
                    full.remove(i);
                    spent.remove(i);
                    let mut seen = hybrid::HeadsSeen::default();
                    for head in hybrid::head_atoms_if_grown(g, &rule, &mut seen)? {
                        if g.db.insert(&g.store, rel_key(&rule.head), head) && feed == Feed::Yes {
                            feed_back(g, &rule.head, head);
                        }
                    }
                    stand_ins.push((None, true, seen));
                    joins.push(rule);
                }
                None => {
                    g.unsplit_in_reach |= feed == Feed::Yes;
                    derive(
                        g,
                        &rules[i],
                        full[i],
                        growing,
                        (lo, hi),
                        neg_mode,
                        feed,
                        u64::MAX,
                    )?;
                    full[i] = false;
                    i += 1;
                }
            }
        }
        rounds += 1;
        lo = hi;
        hi = g.db.count();
        g.progress.step("atoms derived", u64::from(hi), 0);
        if lo == hi {
            g.join_rules.extend(joins);
            return Ok(rounds);
        }
    }
}

/// The head atoms of a join rule that reads lazy relations only in negative literals are
/// those of the rule without them (negation is relaxed anyway): the rule returned, which the
/// fixpoint runs like the others (semi-naively) but does not instantiate. `None` when a
/// positive literal reads a lazy relation: [`hybrid::head_atoms_if_grown`] over-approximates them then.
fn relaxed_join(g: &Grounder<'_>, rule: &NRule) -> Option<NRule> {
    let lazy = |a: &NAtom| g.lazy.contains_key(&rel_key(a));
    if rule
        .body
        .iter()
        .any(|l| matches!(l, NLit::Pos(a) if lazy(a)))
    {
        return None;
    }
    let mut r = rule.clone();
    r.body.retain(|l| !matches!(l, NLit::Neg(a) if lazy(a)));
    Some(r)
}

/// One split of `rule` for the fixpoint, with its auxiliary relation named.
fn split_rule(g: &mut Grounder<'_>, rule: &NRule) -> Option<split::Split> {
    let name = format!("{} %{}", g.symbols.name(rule.head.rel), g.aux_count);
    let aux_rel = g.symbols.intern(&name);
    let mut sizes = super::instantiate::DbSizes { g, rule };
    let s = split::eliminate(rule, aux_rel, &mut sizes, u64::MAX)?;
    g.aux_count += 1;
    Some(s)
}

/// One semi-naive round of one rule: adds the heads of its matches (all of them when `first`,
/// else those that read an atom of `window` in a growing relation). False when the join would
/// take more than `cap` work (what it found is kept).
#[allow(clippy::too_many_arguments)]
fn derive(
    g: &mut Grounder<'_>,
    rule: &NRule,
    first: bool,
    growing: &HashSet<RelKey>,
    (lo, hi): (u32, u32),
    neg_mode: &dyn Fn(&NAtom) -> NegMode,
    feed: Feed,
    cap: u64,
) -> Result<bool, GroundError> {
    // The head's variables: matches are kept projected on them, without duplicates.
    let mut head_vars: Vec<u32> = Vec::new();
    rule.head.for_each_var(&mut |v| {
        if !head_vars.contains(&v) {
            head_vars.push(v)
        }
    });
    let mut heads = TupleSet::new(head_vars.len());
    let mut tuple: Vec<TermId> = Vec::with_capacity(head_vars.len());
    let deltas: Vec<Option<usize>> = if first {
        vec![None]
    } else {
        rule.body
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match l {
                NLit::Pos(a)
                    if growing.contains(&rel_key(a)) && g.db.has_in_window(rel_key(a), lo, hi) =>
                {
                    Some(Some(i))
                }
                _ => None,
            })
            .collect()
    };
    // The join stops once its heads alone pass the atom limit (distinct atoms, so the
    // database then holds more than the limit and `insert_heads` fails), not after deriving
    // every one of them: a static component allowed a quarter of the atoms stops there.
    let max_heads = g.atom_limit.min(g.options.max_atoms);
    let (work_before, started) = (g.budget.work_left, std::time::Instant::now());
    for delta in deltas {
        let req = JoinRequest {
            rule,
            delta,
            lo,
            hi,
            neg_mode,
            new_heads_only: true,
        };
        join::prepare(&req, &mut g.db, &g.store);
        let left = g.budget.work_left;
        let capped = left > cap;
        if capped {
            g.budget.work_left = cap;
        }
        let result = join::for_each_match(&req, &g.db, &g.store, &mut g.budget, &mut |m| {
            let vals = m.vars();
            tuple.clear();
            tuple.extend(head_vars.iter().map(|&v| vals[v as usize].unwrap_or(0)));
            heads.insert(&tuple);
            heads.len() <= max_heads
        });
        if capped {
            let spent = cap - g.budget.work_left;
            g.budget.work_left = left - spent;
            if result == Err(JoinError::Budget) && g.budget.exhausted == Some(Exhausted::Work) {
                g.budget.exhausted = None;
                insert_heads(g, rule, &head_vars, heads, feed)?;
                return Ok(false);
            }
        }
        g.joined(result, rule, "the reachable atoms of this rule")?;
    }
    if tracing::enabled!(tracing::Level::DEBUG) {
        tracing::debug!(
            work = work_before - g.budget.work_left,
            heads = heads.len(),
            elapsed = ?started.elapsed(),
            rule = %split::rule_text(&g.symbols, rule),
            "derived"
        );
    }
    insert_heads(g, rule, &head_vars, heads, feed)?;
    Ok(true)
}

/// Adds the heads found for `rule` (values of its head variables).
fn insert_heads(
    g: &mut Grounder<'_>,
    rule: &NRule,
    head_vars: &[u32],
    heads: TupleSet,
    feed: Feed,
) -> Result<(), GroundError> {
    let width = rule.var_names.len();
    let mut binding: Vec<Option<TermId>> = vec![None; width];
    // Heads that would pass the atom limit fail before they are interned and indexed, as the
    // check after adding them would (laikLee_hex's 1,250,026 lists of five cells: 5 s to add,
    // 0.7 s to take out again).
    // At most every atom of the relation is among the heads: the others are new for sure;
    // else they are looked up, until enough are new.
    let room =
        (g.atom_limit.min(g.options.max_atoms) as u64).saturating_sub(u64::from(g.db.count()));
    if heads.len() as u64 > room {
        let surely_new = heads
            .len()
            .saturating_sub(g.db.atoms(rel_key(&rule.head)).len());
        let over = surely_new as u64 > room
            || heads
                .iter()
                .filter(|h| {
                    for (&v, &t) in head_vars.iter().zip(*h) {
                        binding[v as usize] = Some(t);
                    }
                    join::lookup_atom_of(&rule.head, &binding, &g.store)
                        .is_none_or(|a| !g.db.contains(a))
                })
                .nth(room as usize)
                .is_some();
        if over {
            return Err(g.over_atom_limit(rule, heads.len()));
        }
    }
    for h in heads.iter() {
        for (&v, &t) in head_vars.iter().zip(h) {
            binding[v as usize] = Some(t);
        }
        let Some(head) = join::intern_atom(&rule.head, &binding, &mut g.store) else {
            continue;
        };
        if g.db.insert(&g.store, rel_key(&rule.head), head) {
            if g.depth(head) > g.options.max_term_depth + 1 {
                return Err(GroundError::too_large(Diagnostic::error(
                    codes::GROUNDING_TOO_LARGE,
                    rule.span,
                    format!(
                        "too large to ground: this rule derives terms nested more than {} deep \
                         (a counter without bound?)",
                        g.options.max_term_depth
                    ),
                )));
            }
            if feed == Feed::Yes {
                feed_back(g, &rule.head, head);
            }
        }
    }
    g.check_atoms(rule)
}

fn feed_back(g: &mut Grounder<'_>, head: &NAtom, atom: TermId) {
    let fed = match (head.rel, head.args.len()) {
        (kw::NEXT, 1) => Some(((kw::TRUE, 1), g.store.args(atom).to_vec())),
        (kw::LEGAL, 2) => Some(((kw::DOES, 2), g.store.args(atom).to_vec())),
        _ => None,
    };
    if let Some((rel, args)) = fed {
        let t = g.store.intern(rel.0, &args);
        g.db.insert(&g.store, rel, t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::{GroundOptions, Grounder, join::Budget, test_support::normalised};

    /// A one-role game whose terminal reads `terminal`, with `(n 0)` .. `(n 19)` and `rule`.
    fn over_twenty_numbers(terminal: &str, rule: &str) -> String {
        let mut text = format!(
            "(role p) (legal p go) (goal p 0) (init (s 1)) (<= (next (s 1)) (true (s 1))) \
             (<= terminal {terminal})"
        );
        for i in 0..20 {
            text.push_str(&format!(" (n {i})"));
        }
        text.push(' ');
        text.push_str(rule);
        text
    }

    #[test]
    fn a_static_component_stops_at_its_atom_limit_not_after_its_rule() {
        // `triple` has 20^3 = 8,000 atoms, derived by one join; the component may add 100.
        let nprog = normalised(&over_twenty_numbers(
            "(triple 1 1 1)",
            "(<= (triple ?x ?y ?z) (n ?x) (n ?y) (n ?z))",
        ));
        let options = GroundOptions::default();
        let mut g = Grounder::new(
            &options,
            nprog.symbols.clone(),
            Budget::new(options.max_matches, None),
        );
        let rules: Vec<&NRule> = nprog.rules.iter().collect();
        let mut failed = false;
        for component in static_components(&rules).expect("components") {
            g.atom_limit = g.db.count() as usize + 100;
            failed |= static_component(&mut g, &component).is_err();
        }
        assert!(failed, "triple is over the limit");
        // The join stopped at the limit: far fewer atoms than its 8,000.
        assert!(g.db.count() < 300, "{} atoms", g.db.count());
    }

    #[test]
    fn heads_past_the_atom_limit_fail_before_they_are_added() {
        // `pair` has 20^2 = 400 atoms, derived by one join; the component may add 100.
        let nprog = normalised(&over_twenty_numbers(
            "(pair 1 1)",
            "(<= (pair ?x ?y) (n ?x) (n ?y))",
        ));
        let options = GroundOptions::default();
        let mut g = Grounder::new(
            &options,
            nprog.symbols.clone(),
            Budget::new(options.max_matches, None),
        );
        let pair = (nprog.symbols.get("pair").expect("pair"), 2);
        let rules: Vec<&NRule> = nprog.rules.iter().collect();
        let mut error = None;
        for component in static_components(&rules).expect("components") {
            g.atom_limit = g.db.count() as usize + 100;
            if let Err(e) = static_component(&mut g, &component) {
                error.get_or_insert(e);
            }
        }
        let error = error.expect("pair is over the limit");
        assert!(error.is_too_large());
        // None of its heads was added, and the error tells how many there were.
        assert!(g.db.atoms(pair).is_empty(), "{:?}", g.db.atoms(pair).len());
        assert!(error.summary().contains("pair/2: "), "{}", error.summary());
    }

    #[test]
    fn a_rule_split_by_the_work_of_its_rounds_together() {
        // `h` joins the 19,900 `(lt ?a ?b)` again for each of the 300 values of the counter
        // (40,000 steps a round, 12 million in all, each round far below `SPLIT_WORK`) and
        // never holds. Split once it has done `SPLIT_TOTAL` (its counter apart), it is not
        // joined again.
        let mut text = String::from(
            "(role p) (init (c 0)) (legal p go) \
             (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) \
             (<= (lt ?x ?y) (s ?x ?y)) (<= (lt ?x ?z) (s ?x ?y) (lt ?y ?z)) \
             (<= (h ?a) (true (c ?n)) (lt ?a ?b) (lt ?b ?a)) \
             (<= (goal p 100) (h ?a)) (<= terminal (true (c 299)))",
        );
        for i in 0..299 {
            text.push_str(&format!(" (succ {i} {})", i + 1));
            if i < 199 {
                text.push_str(&format!(" (s {i} {})", i + 1));
            }
        }
        let nprog = normalised(&text);
        let g = crate::ground::ground(&nprog, &GroundOptions::default()).expect("grounds");
        assert!(g.stats.work < 6_000_000, "{} join steps", g.stats.work);
    }

    #[test]
    fn the_depth_of_a_term_is_its_nesting_below_its_deepest_argument() {
        // `insert_heads` checks the depth of every new atom (`Grounder::depth`, memoised).
        let options = GroundOptions::default();
        let mut symbols = crate::ast::Symbols::default();
        let (f, g, a) = (
            symbols.intern("f"),
            symbols.intern("g"),
            symbols.intern("a"),
        );
        let mut gr = Grounder::new(&options, symbols, Budget::new(1, None));
        let ca = gr.store.intern(a, &[]);
        let ga = gr.store.intern(g, &[ca]);
        let gga = gr.store.intern(g, &[ga]);
        let t = gr.store.intern(f, &[ca, gga, ga]);
        assert_eq!(gr.depth(ca), 0);
        assert_eq!(gr.depth(t), 3);
        assert_eq!(gr.depth(gga), 2);
        assert_eq!(gr.depth(ga), 1);
    }
}
