//! Byte-shuffle tables for rows whose pattern no single register permute expresses: reverses of 3-, 6- and 12-byte
//! groups (interleaved pixels) and gathers with small strides.
//!
//! An output *lane* is 16 bytes holding `E = ⌊16/N⌋` whole elements; its bytes come from `W ≤ 4` unaligned 16-byte
//! source *windows*, each shuffled with `pshufb` and OR-ed together. Windows are placed from the end of the source
//! span that lies *behind* the walk (the low end for positive strides, the high end for negative ones), so that a
//! window never reaches outside the row's source span while enough elements remain; [`Shuffle::slack`] says how
//! many. Pure integer code, built once per walk.

/// Maximum windows per lane.
pub(crate) const MAX_WINDOWS: usize = 4;

/// The tables of one `(element width, stride)` pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shuffle {
    /// Number of windows per lane (1..=4).
    pub(crate) windows: usize,
    /// Whole elements per lane.
    pub(crate) elems: usize,
    /// Byte offset of each window from the lane's first source element.
    pub(crate) win_off: [isize; MAX_WINDOWS],
    /// `pshufb` control per window (0x80 = zero).
    pub(crate) masks: [[u8; 16]; MAX_WINDOWS],
    /// A lane starting at element `j` may run when `j + slack ≤ n` (row of `n` elements): its windows and its
    /// 16-byte store then stay inside the row.
    pub(crate) slack: usize,
}

impl Shuffle {
    /// Tables for `n`-byte elements read with stride `k` elements (`k ≠ 0`), or `None` when a lane would need more
    /// than [`MAX_WINDOWS`] windows or the element is wider than a lane.
    pub(crate) fn new(width: usize, k: isize) -> Option<Shuffle> {
        if width == 0 || width > 16 || k == 0 {
            return None;
        }
        let n = width as isize;
        let elems = 16 / width;
        // Byte offset (from the lane's first element) of output byte t.
        let offset = |t: usize| (t / width) as isize * k * n + (t % width) as isize;
        let bytes = elems * width;
        let lo = (0..bytes).map(offset).min()?;
        let hi = (0..bytes).map(offset).max()? + 1;
        let windows = ((hi - lo) as usize).div_ceil(16);
        if windows > MAX_WINDOWS {
            return None;
        }
        let mut s = Shuffle { windows, elems, win_off: [0; MAX_WINDOWS], masks: [[0x80; 16]; MAX_WINDOWS], slack: 0 };
        for w in 0..windows {
            s.win_off[w] = if k > 0 { lo + 16 * w as isize } else { hi - 16 * (w as isize + 1) };
        }
        for t in 0..bytes {
            let o = offset(t);
            let w = (0..windows).find(|&w| o >= s.win_off[w] && o < s.win_off[w] + 16)?;
            s.masks[w][t] = (o - s.win_off[w]) as u8;
        }
        // Lowest and highest byte (relative to the lane's first element) the windows touch.
        let reach_lo = s.win_off[..windows].iter().min()?;
        let reach_hi = s.win_off[..windows].iter().max()? + 16;
        // Row span relative to element j: elements j..n-1 lie at offsets 0, k·n, …, (n-1-j)·k·n. The windows stay
        // inside when the remaining m = n - j elements cover them; the 16-byte store needs m·width ≥ 16.
        let mut slack = elems.max(16usize.div_ceil(width));
        loop {
            let m = slack as isize;
            let (span_lo, span_hi) = if k > 0 { (0, (m - 1) * k * n + n) } else { ((m - 1) * k * n, n) };
            if *reach_lo >= span_lo && reach_hi <= span_hi {
                break;
            }
            slack += 1;
        }
        s.slack = slack;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the tables in plain Rust over a row and compares with a direct strided gather.
    fn emulate(width: usize, k: isize, n: usize) {
        let Some(s) = Shuffle::new(width, k) else { return };
        let span = (n - 1) * k.unsigned_abs() * width + width;
        let src: Vec<u8> = (0..span).map(|i| (i * 7 + 3) as u8).collect();
        let first = if k > 0 { 0 } else { span - width } as isize;
        let mut want = vec![0u8; n * width];
        for i in 0..n {
            let e = (first + i as isize * k * width as isize) as usize;
            want[i * width..][..width].copy_from_slice(&src[e..e + width]);
        }
        let mut got = vec![0u8; n * width];
        let mut j = 0;
        while j + s.slack <= n {
            let base = first + j as isize * k * width as isize;
            let mut lane = [0u8; 16];
            for w in 0..s.windows {
                let at = base + s.win_off[w];
                assert!(at >= 0 && at as usize + 16 <= span, "window outside the row: w{width} k{k} n{n} j{j}");
                for (byte, &m) in lane.iter_mut().zip(&s.masks[w]) {
                    if m & 0x80 == 0 {
                        *byte |= src[at as usize + m as usize];
                    }
                }
            }
            assert!(j * width + 16 <= got.len(), "store outside the row");
            got[j * width..][..16].copy_from_slice(&lane);
            j += s.elems;
        }
        let done = j * width;
        assert_eq!(&got[..done], &want[..done], "w{width} k{k} n{n}");
        // Lanes must cover all but a short tail.
        assert!(n - j < s.slack + s.elems, "w{width} k{k} n{n}: {} elements left for the tail", n - j);
    }

    #[test]
    fn tables_match_a_direct_gather() {
        for width in [1, 2, 3, 4, 6, 8, 12, 16] {
            for k in [-5isize, -4, -3, -2, -1, 1, 2, 3, 4, 5] {
                for n in 1..80 {
                    emulate(width, k, n);
                }
            }
        }
    }

    #[test]
    fn window_counts() {
        assert_eq!(Shuffle::new(3, -1).map(|s| (s.windows, s.elems)), Some((1, 5)));
        assert_eq!(Shuffle::new(1, 3).map(|s| (s.windows, s.elems)), Some((3, 16)));
        assert_eq!(Shuffle::new(1, 4).map(|s| s.windows), Some(4));
        assert_eq!(Shuffle::new(1, 5), None);
        assert_eq!(Shuffle::new(4, 2).map(|s| s.windows), Some(2));
        assert_eq!(Shuffle::new(12, -1).map(|s| (s.windows, s.elems)), Some((1, 1)));
    }
}
