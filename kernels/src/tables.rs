#![deny(clippy::arithmetic_side_effects)]
//! Byte-shuffle tables (pure integer code, built once per program) for rows whose pattern no single register
//! permute expresses: reverses of 3-, 6- and 12-byte
//! groups (interleaved pixels) and gathers with small strides.
//!
//! An output *lane* of `L` bytes holds `E = ⌊L/N⌋` whole elements; its bytes come from `W ≤ MAXW` unaligned source
//! *windows* of `WIN` bytes, each permuted and merged. Two instances:
//! - [`Shuffle`]: 16-byte lanes from 16-byte windows, `pshufb` + OR (SSSE3, every x86 level);
//! - [`WideShuffle`]: 64-byte lanes from 128-byte windows (two loads), `vpermt2b` + blend (AVX-512 VBMI).
//!
//! Windows are placed from the end of the source span that lies *behind* the walk (the low end for positive
//! strides, the high end for negative ones), so that a window never reaches outside the row's source span while
//! enough elements remain; `slack` says how many. Pure integer code, built once per walk.

/// The tables of one `(element width, stride)` pattern for lanes of `L` bytes and windows of `WIN` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tables<const L: usize, const WIN: usize, const MAXW: usize> {
    /// The element width the tables were built for.
    pub(crate) width: usize,
    /// The stride (in elements) the tables were built for.
    pub(crate) stride: isize,
    /// Number of windows per lane (1..=MAXW).
    pub(crate) windows: usize,
    /// Whole elements per lane.
    pub(crate) elems: usize,
    /// Byte offset of each window from the lane's first source element.
    pub(crate) win_off: [isize; MAXW],
    /// Per window, the index of each output byte inside the window, or 0x80 when the byte comes from another
    /// window (`pshufb` zeroes those).
    pub(crate) masks: [[u8; L]; MAXW],
    /// Per window, bit t set when output byte t comes from it.
    pub(crate) sel: [u64; MAXW],
    /// A lane starting at element `j` may run when `j + slack ≤ n` (row of `n` elements): its windows and its
    /// `L`-byte store then stay inside the row.
    pub(crate) slack: usize,
}

/// 16-byte `pshufb` lanes with up to 4 windows.
pub(crate) type Shuffle = Tables<16, 16, 4>;

/// 64-byte `vpermt2b` lanes with up to 2 windows of 128 bytes.
pub(crate) type WideShuffle = Tables<64, 128, 2>;

