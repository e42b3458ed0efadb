//! Reversed rows (input stride −1 element, output contiguous): register permutes for power-of-two widths, byte
//! shuffle lanes for pixels of 3, 6 or 12 bytes.

use super::{Body, elements, lead_of};
use crate::arch::{Arch, reverse, to_line};
use crate::strategy::Lanes;

/// Elements to copy one by one before `dst` is on a 64-byte line, when `stream` is asked for and possible (the
/// output must be aligned to whole elements); `None` means regular stores. (On the line, not just the register:
/// a 32-byte level's streamed registers then pair into whole lines, and the regular stores around them never
/// share a line with them.)
#[inline(always)]
pub(super) fn stream_head<A: Arch, const N: usize>(dst: *mut u8, n: usize, stream: bool) -> Option<usize> {
    if !stream || A::BYTES < 32 || !N.is_power_of_two() || !(dst as usize).is_multiple_of(N) {
        return None;
    }
    let head = to_line(dst as usize, N);
    (head < n).then_some(head)
}

/// Continues a contiguous-output row of `n` elements `step` bytes apart in the input (any step of at least the
/// width: whole elements apart or not) from element `from`, each element's `unit`-byte parts written in reverse
/// order (`unit == N`: whole elements), through the widest shuffle lanes the level has (VBMI blocks and 64-byte
/// lanes; at 32-byte levels blends of shifted loads for swaps of adjacent three-channel pixels; then 16-byte
/// `pshufb` lanes); returns the elements done (the caller finishes the tail). `far`: the walk reads from
/// memory ([`Arch::wide_lanes`]).
///
/// # Safety
///
/// The row's elements lie at `src + i·step` (readable, with every byte between them) and `dst + i·N` (writable).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn shuffled<A: Arch, const N: usize>(
    a: A,
    lanes: &Lanes,
    src: *const u8,
    dst: *mut u8,
    mut from: usize,
    n: usize,
    step: isize,
    unit: usize,
    far: bool,
) -> usize {
    let at = |from: usize| (src.wrapping_offset(from as isize * step), dst.wrapping_add(from * N));
    if let Some(t) = lanes.block.as_ref().filter(|t| t.fits(N, step, unit) && n >= from + 64) {
        let (s, d) = at(from);
        // SAFETY: blocks of 64 elements from `from`, all inside the row.
        let done = unsafe { a.block_lanes(t, s, 64 * step, d, (n - from) / 64) };
        from += done * 64;
        if done > 0 && from < n {
            let (s, d) = at(n - 64);
            // SAFETY: the block of the row's last 64 elements (n - 64 ≥ the first block's start); it rewrites the
            // elements from n - 64 to `from` with the values they hold (output and input never overlap: gathers,
            // reverses and swaps are never run in place).
            from += unsafe { a.block_lanes(t, s, 0, d, 1) } * (n - from);
        }
    }
    if let Some(t) = lanes.shifts.as_ref().filter(|t| t.fits(N, step, unit)) {
        let (s, d) = at(from);
        // SAFETY: the row's pixels from `from`, adjacent (the table fits); the output does not overlap the input
        // (swaps never run in place).
        from += unsafe { a.shift_blends(t, s, d, n - from) };
    }
    if let Some(t) = lanes.wide.as_ref().filter(|t| t.fits(N, step, unit) && n >= from + t.slack) {
        // Lane l starts at element from + l·E; the last one at most at n - slack (E = 64 / N).
        let elems = 64 / N;
        let count = (n - from - t.slack) / elems + 1;
        let (s, d) = at(from);
        // SAFETY: every lane starts at an element j ≤ n - slack, so its windows and store stay in the row (the
        // tables' slack, built for (N, step) as checked).
        let done = unsafe { a.wide_lanes(t, s, elems as isize * step, d, elems * N, count, far) };
        from += done * elems;
    }
    if let Some(t) = lanes.narrow.as_ref().filter(|t| t.fits(N, step, unit) && n >= from + t.slack) {
        let elems = 16 / N;
        let count = (n - from - t.slack) / elems + 1;
        let (s, d) = at(from);
        // SAFETY: as above, for the 16-byte lanes.
        let done = unsafe { a.shuffle_lanes(t, s, elems as isize * step, d, elems * N, count) };
        from += done * elems;
    }
    from
}

/// Output contiguous, input stride −1 element.
#[derive(Clone, Copy)]
pub(crate) struct ReverseBody<'a, A, const N: usize> {
    pub(crate) a: A,
    pub(crate) len: usize,
    pub(crate) lanes: &'a Lanes,
    pub(crate) stream: bool,
}

impl<A: Arch, const N: usize> Body for ReverseBody<'_, A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        let a = self.a;
        let mut done = 0;
        if let Some(head) = stream_head::<A, N>(dst, n, self.stream) {
            // SAFETY: the row's elements lie at src - i·N and dst + i·N, in bounds (Rows contract); after `head`
            // elements dst is on a line, as `reverse` needs to stream.
            unsafe {
                elements::<N>(src, dst, 0, head, -(N as isize), N as isize);
                let (s, d) = (src.wrapping_sub(head * N), dst.add(head * N));
                done = head + reverse::<A, N>(a, s, d, n - head, true);
            }
        }
        if done == 0 {
            // SAFETY: as above, regular stores.
            done = unsafe { reverse::<A, N>(a, src, dst, n, false) };
        }
        if done == 0 {
            // SAFETY: as above; the lanes check they were built for (N, -N).
            done = unsafe { shuffled::<A, N>(a, self.lanes, src, dst, 0, n, -(N as isize), N, false) };
        }
        // SAFETY: as above.
        unsafe { elements::<N>(src, dst, done, n, -(N as isize), N as isize) }
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        lead_of::<N>(self.len, -1)
    }

    #[inline(always)]
    fn streams(&self) -> bool {
        self.stream
    }
}
