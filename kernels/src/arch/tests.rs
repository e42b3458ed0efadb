//! Every method of [`Arch`] and every loop written over it, run directly on every level this CPU has and compared
//! with plain scalar code: exact results, the returned counts honest (nothing counted that was not written), and
//! nothing written outside the range.

use super::*;
use crate::convert::{f16_to_f32_scalar, f32_to_f16_scalar, f64_to_f32_odd_scalar};
use crate::strategy::Lanes;
use crate::tables::{Planar, Shuffle, WideShuffle};

/// Runs `check::<A>` on every level this CPU has.
fn on_every_level(check: impl Fn(Level) + Copy) {
    for isa in Isa::ALL {
        match Level::of(isa) {
            Some(level) => check(level),
            None => eprintln!("note: {isa} not available here, skipped"),
        }
    }
}

/// A job calling a generic checker with the level's token.
macro_rules! level_job {
    ($name:ident, $check:ident) => {
        struct $name;
        impl Job for $name {
            type Output = ();
            fn run<A: Arch>(self, a: A) {
                assert_eq!(Level::of(A::ISA).map(Level::isa), Some(A::ISA));
                $check(a)
            }
        }
    };
}

/// Pseudo-random bytes.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32).map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed) >> 13) as u8).collect()
}

const SENTINEL: u8 = 0xEE;

fn check_copy<A: Arch>(a: A) {
    let src = bytes(5000, 1);
    for len in (0..=700).chain(4090..=4100) {
        for (so, dof) in [(0, 0), (1, 3), (7, 64 - 7), (5, 0), (0, 33)] {
            for stream in [false, true] {
                let mut dst = vec![SENTINEL; len + 256];
                let at = 64 + dof % 64;
                // SAFETY: src[so..so+len] and dst[at..at+len] are in bounds and distinct; the token proves the level.
                a.vectorize(|| unsafe { copy(a, src.as_ptr().add(so), dst.as_mut_ptr().add(at), len, stream) });
                assert_eq!(&dst[at..at + len], &src[so..so + len], "{:?} len {len} so {so} stream {stream}", A::ISA);
                assert!(dst[..at].iter().chain(&dst[at + len..]).all(|&b| b == SENTINEL), "wrote outside, len {len}");
            }
        }
    }
}
level_job!(CopyJob, check_copy);

#[test]
fn copy_on_every_level() {
    on_every_level(|l| l.dispatch(CopyJob));
}

/// A row of `n` `N`-byte elements read with stride `k` (elements) into a contiguous output, through `f`, which
/// returns the elements it did; checks them and that nothing past them was written.
/// `misalign`: the output starts that many bytes past a 64-byte boundary (`None`: on the boundary).
fn check_prefix<const N: usize>(
    name: &str,
    isa: Isa,
    k: isize,
    n: usize,
    misalign: Option<usize>,
    f: impl FnOnce(*const u8, *mut u8) -> usize,
) -> usize {
    let span = if n == 0 { 0 } else { ((n - 1) * k.unsigned_abs() + 1) * N };
    let src = bytes(span + 64, n as u32);
    let first = if k > 0 { 32 } else { 32 + span - N };
    let mut dst = vec![SENTINEL; n * N + 256];
    let to_boundary = (64 - dst.as_ptr() as usize % 64) % 64;
    let out = 64 + to_boundary + misalign.unwrap_or(0) % 64;
    let done = f(src[first..].as_ptr(), dst[out..].as_mut_ptr());
    assert!(done <= n, "{name} {isa:?} N {N} k {k} n {n}: did {done} of {n}");
    for i in 0..done {
        let e = (first as isize + i as isize * k * N as isize) as usize;
        assert_eq!(&dst[out + i * N..][..N], &src[e..e + N], "{name} {isa:?} N {N} k {k} n {n} element {i}");
    }
    // Shuffle lanes store whole 16- or 64-byte lanes whose last bytes may run past the last whole element they
    // hold, into the row (later overwritten by the next lane or the tail); never past the row.
    let end = if name == "lanes" { n * N } else { done * N };
    assert!(dst[..out].iter().chain(&dst[out + end..]).all(|&b| b == SENTINEL), "{name} {isa:?}: wrote outside");
    done
}

fn check_reverse_gather<A: Arch>(a: A) {
    fn width<A: Arch, const N: usize>(a: A) {
        for n in 0..=300 {
            for stream in [false, true] {
                // Streaming needs a destination aligned to the register.
                let mis = if stream { None } else { Some(n % 7) };
                let done = check_prefix::<N>("reverse", A::ISA, -1, n, mis, |s, d| {
                    // SAFETY: elements 0..n at s - i·N and d + i·N are in the buffers of check_prefix; d is aligned
                    // to 64 bytes when streaming.
                    a.vectorize(|| unsafe { reverse::<A, N>(a, s, d, n, stream) })
                });
                if A::reverses(N) && !stream {
                    assert!(done + A::BYTES / N > n, "{:?} reverse N {N}: only {done} of {n}", A::ISA);
                }
                for neg in [false, true] {
                    let done =
                        check_prefix::<N>("gather2", A::ISA, if neg { -2 } else { 2 }, n, Some(n % 5), |s, d| {
                            // SAFETY: as above, with stride ±2 (every byte between the elements is readable).
                            a.vectorize(|| unsafe { gather2::<A, N>(a, s, d, n, neg, false) })
                        });
                    if A::picks(N) {
                        assert!(done + A::BYTES / N >= n, "{:?} gather2 N {N}: only {done} of {n}", A::ISA);
                    }
                }
            }
        }
    }
    width::<A, 1>(a);
    width::<A, 2>(a);
    width::<A, 3>(a);
    width::<A, 4>(a);
    width::<A, 6>(a);
    width::<A, 8>(a);
    width::<A, 12>(a);
    width::<A, 16>(a);
}
level_job!(ReverseGatherJob, check_reverse_gather);

