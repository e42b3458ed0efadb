//! Channel swaps: interleaved pixels whose channels are written in reverse order (BGR ↔ RGB, RGBA → ABGR), the
//! pixels read with any small whole-pixel stride. The row is the pixels; each pixel's channels are folded into the
//! byte-shuffle tables (`pshufb` lanes, 64-byte VBMI lanes), the tail moves pixels one at a time.

use super::{Body, lead_bytes};
use crate::arch::{Arch, Isa};
use crate::rows::reverse::shuffled;
use crate::strategy::Lanes;

/// A row of `len` pixels of `N` bytes, each of `N / unit` channels of `unit` bytes, read `step` bytes apart (whole
/// pixels or wider slots) from the pixel whose *first channel* (its highest `unit` bytes: the channels read
/// backwards) is at the row's `src`, written forwards with the channels reversed.
#[derive(Clone, Copy)]
pub(crate) struct SwapBody<'a, A, const N: usize> {
    pub(crate) a: A,
    pub(crate) len: usize,
    pub(crate) lanes: &'a Lanes,
    pub(crate) unit: usize,
    pub(crate) step: isize,
}

impl<A: Arch, const N: usize> Body for SwapBody<'_, A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        let (unit, step) = (self.unit, self.step);
        // Each pixel's bytes start N − unit below its first channel.
        let lo = src.wrapping_sub(N - unit);
        // SAFETY: pixel i's bytes lie at lo + i·step .. + N (readable: its channels are the row's folded elements)
        // and dst + i·N .. + N (writable), by the Rows contract; the lanes check they were built for (N, step, unit).
        let done = unsafe { shuffled::<A, N>(self.a, self.lanes, lo, dst, 0, n, step, unit, false) };
        for i in done..n {
            let s = lo.wrapping_offset(i as isize * step);
            // SAFETY: as above, pixel i; unaligned accesses.
            let pixel = unsafe { s.cast::<[u8; N]>().read_unaligned() };
            // (Constant widths at the portable level only, where every pixel comes here: the vector levels' tails
            // are shorter than a register, and the widths cost 13 KB of code there.)
            let out = match (A::ISA == Isa::Scalar, unit) {
                (true, 1) => reversed::<N, 1>(pixel),
                (true, 2) => reversed::<N, 2>(pixel),
                (true, 4) => reversed::<N, 4>(pixel),
                (true, 8) => reversed::<N, 8>(pixel),
                _ => {
                    let mut out = [0u8; N];
                    for (o, c) in out.chunks_exact_mut(unit).zip(pixel.chunks_exact(unit).rev()) {
                        o.copy_from_slice(c);
                    }
                    out
                }
            };
            // SAFETY: as above.
            unsafe { dst.add(i * N).cast::<[u8; N]>().write_unaligned(out) };
        }
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        let (a, b) = lead_bytes(self.len, self.step, N);
        let below = (N - self.unit) as isize;
        (a - below, b - below)
    }
}

/// `pixel`'s channels of `U` bytes in reverse order: byte moves of constant positions (the channels of a runtime
/// width were `copy_from_slice` calls of `memcpy`, one per channel).
///
/// PERF: `--isa scalar` (where every pixel takes this loop), u8 720p BGR → RGB: 87 → 31 M instructions a call
/// (callgrind; a `memcpy` call per channel before), one thread, min of 4: 8.09 → 1.38 ms; Normalize of the same frame
/// with BGR → RGB into f32 NHWC 8.24 → 2.27 ms.
#[inline(always)]
fn reversed<const N: usize, const U: usize>(pixel: [u8; N]) -> [u8; N] {
    let mut out = [0u8; N];
    let k = N / U;
    for c in 0..k {
        for b in 0..U {
            out[c * U + b] = pixel[(k - 1 - c) * U + b];
        }
    }
    out
}
