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
    /// The input step (bytes from one element to the next, any multiple of the width or not) they were built for.
    pub(crate) step: isize,
    /// The units whose order each element's bytes are reversed in (an element of `width / unit` channels of
    /// `unit` bytes has its channels reversed: BGR → RGB); `width` for elements moved whole.
    pub(crate) unit: usize,
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
        Self::build(width, k.checked_mul(isize::try_from(width).ok()?)?, width)
    }

    /// Tables for `width`-byte elements `step` bytes apart in the input, `|step|` at least the width and not
    /// necessarily a multiple of it (3-byte RGB pixels in 4-byte RGBX slots: step 4), or `None` as for
    /// [`Tables::new`].
    pub(crate) fn stepping(width: usize, step: isize) -> Option<Self> {
        if step.unsigned_abs() < width {
            return None;
        }
        Self::build(width, step, width)
    }

    /// Tables for `width`-byte elements `step` bytes apart (at least the width) whose `unit`-byte parts are written
    /// in reverse order (the channels of an interleaved pixel swapped: BGR ↔ RGB, RGBA → ABGR, BGRX → RGB), or
    /// `None` as for [`Tables::new`] and when `unit` does not divide `width` into at least two parts.
    pub(crate) fn swapping(width: usize, step: isize, unit: usize) -> Option<Self> {
        if !in_parts(width, unit) || step.unsigned_abs() < width {
            return None;
        }
        Self::build(width, step, unit)
    }

    /// Tables for `width`-byte elements `step` bytes apart in the input.
    fn build(width: usize, step: isize, unit: usize) -> Option<Self> {
        // A lane spans (elements − 1)·|step| + width bytes, which must fit MAXW windows of WIN bytes unless a lane
        // holds one element: bounding |step| first keeps every value small; the arithmetic is checked anyway.
        if width == 0
            || width > L
            || step == 0
            || L > 64
            || step.unsigned_abs() > MAXW.checked_mul(WIN)?.checked_mul(L)?
        {
            return None;
        }
        let n = isize::try_from(width).ok()?;
        let elems = L.checked_div(width)?;
        let bytes = elems.checked_mul(width)?;
        let offsets: Vec<isize> = (0..bytes).map(|t| source_offset(width, step, unit, t)).collect::<Option<_>>()?;
        let lo = *offsets.iter().min()?;
        let hi = offsets.iter().max()?.checked_add(1)?;
        let win = isize::try_from(WIN).ok()?;
        let windows = usize::try_from(hi.checked_sub(lo)?).ok()?.div_ceil(WIN);
        if windows > MAXW {
            return None;
        }
        let mut s = Tables {
            width,
            step,
            unit,
            windows,
            elems,
            win_off: [0; MAXW],
            masks: [[0x80; L]; MAXW],
            sel: [0; MAXW],
            slack: 0,
        };
        for (w, (off, next)) in s.win_off[..windows].iter_mut().zip(1isize..).enumerate() {
            let w = isize::try_from(w).ok()?;
            *off =
                if step > 0 { lo.checked_add(win.checked_mul(w)?)? } else { hi.checked_sub(win.checked_mul(next)?)? };
        }
        s.assign(&offsets)?;
        // Lowest and highest byte (relative to the lane's first element) the windows touch.
        let reach_lo = *s.win_off[..windows].iter().min()?;
        let reach_hi = s.win_off[..windows].iter().max()?.checked_add(win)?;
        // Row span relative to element j: elements j..n-1 lie at offsets 0, step, …, (n-1-j)·step. The windows stay
        // inside when the remaining m = n - j elements cover them; the L-byte store needs m·width ≥ L. The span
        // grows by |step| per element, so a slack past the windows' reach always exists: the search is bounded.
        let first = elems.max(L.div_ceil(width));
        let limit = first.checked_add(MAXW.checked_mul(WIN)?)?;
        s.slack = (first..=limit).find(|&slack| {
            let covers = || -> Option<bool> {
                let far = isize::try_from(slack).ok()?.checked_sub(1)?.checked_mul(step)?;
                let (span_lo, span_hi) = if step > 0 { (0, far.checked_add(n)?) } else { (far, n) };
                Some(reach_lo >= span_lo && reach_hi <= span_hi)
            };
            covers() == Some(true)
        })?;
        Some(s)
    }

    /// Tables of one lane of a table row: output byte `t` comes from the input byte at `offsets[t]` (relative to the
    /// row's base; `L` entries), with every window placed inside the row's input span `[lo, hi)`. `None` when the
    /// span is narrower than a window or the lane needs more than `MAXW` windows. `step` is 0 and `slack` unused:
    /// these tables are only used through [`TableLanes`].
    fn gathering(width: usize, offsets: &[isize], lo: isize, hi: isize) -> Option<Self> {
        let win = isize::try_from(WIN).ok()?;
        let top = hi.checked_sub(win)?;
        if offsets.len() != L || width == 0 || !L.is_multiple_of(width) || top < lo {
            return None;
        }
        let mut s = Tables {
            width,
            step: 0,
            unit: width,
            windows: 0,
            elems: L.checked_div(width)?,
            win_off: [0; MAXW],
            masks: [[0x80; L]; MAXW],
            sel: [0; MAXW],
            slack: 0,
        };
        let mut sorted = offsets.to_vec();
        sorted.sort_unstable();
        for o in sorted {
            if o < lo || o >= hi {
                return None;
            }
            let covered = s.windows.checked_sub(1).is_some_and(|w| o < s.win_off[w].saturating_add(win));
            if !covered {
                // Offsets arrive in ascending order, so a window starting at the first uncovered one (moved down to
                // stay inside the span: still at or above `lo`) covers it and the next ones up to its end.
                *s.win_off.get_mut(s.windows)? = o.min(top);
                s.windows = s.windows.checked_add(1)?;
            }
        }
        s.assign(offsets)?;
        Some(s)
    }

    /// Fills the masks and selections from the windows: output byte `t` comes from the input byte at
    /// `offsets[t]`, taken from the first window that holds it; `None` if none does.
    fn assign(&mut self, offsets: &[isize]) -> Option<()> {
        let win = isize::try_from(WIN).ok()?;
        for (t, &o) in offsets.iter().enumerate() {
            let w = (0..self.windows)
                .find(|&w| o >= self.win_off[w] && o.checked_sub(self.win_off[w]).is_some_and(|d| d < win))?;
            *self.masks.get_mut(w)?.get_mut(t)? = u8::try_from(o.checked_sub(self.win_off[w])?).ok()?;
            self.sel[w] |= 1u64.checked_shl(u32::try_from(t).ok()?)?;
        }
        Some(())
    }

    /// Whether these tables were built for `width`-byte elements `step` bytes apart and reversed in `unit`-byte
    /// parts (`unit == width`: moved whole).
    pub(crate) fn fits(&self, width: usize, step: isize, unit: usize) -> bool {
        self.width == width && self.step == step && self.unit == unit
    }
}

/// Shuffles that read blocks of 16 one-byte pixels of `channels` channels (RGB and RGBA: 3 or 4; or 1: a row of
/// single elements, mirrored or subsampled) straight into the order of a contiguous run, each element widened to a
/// 32-bit lane: pixel `q` of a block `step` bytes after
/// pixel `q − 1`, its channel `c` at byte `c` of it, or at byte `−c` with `swapped` (BGR read as RGB). Group `g` of
/// a block's `2·channels` groups of 8 elements is one 16-byte load at `at[g]` (from the block's pixel 0), broadcast
/// to both 128-bit halves of a register, and one `vpshufb` by `masks[g]`, which puts element `e` of the group in
/// byte 0 of 32-bit lane `e` (elements 0–3 in the low half, 4–7 in the high) and zeroes the rest. Every load lies
/// inside the block's pixels' span (the spare bytes of wider slots and the gaps of a subsampled row inside it are
/// inside the operand).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PixelWindows {
    pub(crate) channels: usize,
    /// Bytes from a pixel to the next.
    pub(crate) step: isize,
    pub(crate) at: [isize; 8],
    pub(crate) masks: [[u8; 32]; 8],
}

impl PixelWindows {
    /// The shuffles of pixels of `channels` one-byte channels `step` bytes apart (channels reversed with
    /// `swapped`), or `None` when a group's bytes span more than one load.
    pub(crate) fn new(channels: usize, step: isize, swapped: bool) -> Option<PixelWindows> {
        if !matches!(channels, 1 | 3 | 4) {
            return None;
        }
        let mut w = PixelWindows { channels, step, at: [0; 8], masks: [[0x80; 32]; 8] };
        let cstep: isize = if swapped { -1 } else { 1 };
        // Input byte of each output element of a block.
        let mut bytes = [0isize; 64];
        let bytes = &mut bytes[..channels.checked_mul(16)?];
        for (t, b) in bytes.iter_mut().enumerate() {
            let (q, c) = (t.checked_div(channels)?, t.checked_rem(channels)?);
            let c = isize::try_from(c).ok()?.checked_mul(cstep)?;
            *b = isize::try_from(q).ok()?.checked_mul(step)?.checked_add(c)?;
        }
        let top = bytes.iter().max()?.checked_sub(15)?;
        for (g, group) in bytes.chunks(8).enumerate() {
            let (lo, hi) = (*group.iter().min()?, *group.iter().max()?);
            if hi.checked_sub(lo)? > 15 {
                return None;
            }
            // As low as the group's first byte, but not past the block's last.
            let at = lo.min(top);
            w.at[g] = at;
            for (e, &b) in group.iter().enumerate() {
                w.masks[g][e.checked_mul(4)?] = u8::try_from(b.checked_sub(at)?).ok()?;
            }
        }
        Some(w)
    }
}

