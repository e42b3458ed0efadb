#![deny(clippy::arithmetic_side_effects)]
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
    /// The exact search exceeded its budget (2^20 steps) without an answer.
    Undecided,
}

/// Decides whether `offset(c) = Σ cᵢ·stridesᵢ` is injective over `0 ≤ cᵢ < sizesᵢ`.
///
/// `sizes` and `strides` must have equal lengths; sizes of 0 or 1 contribute nothing.
///
/// ```
/// use strider_kernels::{find_overlap, Overlap};
/// assert_eq!(find_overlap(&[2, 3], &[3, 1]), Overlap::Disjoint); // packed
/// assert_eq!(find_overlap(&[2, 3], &[3, 2]), Overlap::Disjoint); // interleaved, still injective
/// assert!(matches!(find_overlap(&[2, 3], &[1, 1]), Overlap::Collision { .. }));
/// ```
pub fn find_overlap(sizes: &[u64], strides: &[i64]) -> Overlap {
    // A length mismatch is a caller's bug: decide over the common prefix rather than panic.
    let rank = sizes.len().min(strides.len());
    let (sizes, strides) = (&sizes[..rank], &strides[..rank]);
    // (original index, max |d|, |stride|, sign): each fits i128 exactly (< 2^64 and ≤ 2^63).
    let mut dims: Vec<Dim> = sizes
        .iter()
        .zip(strides)
        .enumerate()
        .filter(|&(_, (&n, _))| n >= 2)
        .map(|(i, (&n, &s))| Dim {
            index: i,
            m: i128::from(n.saturating_sub(1)),
            s: i128::from(s).abs(),
            sign: s.signum(),
        })
        .collect();
    if let Some(d) = dims.iter().find(|d| d.s == 0) {
        return witness(rank, &[(d.index, 1)]);
    }
    dims.sort_by_key(|d| core::cmp::Reverse(d.s));
    // Two dimensions of equal |stride|: one step in each, in opposite directions, lands on the same offset.
    if let Some(w) = dims.windows(2).find(|w| w[0].s == w[1].s) {
        let second = if w[0].sign == w[1].sign { -1 } else { 1 };
        return witness(rank, &[(w[0].index, 1), (w[1].index, second)]);
    }
    // Every sum below is checked: an offset that does not fit i128 leaves the question undecided, never answered
    // wrong.
    match nested(&dims) {
        Some(true) => return Overlap::Disjoint,
        Some(false) => {}
        None => return Overlap::Undecided,
    }
    // suffix_reach[k] = Σ_{j ≥ k} m_j·s_j and suffix_gcd[k] = gcd_{j ≥ k} s_j, with a trailing 0.
    let (mut suffix_reach, mut suffix_gcd) = (vec![0i128], vec![0i128]);
    for d in dims.iter().rev() {
        let (Some(&r), Some(&g)) = (suffix_reach.last(), suffix_gcd.last()) else { return Overlap::Undecided };
        let Some(r) = d.m.checked_mul(d.s).and_then(|x| x.checked_add(r)) else { return Overlap::Undecided };
        suffix_reach.push(r);
        suffix_gcd.push(gcd(g, d.s));
    }
    suffix_reach.reverse();
    suffix_gcd.reverse();
    let mut search =
        Search { dims: &dims, suffix_reach, suffix_gcd, d: vec![0; dims.len()], budget: OVERLAP_SEARCH_BUDGET };
    match search.run(0, 0, false) {
        Some(true) => {
            // |x| ≤ m < 2^64: negating it cannot overflow.
            let d: Vec<(usize, i128)> = dims
                .iter()
                .zip(&search.d)
                .map(|(dim, &x)| (dim.index, x.saturating_mul(i128::from(dim.sign))))
                .collect();
            witness(rank, &d)
        }
        Some(false) => Overlap::Disjoint,
        None => Overlap::Undecided,
    }
}

