//! A heuristic evaluation learnt from the rules at the start clock, as Sancho does for piece
//! games: candidate features are counts of state facts grouped by predicate and by the
//! constants at one or two argument positions (`(cell ? ? white)`: white's pieces;
//! `(cell ? 7 white)`: white's pieces on row 7) and, where a constant is a role's name, that
//! role's share of the same facts (`(cell ? ? white) / (cell ? ? *)`: white's pieces over all
//! pieces, which grows when a side ahead trades pieces); random playouts from the initial
//! state give sample states (at random depths) with the goals their playout ended with; the
//! features that correlate with a role's goal are kept and a linear fit of each role's goal
//! on them (ridge regression) is the evaluation. The fit is judged on the samples of other
//! playouts than those it was made from: [`Heuristic::r2`] is how much of the goals' variance
//! it explains there, [`Heuristic::ceiling`] how much the state itself explains (two
//! playouts from the same state agree that much), and the search uses it
//! ([`HeuristicMode::Auto`]) only when it [`Heuristic::predicts`] and the roles mostly move
//! in turn ([`Heuristic::simultaneous`]).
//!
//! The search uses it to cut playouts short: a playout that has run
//! [`HeuristicOptions::cutoff`] steps without reaching a terminal state scores the state it
//! reached by the evaluation instead of playing on.

use std::time::{Duration, Instant};

use crate::options::{HeuristicMode, HeuristicOptions};
use crate::scaled_goal;
use gdl_runtime::{Game, SplitMix64};

/// The least held-out R² (mean over the roles whose goals vary) for which
/// [`HeuristicMode::Auto`] uses the evaluation.
pub const MIN_R2: f64 = 0.15;
/// The least share of the state's own R² ([`Heuristic::ceiling`]) that the evaluation's
/// R² reaches for [`HeuristicMode::Auto`] to use it.
pub const MIN_SHARE: f64 = 0.5;
/// The most share of sample states in which two roles or more have a choice for which
/// [`HeuristicMode::Auto`] uses the evaluation: in battle (simultaneous moves at every step)
/// the evaluation (R² 0.33 of 0.45) lost every match against Sancho where playouts to the end
/// won every one.
pub const MAX_SIMULTANEOUS: f64 = 0.5;
/// The share of the start clock that learning may take.
const TIME_SHARE: f64 = 0.4;
/// The most time learning takes, whatever the start clock.
const MAX_TIME: Duration = Duration::from_secs(3);
/// The most candidate features looked at (those of the most facts first).
const MAX_CANDIDATES: usize = 512;
/// The most features an evaluation keeps.
const MAX_FEATURES: usize = 24;
/// The least correlation with some role's goal (on the training samples) a kept feature has.
const MIN_CORRELATION: f64 = 0.05;
/// Sample states taken from one playout.
const SAMPLES_PER_PLAYOUT: usize = 3;
/// Playouts longer than this are dropped.
const MAX_PLAYOUT: usize = 2_000;
/// The most sample states collected.
const MAX_SAMPLES: usize = 30_000;
/// The least sample states (training and held-out together) a fit needs.
const MIN_SAMPLES: usize = 200;

/// A candidate feature: the number of facts set among `mask`'s bits.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    /// `(pred ? c ?)`-like text: `?` for the free positions; `(pred ...)` counts all facts of
    /// `pred`.
    pub name: String,
    /// The fact bits counted, as words.
    pub mask: Vec<u64>,
    /// For a share: the facts `mask` is a part of. The feature is then the count of `mask`
    /// over the count of `whole.mask` (`whole.empty` when none is set): a role's share.
    pub whole: Option<Whole>,
}

/// What a share feature divides by ([`Feature::whole`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Whole {
    /// The facts of every role at the position where the feature has its role.
    pub mask: Vec<u64>,
    /// The share when none of them is set: one over the number of roles.
    pub empty: f64,
}

impl Feature {
    /// The feature's value in a state of fact bits `bits`.
    #[inline]
    pub fn value(&self, bits: &[u64]) -> f64 {
        let part = f64::from(count(&self.mask, bits));
        match &self.whole {
            None => part,
            Some(w) => match count(&w.mask, bits) {
                0 => w.empty,
                all => part / f64::from(all),
            },
        }
    }
}