/// A `pshufb` control and byte mask for 16-byte lanes that spread contiguous `width`-byte elements into slots
/// `step` bytes apart (RGB pixels into RGBX slots): lane `l` loads 16 bytes at input element `l·elems` and stores,
/// masked, only its `elems` slots' element bytes — the slots' spare bytes are never written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spread {
    pub(crate) width: usize,
    pub(crate) step: isize,
    /// Slots per lane.
    pub(crate) elems: usize,
    /// Output byte `t` of a lane takes input byte `ctl[t]` (0x80: none).
    pub(crate) ctl: [u8; 16],
    /// Bit `t` set when output byte `t` is an element's.
    pub(crate) mask: u16,
    /// Four lanes at once (AVX-512 VBMI): output byte `t` of a 64-byte block of `4·elems` slots takes byte
    /// `wide_ctl[t]` of the block's `4·elems·width` input bytes (a `vpermb` control) where `wide_mask` has bit `t`.
    pub(crate) wide_ctl: [u8; 64],
    pub(crate) wide_mask: u64,
}

impl Spread {
    /// Tables for `width`-byte elements into slots `step` bytes apart (`width < step ≤ 16`), or `None`.
    pub(crate) fn new(width: usize, step: isize) -> Option<Spread> {
        let slot = usize::try_from(step).ok()?;
        if width == 0 || slot <= width || slot > 16 {
            return None;
        }
        let elems = 16usize.checked_div(slot)?;
        let mut s = Spread { width, step, elems, ctl: [0x80; 16], mask: 0, wide_ctl: [0; 64], wide_mask: 0 };
        for t in 0..elems.checked_mul(slot)?.checked_mul(4)? {
            let (e, b) = (t.checked_div(slot)?, t.checked_rem(slot)?);
            if b < width {
                let from = u8::try_from(e.checked_mul(width)?.checked_add(b)?).ok()?;
                if e < elems {
                    s.ctl[t] = from;
                    s.mask |= 1u16.checked_shl(u32::try_from(t).ok()?)?;
                }
                s.wide_ctl[t] = from;
                s.wide_mask |= 1u64.checked_shl(u32::try_from(t).ok()?)?;
            }
        }
        Some(s)
    }

    /// The lanes a row of `n` elements runs from its first: each lane's 16-byte load stays inside the row's
    /// `n·width` input bytes and its slots inside the row's `n` slots.
    pub(crate) fn lanes(&self, n: usize) -> usize {
        let (bytes, per) = (n.saturating_mul(self.width), self.elems.saturating_mul(self.width));
        let loads = bytes.checked_sub(16).and_then(|b| b.checked_div(per)).map_or(0, |l| l.saturating_add(1));
        loads.min(n.checked_div(self.elems).unwrap_or(0))
    }

    /// Whether these tables were built for `width`-byte elements into slots `step` bytes apart.
    pub(crate) fn fits(&self, width: usize, step: isize) -> bool {
        self.width == width && self.step == step
    }
}

/// Whether `unit` divides `width`-byte elements into at least two parts (whose order a swap reverses).
fn in_parts(width: usize, unit: usize) -> bool {
    unit != 0 && unit < width && width.is_multiple_of(unit)
}

/// The byte offset, from a row's first element, of the input byte that output byte `t` comes from, for `width`-byte
/// elements `step` bytes apart whose `unit`-byte parts are written in reverse order: byte `b` of output element `e`
/// is byte `b` of input element `e`, or with the element's units reversed, byte `(parts − 1 − b/unit)·unit + b%unit`.
fn source_offset(width: usize, step: isize, unit: usize, t: usize) -> Option<isize> {
    let parts = width.checked_div(unit)?;
    let (e, b) = (t.checked_div(width)?, t.checked_rem(width)?);
    let (part, byte) = (b.checked_div(unit)?, b.checked_rem(unit)?);
    let b = parts.checked_sub(1)?.checked_sub(part)?.checked_mul(unit)?.checked_add(byte)?;
    isize::try_from(e).ok()?.checked_mul(step)?.checked_add(isize::try_from(b).ok()?)
}

/// Element widths [`BlockShuffle`] takes: those whose 64-byte lanes cannot hold whole elements only (3: RGB bytes,
/// 6: RGB of 2-byte channels). A block of 64 of them is `width` whole registers.
pub(crate) const BLOCK_WIDTHS: [usize; 2] = [3, 6];

/// The first input register of output register `o`'s first window in a block of `regs` registers (a
/// [`BlockShuffle`]): a pixel's bytes move by less than a register, so output register `m` draws on input
/// registers `m − 1` to `m + 1` (`m = o`, or mirrored `regs − 1 − o` for a reversed row); its first window starts
/// at `m − 1`, kept within `0..=regs − 2`.
#[inline(always)]
pub(crate) const fn block_pair(o: usize, regs: usize, reverse: bool) -> usize {
    let m = if reverse { regs.saturating_sub(1).saturating_sub(o) } else { o };
    let first = m.saturating_sub(1);
    let top = regs.saturating_sub(2);
    if first < top { first } else { top }
}

/// Channel swaps of adjacent pixels of three channels (BGR ↔ RGB of 1-, 2- or 4-byte channels) by blends of shifted
/// loads, for 32-byte registers without byte permutes across lanes: output byte `k` of a row is input byte `k +
/// offsets[c]`, `c` the channel of its pixel that `k` falls in (the first channel comes from the third, 2 channels
/// on; the second stays; the third comes from the first), so each output register is the three loads of its bytes
/// shifted by the offsets, blended by channel, with no shuffle at all. The blend masks of a register whose first
/// byte is byte `φ` of a pixel are `select[c][φ..φ + 32]` (all ones where the byte is of channel `c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ShiftBlend {
    /// Pixel bytes (3, 6 or 12) and channel bytes the table was built for (pixels adjacent).
    pub(crate) width: usize,
    pub(crate) unit: usize,
    /// Load offsets, by channel.
    pub(crate) offsets: [isize; 3],
    /// `[c][k]`: all ones where byte `k` (from a pixel's first byte) is of channel `c`.
    pub(crate) select: [[u8; 12 + ShiftBlend::GROUP]; 3],
}

impl ShiftBlend {
    /// Bytes of a group: three registers.
    pub(crate) const GROUP: usize = 96;

    /// The table for adjacent pixels of three `unit`-byte channels (`width` = 3·`unit`, `unit` 1, 2 or 4) read
    /// `step` bytes apart, the channels reversed; `None` for other shapes.
    pub(crate) fn new(width: usize, step: isize, unit: usize) -> Option<ShiftBlend> {
        if !matches!(unit, 1 | 2 | 4) || unit.checked_mul(3) != Some(width) || step != isize::try_from(width).ok()? {
            return None;
        }
        let u = unit as isize;
        let mut t = ShiftBlend {
            width,
            unit,
            offsets: [u.wrapping_mul(2), 0, u.wrapping_mul(-2)],
            select: [[0; 12 + Self::GROUP]; 3],
        };
        for k in 0..12 + Self::GROUP {
            t.select[t.channel(k)][k] = 0xFF;
        }
        Some(t)
    }

    /// The channel byte `k` (from a pixel's first byte) is of.
    #[inline(always)]
    pub(crate) fn channel(&self, k: usize) -> usize {
        // (Width and unit are non-zero, built by `new`: the fallback is never taken.)
        k.checked_rem(self.width).and_then(|b| b.checked_div(self.unit)).unwrap_or(0)
    }

    /// Whether the table is for `width`-byte pixels `step` bytes apart of `unit`-byte channels.
    pub(crate) fn fits(&self, width: usize, step: isize, unit: usize) -> bool {
        (self.width, self.unit) == (width, unit) && step == width as isize
    }

    /// Bytes a load reaches past the byte it is for, either way (the first and third channels' offsets).
    pub(crate) fn reach(&self) -> usize {
        self.unit.wrapping_mul(2)
    }
}

/// Tables for blocks of 64 elements of a [`BLOCK_WIDTHS`] width read with stride ±1 (a mirrored row of pixels, or a
/// row whose pixels' channels are swapped): the block's input is `width` whole 64-byte registers, loaded once, and
/// each output register is merged from one or two windows of two adjacent input registers (`vpermt2b` + blend).
/// Unlike [`WideShuffle`] lanes (21 three-byte pixels from two unaligned loads each), blocks read and write whole
/// registers, once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockShuffle {
    /// The element width the tables were built for.
    pub(crate) width: usize,
    /// The stride (±1 element) the tables were built for.
    pub(crate) stride: isize,
    /// As [`Tables::unit`].
    pub(crate) unit: usize,
    /// Byte offset of the block's lowest input byte from its first element's.
    pub(crate) base: isize,
    /// Output register `o` (of `width`): its windows.
    pub(crate) outs: [BlockOut; 6],
}

/// One output register `o` of a [`BlockShuffle`]: window `w` (of `windows`) is input registers `p + w` and
/// `p + w + 1` permuted by `idx[w]`, `p` = [`block_pair`]`(o, …)`; the bytes set in `sel` come from window 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockOut {
    pub(crate) windows: usize,
    pub(crate) idx: [[u8; 64]; 2],
    pub(crate) sel: u64,
}

impl BlockShuffle {
    /// Tables for `width`-byte elements read with stride `k`, each element's `unit`-byte parts written in reverse
    /// order (`unit == width`: moved whole; as [`Tables::swapping`]); `None` unless `width` is one of
    /// [`BLOCK_WIDTHS`], `k` is ±1 and `unit` is `width` or divides it into parts.
    pub(crate) fn new(width: usize, k: isize, unit: usize) -> Option<Self> {
        if unit != width && !in_parts(width, unit) {
            return None;
        }
        Self::build(width, k, unit)
    }

