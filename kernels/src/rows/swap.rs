//! Channel swaps: interleaved pixels whose channels are written in reverse order (BGR ↔ RGB, RGBA → ABGR), the
//! pixels read with any small whole-pixel stride. The row is the pixels; each pixel's channels are folded into the
//! byte-shuffle tables (`pshufb` lanes, 64-byte VBMI lanes), the tail moves pixels one at a time.

use super::{Body, lead_bytes};
use crate::arch::Arch;
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
            let mut out = [0u8; N];
            for (o, c) in out.chunks_exact_mut(unit).zip(pixel.chunks_exact(unit).rev()) {
                o.copy_from_slice(c);
            }
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