/// The predicate and the arguments (the text of each top-level term) of a fact's text:
/// `(cell 1 2 (piece white))` gives `cell` and `["1", "2", "(piece white)"]`; an atom is a
/// predicate without arguments.
fn split_fact(text: &str) -> Option<(&str, Vec<&str>)> {
    let text = text.trim();
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return (!text.is_empty() && !text.contains(['(', ')', ' '])).then_some((text, vec![]));
    };
    let mut terms = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    for (i, c) in inner.char_indices() {
        match c {
            '(' => {
                if depth == 0 && start.is_none() {
                    start = Some(i);
                }
                depth += 1;
            }
            ')' => depth = depth.checked_sub(1)?,
            c if c.is_whitespace() && depth == 0 => {
                if let Some(s) = start.take() {
                    terms.push(&inner[s..i]);
                }
            }
            _ => {
                if start.is_none() {
                    start = Some(i);
                }
            }
        }
    }
    if depth != 0 {
        return None;
    }
    if let Some(s) = start {
        terms.push(&inner[s..]);
    }
    let (&pred, args) = terms.split_first()?;
    Some((pred, args.to_vec()))
}

/// The candidate features of a game whose fact bits `names` names and whose roles are
/// `roles`: for each predicate (and arity), the count of all its facts, and for each argument
/// position and constant there (and each pair of positions, from three arguments on), the
/// count of its facts with that constant. Where a fixed constant is a role's name, the
/// feature's share of the same facts with any role there is a candidate too (`(cell ? ? white)`
/// over `(cell ? ? *)`: white's share of the pieces, which a lead grows by trading). Features of
/// the same bits are given once; at most `MAX_CANDIDATES`, those of the most facts first.
pub fn candidate_features(names: &[String], roles: &[&str]) -> Vec<Feature> {
    let words = names.len().div_ceil(64);
    let mut groups: Vec<Feature> = Vec::new();
    let mut index = std::collections::HashMap::<String, usize>::new();
    // Per feature key with a role's name at a fixed position: the key of its whole.
    let mut shares = std::collections::HashMap::<String, (String, usize)>::new();
    let mut wholes = std::collections::HashMap::<String, (Vec<u64>, Vec<usize>)>::new();
    for (bit, name) in names.iter().enumerate() {
        let Some((pred, args)) = split_fact(name) else {
            continue;
        };
        let arity = args.len();
        let mut keys = vec![match arity {
            0 => pred.to_string(),
            _ => format!("({pred} ...{arity})"),
        }];
        // One or two positions fixed to the fact's constants there.
        for i in 0..arity {
            for j in i..arity.min(i + 1 + usize::from(arity > 2) * arity) {
                let shown = |role_at: Option<usize>| {
                    let terms: Vec<&str> = (0..arity)
                        .map(|k| match k == i || k == j {
                            true if Some(k) == role_at => "*",
                            true => args[k],
                            false => "?",
                        })
                        .collect();
                    format!("({pred} {})", terms.join(" "))
                };
                let key = shown(None);
                for k in std::iter::once(i).chain((j != i).then_some(j)) {
                    if let Some(role) = roles.iter().position(|r| *r == args[k]) {
                        let whole = shown(Some(k));
                        let (mask, seen) = wholes
                            .entry(whole.clone())
                            .or_insert_with(|| (vec![0; words], Vec::new()));
                        mask[bit / 64] |= 1 << (bit % 64);
                        if !seen.contains(&role) {
                            seen.push(role);
                        }
                        shares.insert(key.clone(), (whole, role));
                    }
                }
                keys.push(key);
            }
        }
        for key in keys {
            let g = *index.entry(key.clone()).or_insert_with(|| {
                groups.push(Feature {
                    name: key,
                    mask: vec![0; words],
                    whole: None,
                });
                groups.len() - 1
            });
            groups[g].mask[bit / 64] |= 1 << (bit % 64);
        }
    }
    let mut share_features: Vec<Feature> = groups
        .iter()
        .filter_map(|f| {
            let (whole, role) = shares.get(&f.name)?;
            let (mask, seen) = wholes.get(whole)?;
            // A share of one role's facts only is 1 wherever there are any; of two roles' the
            // second's is one less the first's.
            let redundant = seen.len() == 2 && seen.iter().any(|r| r < role);
            (seen.len() > 1 && !redundant).then(|| Feature {
                name: format!("{} / {whole}", f.name),
                mask: f.mask.clone(),
                whole: Some(Whole {
                    mask: mask.clone(),
                    empty: 1.0 / seen.len() as f64,
                }),
            })
        })
        .collect();
    share_features.sort_by(|a, b| a.name.cmp(&b.name));
    groups.extend(share_features);
    let bits = |f: &Feature| f.mask.iter().map(|w| w.count_ones()).sum::<u32>();
    groups.sort_by_key(|f| std::cmp::Reverse(bits(f)));
    let mut seen = std::collections::HashSet::new();
    groups.retain(|f| seen.insert((f.mask.clone(), f.whole.as_ref().map(|w| w.mask.clone()))));
    groups.truncate(MAX_CANDIDATES);
    groups
}