    fn build(width: usize, k: isize, unit: usize) -> Option<Self> {
        if !BLOCK_WIDTHS.contains(&width) || k.unsigned_abs() != 1 {
            return None;
        }
        let bytes = width.checked_mul(64)?;
        let step = k.checked_mul(isize::try_from(width).ok()?)?;
        let offsets: Vec<isize> = (0..bytes).map(|t| source_offset(width, step, unit, t)).collect::<Option<_>>()?;
        let base = *offsets.iter().min()?;
        let empty = BlockOut { windows: 0, idx: [[0; 64]; 2], sel: 0 };
        let mut s = BlockShuffle { width, stride: k, unit, base, outs: [empty; 6] };
        for (o, out) in s.outs.iter_mut().take(width).enumerate() {
            // Input byte (from the block's base) of each byte of this output register; with |k| = 1 the block's
            // input bytes are exactly [base, base + bytes), so every one is below `bytes`.
            let from: Vec<usize> = offsets
                .get(o.checked_mul(64)?..o.checked_add(1)?.checked_mul(64)?)?
                .iter()
                .map(|&b| usize::try_from(b.checked_sub(base)?).ok())
                .collect::<Option<_>>()?;
            // Window 0 is registers (pair, pair + 1), window 1 (pair + 1, pair + 2): the kernel indexes its registers
            // with constants, so every byte must lie in one of the three registers `block_pair` names.
            let pair = block_pair(o, width, k < 0);
            let (lowest, highest) = (from.iter().min()?.checked_div(64)?, from.iter().max()?.checked_div(64)?);
            if lowest < pair || highest > pair.checked_add(2)? || highest >= width {
                return None;
            }
            out.windows = if highest == pair.checked_add(2)? { 2 } else { 1 };
            for (t, &b) in from.iter().enumerate() {
                let w = usize::from(b >= pair.checked_add(2)?.checked_mul(64)?);
                let at = b.checked_sub(pair.checked_add(w)?.checked_mul(64)?)?;
                *out.idx.get_mut(w)?.get_mut(t)? = u8::try_from(at).ok()?;
                if w == 1 {
                    out.sel |= 1u64.checked_shl(u32::try_from(t).ok()?)?;
                }
            }
        }
        Some(s)
    }

    /// Whether these tables were built for `width`-byte elements `step` bytes apart (±`width`) and reversed in
    /// `unit`-byte parts.
    pub(crate) fn fits(&self, width: usize, step: isize, unit: usize) -> bool {
        self.width == width
            && isize::try_from(width).ok().and_then(|w| self.stride.checked_mul(w)) == Some(step)
            && self.unit == unit
    }
}

/// The shuffle tables of a table row whose input offsets (relative to the row's base) are known once per program:
/// one [`WideShuffle`] per 64-byte lane of the row's contiguous output (AVX-512 VBMI), one [`Shuffle`] per 16-byte
/// lane (SSSE3) and one [`LanePair`] per two of those (AVX2), each a prefix of the row's lanes. Every window lies
/// inside the row's input span (the bytes between its lowest and highest element, all inside the walk's input) and
/// every lane's store inside the row's output, so a whole row runs through registers wherever its lanes exist; the
/// rest goes element by element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TableLanes {
    /// The element width the lanes were built for.
    pub(crate) width: usize,
    /// The row length (elements) the lanes were built for.
    pub(crate) len: usize,
    /// Lane `l` writes output bytes `[64·l, 64·l + 64)`.
    pub(crate) wide: Vec<WideShuffle>,
    /// Lane `l` writes output bytes `[16·l, 16·l + 16)`.
    pub(crate) narrow: Vec<Shuffle>,
    /// Pair `p` (lanes `2p` and `2p + 1` of `narrow`) writes output bytes `[32·p, 32·p + 32)`.
    pub(crate) pairs: Vec<LanePair>,
}

/// Two consecutive 16-byte lanes of a table row run in one 32-byte register (AVX2's `vpshufb` shuffles each half on
/// its own): window `w` of the low lane loaded into the low half and of the high lane into the high half, one
/// shuffle by both lanes' masks side by side and one OR per window, one 32-byte store. Every pair of a row has the
/// same window count (the most any of its lanes needs: one loop for the row's pairs); a lane with fewer repeats its
/// first window with a mask that zeroes every byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LanePair {
    /// Windows per lane (1..=4), the same in every pair of the row.
    pub(crate) windows: usize,
    /// Byte offsets from the row's base of window `w` of the low and the high lane.
    pub(crate) off: [[isize; 2]; 4],
    /// `pshufb` masks of window `w`: the low lane's, then the high lane's.
    pub(crate) masks: [[u8; 32]; 4],
}

impl LanePair {
    /// The pairs of `narrow` (a row's 16-byte lanes), as many as there are whole pairs.
    fn pairs(narrow: &[Shuffle]) -> Vec<LanePair> {
        let pairs = narrow.chunks_exact(2);
        let windows = pairs.clone().flatten().map(|l| l.windows).max().unwrap_or(0);
        let pair = |lanes: &[Shuffle]| {
            let mut p = LanePair { windows, off: [[0; 2]; 4], masks: [[0x80; 32]; 4] };
            for (half, lane) in lanes.iter().enumerate() {
                for (w, (off, masks)) in p.off.iter_mut().zip(&mut p.masks).enumerate().take(windows) {
                    let own = w < lane.windows;
                    off[half] = lane.win_off[if own { w } else { 0 }];
                    if let Some(mask) = masks.chunks_exact_mut(16).nth(half).filter(|_| own) {
                        mask.copy_from_slice(&lane.masks[w]);
                    }
                }
            }
            p
        };
        pairs.map(pair).collect()
    }
}

impl TableLanes {
    /// The lanes of a table row of `width`-byte elements at input byte offsets `inputs` (its output contiguous);
    /// empty for widths that do not divide a 16-byte lane.
    pub(crate) fn new(width: usize, inputs: &[isize]) -> TableLanes {
        Self::build(width, inputs).unwrap_or_default()
    }

    fn build(width: usize, inputs: &[isize]) -> Option<TableLanes> {
        if !matches!(width, 1 | 2 | 4 | 8) {
            return None;
        }
        let w = isize::try_from(width).ok()?;
        let lo = *inputs.iter().min()?;
        let hi = inputs.iter().max()?.checked_add(w)?;
        // The input offset of every output byte.
        let bytes: Vec<isize> =
            inputs.iter().flat_map(|&i| (0..w).map(move |b| i.checked_add(b))).collect::<Option<_>>()?;
        let lanes = |l: usize| bytes.chunks_exact(l);
        let narrow: Vec<Shuffle> = lanes(16).map_while(|c| Shuffle::gathering(width, c, lo, hi)).collect();
        Some(TableLanes {
            width,
            len: inputs.len(),
            wide: lanes(64).map_while(|c| WideShuffle::gathering(width, c, lo, hi)).collect(),
            pairs: LanePair::pairs(&narrow),
            narrow,
        })
    }
}

/// The lowest addresses of a row's pixel-side steps ([`Planar::steps`]): step `j`'s at `first + j·per_pixel`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Steps {
    first: *const u8,
    per_pixel: isize,
}

impl Steps {
    /// The lowest address of the step holding output pixels `j..j + step` ([`Planar::step_base`]).
    #[inline(always)]
    pub(crate) fn at(self, j: usize) -> *const u8 {
        self.first.wrapping_offset((j as isize).wrapping_mul(self.per_pixel))
    }
}

/// `pshufb` controls that interleave `planes` planes of `N`-byte elements into pixels (or the reverse): a step
/// moves `16 / N` pixels, one 16-byte chunk per plane on the planar side and `planes` 16-byte chunks on the
/// pixel side.
///
/// A deinterleave may also reverse the pixels (a mirrored row: output pixel `j` is the `j`-th pixel *below* the
/// first) and the channels (output plane `i` takes channel `planes − 1 − i`: BGR → RGB), and read pixels from wider
/// slots (RGBX → three planes: `slots` elements a pixel, `planes` of them used); the masks absorb all three, the
/// kernels only load a step's pixel-side chunks from its lowest address.
///
/// A pixel's *window* is its `slots` elements from slot 0: its channels sit at slots `lead..lead + planes`, where
/// `lead` is 0 forwards and `slots − planes` when mirrored, so that the unused slots of every window but output
/// pixel `n − 1`'s lie between used elements of the row ([`Planar::readable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Planar {
    /// Element width in bytes (1, 2, 4 or 8).
    pub(crate) width: usize,
    /// Number of planes (2 to 4).
    pub(crate) planes: usize,
    /// Elements a pixel takes on the pixel side (`planes` to 4; `planes` for an interleave): the pixel-side
    /// registers a kernel loads per step.
    pub(crate) slots: usize,
    /// The slot of a window holding channel 0 (see above).
    pub(crate) lead: usize,
    /// Interleave (planes → pixels) or deinterleave.
    pub(crate) interleave: bool,
    /// Deinterleave only: output pixel `j` is the pixel `j` steps below the first in memory.
    pub(crate) reverse_pixels: bool,
    /// Deinterleave only: output plane `i` takes channel `planes − 1 − i`.
    pub(crate) reverse_channels: bool,
    /// `masks[k][i]`: interleave — the bytes of pixel-side chunk `k` taken from plane chunk `i`; deinterleave —
    /// the bytes of plane chunk `i` taken from pixel-side chunk `k` (0x80 elsewhere), chunks counted from the
    /// step's lowest address.
    pub(crate) masks: [[[u8; 16]; 4]; 4],
    /// Deinterleave of 1-byte elements: the bytes widened straight into 32-bit lanes (see [`Widen`]).
    pub(crate) widen: Widen,
    /// 1-, 2- and 4-byte elements, either direction: a register of pixels at a time through element permutes
    /// (see [`WidePlanar`]).
    pub(crate) wide: WidePlanar,
    /// Deinterleave of 1-byte elements: `wide` with each plane's bytes in [`unpack_order`], so that unpacking two
    /// such registers into words gives elements 0..32, then 32..64.
    pub(crate) unpacked: WidePlanar,
    /// Deinterleave of 4-byte elements: 8 pixels a step through AVX2's one-register permutes (see [`Dwords8`]).
    pub(crate) dwords8: Dwords8,
}