impl<const L: usize, const WIN: usize, const MAXW: usize> Tables<L, WIN, MAXW> {
    /// Tables for `n`-byte elements read with stride `k` elements (`k ≠ 0`), or `None` when a lane would need more
    /// than `MAXW` windows or the element is wider than a lane.
    pub(crate) fn new(width: usize, k: isize) -> Option<Self> {
        // A lane spans (elements − 1)·|k|·width + width bytes, which must fit MAXW windows of WIN bytes: bounding
        // |k| first keeps every value small; the arithmetic is checked anyway.
        if width == 0 || width > L || k == 0 || L > 64 || k.unsigned_abs() > MAXW.checked_mul(WIN)? {
            return None;
        }
        let n = isize::try_from(width).ok()?;
        let elems = L.checked_div(width)?;
        // Byte offset (from the lane's first element) of output byte t.
        let offset = |t: usize| -> Option<isize> {
            let (e, b) = (t.checked_div(width)?, t.checked_rem(width)?);
            isize::try_from(e).ok()?.checked_mul(k)?.checked_mul(n)?.checked_add(isize::try_from(b).ok()?)
        };
        let bytes = elems.checked_mul(width)?;
        let offsets: Vec<isize> = (0..bytes).map(offset).collect::<Option<_>>()?;
        let lo = *offsets.iter().min()?;
        let hi = offsets.iter().max()?.checked_add(1)?;
        let win = isize::try_from(WIN).ok()?;
        let windows = usize::try_from(hi.checked_sub(lo)?).ok()?.div_ceil(WIN);
        if windows > MAXW {
            return None;
        }
        let mut s = Tables {
            width,
            stride: k,
            windows,
            elems,
            win_off: [0; MAXW],
            masks: [[0x80; L]; MAXW],
            sel: [0; MAXW],
            slack: 0,
        };
        for (w, (off, next)) in s.win_off[..windows].iter_mut().zip(1isize..).enumerate() {
            let w = isize::try_from(w).ok()?;
            *off = if k > 0 { lo.checked_add(win.checked_mul(w)?)? } else { hi.checked_sub(win.checked_mul(next)?)? };
        }
        for (t, &o) in offsets.iter().enumerate() {
            let w =
                (0..windows).find(|&w| o >= s.win_off[w] && o.checked_sub(s.win_off[w]).is_some_and(|d| d < win))?;
            s.masks[w][t] = u8::try_from(o.checked_sub(s.win_off[w])?).ok()?;
            s.sel[w] |= 1u64.checked_shl(u32::try_from(t).ok()?)?;
        }
        // Lowest and highest byte (relative to the lane's first element) the windows touch.
        let reach_lo = *s.win_off[..windows].iter().min()?;
        let reach_hi = s.win_off[..windows].iter().max()?.checked_add(win)?;
        // Row span relative to element j: elements j..n-1 lie at offsets 0, k·n, …, (n-1-j)·k·n. The windows stay
        // inside when the remaining m = n - j elements cover them; the L-byte store needs m·width ≥ L. The span
        // grows by |k|·n per element, so a slack past the windows' reach always exists: the search is bounded.
        let first = elems.max(L.div_ceil(width));
        let limit = first.checked_add(MAXW.checked_mul(WIN)?)?;
        s.slack = (first..=limit).find(|&slack| {
            let covers = || -> Option<bool> {
                let far = isize::try_from(slack).ok()?.checked_sub(1)?.checked_mul(k)?.checked_mul(n)?;
                let (span_lo, span_hi) = if k > 0 { (0, far.checked_add(n)?) } else { (far, n) };
                Some(reach_lo >= span_lo && reach_hi <= span_hi)
            };
            covers() == Some(true)
        })?;
        Some(s)
    }

    /// Whether these tables were built for `width`-byte elements read with stride `k` elements.
    pub(crate) fn fits(&self, width: usize, k: isize) -> bool {
        self.width == width && self.stride == k
    }
}

/// `pshufb` controls that interleave `planes` planes of `N`-byte elements into pixels (or the reverse): a step
/// moves `16 / N` pixels, one 16-byte chunk per plane on the planar side and `planes` 16-byte chunks on the
/// pixel side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Planar {
    /// Element width in bytes (1, 2, 4 or 8).
    pub(crate) width: usize,
    /// Number of planes (2 to 4).
    pub(crate) planes: usize,
    /// Interleave (planes → pixels) or deinterleave.
    pub(crate) interleave: bool,
    /// `masks[k][i]`: interleave — the bytes of pixel-side chunk `k` taken from plane chunk `i`; deinterleave —
    /// the bytes of plane chunk `i` taken from pixel-side chunk `k` (0x80 elsewhere).
    pub(crate) masks: [[[u8; 16]; 4]; 4],
}