/// The number of facts of `mask` set in `bits`.
#[inline]
fn count(mask: &[u64], bits: &[u64]) -> u32 {
    mask.iter()
        .zip(bits)
        .map(|(m, b)| (m & b).count_ones())
        .sum()
}

/// Sample states with the goals of the playout they were on.
struct Samples {
    /// Per sample, the value of each candidate feature.
    features: Vec<Vec<f64>>,
    /// Per sample, each role's goal in 0..1.
    goals: Vec<Vec<f64>>,
    /// Per sample, whether it is held out of the fit (every other playout is).
    held_out: Vec<bool>,
    /// Per held-out sample, each role's goal at the end of a second playout from its state
    /// (`None` when that playout did not end): how far one playout's result can be
    /// predicted from the state at all ([`ceiling`]).
    again: Vec<Option<Vec<f64>>>,
    /// How many of the sample states two roles or more have a choice in.
    simultaneous: usize,
}

/// Plays random playouts from the initial state until `deadline` and takes up to
/// [`SAMPLES_PER_PLAYOUT`] states of each (at random depths, terminal states included). From
/// each held-out state a second playout is played, for [`Samples::again`].
fn sample<G: Game>(
    game: &G,
    features: &[Feature],
    rng: &mut SplitMix64,
    deadline: Instant,
) -> Samples {
    let mut out = Samples {
        features: Vec::new(),
        goals: Vec::new(),
        held_out: Vec::new(),
        again: Vec::new(),
        simultaneous: 0,
    };
    let mut legal = Vec::new();
    let mut path: Vec<(Vec<f64>, G::State)> = Vec::new();
    let mut playouts = 0usize;
    let mut playout = RandomPlayout::new(game);
    while out.features.len() < MAX_SAMPLES && Instant::now() < deadline {
        path.clear();
        let initial = game.initial_state();
        let Some(goals) = playout.run(game, &initial, rng, deadline, |state| {
            let bits = game.fact_bits(state)?;
            let f = features.iter().map(|f| f.value(bits));
            path.push((f.collect(), state.clone()));
            Some(())
        }) else {
            continue;
        };
        let held_out = playouts % 2 == 1;
        for _ in 0..SAMPLES_PER_PLAYOUT.min(path.len()) {
            let (f, state) = path.swap_remove(rng.below(path.len()));
            if choosers(game, &state, &mut legal) >= 2 {
                out.simultaneous += 1;
            }
            let again = match held_out {
                true => playout.run(game, &state, rng, deadline, |_| Some(())),
                false => None,
            };
            out.features.push(f);
            out.goals.push(goals.clone());
            out.held_out.push(held_out);
            out.again.push(again);
        }
        playouts += 1;
    }
    out
}