#[test]
fn reverse_and_gather_on_every_level() {
    on_every_level(|l| l.dispatch(ReverseGatherJob));
}

fn check_lanes<A: Arch>(a: A) {
    fn width<A: Arch, const N: usize>(a: A) {
        for k in [-5isize, -4, -3, -2, -1, 2, 3, 4, 5] {
            let lanes = Lanes { wide: WideShuffle::new(N, k), narrow: Shuffle::new(N, k) };
            for n in (1..200).step_by(3) {
                let done = check_prefix::<N>("lanes", A::ISA, k, n, Some(n % 3), |s, d| {
                    // SAFETY: the row's elements lie at s + i·k·N and d + i·N inside check_prefix's buffers.
                    a.vectorize(|| unsafe { crate::rows::shuffled::<A, N>(a, &lanes, s, d, 0, n, k) })
                });
                if let Some(t) = lanes.narrow.filter(|_| A::BYTES >= 32) {
                    assert!(n < t.slack || done > 0, "{:?} N {N} k {k} n {n}: no lane ran", A::ISA);
                }
            }
        }
    }
    width::<A, 1>(a);
    width::<A, 2>(a);
    width::<A, 3>(a);
    width::<A, 4>(a);
    width::<A, 6>(a);
    width::<A, 12>(a);
}
level_job!(LanesJob, check_lanes);

#[test]
fn shuffle_lanes_on_every_level() {
    on_every_level(|l| l.dispatch(LanesJob));
}

fn check_tiles_and_planes<A: Arch>(a: A) {
    fn width<A: Arch, const N: usize>(a: A) {
        // tile8: rows of 11 elements in, rows of 10 elements out
        let (ss, ds) = (11 * N, 10 * N);
        let src = bytes(8 * ss, N as u32);
        let mut dst = vec![SENTINEL; 8 * ds];
        // SAFETY: 8 rows of 8 elements at ss-byte steps in src, 8 rows at ds-byte steps in dst.
        a.vectorize(|| unsafe { a.tile8::<N>(src.as_ptr(), ss as isize, dst.as_mut_ptr(), ds as isize) });
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!(&dst[c * ds + r * N..][..N], &src[r * ss + c * N..][..N], "{:?} tile8 N {N}", A::ISA);
            }
            assert!(dst[r * ds + 8 * N..(r + 1) * ds].iter().all(|&b| b == SENTINEL));
        }
        if N > 8 {
            return;
        }
        for planes in 2..=4 {
            for n in [0usize, 1, 15, 16, 17, 33, 100] {
                let ps = n * N + 5;
                let planar: Vec<u8> = bytes(planes * ps, n as u32);
                let mut pixels = vec![SENTINEL; n * planes * N + 16];
                let t = Planar::new(N, planes, true).unwrap();
                // SAFETY: planes of n elements at ps-byte steps; n·planes output elements.
                let done = a.vectorize(|| unsafe {
                    a.interleave::<N>(&t, planar.as_ptr(), ps as isize, pixels.as_mut_ptr(), n)
                });
                assert!(done <= n);
                for j in 0..done {
                    for c in 0..planes {
                        assert_eq!(&pixels[(j * planes + c) * N..][..N], &planar[c * ps + j * N..][..N]);
                    }
                }
                assert!(pixels[done * planes * N..].iter().all(|&b| b == SENTINEL), "{:?} interleave", A::ISA);
                let t = Planar::new(N, planes, false).unwrap();
                let mut back = vec![SENTINEL; planes * ps];
                let src = bytes(n * planes * N, 7);
                // SAFETY: as above, the other way round.
                let done =
                    a.vectorize(|| unsafe { a.deinterleave::<N>(&t, src.as_ptr(), back.as_mut_ptr(), ps as isize, n) });
                for j in 0..done {
                    for c in 0..planes {
                        assert_eq!(&back[c * ps + j * N..][..N], &src[(j * planes + c) * N..][..N]);
                    }
                }
                for c in 0..planes {
                    assert!(back[c * ps + done * N..(c + 1) * ps].iter().all(|&b| b == SENTINEL));
                }
            }
        }
    }
    width::<A, 1>(a);
    width::<A, 2>(a);
    width::<A, 4>(a);
    width::<A, 8>(a);
    width::<A, 16>(a);
}
level_job!(TilesJob, check_tiles_and_planes);