impl Planar {
    /// Tables for `planes` planes (2 to 4) of `width`-byte elements (1, 2, 4 or 8), or `None` for other shapes.
    pub(crate) fn new(width: usize, planes: usize, interleave: bool) -> Option<Planar> {
        if !matches!(width, 1 | 2 | 4 | 8) || !(2..=4).contains(&planes) {
            return None;
        }
        let mut masks = [[[0x80u8; 16]; 4]; 4];
        // Pixel-side byte t: pixel t / (planes·N), plane (t / N) % planes, byte t % N; it is byte
        // (pixel·N + byte) of that plane's chunk. All values are below 64 (checked after the shape test above).
        for t in 0..planes.checked_mul(16)? {
            let pixel = t.checked_div(planes.checked_mul(width)?)?;
            let (plane, byte) = (t.checked_div(width)?.checked_rem(planes)?, t.checked_rem(width)?);
            let p = pixel.checked_mul(width)?.checked_add(byte)?;
            let (k, tk) = (t.checked_div(16)?, t.checked_rem(16)?);
            if interleave {
                masks[k][plane][tk] = p as u8;
            } else {
                masks[k][plane][p] = tk as u8;
            }
        }
        Some(Planar { width, planes, interleave, masks })
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
mod tests {
    use super::*;

    /// Runs the tables in plain Rust over a row and compares with a direct strided gather.
    fn emulate<const L: usize, const WIN: usize, const MAXW: usize>(width: usize, k: isize, n: usize) {
        let Some(s) = Tables::<L, WIN, MAXW>::new(width, k) else { return };
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
            let mut lane = [0u8; L];
            for w in 0..s.windows {
                let at = base + s.win_off[w];
                assert!(at >= 0 && at as usize + WIN <= span, "window outside the row: w{width} k{k} n{n} j{j}");
                for (t, (byte, &m)) in lane.iter_mut().zip(&s.masks[w]).enumerate() {
                    assert_eq!(m & 0x80 == 0, s.sel[w] >> t & 1 == 1);
                    if m & 0x80 == 0 {
                        *byte |= src[at as usize + m as usize];
                    }
                }
            }
            assert!(j * width + L <= got.len(), "store outside the row");
            got[j * width..][..L].copy_from_slice(&lane);
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
                    emulate::<16, 16, 4>(width, k, n);
                }
                for n in (1..300).step_by(7) {
                    emulate::<64, 128, 2>(width, k, n);
                }
            }
        }
    }

    /// The planar tables, run in plain Rust, interleave and deinterleave exactly.
    #[test]
    fn planar_tables() {
        let pshufb = |v: &[u8], m: &[u8; 16]| -> [u8; 16] {
            core::array::from_fn(|t| if m[t] & 0x80 != 0 { 0 } else { v[m[t] as usize] })
        };
        for width in [1, 2, 4, 8] {
            for planes in 2..=4 {
                let pixels = 16 / width;
                let planar: Vec<Vec<u8>> = (0..planes).map(|i| (0..16).map(|b| (i * 16 + b) as u8).collect()).collect();
                let mut want = vec![0u8; planes * 16];
                for px in 0..pixels {
                    for (i, plane) in planar.iter().enumerate() {
                        for b in 0..width {
                            want[(px * planes + i) * width + b] = plane[px * width + b];
                        }
                    }
                }
                let t = Planar::new(width, planes, true).unwrap();
                for k in 0..planes {
                    let mut chunk = [0u8; 16];
                    for (i, plane) in planar.iter().enumerate() {
                        for (c, x) in chunk.iter_mut().zip(pshufb(plane, &t.masks[k][i])) {
                            *c |= x;
                        }
                    }
                    assert_eq!(&chunk[..], &want[k * 16..][..16], "interleave w{width} p{planes} chunk {k}");
                }
                let t = Planar::new(width, planes, false).unwrap();
                for (i, plane) in planar.iter().enumerate() {
                    let mut chunk = [0u8; 16];
                    for k in 0..planes {
                        for (c, x) in chunk.iter_mut().zip(pshufb(&want[k * 16..][..16], &t.masks[k][i])) {
                            *c |= x;
                        }
                    }
                    assert_eq!(&chunk[..], &plane[..], "deinterleave w{width} p{planes} plane {i}");
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
        assert_eq!(WideShuffle::new(3, -1).map(|s| (s.windows, s.elems)), Some((1, 21)));
        assert_eq!(WideShuffle::new(1, 3).map(|s| (s.windows, s.elems)), Some((2, 64)));
        assert_eq!(WideShuffle::new(3, 2).map(|s| s.windows), Some(1));
        assert_eq!(WideShuffle::new(1, 5), None);
    }
}
