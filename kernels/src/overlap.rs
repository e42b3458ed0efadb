//! Does a strided layout map two coordinates to the same element?
//!
//! Two coordinates `c ≠ c'` of a box with sizes `n` collide under strides `s` iff the difference `d = c − c'`
//! solves `Σ dᵢ·sᵢ = 0` with `|dᵢ| ≤ nᵢ − 1`, `d ≠ 0`. Every layout people use (packed, padded, permuted) is
//! *nested*: sorted by stride, each stride exceeds the largest offset reachable through the smaller ones, which
//! proves injectivity in O(rank). Other layouts get an exact bounded search (depth-first over the dimensions from
//! the largest stride, pruned by reachability and gcd), with a work budget.

use crate::params::OVERLAP_SEARCH_BUDGET;

/// The verdict of [`find_overlap`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlap {
    /// Every coordinate maps to its own element.
    Disjoint,
    /// Two distinct coordinates that map to the same element.
    Collision {
        /// One coordinate.
        first: Vec<u64>,
        /// Another coordinate, at the same offset.
        second: Vec<u64>,
    },
    /// The exact search exceeded its budget ([`OVERLAP_SEARCH_BUDGET`]) without an answer.
    Undecided,
}

/// Decides whether `offset(c) = Σ cᵢ·stridesᵢ` is injective over `0 ≤ cᵢ < sizesᵢ`.
///
/// `sizes` and `strides` must have equal lengths; sizes of 0 or 1 contribute nothing.
///
/// ```
/// use strider_kernels::overlap::{find_overlap, Overlap};
/// assert_eq!(find_overlap(&[2, 3], &[3, 1]), Overlap::Disjoint); // packed
/// assert_eq!(find_overlap(&[2, 3], &[3, 2]), Overlap::Disjoint); // interleaved, still injective
/// assert!(matches!(find_overlap(&[2, 3], &[1, 1]), Overlap::Collision { .. }));
/// ```
pub fn find_overlap(sizes: &[u64], strides: &[i64]) -> Overlap {
    debug_assert_eq!(sizes.len(), strides.len());
    // (original index, max |d|, |stride|, sign)
    let mut dims: Vec<(usize, i128, i128, i128)> = sizes
        .iter()
        .zip(strides)
        .enumerate()
        .filter(|&(_, (&n, _))| n >= 2)
        .map(|(i, (&n, &s))| (i, i128::from(n) - 1, i128::from(s).abs(), if s < 0 { -1 } else { 1 }))
        .collect();
    if let Some(&(i, ..)) = dims.iter().find(|d| d.2 == 0) {
        let mut d = vec![0i128; sizes.len()];
        d[i] = 1;
        return witness(&d);
    }
    dims.sort_by_key(|d| core::cmp::Reverse(d.2));
    // Nested fast path, ascending strides.
    let mut reach: i128 = 0;
    let mut nested = true;
    for &(_, m, s, _) in dims.iter().rev() {
        if s <= reach {
            nested = false;
            break;
        }
        reach += m * s;
    }
    if nested {
        return Overlap::Disjoint;
    }
    let n = dims.len();
    let mut suffix_reach = vec![0i128; n + 1];
    let mut suffix_gcd = vec![0i128; n + 1];
    for k in (0..n).rev() {
        suffix_reach[k] = suffix_reach[k + 1] + dims[k].1 * dims[k].2;
        suffix_gcd[k] = gcd(suffix_gcd[k + 1], dims[k].2);
    }
    let mut search = Search { dims: &dims, suffix_reach, suffix_gcd, d: vec![0; n], budget: OVERLAP_SEARCH_BUDGET };
    match search.run(0, 0, false) {
        Some(true) => {
            let mut d = vec![0i128; sizes.len()];
            for (k, &(i, _, _, sign)) in dims.iter().enumerate() {
                d[i] = search.d[k] * sign;
            }
            witness(&d)
        }
        Some(false) => Overlap::Disjoint,
        None => Overlap::Undecided,
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

fn witness(d: &[i128]) -> Overlap {
    // c = max(0, -d), c' = c + d: both inside the box because |d| ≤ n - 1.
    let first: Vec<u64> = d.iter().map(|&x| if x < 0 { (-x) as u64 } else { 0 }).collect();
    let second: Vec<u64> = first.iter().zip(d).map(|(&c, &x)| (c as i128 + x) as u64).collect();
    Overlap::Collision { first, second }
}

struct Search<'a> {
    dims: &'a [(usize, i128, i128, i128)],
    suffix_reach: Vec<i128>,
    suffix_gcd: Vec<i128>,
    d: Vec<i128>,
    budget: u64,
}

impl Search<'_> {
    /// Finds `d[k..]` with `Σ d_j·s_j = target`; `nonzero` says whether `d[..k]` already has a nonzero entry.
    /// `Some(found)`, or `None` when the budget ran out.
    fn run(&mut self, k: usize, target: i128, nonzero: bool) -> Option<bool> {
        if k == self.dims.len() {
            return Some(target == 0 && nonzero);
        }
        if target.abs() > self.suffix_reach[k] || target % self.suffix_gcd[k] != 0 {
            return Some(false);
        }
        if k + 2 == self.dims.len() {
            return Some(self.last_two(k, target, nonzero));
        }
        let (_, m, s, _) = self.dims[k];
        let rest = self.suffix_reach[k + 1];
        let mut lo = (target - rest).div_euclid(s) + i128::from((target - rest).rem_euclid(s) != 0);
        let mut hi = (target + rest).div_euclid(s);
        lo = lo.max(-m);
        hi = hi.min(m);
        if !nonzero {
            // d and -d are the same collision: look only at d whose first nonzero entry is positive.
            lo = lo.max(0);
        }
        let mut x = lo;
        while x <= hi {
            if self.budget == 0 {
                return None;
            }
            self.budget -= 1;
            self.d[k] = x;
            if self.run(k + 1, target - x * s, nonzero || x != 0)? {
                return Some(true);
            }
            x += 1;
        }
        self.d[k] = 0;
        Some(false)
    }

    /// Solves the last two levels in O(1): `x·a + y·b = target` (a = s_k, b = s_{k+1}) has the solutions
    /// `(x₀ + t·b/g, y₀ − t·a/g)`; intersect the ranges of `t` that keep `|x| ≤ m_k` and `|y| ≤ m_{k+1}`.
    fn last_two(&mut self, k: usize, target: i128, nonzero: bool) -> bool {
        let (_, ma, a, _) = self.dims[k];
        let (_, mb, b, _) = self.dims[k + 1];
        let (g, p, q) = ext_gcd(a, b); // p·a + q·b = g
        if target % g != 0 {
            return false;
        }
        let (x0, y0) = (p * (target / g), q * (target / g));
        let (bg, ag) = (b / g, a / g);
        // |x0 + t·bg| ≤ ma  and  |y0 − t·ag| ≤ mb
        let mut lo = ceil_div(-ma - x0, bg).max(ceil_div(y0 - mb, ag));
        let hi = floor_div(ma - x0, bg).min(floor_div(y0 + mb, ag));
        if !nonzero {
            // Every earlier entry is 0, so target is 0 and (x, y) = t·(bg, −ag): the first nonzero entry is
            // positive exactly when t ≥ 1.
            lo = lo.max(1);
        }
        if lo > hi {
            return false;
        }
        self.d[k] = x0 + lo * bg;
        self.d[k + 1] = y0 - lo * ag;
        true
    }
}

