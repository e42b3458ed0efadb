//! Gathered rows (input stride ±k elements, |k| ≥ 2, output contiguous): register picks for stride ±2, byte
//! shuffle lanes for small strides, one element at a time otherwise.

use super::reverse::{shuffled, stream_head};
use super::{Body, elements, lead_of};
use crate::arch::{Arch, gather2};
use crate::strategy::Lanes;

/// Output contiguous, input stride `stride` elements (|stride| ≥ 2).
#[derive(Clone, Copy)]
pub(crate) struct GatherBody<'a, A, const N: usize> {
    pub(crate) a: A,
    pub(crate) len: usize,
    pub(crate) stride: isize,
    pub(crate) lanes: &'a Lanes,
    pub(crate) stream: bool,
    /// The walk reads from memory ([`Arch::wide_lanes`]).
    pub(crate) far: bool,
}

impl<A: Arch, const N: usize> Body for GatherBody<'_, A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        let (a, k) = (self.a, self.stride);
        let step = k.wrapping_mul(N as isize);
        let mut done = 0;
        if k == 2 || k == -2 {
            if let Some(head) = stream_head::<A, N>(dst, n, self.stream) {
                // SAFETY: the row's elements lie at src + i·k·N (every byte between them is in the input buffer,
                // which spans the whole walk) and dst + i·N (Rows contract); after `head` elements dst is on a
                // line, as `gather2` needs to stream.
                unsafe {
                    elements::<N>(src, dst, 0, head, step, N as isize);
                    let (s, d) = (src.wrapping_offset(head as isize * step), dst.add(head * N));
                    done = head + gather2::<A, N>(a, s, d, n - head, k < 0, true);
                }
            }
            // The rest (after the streamed whole lines, or all of it) with regular stores.
            let (s, d) = (src.wrapping_offset(done as isize * step), dst.wrapping_add(done * N));
            // SAFETY: as above, elements done..n of the row.
            done += unsafe { gather2::<A, N>(a, s, d, n - done, k < 0, false) };
        }
        // SAFETY: as above; the lanes check they were built for (N, k·N). Continues after the register prefix.
        done = unsafe { shuffled::<A, N>(a, self.lanes, src, dst, done, n, step, N, self.far) };
        // SAFETY: as above.
        unsafe { elements::<N>(src, dst, done, n, step, N as isize) }
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        lead_of::<N>(self.len, self.stride)
    }

    #[inline(always)]
    fn streams(&self) -> bool {
        self.stream
    }
}