/// How many roles have more than one legal move in `state`.
fn choosers<G: Game>(game: &G, state: &G::State, legal: &mut Vec<G::Move>) -> usize {
    (0..game.role_count())
        .filter(|&r| {
            game.legal_moves(state, r, legal);
            legal.len() > 1
        })
        .count()
}

/// The buffers of a random playout.
struct RandomPlayout<G: Game> {
    state: G::State,
    next: G::State,
    scratch: Vec<G::Move>,
    joint: Vec<G::Move>,
}

impl<G: Game> RandomPlayout<G> {
    fn new(game: &G) -> Self {
        let state = game.initial_state();
        RandomPlayout {
            next: state.clone(),
            state,
            scratch: Vec::new(),
            joint: Vec::new(),
        }
    }

    /// Plays randomly from `from` to the end, calling `visit` on each state (the first and
    /// the last included); each role's goal in 0..1. `None` when `visit` says so, a role has
    /// no move, the playout is longer than [`MAX_PLAYOUT`] or `deadline` passes.
    fn run(
        &mut self,
        game: &G,
        from: &G::State,
        rng: &mut SplitMix64,
        deadline: Instant,
        mut visit: impl FnMut(&G::State) -> Option<()>,
    ) -> Option<Vec<f64>> {
        self.state.clone_from(from);
        for step in 0..=MAX_PLAYOUT {
            visit(&self.state)?;
            if game.is_terminal(&self.state) {
                let roles = 0..game.role_count();
                return Some(
                    roles
                        .map(|r| scaled_goal(game.goal(&self.state, r)))
                        .collect(),
                );
            }
            if step % 64 == 63 && Instant::now() >= deadline {
                return None;
            }
            let (s, n) = (&self.state, &mut self.next);
            game.random_step(s, rng, &mut self.scratch, &mut self.joint, n)
                .ok()?;
            std::mem::swap(&mut self.state, &mut self.next);
        }
        None
    }
}

/// Pearson's correlation of `x` and `y` (0 when either is constant).
fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len()) as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx <= 1e-12 || syy <= 1e-12 {
        return 0.0;
    }
    sxy / (sxx * syy).sqrt()
}

/// The mean over the roles whose goals vary of the correlation between the results of two
/// playouts from the same held-out state: the R² that knowing the state exactly would give
/// a prediction of one playout's result (its variance explained by the state).
fn ceiling(samples: &Samples, roles: usize) -> f64 {
    let pairs: Vec<(&Vec<f64>, &Vec<f64>)> = (0..samples.goals.len())
        .filter_map(|i| Some((&samples.goals[i], samples.again[i].as_ref()?)))
        .collect();
    let per_role: Vec<f64> = (0..roles)
        .filter_map(|r| {
            let x: Vec<f64> = pairs.iter().map(|p| p.0[r]).collect();
            let y: Vec<f64> = pairs.iter().map(|p| p.1[r]).collect();
            let varies = x.iter().any(|&v| (v - x[0]).abs() > 1e-9);
            varies.then(|| correlation(&x, &y))
        })
        .collect();
    match per_role.len() {
        0 => 0.0,
        n => per_role.iter().sum::<f64>() / n as f64,
    }
}

/// Solves `a x = b` (`a` symmetric positive definite, `n` by `n`, row-major) by Gaussian
/// elimination with partial pivoting; `None` when it is singular.
fn solve(mut a: Vec<f64>, mut b: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| a[i * n + c].abs().total_cmp(&a[j * n + c].abs()))?;
        if a[p * n + c].abs() < 1e-12 {
            return None;
        }
        for k in 0..n {
            a.swap(c * n + k, p * n + k);
        }
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r * n + c] / a[c * n + c];
            for k in c..n {
                a[r * n + k] -= f * a[c * n + k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| a[c * n + k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c * n + c];
    }
    Some(x)
}