/// `(g, p, q)` with `p·a + q·b = g = gcd(a, b)`, for `a, b > 0`.
fn ext_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    if b == 0 {
        (a, 1, 0)
    } else {
        let (g, p, q) = ext_gcd(b, a % b);
        (g, q, p - (a / b) * q)
    }
}

fn floor_div(n: i128, d: i128) -> i128 {
    n.div_euclid(d)
}

fn ceil_div(n: i128, d: i128) -> i128 {
    -(-n).div_euclid(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over the box.
    fn brute(sizes: &[u64], strides: &[i64]) -> bool {
        let mut seen = std::collections::HashSet::new();
        let total: u64 = sizes.iter().product();
        for mut lin in 0..total {
            let mut off = 0i64;
            for (k, &n) in sizes.iter().enumerate().rev() {
                off += (lin % n) as i64 * strides[k];
                lin /= n;
            }
            if !seen.insert(off) {
                return false;
            }
        }
        true
    }

    fn offset(c: &[u64], strides: &[i64]) -> i64 {
        c.iter().zip(strides).map(|(&c, &s)| c as i64 * s).sum()
    }

    #[test]
    fn matches_brute_force_on_small_layouts() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..20_000 {
            let rank = rng.random_range(1..=5);
            let sizes: Vec<u64> = (0..rank).map(|_| rng.random_range(1..=5)).collect();
            let strides: Vec<i64> = (0..rank).map(|_| rng.random_range(-20..=20)).collect();
            let injective = brute(&sizes, &strides);
            match find_overlap(&sizes, &strides) {
                Overlap::Disjoint => assert!(injective, "{sizes:?} {strides:?}"),
                Overlap::Collision { first, second } => {
                    assert!(!injective, "{sizes:?} {strides:?}");
                    assert_ne!(first, second);
                    for k in 0..rank {
                        assert!(first[k] < sizes[k] && second[k] < sizes[k]);
                    }
                    assert_eq!(offset(&first, &strides), offset(&second, &strides));
                }
                Overlap::Undecided => panic!("small layouts must be decided"),
            }
        }
    }

    #[test]
    fn named_layouts() {
        // packed NHWC from the spec: sizes {1,1,3,5}, strides {15,1,5,1}
        assert_eq!(find_overlap(&[1, 1, 3, 5], &[15, 1, 5, 1]), Overlap::Disjoint);
        // broadcast height
        assert_eq!(find_overlap(&[2, 3], &[0, 1]), Overlap::Collision { first: vec![0, 0], second: vec![1, 0] });
        // huge but nested
        assert_eq!(find_overlap(&[u32::MAX as u64; 2], &[u32::MAX as i64, 1]), Overlap::Disjoint);
        // huge interleaved layouts are decided exactly, injective or not
        let big = u32::MAX as u64;
        assert_eq!(find_overlap(&[big; 2], &[big as i64 - 1, big as i64]), Overlap::Disjoint);
        assert_eq!(
            find_overlap(&[big; 3], &[2, 3, 1 << 40]),
            Overlap::Collision { first: vec![3, 0, 0], second: vec![0, 2, 0] }
        );
        assert!(matches!(find_overlap(&[big; 3], &[6, 10, 15]), Overlap::Collision { .. }));
    }
}