/// Controls that deinterleave a block of 8 pixels of 4-byte elements (`slots` 32-byte registers, loaded from the
/// block's lowest address) with AVX2's `vpermd` and blends, in one of two forms:
///
/// - permute, then blend: plane `i` is register 0 permuted by `idx[i][0]`, then for each further register `k`, the
///   lanes whose `from[i][k]` is all ones taken from register `k` permuted by `idx[i][k]`;
/// - blend, then permute (where `blends`): register 0 with the lanes whose `mix[i][k]` is all ones taken from
///   register `k` (same lane), then permuted by `order[i]`. It needs the plane's 8 elements in 8 distinct lanes
///   of the registers, which holds for 3 slots (pixel `p`'s element is in lane `3p + s mod 8`, and 3 is prime to
///   8), not for 2 or 4; one permute a plane instead of one per register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Dwords8 {
    pub(crate) idx: [[[u32; 8]; 4]; 4],
    pub(crate) from: [[[u32; 8]; 4]; 4],
    pub(crate) mix: [[[u32; 8]; 4]; 4],
    pub(crate) order: [[u32; 8]; 4],
    pub(crate) blends: bool,
}

impl Dwords8 {
    fn new(slots: Slots) -> Option<Dwords8> {
        let mut d = Dwords8 { blends: true, ..Dwords8::default() };
        for i in 0..slots.planes {
            let mut taken = 0u8;
            for q in 0..8 {
                let e = slots.element(i, q, 8)?;
                let (k, lane) = (e.checked_div(8)?, e.checked_rem(8)?);
                let lane32 = u32::try_from(lane).ok()?;
                *d.idx.get_mut(i)?.get_mut(k)?.get_mut(q)? = lane32;
                *d.from.get_mut(i)?.get_mut(k)?.get_mut(q)? = u32::MAX;
                if taken & (1 << lane) != 0 {
                    d.blends = false;
                }
                taken |= 1 << lane;
                *d.mix.get_mut(i)?.get_mut(k)?.get_mut(lane)? = u32::MAX;
                *d.order.get_mut(i)?.get_mut(q)? = lane32;
            }
        }
        Some(d)
    }
}

/// Element-permute controls (AVX-512 `vpermt2b` for 1-byte elements, `vpermt2w` for 2-byte ones, `vpermt2d` for
/// 4-byte ones) that move a block of `E = 64 / width` pixels between `planes` 64-byte registers on each side. Deinterleave: the registers
/// are loaded from the block's lowest address, and plane `i` is registers (0, 1) permuted by `lo[i]`, with the
/// elements whose bit is set in `hi_mask[i]` taken instead from registers (2, 3) permuted by `hi[i]` (elements
/// 2E and up of the block). Interleave: register `k` holds E elements of plane `k`, and output register `i`
/// (elements iE.. of the block's pixels) is built the same way. Indices are bytes, or little-endian 16- or 32-bit
/// words for 2- or 4-byte elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WidePlanar {
    pub(crate) lo: [[u8; 64]; 4],
    pub(crate) hi: [[u8; 64]; 4],
    pub(crate) hi_mask: [u64; 4],
}

impl Default for WidePlanar {
    fn default() -> WidePlanar {
        WidePlanar { lo: [[0; 64]; 4], hi: [[0; 64]; 4], hi_mask: [0; 4] }
    }
}

impl WidePlanar {
    /// Deinterleave controls: plane `i` of output pixel `q` is the block's element [`Slots::element`].
    fn deinterleave(width: usize, slots: Slots) -> Option<WidePlanar> {
        let e = 64usize.checked_div(width)?;
        WidePlanar::from(width, slots.planes, |i, q| slots.element(i, q, e))
    }

    /// Interleave controls: element `q` of output register `i` is element `k = Ei + q` of the block's pixels,
    /// channel `k % planes` of pixel `k / planes`, which register `k % planes` holds at `k / planes`.
    fn interleave(width: usize, planes: usize) -> Option<WidePlanar> {
        let e = 64usize.checked_div(width)?;
        WidePlanar::from(width, planes, |i, q| {
            let k = i.checked_mul(e)?.checked_add(q)?;
            k.checked_rem(planes)?.checked_mul(e)?.checked_add(k.checked_div(planes)?)
        })
    }

    /// One-byte controls whose result element `q` is this one's element `from(q)` (`from` a permutation of 0..64).
    fn reordered_bytes(&self, from: impl Fn(usize) -> usize) -> WidePlanar {
        let mut w = WidePlanar::default();
        for i in 0..4 {
            for q in 0..64 {
                let f = from(q) % 64;
                w.lo[i][q] = self.lo[i][f];
                w.hi[i][q] = self.hi[i][f];
                w.hi_mask[i] |= ((self.hi_mask[i] >> f) & 1) << q;
            }
        }
        w
    }

    /// The controls where element `q` of result register `i` is element `at(i, q)` of the source registers in
    /// order.
    fn from(width: usize, planes: usize, at: impl Fn(usize, usize) -> Option<usize>) -> Option<WidePlanar> {
        let e = 64usize.checked_div(width)?;
        let mut w = WidePlanar::default();
        for i in 0..planes {
            for q in 0..e {
                let at = at(i, q)?;
                let (table, index) = match at.checked_sub(e.checked_mul(2)?) {
                    None => (&mut w.lo[i], at),
                    Some(h) => {
                        w.hi_mask[i] |= 1u64.checked_shl(u32::try_from(q).ok()?)?;
                        (&mut w.hi[i], h)
                    }
                };
                let bytes = u32::try_from(index).ok()?.to_le_bytes();
                let at = q.checked_mul(width)?;
                table.get_mut(at..at.checked_add(width)?)?.copy_from_slice(bytes.get(..width)?);
            }
        }
        Some(w)
    }
}

/// `pshufb` controls that deinterleave one-byte pixels straight into 32-bit lanes: a step of 16 output pixels is
/// four groups of 4; group `g` shuffles a 16-byte window loaded at `win[g]` bytes above the step's lowest address
/// (inside the step's `16·planes` bytes), and `masks[i][g]` puts the byte of output pixel `4g + d` of plane `i`
/// into the *top* byte of lane `d` (0x80 elsewhere), so that an arithmetic shift right by 24 widens it as signed;
/// `low` puts it into the bottom byte instead, already widened as unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Widen {
    pub(crate) win: [usize; 4],
    pub(crate) masks: [[[u8; 16]; 4]; 4],
    pub(crate) low: [[[u8; 16]; 4]; 4],
}

impl Widen {
    fn new(slots: Slots) -> Option<Widen> {
        let mut w = Widen { win: [0; 4], masks: [[[0x80; 16]; 4]; 4], low: [[[0x80; 16]; 4]; 4] };
        let step_bytes = slots.slots.checked_mul(16)?;
        for g in 0..4usize {
            // Output pixels 4g..4g+4 are memory pixels 4b..4b+4 of the step (b = g, or 3 − g when mirrored).
            let b = if slots.reverse_pixels { 3usize.checked_sub(g)? } else { g };
            let win = b.checked_mul(4)?.checked_mul(slots.slots)?.min(step_bytes.checked_sub(16)?);
            w.win[g] = win;
            for d in 0..4usize {
                for i in 0..slots.planes {
                    let at = slots.element(i, g.checked_mul(4)?.checked_add(d)?, 16)?.checked_sub(win)?;
                    // inside the window: 0 ≤ at < 16 (a group's 4 windows span 4·slots ≤ 16 bytes)
                    let at = u8::try_from(at).ok().filter(|&a| a < 16)?;
                    w.masks[i][g][d.checked_mul(4)?.checked_add(3)?] = at;
                    w.low[i][g][d.checked_mul(4)?] = at;
                }
            }
        }
        Some(w)
    }
}

/// The element a byte unpack order puts at byte `q` (< 64) of a register: byte `q % 16` of 128-bit lane `l = q / 16`
/// is element `8l + q % 16` below 8, `32 + 8l + q % 16 − 8` above — so that unpacking the low bytes and the high
/// bytes of 64 results in this order into words gives results 0..32, then 32..64.
pub(crate) const fn unpack_order(q: usize) -> usize {
    let (l, b) = (q / 16, q % 16);
    // (q < 64: no operation overflows.)
    let low = l.wrapping_mul(8).wrapping_add(b & 7);
    if b < 8 { low } else { low.wrapping_add(32) }
}

/// Where a deinterleave's block holds each plane's elements (see [`Planar`]).
#[derive(Clone, Copy, Debug)]
struct Slots {
    planes: usize,
    slots: usize,
    lead: usize,
    reverse_pixels: bool,
    reverse_channels: bool,
}

impl Slots {
    /// The element (counted from the block's lowest address) holding plane `i` of output pixel `q`, in a block of
    /// `e` pixels: memory pixel `q` (or `e − 1 − q` when mirrored), slot `lead` + channel `i` (or `planes − 1 − i`).
    fn element(&self, i: usize, q: usize, e: usize) -> Option<usize> {
        let channel = if self.reverse_channels { self.planes.checked_sub(1)?.checked_sub(i)? } else { i };
        let pixel = if self.reverse_pixels { e.checked_sub(1)?.checked_sub(q)? } else { q };
        pixel.checked_mul(self.slots)?.checked_add(self.lead)?.checked_add(channel)
    }
}