#[test]
fn tiles_and_planes_on_every_level() {
    on_every_level(|l| l.dispatch(TilesJob));
}

/// Values that exercise every rounding path: all specials, subnormals of f16/f32/f64, ties, overflow boundaries,
/// and pseudo-random bit patterns.
fn f32_cases() -> Vec<u32> {
    let mut v: Vec<u32> = vec![
        0,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xFFBF_FFFF,
        0x7FFF_FFFF,
        1,
        0x0080_0000,
        0x3380_0000,
        0x3380_0001,
        0x33C0_0000,
        0x3880_0000,
        0x387F_FFFF,
        0x477F_E000,
        0x477F_EFFF,
        0x477F_F000,
        0x477F_F001,
        0x3F80_1000,
        0x3F80_3000,
        0x3F80_0FFF,
        0xC77F_F000,
    ];
    let mut x = 0x1234_5678u32;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.push(x);
        // near f16's range, where rounding matters
        v.push((x & 0x83FF_FFFF) | 0x3800_0000);
    }
    v
}

fn check_conversions<A: Arch>(a: A) {
    // f16 → f32: every value.
    let h: Vec<u16> = (0..=u16::MAX).collect();
    let mut f = vec![0f32; h.len()];
    // SAFETY: 65536 elements each side.
    let done = a.vectorize(|| unsafe { a.f16_to_f32(h.as_ptr().cast(), f.as_mut_ptr().cast(), h.len()) });
    assert!(A::BYTES < 32 || done + 16 > h.len(), "{:?} f16_to_f32 did {done}", A::ISA);
    for i in 0..done {
        assert_eq!(f[i].to_bits(), f16_to_f32_scalar(h[i]).to_bits(), "{:?} f16 {:04x}", A::ISA, h[i]);
    }
    // f32 → f16.
    let x: Vec<f32> = f32_cases().into_iter().map(f32::from_bits).collect();
    let mut y = vec![0u16; x.len()];
    // SAFETY: x.len() elements each side.
    let done = a.vectorize(|| unsafe { a.f32_to_f16(x.as_ptr().cast(), y.as_mut_ptr().cast(), x.len()) });
    assert!(A::BYTES < 32 || done + 16 > x.len());
    for i in 0..done {
        assert_eq!(y[i], f32_to_f16_scalar(x[i]), "{:?} f32 {:08x}", A::ISA, x[i].to_bits());
    }
    // f16 scale/bias: widen, product, sum, round once; also in place.
    for (scale, bias) in [(0.5f32, 1.0f32), (-3.0, 0.125), (1e4, -7.0), (f32::MIN_POSITIVE, 0.0)] {
        let want: Vec<u16> = h.iter().map(|&x| f32_to_f16_scalar(f16_to_f32_scalar(x) * scale + bias)).collect();
        let mut got = vec![0u16; h.len()];
        // SAFETY: 65536 elements each side.
        let done =
            a.vectorize(|| unsafe { a.affine_f16(h.as_ptr().cast(), got.as_mut_ptr().cast(), h.len(), scale, bias) });
        assert!(A::BYTES < 32 || done + 16 > h.len(), "{:?} affine_f16 did {done}", A::ISA);
        for i in 0..done {
            let nan = |b: u16| b & 0x7C00 == 0x7C00 && b & 0x3FF != 0;
            assert!(
                got[i] == want[i] || (nan(got[i]) && nan(want[i])),
                "{:?} affine_f16 {:04x}: {:04x} vs {:04x}",
                A::ISA,
                h[i],
                got[i],
                want[i]
            );
        }
        let mut inplace = h.clone();
        let p = inplace.as_mut_ptr().cast::<u8>();
        // SAFETY: the same range as input and output, allowed by the contract.
        let done2 = a.vectorize(|| unsafe { a.affine_f16(p, p, h.len(), scale, bias) });
        assert_eq!(done2, done);
        assert_eq!(&inplace[..done], &got[..done]);
    }
    // f64 → f32 rounded to odd.
    let mut d: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..200_000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        d.push(f64::from_bits(s));
        d.push(f64::from(f32::from_bits(s as u32)) * (1.0 + f64::from((s >> 40) as u32) * 2f64.powi(-60)));
    }
    d.extend([f64::MAX, f64::MIN_POSITIVE, 1e-310, -1e-310, 3.4028235677973366e38, 1.0 + 2f64.powi(-24)]);
    let mut o = vec![0f32; d.len()];
    // SAFETY: d.len() elements each side.
    let done = a.vectorize(|| unsafe { a.f64_to_f32_odd(d.as_ptr().cast(), o.as_mut_ptr().cast(), d.len()) });
    assert!(A::BYTES < 32 || done + 8 > d.len());
    for i in 0..done {
        assert_eq!(o[i].to_bits(), f64_to_f32_odd_scalar(d[i]).to_bits(), "{:?} f64 {:016x}", A::ISA, d[i].to_bits());
    }
}
level_job!(ConversionsJob, check_conversions);

#[test]
fn conversions_on_every_level() {
    on_every_level(|l| l.dispatch(ConversionsJob));
}