/// One dimension of the search: its original index, the largest difference of coordinates `m = n − 1`, the stride's
/// magnitude and sign.
#[derive(Clone, Copy, Debug)]
struct Dim {
    index: usize,
    m: i128,
    s: i128,
    sign: i64,
}

/// The nested test over dimensions sorted by descending stride: each stride exceeds the largest offset reachable
/// through the smaller ones. `None` when that offset overflows.
fn nested(dims: &[Dim]) -> Option<bool> {
    let mut reach: i128 = 0;
    for d in dims.iter().rev() {
        if d.s <= reach {
            return Some(false);
        }
        reach = reach.checked_add(d.m.checked_mul(d.s)?)?;
    }
    Some(true)
}

/// gcd of two non-negative values.
fn gcd(a: i128, b: i128) -> i128 {
    match a.checked_rem(b) {
        None => a.saturating_abs(), // b == 0
        Some(r) => gcd(b, r),
    }
}

/// The collision of coordinate differences `d` (index, difference; other dimensions 0): `c = max(0, −d)`,
/// `c' = c + d`, both inside the box because |d| ≤ n − 1.
fn witness(rank: usize, d: &[(usize, i128)]) -> Overlap {
    let mut first = vec![0u64; rank];
    let mut second = vec![0u64; rank];
    for &(i, x) in d {
        // |x| ≤ n − 1 < 2^64
        first[i] = if x < 0 { x.unsigned_abs() as u64 } else { 0 };
        second[i] = i128::from(first[i]).saturating_add(x) as u64;
    }
    Overlap::Collision { first, second }
}

struct Search<'a> {
    dims: &'a [Dim],
    suffix_reach: Vec<i128>,
    suffix_gcd: Vec<i128>,
    d: Vec<i128>,
    budget: u64,
}

impl Search<'_> {
    /// Finds `d[k..]` with `Σ d_j·s_j = target`; `nonzero` says whether `d[..k]` already has a nonzero entry.
    /// `Some(found)`, or `None` when the budget ran out or a value left i128.
    fn run(&mut self, k: usize, target: i128, nonzero: bool) -> Option<bool> {
        // Indices: k < dims.len() ≤ 64, so k + 1 and k + 2 never overflow.
        let (next, after) = (k.saturating_add(1), k.saturating_add(2));
        if k == self.dims.len() {
            return Some(target == 0 && nonzero);
        }
        if target.checked_abs()? > self.suffix_reach[k] || target.checked_rem(self.suffix_gcd[k])? != 0 {
            return Some(false);
        }
        if after == self.dims.len() {
            return self.last_two(k, target, nonzero);
        }
        let Dim { m, s, .. } = self.dims[k];
        let rest = self.suffix_reach[next];
        // |target| ≤ suffix_reach[k] and rest ≤ suffix_reach[k], both < 2^127: the sums below may still overflow.
        let (low, high) = (target.checked_sub(rest)?, target.checked_add(rest)?);
        let mut lo = low.checked_div_euclid(s)?.checked_add(i128::from(low.checked_rem_euclid(s)? != 0))?;
        let mut hi = high.checked_div_euclid(s)?;
        lo = lo.max(m.checked_neg()?);
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
            self.budget = self.budget.saturating_sub(1);
            self.d[k] = x;
            // |x·s| ≤ m·s ≤ suffix_reach[k]
            if self.run(next, target.checked_sub(x.checked_mul(s)?)?, nonzero || x != 0)? {
                return Some(true);
            }
            x = x.checked_add(1)?;
        }
        self.d[k] = 0;
        Some(false)
    }

    /// Solves the last two levels in O(1): `x·a + y·b = target` (a = s_k, b = s_{k+1}) has the solutions
    /// `(x₀ + t·b/g, y₀ − t·a/g)`; intersect the ranges of `t` that keep `|x| ≤ m_k` and `|y| ≤ m_{k+1}`. `None` when
    /// an intermediate value leaves i128.
    fn last_two(&mut self, k: usize, target: i128, nonzero: bool) -> Option<bool> {
        let next = k.saturating_add(1); // < dims.len()
        let Dim { m: ma, s: a, .. } = self.dims[k];
        let Dim { m: mb, s: b, .. } = self.dims[next];
        let (g, p, _) = ext_gcd(a, b)?; // p·a + q·b = g, |p| ≤ b/g
        if target.checked_rem(g)? != 0 {
            return Some(false);
        }
        let (bg, ag) = (b.checked_div(g)?, a.checked_div(g)?);
        // The particular solution with 0 ≤ x0 < b/g: x0 ≡ p·(target/g) (mod b/g), reduced before multiplying so
        // that every product stays below 2^126; y0 = (target − x0·a) / b exactly.
        let t = target.checked_div(g)?.checked_rem_euclid(bg)?;
        let x0 = p.checked_rem_euclid(bg)?.checked_mul(t)?.checked_rem_euclid(bg)?;
        let y0 = target.checked_sub(x0.checked_mul(a)?)?.checked_div(b)?;
        // |x0 + t·bg| ≤ ma  and  |y0 − t·ag| ≤ mb
        let mut lo = ceil_div(ma.checked_neg()?.checked_sub(x0)?, bg)?.max(ceil_div(y0.checked_sub(mb)?, ag)?);
        let hi = floor_div(ma.checked_sub(x0)?, bg)?.min(floor_div(y0.checked_add(mb)?, ag)?);
        if !nonzero {
            // Every earlier entry is 0, so target is 0 and (x, y) = t·(bg, −ag): the first nonzero entry is
            // positive exactly when t ≥ 1.
            lo = lo.max(1);
        }
        if lo > hi {
            return Some(false);
        }
        self.d[k] = x0.checked_add(lo.checked_mul(bg)?)?;
        self.d[next] = y0.checked_sub(lo.checked_mul(ag)?)?;
        Some(true)
    }
}