impl Planar {
    /// Tables for `planes` planes (2 to 4) of `width`-byte elements (1, 2, 4 or 8), or `None` for other shapes.
    pub(crate) fn new(width: usize, planes: usize, interleave: bool) -> Option<Planar> {
        Planar::build(width, planes, planes, interleave, false, false)
    }

    /// Deinterleave tables from pixels of `slots` elements (`planes` to 4) that may reverse the pixels and the
    /// channels (see [`Planar`]).
    pub(crate) fn deinterleave(
        width: usize,
        planes: usize,
        slots: usize,
        reverse_pixels: bool,
        reverse_channels: bool,
    ) -> Option<Planar> {
        Planar::build(width, planes, slots, false, reverse_pixels, reverse_channels)
    }

    fn build(
        width: usize,
        planes: usize,
        slots: usize,
        interleave: bool,
        reverse_pixels: bool,
        reverse_channels: bool,
    ) -> Option<Planar> {
        if !matches!(width, 1 | 2 | 4 | 8) || !(2..=4).contains(&planes) || !(planes..=4).contains(&slots) {
            return None;
        }
        if interleave && (slots != planes || reverse_pixels || reverse_channels) {
            return None;
        }
        let lead = if reverse_pixels { slots.checked_sub(planes)? } else { 0 };
        let layout = Slots { planes, slots, lead, reverse_pixels, reverse_channels };
        let step = 16usize.checked_div(width)?;
        let mut masks = [[[0x80u8; 16]; 4]; 4];
        // Byte b of plane i's output pixel q: byte `p` of the plane's chunk, byte `t` of the step's pixel side
        // (chunk t / 16). All values are below 64 (checked after the shape test above).
        #[allow(clippy::needless_range_loop)] // `i` is a plane: an index of the second dimension
        for i in 0..planes {
            for q in 0..step {
                for b in 0..width {
                    let p = q.checked_mul(width)?.checked_add(b)?;
                    let t = layout.element(i, q, step)?.checked_mul(width)?.checked_add(b)?;
                    let (k, tk) = (t.checked_div(16)?, t.checked_rem(16)?);
                    if interleave {
                        masks[k][i][tk] = p as u8;
                    } else {
                        masks[k][i][p] = tk as u8;
                    }
                }
            }
        }
        let widen = if width == 1 && !interleave { Widen::new(layout)? } else { Widen::default() };
        let wide = match (width, interleave) {
            (1 | 2 | 4, false) => WidePlanar::deinterleave(width, layout)?,
            (1 | 2 | 4, true) => WidePlanar::interleave(width, planes)?,
            _ => WidePlanar::default(),
        };
        let unpacked =
            if width == 1 && !interleave { wide.reordered_bytes(unpack_order) } else { WidePlanar::default() };
        let dwords8 = if width == 4 && !interleave { Dwords8::new(layout)? } else { Dwords8::default() };
        Some(Planar {
            width,
            planes,
            slots,
            lead,
            interleave,
            reverse_pixels,
            reverse_channels,
            masks,
            widen,
            wide,
            unpacked,
            dwords8,
        })
    }

    /// The window of output pixel 0, from its channel 0 at `src` (what [`Planar::step_base`] counts from).
    #[inline(always)]
    pub(crate) fn window(&self, src: *const u8) -> *const u8 {
        src.wrapping_sub(self.lead.wrapping_mul(self.width))
    }

    /// The lowest address of the pixel-side step holding output pixels `j..j + step` (their windows), from output
    /// pixel 0's window at `window` ([`Planar::window`]: kernels take it once, out of their loops), windows
    /// `pixel_bytes` (`slots · width`) apart (only meaningful for in-bounds steps).
    #[inline(always)]
    pub(crate) fn step_base(&self, window: *const u8, j: usize, step: usize, pixel_bytes: usize) -> *const u8 {
        debug_assert_eq!(Some(pixel_bytes), self.slots.checked_mul(self.width));
        if self.reverse_pixels {
            window.wrapping_sub(j.wrapping_add(step).wrapping_sub(1).wrapping_mul(pixel_bytes))
        } else {
            window.wrapping_add(j.wrapping_mul(pixel_bytes))
        }
    }

    /// [`Planar::step_base`] for every `j` of a row: its direction read once, so that a loop over the row's steps
    /// computes each step's address from the previous one (the compiler cannot keep `reverse_pixels` out of a loop
    /// that stores through a byte pointer: the stores might change it).
    ///
    /// PERF: u8 NHWC → NCHW of 32 × 224² × 3, `--isa v3`: the loop tested the flag and selected both candidate
    /// addresses with `cmov` every 96 bytes, 14 of its 42 instructions.
    #[inline(always)]
    pub(crate) fn steps(&self, window: *const u8, step: usize, pixel_bytes: usize) -> Steps {
        let per_pixel = pixel_bytes as isize;
        if self.reverse_pixels {
            Steps { first: self.step_base(window, 0, step, pixel_bytes), per_pixel: per_pixel.wrapping_neg() }
        } else {
            Steps { first: window, per_pixel }
        }
    }

    /// Channel 0 of output pixel `j`, from that of output pixel 0.
    #[inline(always)]
    pub(crate) fn pixel(&self, src: *const u8, j: usize) -> *const u8 {
        self.step_base(src, j, 1, self.slots.wrapping_mul(self.width))
    }

    /// The channel output plane `i` takes.
    #[inline(always)]
    pub(crate) fn channel(&self, i: usize) -> usize {
        if self.reverse_channels { self.planes.wrapping_sub(1).wrapping_sub(i) } else { i }
    }

    /// How many of a row's first `n` output pixels a kernel may read whole windows of: all of them when pixels fill
    /// their slots, else all but the last (whose unused slots may lie past the row: the window of every other
    /// output pixel ends, or starts, inside the next one's).
    #[inline(always)]
    pub(crate) fn readable(&self, n: usize) -> usize {
        if self.slots == self.planes { n } else { n.saturating_sub(1) }
    }
}

#[cfg(feature = "selftest")]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
#[strider_kernels_macros::selftests]
pub(crate) mod tests {
    use super::*;

    /// Runs the tables in plain Rust over a row and compares with a direct strided gather; `false` when there are
    /// no tables for this width and stride.
    fn emulate<const L: usize, const WIN: usize, const MAXW: usize>(width: usize, k: isize, n: usize) -> bool {
        emulate_units::<L, WIN, MAXW>(width, k, width, n)
    }

    /// [`emulate`] with each element's `unit`-byte parts reversed.
    fn emulate_units<const L: usize, const WIN: usize, const MAXW: usize>(
        width: usize,
        k: isize,
        unit: usize,
        n: usize,
    ) -> bool {
        let tables = if unit == width {
            Tables::<L, WIN, MAXW>::new(width, k)
        } else {
            Tables::swapping(width, k * width as isize, unit)
        };
        tables.is_some_and(|s| emulate_tables(&s, width, k * width as isize, unit, n))
    }

    /// Runs the lanes of `s` (built for `width`-byte elements `step` bytes apart, their `unit`-byte parts reversed)
    /// in plain Rust over a row of `n` elements and compares with a direct gather.
    fn emulate_tables<const L: usize, const WIN: usize, const MAXW: usize>(
        s: &Tables<L, WIN, MAXW>,
        width: usize,
        step: isize,
        unit: usize,
        n: usize,
    ) -> bool {
        assert!(s.fits(width, step, unit));
        let span = (n - 1) * step.unsigned_abs() + width;
        let src: Vec<u8> = (0..span).map(|i| (i * 7 + 3) as u8).collect();
        let first = if step > 0 { 0 } else { span - width } as isize;
        let mut want = vec![0u8; n * width];
        for i in 0..n {
            let e = (first + i as isize * step) as usize;
            for (p, part) in src[e..e + width].chunks(unit).rev().enumerate() {
                want[i * width + p * unit..][..unit].copy_from_slice(part);
            }
        }
        let mut got = vec![0u8; n * width];
        let mut j = 0;
        while j + s.slack <= n {
            let lane = run_lane(s, &src, first + j as isize * step);
            assert!(j * width + L <= got.len(), "store outside the row");
            got[j * width..][..L].copy_from_slice(&lane);
            j += s.elems;
        }
        let done = j * width;
        assert_eq!(&got[..done], &want[..done], "w{width} step {step} n{n}");
        // Lanes must cover all but a short tail.
        assert!(n - j < s.slack + s.elems, "w{width} step {step} n{n}: {} elements left for the tail", n - j);
        true
    }

    /// Elements whose step is not a multiple of their width (RGB pixels in RGBX slots, 3-byte elements 4 bytes
    /// apart) gather through the same lanes; steps below the width (overlapping elements) have none.
    #[test]
    fn stepped_tables_match_a_direct_gather() {
        for width in 1..=16 {
            for extra in 1..=5 {
                for step in [(width + extra) as isize, -((width + extra) as isize)] {
                    let narrow = Shuffle::stepping(width, step);
                    let wide = WideShuffle::stepping(width, step);
                    for n in 1..70 {
                        if let Some(s) = &narrow {
                            assert!(emulate_tables(s, width, step, width, n));
                        }
                        if let Some(s) = &wide {
                            assert!(emulate_tables(s, width, step, width, n * 4));
                        }
                    }
                }
            }
        }
        assert_eq!(Shuffle::stepping(3, 4).map(|s| (s.windows, s.elems)), Some((2, 5)));
        assert_eq!(WideShuffle::stepping(3, 4).map(|s| (s.windows, s.elems)), Some((1, 21)));
        assert_eq!(Shuffle::stepping(3, 2), None);
        assert_eq!(Shuffle::stepping(4, 3), None);
    }

