//! Planes ↔ interleaved pixels of 2 to 4 channels: multi-source byte shuffles, the tail element by element.

use pulp::NullaryFnOnce;

use super::{Body, Rows, Runner};
use crate::arch::{Arch, Isa};
use crate::tables::Planar;

/// Interleaves (`t.interleave`) `n` pixels from planes `ps` bytes apart at `src` into contiguous pixels at `dst`, or
/// deinterleaves `n` pixels into planes `ps` bytes apart at `dst`: `src` is output plane 0's element of output pixel
/// 0, the pixels follow each other `t.slots` elements apart forwards or (mirrored, `t.reverse_pixels`) backwards,
/// and plane `i` takes channel `t.channel(i)`.
///
/// # Safety
///
/// Every element of the `t.planes` planes of `n` elements and every channel of the `n` pixels is in bounds
/// (readable on the input side, writable on the output side, not overlapping); `t` was built for `N`.
#[inline(always)]
pub(crate) unsafe fn planar<A: Arch, const N: usize>(
    a: A,
    t: &Planar,
    src: *const u8,
    ps: isize,
    dst: *mut u8,
    n: usize,
) {
    // SAFETY: forwarded contract.
    unsafe {
        if t.interleave {
            planar_one_way::<A, N, true>(a, t, src, ps, dst, n)
        } else {
            planar_one_way::<A, N, false>(a, t, src, ps, dst, n)
        }
    }
}

/// [`planar`] in the direction `INTERLEAVE` (which `t.interleave` must be).
///
/// # Safety
///
/// As [`planar`].
#[inline(always)]
unsafe fn planar_one_way<A: Arch, const N: usize, const INTERLEAVE: bool>(
    a: A,
    t: &Planar,
    src: *const u8,
    ps: isize,
    dst: *mut u8,
    n: usize,
) {
    let p = t.planes;
    let fits = t.width == N;
    if INTERLEAVE {
        // SAFETY: plane c holds n readable elements at src + c·ps and dst n·p writable elements (contract).
        let done = if fits { unsafe { a.interleave::<N>(t, src, ps, dst, n) } } else { 0 };
        // SAFETY: as above, elements done..n.
        if unsafe { portable::<A, N, true>(t, src, ps, dst, done, n) } {
            return;
        }
        for j in done..n {
            for c in 0..p {
                // SAFETY: element j of plane c and its output, in bounds as above.
                unsafe {
                    let v = src.wrapping_offset(c as isize * ps).add(j * N).cast::<[u8; N]>().read_unaligned();
                    dst.add((j * p + c) * N).cast::<[u8; N]>().write_unaligned(v);
                }
            }
        }
    } else {
        // `src` is output plane 0's element of pixel 0: with reversed channels the pixel's last channel.
        let first = if t.reverse_channels { src.wrapping_sub((p - 1) * N) } else { src };
        // SAFETY: the windows of the first `t.readable(n)` pixels from `first` (forwards or backwards) lie between
        // channels of the n pixels, readable; n writable elements of plane c at dst + c·ps (contract).
        let done = if fits { unsafe { a.deinterleave::<N>(t, first, dst, ps, t.readable(n)) } } else { 0 };
        // SAFETY: as above, pixels done..n.
        if unsafe { portable::<A, N, false>(t, first, ps, dst, done, n) } {
            return;
        }
        for j in done..n {
            for c in 0..p {
                // SAFETY: channel t.channel(c) of pixel j and its output, in bounds as above.
                unsafe {
                    let v = t.pixel(first, j).add(t.channel(c) * N).cast::<[u8; N]>().read_unaligned();
                    dst.wrapping_offset(c as isize * ps).add(j * N).cast::<[u8; N]>().write_unaligned(v);
                }
            }
        }
    }
}

/// The portable level's pixels `from..n` of [`planar_one_way`] (every pixel of a row: that level has no vector
/// path) with a constant plane count, 2 to 4: each pixel's channels moved at constant offsets, the direction and the
/// pixel stride read once; `false` (nothing moved) at other levels, whose tails are shorter than a register, and for
/// other plane counts. `src` is the planes' first element (interleaving) or output plane 0's channel of pixel 0
/// (deinterleaving), `dst` the pixels or the planes.
///
/// PERF: `--isa scalar`, one thread, min of 3 (callgrind instructions a call): the loops over a run-time plane
/// count spent ~20 instructions a pixel around its moves. u8 NHWC → NCHW 32×224²×3 66.0 → 19.2 M, 5.1 → 1.5 ms;
/// f16 NCHW → NHWC 16×3×512² 180.5 → 20.4 M, 9.0 → 1.8 ms; f32 depth-to-space 71.8 → 8.4 M, 3.9 → 1.1 ms.
///
/// # Safety
///
/// As [`planar_one_way`], for pixels `from..n`.
#[inline(always)]
unsafe fn portable<A: Arch, const N: usize, const INTERLEAVE: bool>(
    t: &Planar,
    src: *const u8,
    ps: isize,
    dst: *mut u8,
    from: usize,
    n: usize,
) -> bool {
    if A::ISA != Isa::Scalar {
        return false;
    }
    let run = (t, src, ps, dst, from..n);
    // SAFETY: forwarded contract.
    unsafe {
        match t.planes {
            2 => planes_of::<N, 2, INTERLEAVE>(run),
            3 => planes_of::<N, 3, INTERLEAVE>(run),
            4 => planes_of::<N, 4, INTERLEAVE>(run),
            _ => return false,
        }
    }
    true
}