/// A learnt evaluation: per role, a linear function of feature counts, clamped to 0..1.
#[derive(Clone, Debug)]
pub struct Heuristic {
    /// The features kept.
    pub features: Vec<Feature>,
    /// Per role: the weight of each feature, then the constant.
    pub weights: Vec<Vec<f64>>,
    /// The mean over the roles whose goals vary of the R² of the fit on held-out samples.
    pub r2: f64,
    /// What the state itself explains of a playout's result (`ceiling`): `r2` can be
    /// at most about this.
    pub ceiling: f64,
    /// The sample states it was learnt from and judged on.
    pub samples: usize,
    /// Playouts stop after this many steps and are scored by the evaluation.
    pub cutoff: usize,
    /// The share of the sample states in which two roles or more have a choice.
    pub simultaneous: f64,
}

impl Heuristic {
    /// Whether it predicts well enough for [`HeuristicMode::Auto`]: it explains at least
    /// `MIN_R2` of the results' variance, and at least `MIN_SHARE` of what the state
    /// explains ([`Heuristic::ceiling`]), in a game whose moves are mostly not simultaneous
    /// (at most `MAX_SIMULTANEOUS` of the sample states).
    pub fn predicts(&self) -> bool {
        self.r2 >= MIN_R2
            && self.r2 >= MIN_SHARE * self.ceiling
            && self.simultaneous <= MAX_SIMULTANEOUS
    }

    /// Each role's evaluation of fact bits `bits` into `out` (0..1).
    pub fn evaluate(&self, bits: &[u64], out: &mut Vec<f64>) {
        out.clear();
        for w in &self.weights {
            let k = self.features.len();
            let mut v = w[k];
            for (f, wf) in self.features.iter().zip(w) {
                v += wf * f.value(bits);
            }
            out.push(v.clamp(0.0, 1.0));
        }
    }
}

/// Fits each role's goal on the training samples with the candidates `kept`; the weights
/// (on raw counts) and the held-out R².
fn fit(samples: &Samples, kept: &[usize], roles: usize) -> Option<(Vec<Vec<f64>>, f64)> {
    let train: Vec<usize> = (0..samples.features.len())
        .filter(|&i| !samples.held_out[i])
        .collect();
    let k = kept.len();
    let n = train.len() as f64;
    if n < 2.0 {
        return None;
    }
    // Standardised features: means and spreads on the training samples.
    let mean: Vec<f64> = kept
        .iter()
        .map(|&f| train.iter().map(|&i| samples.features[i][f]).sum::<f64>() / n)
        .collect();
    let spread: Vec<f64> = kept
        .iter()
        .zip(&mean)
        .map(|(&f, m)| {
            let v = train
                .iter()
                .map(|&i| (samples.features[i][f] - m).powi(2))
                .sum::<f64>();
            (v / n).sqrt().max(1e-9)
        })
        .collect();
    let z = |i: usize, j: usize| (samples.features[i][kept[j]] - mean[j]) / spread[j];
    let mut gram = vec![0.0; k * k];
    for &i in &train {
        for a in 0..k {
            let za = z(i, a);
            for b in 0..k {
                gram[a * k + b] += za * z(i, b);
            }
        }
    }
    // Ridge: a little weight on every diagonal keeps correlated features solvable.
    for a in 0..k {
        gram[a * k + a] += 0.01 * n;
    }
    let mut weights = Vec::new();
    let mut r2s = Vec::new();
    for r in 0..roles {
        let my = train.iter().map(|&i| samples.goals[i][r]).sum::<f64>() / n;
        let rhs: Vec<f64> = (0..k)
            .map(|a| {
                train
                    .iter()
                    .map(|&i| z(i, a) * (samples.goals[i][r] - my))
                    .sum()
            })
            .collect();
        let w = solve(gram.clone(), rhs, k)?;
        // Back to raw counts: v = my + sum w_a (x_a - mean_a) / spread_a.
        let mut raw: Vec<f64> = (0..k).map(|a| w[a] / spread[a]).collect();
        raw.push(my - (0..k).map(|a| raw[a] * mean[a]).sum::<f64>());
        let test: Vec<usize> = (0..samples.features.len())
            .filter(|&i| samples.held_out[i])
            .collect();
        let tn = test.len() as f64;
        let tm = test.iter().map(|&i| samples.goals[i][r]).sum::<f64>() / tn.max(1.0);
        let (mut sse, mut sst) = (0.0, 0.0);
        for &i in &test {
            let v = (0..k)
                .map(|a| raw[a] * samples.features[i][kept[a]])
                .sum::<f64>()
                + raw[k];
            sse += (samples.goals[i][r] - v.clamp(0.0, 1.0)).powi(2);
            sst += (samples.goals[i][r] - tm).powi(2);
        }
        if sst > 1e-9 {
            r2s.push(1.0 - sse / sst);
        }
        weights.push(raw);
    }
    let r2 = match r2s.len() {
        0 => 0.0,
        l => r2s.iter().sum::<f64>() / l as f64,
    };
    Some((weights, r2))
}