    /// One lane of `s` in plain Rust: its windows at `base + win_off` inside `src` (the row's whole input span; a
    /// window reaching outside fails), each window's selected bytes merged.
    fn run_lane<const L: usize, const WIN: usize, const MAXW: usize>(
        s: &Tables<L, WIN, MAXW>,
        src: &[u8],
        base: isize,
    ) -> [u8; L] {
        assert!((1..=MAXW).contains(&s.windows));
        let mut lane = [0u8; L];
        for w in 0..s.windows {
            let at = base + s.win_off[w];
            assert!(at >= 0 && at as usize + WIN <= src.len(), "window outside the row's input span");
            for (t, (byte, &m)) in lane.iter_mut().zip(&s.masks[w]).enumerate() {
                assert_eq!(m & 0x80 == 0, s.sel[w] >> t & 1 == 1);
                if m & 0x80 == 0 {
                    *byte |= src[at as usize + m as usize];
                }
            }
        }
        lane
    }

    /// Blocks of 64 pixels of 3 or 6 bytes read with stride ±1, moved whole or with their parts reversed, run in
    /// plain Rust over a row of three blocks (each window's registers as the kernel picks them: `block_pair`).
    #[test]
    fn block_tables_match_a_direct_gather() {
        for width in BLOCK_WIDTHS {
            for k in [1isize, -1] {
                for unit in (1..=width).filter(|u| width % u == 0) {
                    let s = BlockShuffle::new(width, k, unit);
                    // Mirrored rows of pixels and RGB ↔ BGR swaps (three parts) have blocks; others (a plain copy,
                    // mirrored swaps, which are plain reverses of the parts) may not: their registers need not be
                    // where `block_pair` looks.
                    let needed = (k == -1 && unit == width) || (k == 1 && width / unit == 3);
                    let Some(s) = s else {
                        assert!(!needed, "no blocks for w{width} k{k} unit {unit}");
                        continue;
                    };
                    assert!(s.fits(width, k * width as isize, unit));
                    let n = 3 * 64;
                    let span = n * width;
                    let src: Vec<u8> = (0..span).map(|i| (i * 7 + 3) as u8).collect();
                    let first = if k > 0 { 0 } else { span - width };
                    let mut want = vec![0u8; span];
                    for i in 0..n {
                        let e = (first as isize + i as isize * k * width as isize) as usize;
                        for (p, part) in src[e..e + width].chunks(unit).rev().enumerate() {
                            want[i * width + p * unit..][..unit].copy_from_slice(part);
                        }
                    }
                    let mut got = vec![0u8; span];
                    for b in 0..3 {
                        let elem = first as isize + (64 * b) as isize * k * width as isize;
                        let base = (elem + s.base) as usize;
                        let regs = &src[base..base + 64 * width];
                        for o in 0..width {
                            let out = &s.outs[o];
                            assert!((1..=2).contains(&out.windows));
                            for t in 0..64 {
                                let w = (out.sel >> t & 1) as usize;
                                assert!(w < out.windows, "w{width} k{k} unit {unit}: byte {t} from a missing window");
                                let first_reg = block_pair(o, width, k < 0) + w;
                                got[64 * (b * width + o) + t] = regs[64 * first_reg + out.idx[w][t] as usize];
                            }
                        }
                    }
                    assert_eq!(got, want, "w{width} k{k} unit {unit}");
                }
            }
        }
        // Other widths and strides have no blocks.
        assert_eq!(BlockShuffle::new(4, -1, 4), None);
        assert_eq!(BlockShuffle::new(3, 2, 3), None);
        assert_eq!(BlockShuffle::new(3, 1, 2), None);
    }

    /// Runs the lanes of `t` in plain Rust over one row of a table with input byte offsets `inputs` and compares
    /// with a direct gather.
    fn emulate_table<const L: usize, const WIN: usize, const MAXW: usize>(
        lanes: &[Tables<L, WIN, MAXW>],
        width: usize,
        inputs: &[isize],
    ) {
        let lo = *inputs.iter().min().unwrap();
        let hi = inputs.iter().max().unwrap() + width as isize;
        let src: Vec<u8> = (0..(hi - lo) as usize).map(|i| (i * 13 + 5) as u8).collect();
        let want: Vec<u8> = inputs.iter().flat_map(|&i| src[(i - lo) as usize..][..width].iter().copied()).collect();
        for (l, s) in lanes.iter().enumerate() {
            let lane = run_lane(s, &src, -lo);
            assert!((l + 1) * L <= inputs.len() * width, "store outside the row");
            assert_eq!(&lane[..], &want[l * L..][..L], "lane {l} of w{width} {inputs:?}");
        }
    }

    /// Runs the lane pairs of `t` in plain Rust over one row of a table with input byte offsets `inputs` and compares
    /// with a direct gather: one window count for all, a pair for every two 16-byte lanes, windows a lane does not
    /// need (its first, again) take no byte.
    fn emulate_pairs(t: &TableLanes, width: usize, inputs: &[isize]) {
        let lo = *inputs.iter().min().unwrap();
        let hi = inputs.iter().max().unwrap() + width as isize;
        let src: Vec<u8> = (0..(hi - lo) as usize).map(|i| (i * 7 + 3) as u8).collect();
        let want: Vec<u8> = inputs.iter().flat_map(|&i| src[(i - lo) as usize..][..width].iter().copied()).collect();
        assert_eq!(t.pairs.len(), t.narrow.len() / 2);
        let windows = t.narrow[..2 * t.pairs.len()].iter().map(|l| l.windows).max();
        for (k, p) in t.pairs.iter().enumerate() {
            assert_eq!(Some(p.windows), windows, "pair {k} of w{width} {inputs:?}");
            for half in 0..2 {
                let mut lane = [0u8; 16];
                for w in 0..p.windows {
                    let at = p.off[w][half] - lo;
                    assert!(at >= 0 && at as usize + 16 <= src.len(), "window outside the row's input span");
                    let mask = &p.masks[w][16 * half..][..16];
                    if w >= t.narrow[2 * k + half].windows {
                        assert!(mask.iter().all(|&m| m == 0x80), "an unneeded window takes bytes");
                    }
                    for (byte, &m) in lane.iter_mut().zip(mask).filter(|(_, m)| **m & 0x80 == 0) {
                        *byte |= src[at as usize + m as usize];
                    }
                }
                assert_eq!(&lane[..], &want[32 * k + 16 * half..][..16], "pair {k} half {half} of w{width} {inputs:?}");
            }
        }
    }

    /// Table rows of up to TABLE_MAX elements as nested dimensions (extent, input stride in elements), the innermost
    /// last ([`table_inputs`]); the first is the public rank-8 case.
    pub(crate) const TABLE_PATTERNS: &[&[(usize, isize)]] = &[
        &[(2, 512), (2, -128), (4, 16), (2, -12), (2, 3)], // the public rank-8 case, scaled to its strides
        &[(4, 8), (16, 1)],
        &[(8, -3), (8, 2)],
        &[(2, 1000), (32, 1)],
        &[(64, 3)],
        &[(16, -2), (4, 1)],
        &[(3, 7), (5, -1)],
        &[(3, 7), (5, -1), (2, 1)],
        &[(2, 1), (2, 1)], // repeated elements: an overlapping input is fine
    ];

    /// The input byte offsets of a table row over nested dimensions (extent, input stride in elements), the
    /// innermost last, as Walk::tabulate builds them.
    pub(crate) fn table_inputs(dims: &[(usize, isize)], width: usize) -> Vec<isize> {
        let mut inputs = vec![0isize];
        for &(extent, stride) in dims {
            inputs = inputs
                .iter()
                .flat_map(|&b| (0..extent as isize).map(move |i| b + i * stride * width as isize))
                .collect();
        }
        inputs
    }

    #[test]
    fn table_lanes_match_a_direct_gather() {
        for &dims in TABLE_PATTERNS {
            for width in [1usize, 2, 4, 8, 3] {
                let inputs = table_inputs(dims, width);
                let t = TableLanes::new(width, &inputs);
                if width == 3 {
                    assert_eq!(t, TableLanes::default(), "3-byte elements do not divide a lane");
                    continue;
                }
                assert_eq!((t.width, t.len), (width, inputs.len()));
                emulate_table(&t.wide, width, &inputs);
                emulate_table(&t.narrow, width, &inputs);
                emulate_pairs(&t, width, &inputs);
            }
        }
        // The public rank-8 case (u16): both 64-byte lanes exist, two windows each; every 16-byte lane too.
        let t = TableLanes::new(2, &table_inputs(TABLE_PATTERNS[0], 2));
        assert_eq!(t.wide.iter().map(|s| s.windows).collect::<Vec<_>>(), [2, 2]);
        assert_eq!(t.narrow.len(), 8);
        assert_eq!(t.pairs.iter().map(|p| p.windows).collect::<Vec<_>>(), [3; 4]);
        // A row narrower than a window has no lanes of that size.
        let t = TableLanes::new(1, &(0..16).map(|i| 15 - i).collect::<Vec<_>>());
        assert!(t.wide.is_empty());
        assert_eq!(t.narrow.len(), 1);
    }

    #[test]
    fn tables_match_a_direct_gather() {
        for width in [1, 2, 3, 4, 6, 8, 12, 16] {
            for k in [-5isize, -4, -3, -2, -1, 1, 2, 3, 4, 5] {
                // Tables exist for every stride up to ±4; ±5 needs more source windows than a lane has, except with
                // wide elements (3 bytes and more in 16-byte lanes, 12 and more in 64-byte ones).
                let (narrow, wide) = (k.abs() < 5 || width >= 3, k.abs() < 5 || width >= 12);
                for n in 1..80 {
                    assert_eq!(emulate::<16, 16, 4>(width, k, n), narrow, "16-byte tables for w{width} k{k}");
                }
                for n in (1..300).step_by(7) {
                    assert_eq!(emulate::<64, 128, 2>(width, k, n), wide, "64-byte tables for w{width} k{k}");
                }
            }
        }
    }

