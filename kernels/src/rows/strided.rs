//! Rows with any strides: one unaligned element load and store at a time — after byte-shuffle lanes, for a
//! contiguous output whose input elements are a few bytes more than their width apart (RGB pixels in RGBX slots).

use super::reverse::shuffled;
use super::{Body, elements};
use crate::arch::{Arch, Isa};
use crate::strategy::Lanes;

/// Any strides: one unaligned `N`-byte load and store per element, after `lanes` where they apply.
#[derive(Clone, Copy)]
pub(crate) struct StridedBody<'a, A, const N: usize> {
    pub(crate) a: A,
    pub(crate) len: usize,
    pub(crate) in_stride: isize,
    pub(crate) out_stride: isize,
    /// Tables for `N`-byte elements `in_stride` bytes apart (used when the output is contiguous), or for
    /// contiguous ones into slots `out_stride` bytes apart.
    pub(crate) lanes: Option<&'a Lanes>,
}

impl<A: Arch, const N: usize> Body for StridedBody<'_, A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        // Only where the level runs one of the lanes (64-byte lanes are VBMI's): the element loop after them, from a
        // run-time start, compiles slower than the plain one (PERF, Zen 4, one thread, f32 RGBX → RGB at AVX-512,
        // no lanes for 12-byte elements: 62 µs plain, 89 µs through this arm; plain 3-byte rows into 4-byte slots
        // lost 40% when both arms shared one loop).
        let runs = |l: &&Lanes| l.narrow.is_some() || (l.wide.is_some() && A::ISA == Isa::V4Vbmi);
        // Into wider slots: byte-masked stores, AVX-512's (see `Arch::spread_lanes`).
        let spread = self
            .lanes
            .and_then(|l| l.spread.as_ref())
            .filter(|t| A::BYTES == 64 && self.in_stride == N as isize && t.fits(N, self.out_stride));
        if let Some(t) = spread {
            // SAFETY: the row's n elements are contiguous at src (readable) and its n slots at dst (their element
            // bytes writable) (Rows contract); `t.lanes(n)` keeps every load and slot inside the row.
            return unsafe {
                let done = self.a.spread_lanes(t, src, dst, t.lanes(n)) * t.elems;
                elements::<N>(src, dst, done, n, self.in_stride, self.out_stride)
            };
        }
        match self.lanes.filter(|l| self.out_stride == N as isize && runs(l)) {
            // SAFETY: the row's elements lie at src + i·in_stride (every byte between them is in the input buffer,
            // which spans the whole walk) and dst + i·N (Rows contract); the lanes check they were built for
            // (N, in_stride).
            Some(lanes) => unsafe {
                let done = shuffled::<A, N>(self.a, lanes, src, dst, 0, n, self.in_stride, N, false);
                elements::<N>(src, dst, done, n, self.in_stride, self.out_stride)
            },
            // SAFETY: every element of the row is in bounds (Rows contract).
            None => unsafe { elements::<N>(src, dst, 0, n, self.in_stride, self.out_stride) },
        }
    }
}