/// [`portable`] with `P` planes, pixels `range`.
///
/// # Safety
///
/// As [`portable`]; `t.planes == P`.
#[inline(always)]
unsafe fn planes_of<const N: usize, const P: usize, const INTERLEAVE: bool>(
    (t, src, ps, dst, range): (&Planar, *const u8, isize, *mut u8, core::ops::Range<usize>),
) {
    let planes: [isize; P] = core::array::from_fn(|c| c as isize * ps);
    if INTERLEAVE {
        for j in range {
            for (c, &plane) in planes.iter().enumerate() {
                // SAFETY: element j of plane c and its output (contract).
                unsafe {
                    let v = src.wrapping_offset(plane).add(j * N).cast::<[u8; N]>().read_unaligned();
                    dst.add((j * P + c) * N).cast::<[u8; N]>().write_unaligned(v);
                }
            }
        }
    } else {
        // (`Planar::pixel` and `Planar::channel` with their fields read once, outside the loop.)
        let channels: [usize; P] = core::array::from_fn(|c| t.channel(c) * N);
        let pixels = t.steps(src, 1, t.slots.wrapping_mul(t.width));
        for j in range {
            let pixel = pixels.at(j);
            for (&channel, &plane) in channels.iter().zip(&planes) {
                // SAFETY: channel t.channel(c) of pixel j and its output (contract).
                unsafe {
                    let v = pixel.add(channel).cast::<[u8; N]>().read_unaligned();
                    dst.wrapping_offset(plane).add(j * N).cast::<[u8; N]>().write_unaligned(v);
                }
            }
        }
    }
}

/// The planar row kernel: the row is the pixel dimension.
#[derive(Clone, Copy)]
pub(crate) struct PlanarBody<'a, A, const N: usize, const INTERLEAVE: bool> {
    a: A,
    tables: &'a Planar,
    ps: isize,
    len: usize,
}

impl<A: Arch, const N: usize, const INTERLEAVE: bool> Body for PlanarBody<'_, A, N, INTERLEAVE> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        // SAFETY: the row's pixels and planes are in bounds (Rows contract); the tables' direction is INTERLEAVE
        // (`build`).
        unsafe { planar_one_way::<A, N, INTERLEAVE>(self.a, self.tables, src, self.ps, dst, len) }
    }
}

/// Builds the planar row kernel of `tables` (whose direction must be `interleave`).
pub(super) fn build<A: Arch>(
    a: A,
    tables: &Planar,
    ps: isize,
    interleave: bool,
    len: usize,
    f: &mut dyn FnMut(&dyn Rows),
) {
    debug_assert_eq!(tables.interleave, interleave);
    // Wider elements compiled for the level whose code this one runs for them ([`Arch::Base`]: V4 for V4 + VBMI,
    // whose byte permutes serve one-byte planes only). PERF: the same inner loop compiled inside VBMI's function
    // spent its time around each row (the samples on stack stores between rows); f32 depth-to-space (2 planes of
    // 128-pixel rows, one thread, 16 MiB each way, Zen 4) 1.09–1.18 → 0.71–0.76 ms, as V4: `t/limit` 1.5–1.6 → 1.0.
    //
    // One direction per kernel: PERF, with both loops in it the per-row code kept more of its state on the stack,
    // and those stores queue behind the rows' own. f32 depth-to-space at V4 (rows of 128 pixels, one thread, between
    // copies of other data): the same inner loop ran 683 µs or 942 µs as unrelated code changed; one way, 790 µs.
    let b = a.base();
    macro_rules! one_way {
        ($i:literal) => {
            match tables.width {
                1 => f(&Runner(PlanarBody::<A, 1, $i> { a, tables, ps, len })),
                2 => f(&Runner(PlanarBody::<A::Base, 2, $i> { a: b, tables, ps, len })),
                4 => f(&Runner(PlanarBody::<A::Base, 4, $i> { a: b, tables, ps, len })),
                _ => f(&Runner(PlanarBody::<A::Base, 8, $i> { a: b, tables, ps, len })),
            }
        };
    }
    if interleave { one_way!(true) } else { one_way!(false) }
}

/// A planar move compiled for a level: `(tables, src, ps, dst, n)` as [`planar`].
pub(crate) type PlanarFn = unsafe fn(&Planar, *const u8, isize, *mut u8, usize);

/// The [`PlanarFn`] of `width`-byte elements at level `A`.
pub(crate) fn planar_fn<A: Arch>(width: usize) -> PlanarFn {
    struct Job<'a, A, const N: usize>(A, &'a Planar, *const u8, isize, *mut u8, usize);
    impl<A: Arch, const N: usize> NullaryFnOnce for Job<'_, A, N> {
        type Output = ();
        #[inline(always)]
        fn call(self) {
            let Job(a, t, src, ps, dst, n) = self;
            // SAFETY: forwarded from the PlanarFn contract.
            unsafe { planar::<A, N>(a, t, src, ps, dst, n) }
        }
    }
    /// # Safety
    ///
    /// As [`planar`], on a CPU running level `A`.
    unsafe fn entry<A: Arch, const N: usize>(t: &Planar, src: *const u8, ps: isize, dst: *mut u8, n: usize) {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job::<A, N>(a, t, src, ps, dst, n))
    }
    // (Wider elements at the base level, as in `build`.)
    match width {
        1 => entry::<A, 1>,
        2 => entry::<A::Base, 2>,
        4 => entry::<A::Base, 4>,
        _ => entry::<A::Base, 8>,
    }
}