    /// Swapping tables (the parts of each element reversed: channel swaps) exist for every pixel of 2 to 16 parts
    /// that fits a lane, at every small stride, and match a direct loop.
    #[test]
    fn swapping_tables_reverse_each_elements_parts() {
        for (width, unit) in
            [(2, 1), (3, 1), (4, 1), (4, 2), (6, 2), (8, 2), (8, 4), (12, 4), (16, 4), (16, 8), (16, 1)]
        {
            for k in [-2isize, -1, 1, 2, 3] {
                for n in 1..70 {
                    assert!(emulate_units::<16, 16, 4>(width, k, unit, n), "16-byte w{width} u{unit} k{k}");
                }
                for n in (1..300).step_by(5) {
                    assert!(emulate_units::<64, 128, 2>(width, k, unit, n), "64-byte w{width} u{unit} k{k}");
                }
            }
        }
        assert!(Shuffle::swapping(3, 3, 2).is_none() && Shuffle::swapping(4, 4, 4).is_none());
        // Swaps out of wider slots (BGRX → RGB): a step of 4 bytes for 3-byte pixels.
        for n in 1..70 {
            let s = Shuffle::swapping(3, 4, 1).unwrap();
            assert!(emulate_tables(&s, 3, 4, 1, n));
            let s = WideShuffle::swapping(6, -8, 2).unwrap();
            assert!(emulate_tables(&s, 6, -8, 2, n * 3));
        }
    }

    /// Spreads into wider slots, run in plain Rust: every slot's element bytes land, nothing else is written, and
    /// every load and slot stays inside the row.
    #[test]
    fn spreads_fill_slots_only() {
        for width in 1..16 {
            for step in width + 1..=16 {
                let s = Spread::new(width, step as isize).unwrap();
                for n in 0..40 {
                    let src: Vec<u8> = (0..n * width).map(|i| (i * 7 + 1) as u8).collect();
                    let mut out = vec![0xEEu8; n * step];
                    let lanes = s.lanes(n);
                    for l in 0..lanes {
                        let at = l * s.elems * width;
                        assert!(at + 16 <= src.len(), "w{width} s{step} n{n}: load outside");
                        for t in 0..16 {
                            if s.mask >> t & 1 == 1 {
                                out[l * s.elems * step + t] = src[at + s.ctl[t] as usize];
                            }
                        }
                    }
                    for (i, slot) in out.chunks(step).take(lanes * s.elems).enumerate() {
                        assert_eq!(&slot[..width], &src[i * width..][..width], "w{width} s{step} n{n}");
                        assert!(slot[width..].iter().all(|&b| b == 0xEE), "w{width} s{step}: spare bytes written");
                    }
                    // Four lanes at once: the same bytes, from the four lanes' input bytes only.
                    let mut wide = vec![0xEEu8; n * step];
                    for w in 0..lanes / 4 {
                        let at = 4 * w * s.elems * width;
                        for t in 0..64 {
                            if s.wide_mask >> t & 1 == 1 {
                                assert!((s.wide_ctl[t] as usize) < 4 * s.elems * width, "w{width} s{step}");
                                wide[4 * w * s.elems * step + t] = src[at + s.wide_ctl[t] as usize];
                            }
                        }
                    }
                    let covered = lanes / 4 * 4 * s.elems * step;
                    assert_eq!(wide[..covered], out[..covered], "w{width} s{step} n{n}: wide lanes");
                    assert!(wide[covered..].iter().all(|&b| b == 0xEE), "w{width} s{step} n{n}: wide lanes");
                    assert!(n < s.elems + 16 || lanes * s.elems + 16 / width + s.elems >= n, "w{width} s{step} n{n}");
                }
            }
        }
        assert_eq!(Spread::new(3, 3), None);
        assert_eq!(Spread::new(3, 17), None);
        assert_eq!(Spread::new(3, 4).map(|s| (s.elems, s.mask)), Some((4, 0x7777)));
        assert_eq!(Spread::new(12, 16).map(|s| (s.elems, s.mask)), Some((1, 0x0FFF)));
    }

