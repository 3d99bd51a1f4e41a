//! The statistics of `cargo xtask strength`: the score of variant A against variant B with its
//! 95% interval (Wilson's score interval), the Elo difference and its interval mapped through
//! the same function, and a mean with its interval (the puzzles' score reached).

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// One match seen from variant A against variant B: the pairwise outcomes of A's seats against
/// B's seats (one pair in a two-player game).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pairwise {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Pairwise {
    /// The pairwise outcomes of every goal of `a` against every goal of `b`.
    pub fn of(a: &[i64], b: &[i64]) -> Pairwise {
        let mut p = Pairwise::default();
        for x in a {
            for y in b {
                match x.cmp(y) {
                    std::cmp::Ordering::Greater => p.wins += 1,
                    std::cmp::Ordering::Equal => p.draws += 1,
                    std::cmp::Ordering::Less => p.losses += 1,
                }
            }
        }
        p
    }

    pub fn pairs(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The match's score for A in 0..=1: (wins + draws / 2) / pairs (`None` without pairs).
    pub fn score(&self) -> Option<f64> {
        let n = self.pairs();
        (n > 0).then(|| (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(n))
    }

    pub fn add(&mut self, other: Pairwise) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

/// A's score over a set of matches, with its interval and the Elo difference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// The matches counted.
    pub matches: usize,
    /// The mean of the matches' scores.
    pub score: f64,
    /// The 95% interval of `score`.
    pub low: f64,
    pub high: f64,
}

impl Score {
    /// The score of the per-match scores `scores` (each in 0..=1), with Wilson's 95% interval
    /// for `sum(scores)` successes in `scores.len()` trials. A match with draws (or a
    /// fractional score) varies less than a win or a loss with the same mean, so the interval
    /// is on the wide side then, never too narrow. `None` without matches.
    pub fn of(scores: &[f64]) -> Option<Score> {
        if scores.is_empty() {
            return None;
        }
        let n = scores.len() as f64;
        let score = scores.iter().sum::<f64>() / n;
        let (low, high) = wilson(score, n, Z95);
        Some(Score {
            matches: scores.len(),
            score,
            low,
            high,
        })
    }

    /// The Elo difference of `score`, and of the interval's ends.
    pub fn elo(&self) -> (f64, f64, f64) {
        (elo(self.score), elo(self.low), elo(self.high))
    }
}

/// Wilson's score interval of a proportion `p` observed in `n` trials, with quantile `z`.
pub fn wilson(p: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = p.clamp(0.0, 1.0);
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let d = 1.0 + z2 / n;
    // At 0 and 1 an end is exact (centre and spread cancel): rounding must not move it off.
    let low = if p == 0.0 { 0.0 } else { (centre - spread) / d };
    let high = if p == 1.0 { 1.0 } else { (centre + spread) / d };
    (low.clamp(0.0, 1.0), high.clamp(0.0, 1.0))
}

/// The Elo difference that gives an expected score `s`: `-400 log10(1/s - 1)`; infinite (with
/// its sign) at 0 and 1.
pub fn elo(s: f64) -> f64 {
    if s >= 1.0 {
        f64::INFINITY
    } else if s <= 0.0 {
        f64::NEG_INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// An Elo difference as text: `+191`, `-35`, `0`, `+inf`, `-inf`.
pub fn elo_text(e: f64) -> String {
    if e == f64::INFINITY {
        "+inf".into()
    } else if e == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        let r = e.round();
        if r == 0.0 {
            "0".into()
        } else {
            format!("{r:+.0}")
        }
    }
}

/// A mean with its 95% interval (normal approximation, the sample's standard deviation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mean {
    pub n: usize,
    pub mean: f64,
    /// Half the width of the 95% interval (0 with one value).
    pub half_width: f64,
}

impl Mean {
    pub fn of(values: &[f64]) -> Option<Mean> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let half_width = if values.len() > 1 {
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
            Z95 * (var / n).sqrt()
        } else {
            0.0
        };
        Some(Mean {
            n: values.len(),
            mean,
            half_width,
        })
    }

    /// The difference `self - other` with the 95% interval of a difference of independent
    /// means (half width `z sqrt(se1^2 + se2^2)`).
    pub fn minus(&self, other: &Mean) -> (f64, f64) {
        let se = |m: &Mean| m.half_width / Z95;
        (
            self.mean - other.mean,
            Z95 * (se(self).powi(2) + se(other).powi(2)).sqrt(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn pairwise_outcomes_of_goals() {
        assert_eq!(
            Pairwise::of(&[100], &[0]),
            Pairwise {
                wins: 1,
                draws: 0,
                losses: 0
            }
        );
        assert_eq!(Pairwise::of(&[50], &[50]).score(), Some(0.5));
        // Three roles, A in two seats: 100 and 0 against B's 0.
        let p = Pairwise::of(&[100, 0], &[0]);
        assert_eq!((p.wins, p.draws, p.losses), (1, 1, 0));
        assert_eq!(p.score(), Some(0.75));
        assert_eq!(Pairwise::of(&[], &[0]).score(), None);
    }

    #[test]
    fn a_clean_sweep_has_an_exact_end() {
        for n in [1.0, 8.0, 24.0, 100.0] {
            assert_eq!(wilson(0.0, n, Z95).0, 0.0);
            assert_eq!(wilson(1.0, n, Z95).1, 1.0);
        }
        let lost = Score::of(&[0.0; 24]).map(|s| s.elo());
        assert!(lost.is_some_and(|(e, low, high)| e == f64::NEG_INFINITY
            && low == f64::NEG_INFINITY
            && high < -300.0));
    }

    #[test]
    fn wilson_interval_known_values() {
        // 15 of 20: the textbook Wilson interval is 0.5313 to 0.8881.
        let (lo, hi) = wilson(0.75, 20.0, Z95);
        assert!(close(lo, 0.5313, 1e-4), "{lo}");
        assert!(close(hi, 0.8881, 1e-4), "{hi}");
        // All won: the upper end is 1, the lower n / (n + z^2).
        let (lo, hi) = wilson(1.0, 10.0, Z95);
        assert!(close(hi, 1.0, 1e-12));
        assert!(close(lo, 10.0 / (10.0 + Z95 * Z95), 1e-12), "{lo}");
        let (lo, hi) = wilson(0.5, 0.0, Z95);
        assert_eq!((lo, hi), (0.0, 1.0));
    }

    #[test]
    fn elo_known_values() {
        assert_eq!(elo(0.5), 0.0);
        assert!(close(elo(0.75), 190.848, 1e-3), "{}", elo(0.75));
        assert!(close(elo(0.25), -190.848, 1e-3));
        assert!(close(elo(10.0 / 11.0), 400.0, 1e-9));
        assert_eq!(elo(1.0), f64::INFINITY);
        assert_eq!(elo(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_text(elo(1.0)), "+inf");
        assert_eq!(elo_text(elo(0.0)), "-inf");
        assert_eq!(elo_text(elo(0.75)), "+191");
        assert_eq!(elo_text(-0.3), "0");
    }

    #[test]
    fn score_of_matches() {
        // 12 wins, 4 draws, 4 losses in 20 matches: s = 0.7.
        let scores: Vec<f64> = [1.0; 12]
            .iter()
            .chain(&[0.5; 4])
            .chain(&[0.0; 4])
            .copied()
            .collect();
        let s = Score::of(&scores).unwrap();
        assert_eq!(s.matches, 20);
        assert!(close(s.score, 0.7, 1e-12));
        let (lo, hi) = wilson(0.7, 20.0, Z95);
        assert_eq!((s.low, s.high), (lo, hi));
        assert!(s.low < 0.7 && 0.7 < s.high);
        let (e, elo_lo, elo_hi) = s.elo();
        assert!(close(e, 147.19, 0.01), "{e}");
        assert!(elo_lo < e && e < elo_hi);
        assert_eq!(Score::of(&[]), None);
        // Every match won: +inf, with a finite lower end.
        let all = Score::of(&[1.0; 8]).unwrap();
        let (e, lo, hi) = all.elo();
        assert_eq!((e, hi), (f64::INFINITY, f64::INFINITY));
        assert!(lo.is_finite() && lo > 0.0);
    }

    #[test]
    fn means_and_their_differences() {
        let m = Mean::of(&[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert_eq!(m.mean, 5.0);
        // Sample sd sqrt(20/3), standard error sd / 2.
        assert!(close(
            m.half_width,
            Z95 * (20.0f64 / 3.0).sqrt() / 2.0,
            1e-12
        ));
        assert_eq!(Mean::of(&[7.0]).unwrap().half_width, 0.0);
        assert_eq!(Mean::of(&[]), None);
        let o = Mean::of(&[1.0, 1.0, 1.0, 1.0]).unwrap();
        let (d, hw) = m.minus(&o);
        assert_eq!(d, 4.0);
        assert!(close(hw, m.half_width, 1e-12));
    }
}