/// `(g, p, q)` with `p·a + q·b = g = gcd(a, b)`, for `a, b > 0` (|p| ≤ b/g, |q| ≤ a/g: the operations never
/// overflow, and are checked anyway).
fn ext_gcd(a: i128, b: i128) -> Option<(i128, i128, i128)> {
    if b == 0 {
        return Some((a, 1, 0));
    }
    let (g, p, q) = ext_gcd(b, a.checked_rem(b)?)?;
    Some((g, q, p.checked_sub(a.checked_div(b)?.checked_mul(q)?)?))
}

fn floor_div(n: i128, d: i128) -> Option<i128> {
    n.checked_div_euclid(d)
}

fn ceil_div(n: i128, d: i128) -> Option<i128> {
    n.checked_neg()?.checked_div_euclid(d)?.checked_neg()
}

#[cfg(feature = "selftest")]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
#[strider_kernels_macros::selftests]
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

    /// The fuzzer's findings: huge extents whose offsets overflow i128 must not be called disjoint, nor panic.
    #[test]
    fn overflowing_layouts_are_never_answered_wrong() {
        // (1,0,0) and (0,1,0) collide
        assert!(matches!(find_overlap(&[u64::MAX; 3], &[i64::MAX; 3]), Overlap::Collision { .. }));
        // (brute force over the 13³ differences finds no collision)
        assert_eq!(find_overlap(&[7, 7, 7, 1], &[1 << 40, 8563833117307583039, i64::MAX, -20]), Overlap::Disjoint);
        for _ in 0..3 {
            let _ = find_overlap(&[u64::MAX, u64::MAX, 3], &[i64::MAX, i64::MAX - 1, 1]);
            let _ = find_overlap(&[u64::MAX, 2, 2, 2], &[i64::MIN, i64::MAX, 3, 5]);
        }
        // mismatched lengths decide the common prefix instead of panicking
        assert_eq!(find_overlap(&[2, 3], &[3]), Overlap::Disjoint);
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