    /// Which widths move a register of pixels at a time through element permutes: 1-, 2- and 4-byte elements.
    #[test]
    fn wide_planar_widths() {
        for width in [1, 2, 4, 8] {
            for interleave in [false, true] {
                let t = Planar::new(width, 3, interleave).unwrap();
                assert_eq!(t.wide != WidePlanar::default(), width <= 4, "w{width} interleave {interleave}");
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
                // Mirrored pixels and/or reversed channels, from pixels of `slots` elements: plane i, pixel j is
                // memory pixel j (or step − 1 − j), channel i (or planes − 1 − i) at slot `lead` + channel; the
                // unused slots hold 0xEE.
                for slots in planes..=4 {
                    for (rp, rc) in [(false, false), (true, false), (false, true), (true, true)] {
                        let t = Planar::deinterleave(width, planes, slots, rp, rc).unwrap();
                        assert_eq!((t.slots, t.lead), (slots, if rp { slots - planes } else { 0 }));
                        let mut side = vec![0xEEu8; slots * 16];
                        for m in 0..pixels {
                            for (c, plane) in planar.iter().enumerate() {
                                let at = (m * slots + t.lead + c) * width;
                                side[at..at + width].copy_from_slice(&plane[m * width..][..width]);
                            }
                        }
                        let case = format!("w{width} p{planes} s{slots} rp {rp} rc {rc}");
                        for i in 0..planes {
                            let mut chunk = [0u8; 16];
                            for k in 0..slots {
                                for (c, x) in chunk.iter_mut().zip(pshufb(&side[k * 16..][..16], &t.masks[k][i])) {
                                    *c |= x;
                                }
                            }
                            let plane = &planar[t.channel(i)];
                            for j in 0..pixels {
                                let px = if rp { pixels - 1 - j } else { j };
                                let want = &plane[px * width..][..width];
                                assert_eq!(&chunk[j * width..][..width], want, "{case} plane {i} pixel {j}");
                            }
                        }
                        // The widening tables of 1-byte pixels: lane d of group g of plane i is output pixel 4g + d.
                        if width == 1 {
                            for i in 0..planes {
                                for g in 0..4 {
                                    let window = &side[t.widen.win[g]..][..16];
                                    let lanes = pshufb(window, &t.widen.masks[i][g]);
                                    let low = pshufb(window, &t.widen.low[i][g]);
                                    for d in 0..4 {
                                        let j = 4 * g + d;
                                        let value = planar[t.channel(i)][if rp { 15 - j } else { j }];
                                        assert_eq!(lanes[4 * d..4 * d + 4], [0, 0, 0, value], "{case} {i} {j}");
                                        assert_eq!(low[4 * d..4 * d + 4], [value, 0, 0, 0], "{case} {i} {j}");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Interleaves fill their slots and never mirror.
        assert_eq!(Planar::build(1, 3, 4, true, false, false), None);
        assert_eq!(Planar::build(1, 3, 3, true, true, false), None);
        assert_eq!(Planar::deinterleave(1, 3, 2, false, false), None);
        assert_eq!(Planar::deinterleave(1, 3, 5, false, false), None);
    }

    /// AVX2's dword deinterleave controls, run in plain Rust, in both forms: plane `i` lane `q` is memory pixel `q`
    /// (or 7 − `q`), slot `lead` + channel `i`; blend-first exactly for 3 slots.
    #[test]
    fn dword_deinterleave_tables() {
        let permute = |v: &[u32], idx: &[u32; 8]| -> [u32; 8] { core::array::from_fn(|q| v[idx[q] as usize]) };
        for planes in 2..=4 {
            for slots in planes..=4 {
                for (rp, rc) in [(false, false), (true, false), (false, true), (true, true)] {
                    let t = Planar::deinterleave(4, planes, slots, rp, rc).unwrap();
                    let d = t.dwords8;
                    let case = format!("p{planes} s{slots} rp {rp} rc {rc}");
                    assert_eq!(d.blends, slots == 3, "{case}");
                    let memory: Vec<u32> =
                        (0..8 * slots as u32).map(|e| 100 * (e / slots as u32) + e % slots as u32).collect();
                    let regs: Vec<&[u32]> = memory.chunks(8).collect();
                    for i in 0..planes {
                        let want: [u32; 8] = core::array::from_fn(|q| {
                            let px = if rp { 7 - q } else { q };
                            100 * px as u32 + (t.lead + t.channel(i)) as u32
                        });
                        let mut permuted = permute(regs[0], &d.idx[i][0]);
                        for (k, reg) in regs.iter().enumerate().skip(1) {
                            let x = permute(reg, &d.idx[i][k]);
                            for q in 0..8 {
                                if d.from[i][k][q] == u32::MAX {
                                    permuted[q] = x[q];
                                }
                            }
                        }
                        assert_eq!(permuted, want, "{case} plane {i}, permute then blend");
                        if d.blends {
                            let mut mixed: [u32; 8] = regs[0].try_into().unwrap();
                            for (k, reg) in regs.iter().enumerate().skip(1) {
                                for l in 0..8 {
                                    if d.mix[i][k][l] == u32::MAX {
                                        mixed[l] = reg[l];
                                    }
                                }
                            }
                            assert_eq!(permute(&mixed, &d.order[i]), want, "{case} plane {i}, blend then permute");
                        }
                    }
                }
            }
        }
    }

    /// The shifted-blend swap tables, run in plain Rust over rows of whole groups starting at every byte of a
    /// pixel: each output pixel is its input pixel with the three channels reversed; only adjacent three-channel
    /// pixels of 1-, 2- or 4-byte channels.
    #[test]
    fn shift_blend_tables() {
        for unit in [1usize, 2, 4] {
            let width = 3 * unit;
            let t = ShiftBlend::new(width, width as isize, unit).unwrap();
            assert!(t.fits(width, width as isize, unit) && !t.fits(width, 2 * width as isize, unit));
            for phase in 0..width {
                let (head, groups) = (width + phase, 4);
                let bytes = head + groups * ShiftBlend::GROUP + t.reach();
                let input: Vec<u8> = (0..bytes).map(|b| (b * 7 + 1) as u8).collect();
                let mut out = vec![0u8; head + groups * ShiftBlend::GROUP];
                for (k, o) in out.iter_mut().enumerate().take(head) {
                    *o = input[k.checked_add_signed(t.offsets[t.channel(k)]).unwrap()];
                }
                for k in head..out.len() {
                    // Byte l of register o of its group: its masks start at the group's phase.
                    let (o, l) = ((k - head) % ShiftBlend::GROUP / 32, (k - head) % 32);
                    let at = phase + 32 * o + l;
                    let c: Vec<usize> = (0..3).filter(|&c| t.select[c][at] == 0xFF).collect();
                    assert_eq!(c.len(), 1, "one channel per byte");
                    out[k] = input[k.checked_add_signed(t.offsets[c[0]]).unwrap()];
                }
                for (p, pixel) in out.chunks_exact(width).enumerate() {
                    for (j, channel) in pixel.chunks_exact(unit).enumerate() {
                        let want = &input[p * width + (2 - j) * unit..][..unit];
                        assert_eq!(channel, want, "unit {unit} phase {phase} pixel {p} channel {j}");
                    }
                }
            }
        }
        assert_eq!(ShiftBlend::new(3, 6, 1), None);
        assert_eq!(ShiftBlend::new(4, 4, 1), None);
        assert_eq!(ShiftBlend::new(24, 24, 8), None);
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

/// A normalization's `(scale, bias)` pairs along a row of interleaved pixels of `channels` channels: element `i`
/// of the row (from a pixel's first channel) takes the pair of channel `i mod channels`, a pattern that repeats
/// every `period` elements — the least common multiple of the channels and 16, so that 16-lane steps always start
/// at a multiple of 16 of it. The arrays run past the period so that any load that starts inside it may read a
/// whole period of registers, or a block of [`BLOCK`](crate::params::BLOCK) pairs, without wrapping.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Periodic {
    period: usize,
    scales: Vec<f32>,
    biases: Vec<f32>,
    pairs: Vec<[f32; 2]>,
    /// Every pair passes [`byte_results_fit_i32`](crate::float::byte_results_fit_i32).
    bytes_fit: bool,
    /// For one-byte integers into one-byte integers, the pattern in fixed point where every channel has a form.
    fixed: Option<FixedPattern>,
    /// For one-byte integers into one-byte integers of 1 to 4 channels whose pairs pass `byte_results_fit_i32`:
    /// each channel's 256 result bytes.
    tables: Option<ByteTables>,
}

/// The results of a [`Periodic`] pattern of one-byte integers into one-byte integers, by input byte.
#[derive(Clone, Debug, PartialEq)]
struct ByteTables {
    /// Whether the inputs and the outputs are `i8` (else `u8`).
    signed: (bool, bool),
    /// Per channel, the result byte of each input byte.
    tables: Vec<[u8; 256]>,
}

/// The lanes of a pattern of `W` pairs (`f32` scales and biases, or `i32` fixed-point multipliers and addends):
/// lane `i` of `a` and of `b` for `i < period + max(BLOCK, Periodic::unrolled(period))` — a load that starts
/// inside the period may read a block of pairs without wrapping.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PatternLanes<'a, W> {
    period: usize,
    a: &'a [W],
    b: &'a [W],
}

impl<W> PatternLanes<'_, W> {
    /// Elements per repetition (as [`Periodic::period`]).
    pub(crate) fn period(&self) -> usize {
        self.period
    }

    /// Pointers to lane `q` (`q < period`) of `a` and of `b`, each followed by at least
    /// `max(BLOCK, Periodic::unrolled(period))` more lanes.
    pub(crate) fn at(&self, q: usize) -> (*const W, *const W) {
        assert!(q < self.period);
        (self.a[q..].as_ptr(), self.b[q..].as_ptr())
    }
}

/// A [`Periodic`] pattern of one-byte integers into one-byte integers in fixed point
/// ([`FixedAffine`](crate::float::FixedAffine)), one shift for all its channels: lane `i` computes
/// `(x·mults[i] + adds[i]) >> shift`, saturated.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FixedPattern {
    /// Whether the inputs and the outputs are `i8` (else `u8`), which the form was checked for.
    pub(crate) signed: (bool, bool),
    pub(crate) shift: u32,
    period: usize,
    mults: Vec<i32>,
    adds: Vec<i32>,
}

impl FixedPattern {
    /// The multipliers and addends, laid out as [`Periodic::lanes`].
    pub(crate) fn lanes(&self) -> PatternLanes<'_, i32> {
        PatternLanes { period: self.period, a: &self.mults, b: &self.adds }
    }
}

impl Periodic {
    /// The widest register load of scales or biases, in lanes.
    pub(crate) const LANES: usize = 16;

    /// The pattern of one pair per channel (`None` without channels or for more than 64 of them: a pattern of
    /// 16 · 64 elements is the most worth keeping next to a row's data). `bytes`: for a normalization of one-byte
    /// integers into one-byte integers, whether its input and its output are `i8` (else `u8`) — the pattern then
    /// also gets its fixed-point form ([`Periodic::fixed`]) where every channel has one at a shared shift.
    pub(crate) fn new(channels: &[[f32; 2]], bytes: Option<(bool, bool)>) -> Option<Periodic> {
        let p = channels.len();
        if !(1..=64).contains(&p) {
            return None;
        }
        let period = lcm(p, Self::LANES)?;
        let len = period.checked_add(crate::params::BLOCK.max(Self::unrolled(period)))?;
        let channel = |i: usize| i.checked_rem(p).unwrap_or(0);
        let pairs: Vec<[f32; 2]> = (0..len).map(|i| channels[channel(i)]).collect();
        let (scales, biases) = pairs.iter().map(|&[s, b]| (s, b)).unzip();
        let bytes_fit = channels.iter().all(|&[s, b]| crate::float::byte_results_fit_i32(s, b));
        let fixed = bytes.filter(|_| bytes_fit).and_then(|(si, so)| {
            use crate::float::FixedAffine;
            let shift = channels.iter().map(|&[s, b]| FixedAffine::shift_for(s, b)).min()??;
            let forms: Option<Vec<FixedAffine>> =
                channels.iter().map(|&[s, b]| FixedAffine::at(s, b, si, so, shift)).collect();
            let forms = forms?;
            let (mults, adds) = (0..len).map(|i| (forms[channel(i)].mult, forms[channel(i)].add)).unzip();
            Some(FixedPattern { signed: (si, so), shift, period, mults, adds })
        });
        let tables = bytes.filter(|_| bytes_fit && p <= 4).map(|(si, so)| {
            let table = |&[s, b]: &[f32; 2]| {
                core::array::from_fn(|v| {
                    let x = if si { i32::from(v as u8 as i8) } else { v as i32 };
                    // (The byte of an i8 result is its two's complement.)
                    crate::float::byte_result(x, s, b, so) as u8
                })
            };
            ByteTables { signed: (si, so), tables: channels.iter().map(table).collect() }
        });
        Some(Periodic { period, scales, biases, pairs, bytes_fit, fixed, tables })
    }

    /// The 256 result bytes of each channel (1 to 4 of them) of a normalization of one-byte integers into one-byte
    /// integers of the types `signed` (input, output: `i8` or `u8`), if the pattern has them.
    pub(crate) fn byte_tables(&self, signed: (bool, bool)) -> Option<&[[u8; 256]]> {
        self.tables.as_ref().filter(|t| t.signed == signed).map(|t| &t.tables[..])
    }

    /// The scales and biases by lane.
    pub(crate) fn lanes(&self) -> PatternLanes<'_, f32> {
        PatternLanes { period: self.period, a: &self.scales, b: &self.biases }
    }

    /// The fixed-point form of a normalization of one-byte integers into one-byte integers of the types `signed`
    /// (input, output: `i8` or `u8`), if the pattern has one for them.
    pub(crate) fn fixed(&self, signed: (bool, bool)) -> Option<&FixedPattern> {
        self.fixed.as_ref().filter(|f| f.signed == signed)
    }

    /// Elements per step of a kernel that reads whole repetitions: the period repeated to at least 64 lanes.
    pub(crate) fn unrolled(period: usize) -> usize {
        period.saturating_mul(64usize.checked_div(period).unwrap_or(1).max(1))
    }

    /// Elements per repetition: a multiple of the channels and of [`Periodic::LANES`].
    pub(crate) fn period(&self) -> usize {
        self.period
    }

    /// Pair of element `i` for `i < period + BLOCK`.
    pub(crate) fn pairs(&self) -> &[[f32; 2]] {
        &self.pairs
    }

    /// Whether every pair passes [`byte_results_fit_i32`](crate::float::byte_results_fit_i32).
    pub(crate) fn bytes_fit(&self) -> bool {
        self.bytes_fit
    }
}

/// The least common multiple, `None` on overflow.
fn lcm(a: usize, b: usize) -> Option<usize> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x.checked_rem(y)?);
    }
    a.checked_div(x)?.checked_mul(b)
}