/// Learns an evaluation of `game` within `deadline` (see the [module documentation](self));
/// `None` when the game has no fact bits, there is too little time for enough samples, or
/// no feature correlates with a goal.
pub fn learn<G: Game>(
    game: &G,
    rng: &mut SplitMix64,
    deadline: Instant,
    options: HeuristicOptions,
) -> Option<Heuristic> {
    let names = game.fact_names()?;
    let roles: Vec<&str> = match options.shares {
        true => (0..game.role_count()).map(|r| game.role_name(r)).collect(),
        false => Vec::new(),
    };
    let candidates = candidate_features(&names, &roles);
    if candidates.is_empty() {
        return None;
    }
    let samples = sample(game, &candidates, rng, deadline);
    if samples.features.len() < MIN_SAMPLES {
        return None;
    }
    let roles = game.role_count();
    let train: Vec<usize> = (0..samples.features.len())
        .filter(|&i| !samples.held_out[i])
        .collect();
    let mut scored: Vec<(f64, usize)> = (0..candidates.len())
        .map(|f| {
            let x: Vec<f64> = train.iter().map(|&i| samples.features[i][f]).collect();
            let best = (0..roles)
                .map(|r| {
                    let y: Vec<f64> = train.iter().map(|&i| samples.goals[i][r]).collect();
                    correlation(&x, &y).abs()
                })
                .fold(0.0, f64::max);
            (best, f)
        })
        .filter(|&(c, _)| c >= MIN_CORRELATION)
        .collect();
    if scored.is_empty() {
        return None;
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.truncate(MAX_FEATURES);
    let kept: Vec<usize> = scored.iter().map(|&(_, f)| f).collect();
    let (weights, r2) = fit(&samples, &kept, roles)?;
    Some(Heuristic {
        features: kept.iter().map(|&f| candidates[f].clone()).collect(),
        weights,
        r2,
        ceiling: ceiling(&samples, roles),
        samples: samples.features.len(),
        cutoff: options.cutoff,
        simultaneous: samples.simultaneous as f64 / samples.features.len() as f64,
    })
}

/// The words a search report adds for the evaluation it uses (nothing without one).
pub fn describe(heuristic: Option<&Heuristic>) -> String {
    match heuristic {
        None => String::new(),
        Some(h) => format!(
            ", heuristic R2 {:.2} of {:.2} ({} features, cut-off {})",
            h.r2,
            h.ceiling,
            h.features.len(),
            h.cutoff
        ),
    }
}

/// What the start clock gives the search: the evaluation to use (`None`: none), learnt within
/// [`TIME_SHARE`] of the time to `deadline` (at most [`MAX_TIME`]), as `options` say.
pub fn at_start<G: Game>(
    game: &G,
    options: HeuristicOptions,
    seed: u64,
    deadline: Instant,
) -> Option<Heuristic> {
    if options.mode == HeuristicMode::Off {
        return None;
    }
    let left = deadline.saturating_duration_since(Instant::now());
    let budget = left.mul_f64(TIME_SHARE).min(MAX_TIME);
    if budget.is_zero() {
        return None;
    }
    let mut rng = SplitMix64::new(seed ^ 0x5eed_4e55);
    let h = learn(game, &mut rng, Instant::now() + budget, options)?;
    (options.mode == HeuristicMode::On || h.predicts()).then_some(h)
}

#[cfg(test)]
#[path = "heuristic_tests.rs"]
mod tests;
