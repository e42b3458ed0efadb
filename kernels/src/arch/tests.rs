//! Every method of [`Arch`] and every loop written over it, run directly on every level this CPU has and compared
//! with plain scalar code: exact results, the returned counts honest (nothing counted that was not written), and
//! nothing written outside the range.

#[strider_kernels_macros::selftests]
mod cases {
    use crate::arch::*;
    use crate::float::{f16_to_f32_scalar, f32_to_f16_scalar, f64_to_f32_odd_scalar};
    use crate::strategy::Lanes;
    use crate::tables::tests::{TABLE_PATTERNS, table_inputs};
    use crate::tables::{BlockShuffle, Planar, Shuffle, Spread, TableLanes, WideShuffle};

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

    /// A copy of some bytes whose last byte (`end`) or first byte (`!end`) touches an inaccessible page: a kernel that
    /// reads one byte past that side faults, on every level (memcheck sees only the scalar and AVX2 ones).
    struct Guarded {
        map: *mut u8,
        map_len: usize,
        data: *mut u8,
    }

    impl Guarded {
        fn new(bytes: &[u8], end: bool) -> Guarded {
            // SAFETY: plain POSIX calls on a fresh private anonymous mapping of whole pages, checked for failure; the
            // copy stays inside its readable pages.
            unsafe {
                let page = usize::try_from(libc::sysconf(libc::_SC_PAGESIZE)).unwrap();
                let map_len = (bytes.len().div_ceil(page) + 2) * page;
                let prot = libc::PROT_READ | libc::PROT_WRITE;
                let map =
                    libc::mmap(core::ptr::null_mut(), map_len, prot, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
                assert_ne!(map, libc::MAP_FAILED);
                let map = map.cast::<u8>();
                assert_eq!(libc::mprotect(map.cast(), page, libc::PROT_NONE), 0);
                assert_eq!(libc::mprotect(map.add(map_len - page).cast(), page, libc::PROT_NONE), 0);
                let data = if end { map.add(map_len - page - bytes.len()) } else { map.add(page) };
                core::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
                Guarded { map, map_len, data }
            }
        }

        fn as_ptr(&self) -> *const u8 {
            self.data
        }
    }

    impl Drop for Guarded {
        fn drop(&mut self) {
            // SAFETY: the mapping made in `new`, unmapped once.
            unsafe { libc::munmap(self.map.cast(), self.map_len) };
        }
    }

    /// `n` pixels of `planes` channels in slots of `slots` elements of `N` bytes, as tight as a tensor leaves them
    /// (the first pixel's channel 0 to the last one's last channel: the unused slots lie between the pixels), twice: next
    /// to an inaccessible page before, and after; with the byte offset of output pixel 0's channel 0 (the last pixel in
    /// memory when mirrored). Pixel `m`'s channel `c` is byte `(m·slots + c)·N`.
    fn slotted<const N: usize>(
        n: usize,
        planes: usize,
        slots: usize,
        rp: bool,
        seed: u32,
    ) -> ([Guarded; 2], Vec<u8>, usize) {
        let span = if n == 0 { 0 } else { ((n - 1) * slots + planes) * N };
        let src = bytes(span, seed);
        let first = if rp { n.saturating_sub(1) * slots * N } else { 0 };
        ([Guarded::new(&src, false), Guarded::new(&src, true)], src, first)
    }

    fn check_copy<A: Arch>(a: A) {
        let src = bytes(5000, 1);
        for len in (0..=700).chain(4090..=4100) {
            for (so, dof) in [(0, 0), (1, 3), (7, 64 - 7), (5, 0), (0, 33)] {
                for stream in [false, true] {
                    let mut dst = vec![SENTINEL; len + 256];
                    let at = 64 + dof % 64;
                    // SAFETY: src[so..so+len] and dst[at..at+len] are in bounds and distinct; the token proves the level.
                    a.vectorize(|| unsafe { copy(a, src.as_ptr().add(so), dst.as_mut_ptr().add(at), len, stream) });
                    assert_eq!(
                        &dst[at..at + len],
                        &src[so..so + len],
                        "{:?} len {len} so {so} stream {stream}",
                        A::ISA
                    );
                    assert!(
                        dst[..at].iter().chain(&dst[at + len..]).all(|&b| b == SENTINEL),
                        "wrote outside, len {len}"
                    );
                }
            }
        }
    }
    level_job!(CopyJob, check_copy);

    #[test]
    fn copy_on_every_level() {
        on_every_level(|l| l.dispatch(CopyJob));
    }

    /// Long runs at the same offset in a line on both sides go through the string move where the CPU has fast strings
    /// (`copy_strings`, up to `rep_movsb_max`), around the threshold and longer; shorter runs and runs at different
    /// offsets are left to the registers (nothing copied, false).
    #[test]
    fn string_copies_of_long_runs() {
        let max = crate::cache::CacheSizes::rep_movsb_max();
        let min = crate::params::REP_MOVSB_MIN_BYTES;
        let src = bytes(70_000, 2);
        for len in [min - 1, min, min + 1, 8191, 65_549] {
            for (so, shift) in [(0, 0), (17, 0), (63, 0), (5, 1), (0, 32)] {
                let mut dst = vec![SENTINEL; len + 256];
                let want = (src.as_ptr() as usize + so + shift) % 64;
                let at = 64 + (want + 64 - dst.as_ptr() as usize % 64) % 64;
                // SAFETY: src[so..so+len] and dst[at..at+len] are in bounds and distinct.
                let done = unsafe {
                    crate::arch::copy_strings(
                        src.as_ptr().add(so),
                        dst.as_mut_ptr().add(at),
                        len,
                        crate::params::REP_MOVSB_MIN_BYTES,
                    )
                };
                let taken = len >= min && len <= max && shift == 0;
                assert_eq!(done, taken, "len {len} so {so} shift {shift}");
                if done {
                    assert_eq!(&dst[at..at + len], &src[so..so + len], "len {len} so {so}");
                    assert!(
                        dst[..at].iter().chain(&dst[at + len..]).all(|&b| b == SENTINEL),
                        "wrote outside, len {len}"
                    );
                } else {
                    assert!(dst.iter().all(|&b| b == SENTINEL), "copied nothing, len {len}");
                }
            }
        }
    }

    /// A streaming copy stores non-temporally only whole lines (`stream_lines`): its span starts and ends on lines,
    /// leaves less than a line on either side to regular stores, and is `None` only for outputs that cover no whole line.
    #[test]
    fn streamed_spans_are_whole_lines() {
        for past in 0..64usize {
            for bytes in 0..300usize {
                let whole = (past + bytes) / 64 > past.div_ceil(64);
                match crate::arch::stream_lines(4096 + past, bytes) {
                    Some((head, end)) => {
                        assert!((past + head) % 64 == 0 && (past + end) % 64 == 0, "{past} {bytes}: {head}..{end}");
                        assert!(
                            head < 64 && head < end && end <= bytes && bytes - end < 64,
                            "{past} {bytes}: {head}..{end}"
                        );
                    }
                    None => assert!(!whole, "{past} {bytes}"),
                }
            }
        }
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
        check_steps::<N>(name, isa, k * N as isize, n, misalign, f)
    }

    /// [`check_prefix`] for elements `step` bytes apart in the input (a whole number of elements or not).
    fn check_steps<const N: usize>(
        name: &str,
        isa: Isa,
        step: isize,
        n: usize,
        misalign: Option<usize>,
        f: impl FnOnce(*const u8, *mut u8) -> usize,
    ) -> usize {
        let span = if n == 0 { 0 } else { (n - 1) * step.unsigned_abs() + N };
        let src = bytes(span + 64, n as u32);
        let first = if step > 0 { 32 } else { 32 + span - N };
        let mut dst = vec![SENTINEL; n * N + 256];
        let to_boundary = (64 - dst.as_ptr() as usize % 64) % 64;
        let out = 64 + to_boundary + misalign.unwrap_or(0) % 64;
        let done = f(src[first..].as_ptr(), dst[out..].as_mut_ptr());
        assert!(done <= n, "{name} {isa:?} N {N} step {step} n {n}: did {done} of {n}");
        for i in 0..done {
            let e = (first as isize + i as isize * step) as usize;
            assert_eq!(&dst[out + i * N..][..N], &src[e..e + N], "{name} {isa:?} N {N} step {step} n {n} element {i}");
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
                        let k = if neg { -2 } else { 2 };
                        let done = check_prefix::<N>("gather2", A::ISA, k, n, mis, |s, d| {
                            // SAFETY: as above, with stride ±2 (every byte between the elements is readable).
                            a.vectorize(|| unsafe { gather2::<A, N>(a, s, d, n, neg, stream) })
                        });
                        if A::picks(N) && stream {
                            // Streamed: whole lines only (the caller stores the rest), all but the last at most.
                            assert!(
                                (done * N).is_multiple_of(64) && n - done <= 64 / N,
                                "{:?} streamed gather2 N {N}: {done} of {n}",
                                A::ISA
                            );
                        } else if A::picks(N) {
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

    /// `Arch::load_part`, where a level has it: bytes `lo..hi` from memory, the others zero, for every part that a
    /// stride-±2 row's last register or a reversed row's asks for (and a few no level takes).
    fn check_load_part<A: Arch>(a: A) {
        let b = A::BYTES;
        let src = bytes(3 * b, 7);
        let mut parts = vec![(0, b), (0, 0), (b / 2, b / 2), (b / 4, b - b / 4)];
        for k in [1, 2, 3, 4, 6, 8, 12, 16].into_iter().filter(|&k| k < b) {
            parts.extend([(0, b - k), (k, b)]);
        }
        for (lo, hi) in parts {
            let mut out = vec![SENTINEL; b];
            // SAFETY: bytes lo..hi at src + b are readable (so is the whole buffer around them); `out` holds a register.
            let got = a.vectorize(|| unsafe {
                a.load_part(src.as_ptr().add(b), lo, hi).map(|v| a.store(out.as_mut_ptr(), v)).is_some()
            });
            if got {
                for (t, &x) in out.iter().enumerate() {
                    let want = if (lo..hi).contains(&t) { src[b + t] } else { 0 };
                    assert_eq!(x, want, "{:?} load_part({lo}, {hi}) byte {t}", A::ISA);
                }
            }
            // AVX-512 masks any part; AVX2 takes the whole register and all but 1, 2, 4 or 8 bytes at either end.
            let short = |k: usize| [1, 2, 4, 8].contains(&k);
            let v3 =
                A::ISA == crate::arch::Isa::V3 && ((lo == 0 && (hi == b || short(b - hi))) || (hi == b && short(lo)));
            if A::BYTES == 64 || v3 {
                assert!(got, "{:?} load_part({lo}, {hi}) refused", A::ISA);
            }
        }
    }
    level_job!(LoadPartJob, check_load_part);

    #[test]
    fn load_part_on_every_level() {
        on_every_level(|l| l.dispatch(LoadPartJob));
    }

    #[test]
    fn reverse_and_gather_on_every_level() {
        on_every_level(|l| l.dispatch(ReverseGatherJob));
    }

    fn check_lanes<A: Arch>(a: A) {
        fn width<A: Arch, const N: usize>(a: A) {
            for k in [-5isize, -4, -3, -2, -1, 2, 3, 4, 5] {
                let lanes = Lanes {
                    shifts: None,
                    block: BlockShuffle::new(N, k, N),
                    wide: WideShuffle::new(N, k),
                    narrow: Shuffle::new(N, k),
                    spread: None,
                };
                for n in (1..200).step_by(3) {
                    // Half the rows as a walk from memory would run them (the wide lanes then prefetch ahead).
                    let far = n % 2 == 0;
                    let done = check_prefix::<N>("lanes", A::ISA, k, n, Some(n % 3), |s, d| {
                        // SAFETY: the row's elements lie at s + i·k·N and d + i·N inside check_prefix's buffers.
                        a.vectorize(|| unsafe {
                            crate::rows::shuffled::<A, N>(a, &lanes, s, d, 0, n, k * N as isize, N, far)
                        })
                    });
                    if let Some(t) = lanes.narrow.filter(|_| A::BYTES >= 32) {
                        assert!(n < t.slack || done > 0, "{:?} N {N} k {k} n {n}: no lane ran", A::ISA);
                    }
                    // Blocks (VBMI) finish every row of 64 elements or more, the last block overlapping the one before.
                    if lanes.block.is_some() && A::ISA == Isa::V4Vbmi {
                        assert!(n < 64 || done == n, "{:?} N {N} k {k} n {n}: blocks left {}", A::ISA, n - done);
                    }
                }
            }
            // Elements a few bytes more than their width apart (RGB pixels in RGBX slots), forwards and backwards.
            for step in [1isize, 2, 3, 5].into_iter().flat_map(|e| [N as isize + e, -(N as isize + e)]) {
                let lanes = Lanes {
                    shifts: None,
                    block: None,
                    wide: WideShuffle::stepping(N, step),
                    narrow: Shuffle::stepping(N, step),
                    spread: None,
                };
                for n in (1..200).step_by(3) {
                    let done = check_steps::<N>("lanes", A::ISA, step, n, Some(n % 3), |s, d| {
                        // SAFETY: the row's elements lie at s + i·step and d + i·N inside check_steps' buffers.
                        a.vectorize(|| unsafe {
                            crate::rows::shuffled::<A, N>(a, &lanes, s, d, 0, n, step, N, n % 2 == 0)
                        })
                    });
                    if let Some(t) = lanes.narrow.filter(|t| t.elems > 1 && A::BYTES >= 32) {
                        assert!(n < t.slack || done > 0, "{:?} N {N} step {step} n {n}: no lane ran", A::ISA);
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

    /// The lane pairs of table rows over runs of rows, forwards and backwards: each row's first `32·pairs` output bytes
    /// are a direct gather of its elements and nothing after them is written, no byte outside the rows' input spans is
    /// read (the run's input touches an inaccessible page at either end); levels with 32-byte registers run every pair.
    fn check_table_pairs<A: Arch>(a: A) {
        for &dims in TABLE_PATTERNS {
            for width in [1usize, 2, 4, 8] {
                let inputs = table_inputs(dims, width);
                let t = TableLanes::new(width, &inputs);
                let lo = *inputs.iter().min().unwrap();
                let span = (inputs.iter().max().unwrap() + width as isize - lo) as usize;
                let (row_in, row_out) = (span + 5, inputs.len() * width + 7);
                for (rows, back, end) in [(1, false, true), (3, false, true), (3, true, false), (4, true, true)] {
                    let src = bytes(span + (rows - 1) * row_in, (rows * width) as u32);
                    let guarded = Guarded::new(&src, end);
                    // Row r's span starts r rows up from the buffer's start (back: r rows down from its end).
                    let start = |r: usize| if back { (rows - 1 - r) * row_in } else { r * row_in };
                    let base = guarded.as_ptr().wrapping_add(start(0)).wrapping_offset(-lo);
                    let step = if back { -(row_in as isize) } else { row_in as isize };
                    let mut dst = vec![SENTINEL; rows * row_out];
                    // SAFETY: whole rows of the table `row_in` bytes apart inside the guarded copy, each row's output
                    // inside `dst`: the pairs' windows lie in the rows' spans and their stores in the rows' outputs.
                    let ran =
                        a.vectorize(|| unsafe { a.table_pairs(&t.pairs, base, step, dst.as_mut_ptr(), row_out, rows) });
                    let case = format!("{:?} w{width} {dims:?} rows {rows} back {back}", A::ISA);
                    assert!(ran == 0 || ran == t.pairs.len(), "{case}: ran {ran}");
                    if A::BYTES >= 32 {
                        assert_eq!(ran, t.pairs.len(), "{case}");
                    }
                    for r in 0..rows {
                        let row = &src[start(r)..];
                        let want = inputs.iter().flat_map(|&i| row[(i - lo) as usize..][..width].iter().copied());
                        let (got, rest) = dst[r * row_out..][..row_out].split_at(32 * ran);
                        assert!(got.iter().copied().eq(want.take(32 * ran)), "{case}: row {r}");
                        assert!(rest.iter().all(|&b| b == SENTINEL), "{case}: row {r} written past its pairs");
                    }
                }
            }
        }
    }
    level_job!(TablePairsJob, check_table_pairs);

    #[test]
    fn table_pairs_on_every_level() {
        on_every_level(|l| l.dispatch(TablePairsJob));
    }

    /// Spreads of contiguous elements into wider slots: every lane run lands its slots' element bytes and leaves the
    /// spare bytes (and everything past the row) untouched, reading nothing past the row (next to an inaccessible
    /// page); AVX-512 levels run every lane the tables allow (VBMI four at a time).
    fn check_spreads<A: Arch>(a: A) {
        for width in [1usize, 2, 3, 4, 6, 8, 12] {
            for step in width + 1..=16 {
                let t = Spread::new(width, step as isize).unwrap();
                for n in [0usize, 1, 2, 5, 6, 17, 40, 65, 130] {
                    let src = bytes(n * width, (n + width * step) as u32);
                    let guarded = Guarded::new(&src, true);
                    let mut dst = vec![SENTINEL; n * step + 64];
                    let lanes = t.lanes(n);
                    // SAFETY: `lanes` from the tables for a row of n contiguous elements and n slots.
                    let ran = a.vectorize(|| unsafe { a.spread_lanes(&t, guarded.as_ptr(), dst.as_mut_ptr(), lanes) });
                    assert!(ran == 0 || ran == lanes, "{:?} w{width} s{step} n{n}: ran {ran} of {lanes}", A::ISA);
                    if A::BYTES == 64 {
                        assert_eq!(ran, lanes, "{:?} w{width} s{step} n{n}", A::ISA);
                    }
                    let done = ran * t.elems;
                    for (i, slot) in dst.chunks(step).enumerate() {
                        let (elem, spare) = slot.split_at(width.min(slot.len()));
                        if i < done {
                            assert_eq!(elem, &src[i * width..][..width], "{:?} w{width} s{step} n{n} slot {i}", A::ISA);
                        } else {
                            assert!(
                                elem.iter().all(|&b| b == SENTINEL),
                                "{:?} w{width} s{step}: wrote slot {i}",
                                A::ISA
                            );
                        }
                        assert!(
                            spare.iter().all(|&b| b == SENTINEL),
                            "{:?} w{width} s{step}: spare bytes written",
                            A::ISA
                        );
                    }
                }
            }
        }
    }
    level_job!(SpreadJob, check_spreads);

    #[test]
    fn spreads_on_every_level() {
        on_every_level(|l| l.dispatch(SpreadJob));
    }

    /// Every tile kind of `N`-byte elements with the map `m`: each destination element is the map of its source
    /// element, nothing else written.
    fn check_tiles<A: Arch, const N: usize, M: TileMap + core::fmt::Debug>(a: A, m: M) {
        // The mapped source element (r, c) of rows `ss` bytes apart.
        let mapped =
            |src: &[u8], ss: usize, r: usize, c: usize| m.element::<N>(src[r * ss + c * N..][..N].try_into().unwrap());
        {
            // tile8: rows of 11 elements in, rows of 10 elements out
            let (ss, ds) = (11 * N, 10 * N);
            let src = bytes(8 * ss, N as u32);
            let mut dst = vec![SENTINEL; 8 * ds];
            // SAFETY: 8 rows of 8 elements at ss-byte steps in src, 8 rows at ds-byte steps in dst.
            a.vectorize(|| unsafe { a.tile8::<N, M>(src.as_ptr(), ss as isize, dst.as_mut_ptr(), ds as isize, m) });
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!(dst[c * ds + r * N..][..N], mapped(&src, ss, r, c), "{:?} tile8 N {N} {m:?}", A::ISA);
                }
                assert!(dst[r * ds + 8 * N..(r + 1) * ds].iter().all(|&b| b == SENTINEL));
            }
            // The level's tile, rows of cols + 3 elements in and rows + 2 out; streamed, into rows a line apart
            // past the tile's (destination rows on line boundaries, as the contract asks).
            let (tr, tc) = A::tile_shape::<N>();
            assert!((tr, tc) == (8, 8) || tr * N == 64, "{:?} shape {tr}x{tc} N {N}", A::ISA);
            for stream in [false, true] {
                let ss = (tc + 3) * N;
                let ds = if stream { (tr * N).div_ceil(64) * 64 + 64 } else { (tr + 2) * N };
                let src = bytes(tr * ss, N as u32 + 7);
                let mut buf = vec![SENTINEL; tc * ds + 64];
                let lead = buf.as_ptr().align_offset(64);
                let dst = &mut buf[lead..lead + tc * ds];
                // SAFETY: tr rows of tc elements at ss-byte steps in src, tc rows of tr at ds-byte steps in dst, each on
                // a line boundary when streamed; the fence orders the streamed stores before the reads below.
                a.vectorize(|| unsafe {
                    a.tile::<N, M>(src.as_ptr(), ss as isize, dst.as_mut_ptr(), ds as isize, stream, m);
                    core::arch::x86_64::_mm_sfence();
                });
                for c in 0..tc {
                    for r in 0..tr {
                        assert_eq!(
                            dst[c * ds + r * N..][..N],
                            mapped(&src, ss, r, c),
                            "{:?} tile N {N} ({r}, {c}) stream {stream} {m:?}",
                            A::ISA
                        );
                    }
                    assert!(dst[c * ds + tr * N..(c + 1) * ds].iter().all(|&b| b == SENTINEL));
                }
            }
            // Runs of 0 to 3 of the level's tiles down a column of tiles and across a row of them: exactly the runs'
            // elements (streamed into rows on line boundaries); and with the first rows of each tile wrapped (read two
            // elements further along their rows).
            let wrapped = |every| Wrap { rows: tr / 2 + 1, offset: 2 * N as isize, every };
            for (count, down, stream, wrap) in [
                (3, true, false, Wrap::NONE),
                (3, false, false, Wrap::NONE),
                (2, true, true, Wrap::NONE),
                (3, false, true, Wrap::NONE),
                (0, true, false, Wrap::NONE),
                (3, true, true, wrapped(false)),
                (3, false, false, wrapped(true)),
                (2, false, true, wrapped(false)),
                (3, true, false, wrapped(false)),
                (2, true, false, wrapped(true)),
            ] {
                let (rows, cols) = if down { (3 * tr, tc) } else { (tr, 3 * tc) };
                let ss = (3 * tc + 3) * N;
                let ds = if stream { (3 * tr * N).div_ceil(64) * 64 + 64 } else { (3 * tr + 2) * N };
                let src = bytes(3 * tr * ss, N as u32 + 3);
                let mut buf = vec![SENTINEL; 3 * tc * ds + 64];
                let lead = buf.as_ptr().align_offset(64);
                let dst = &mut buf[lead..lead + 3 * tc * ds];
                let steps = if down {
                    ((tr * ss) as isize, (tr * N) as isize)
                } else {
                    ((tc * N) as isize, (tc * ds) as isize)
                };
                // SAFETY: tiles k < count at (k·tr, 0) or (0, k·tc), inside the 3tr × (3tc + 3) source (wrapped rows two
                // elements further, still inside) and the 3tc rows of 3tr + 2 elements (or a line past them) of the
                // destination, on line boundaries when streamed.
                a.vectorize(|| unsafe {
                    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
                    a.tile_run::<N, M>(
                        TileRun { src: s, ss: ss as isize, wrap, dst: d, ds: ds as isize, count, steps },
                        stream,
                        m,
                    );
                    core::arch::x86_64::_mm_sfence();
                });
                let (rows, cols) = if count == 0 { (0, 0) } else { (rows.min(count * tr), cols.min(count * tc)) };
                for c in 0..3 * tc {
                    for r in 0..3 * tr {
                        let got = &dst[c * ds + r * N..][..N];
                        if r < rows && c < cols {
                            let wrapped = r % tr < wrap.rows && (wrap.every || r < tr && c < tc);
                            let shift = if wrapped { 2 } else { 0 };
                            assert_eq!(
                                got,
                                mapped(&src, ss, r, c + shift),
                                "{:?} run {count} down {down} {wrap:?} N {N} ({r}, {c})",
                                A::ISA
                            );
                        } else {
                            assert!(
                                got.iter().all(|&b| b == SENTINEL),
                                "{:?} run {count} down {down} wrote ({r}, {c})",
                                A::ISA
                            );
                        }
                    }
                }
            }
            // The line-wide stack of 8×8 tiles: 64 / N rows of 11 elements in, 8 rows of 64 / N + 2 out, or streamed
            // into rows a line apart past the stack's.
            assert!(!A::stack_tiles::<N>() || (A::BYTES >= 32 && N <= 4), "{:?} stacks N {N}", A::ISA);
            if N <= 8 {
                let h = 64 / N;
                for stream in [false, true] {
                    let ss = 11 * N;
                    let ds = if stream { 128 } else { (h + 2) * N };
                    let src = bytes(h * ss, N as u32 + 5);
                    let mut buf = vec![SENTINEL; 8 * ds + 64];
                    let lead = buf.as_ptr().align_offset(64);
                    let dst = &mut buf[lead..lead + 8 * ds];
                    // SAFETY: h rows of 8 elements at ss-byte steps in src, 8 rows of h at ds-byte steps in dst, each on
                    // a line boundary when streamed; the fence orders the streamed stores before the reads below.
                    a.vectorize(|| unsafe {
                        a.tile_stack::<N, M>(src.as_ptr(), ss as isize, dst.as_mut_ptr(), ds as isize, stream, m);
                        core::arch::x86_64::_mm_sfence();
                    });
                    for c in 0..8 {
                        for r in 0..h {
                            assert_eq!(
                                dst[c * ds + r * N..][..N],
                                mapped(&src, ss, r, c),
                                "{:?} stack N {N} ({r}, {c}) stream {stream} {m:?}",
                                A::ISA
                            );
                        }
                        assert!(dst[c * ds + h * N..(c + 1) * ds].iter().all(|&b| b == SENTINEL));
                    }
                }
            }
            // Every partial tile up to 16×16: exactly its elements, or nothing where the level has none.
            let (ss, ds) = (19 * N, 18 * N);
            let src = bytes(16 * ss, N as u32 + 9);
            for rows in 0..=16 {
                for cols in 0..=16 {
                    let mut dst = vec![SENTINEL; 16 * ds];
                    // SAFETY: 16 rows of 16 elements at ss-byte steps in src, as many at ds-byte steps in dst.
                    let done = a.vectorize(|| unsafe {
                        a.tile_part::<N, M>(src.as_ptr(), ss as isize, dst.as_mut_ptr(), ds as isize, rows, cols, m)
                    });
                    for c in 0..16 {
                        for r in 0..16 {
                            let got = &dst[c * ds + r * N..][..N];
                            if done && r < rows && c < cols {
                                assert_eq!(got, mapped(&src, ss, r, c), "{:?} tile {rows}x{cols} N {N} {m:?}", A::ISA);
                            } else {
                                assert!(
                                    got.iter().all(|&b| b == SENTINEL),
                                    "{:?} tile {rows}x{cols} wrote ({r}, {c})",
                                    A::ISA
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    fn check_tiles_and_planes<A: Arch>(a: A) {
        fn width<A: Arch, const N: usize>(a: A) {
            check_tiles::<A, N, Ident>(a, Ident);
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
                    // (SIMD levels leave less than one 16-byte step of pixels.)
                    assert!(
                        done <= n && (A::ISA == Isa::Scalar || n - done < 16 / N),
                        "{:?} left {}",
                        A::ISA,
                        n - done
                    );
                    for j in 0..done {
                        for c in 0..planes {
                            assert_eq!(&pixels[(j * planes + c) * N..][..N], &planar[c * ps + j * N..][..N]);
                        }
                    }
                    assert!(pixels[done * planes * N..].iter().all(|&b| b == SENTINEL), "{:?} interleave", A::ISA);
                    // Deinterleave, pixels forwards or mirrored, channels in order or reversed, pixels filling their
                    // slots or in wider ones (RGBX), read from a tight buffer next to an inaccessible page.
                    let orders = [(false, false), (true, false), (false, true), (true, true)];
                    for (slots, (rp, rc)) in (planes..=4).flat_map(|s| orders.map(|o| (s, o))) {
                        let t = Planar::deinterleave(N, planes, slots, rp, rc).unwrap();
                        let (guarded, src, first) = slotted::<N>(n, planes, slots, rp, 7);
                        let readable = t.readable(n);
                        for guarded in &guarded {
                            let mut back = vec![SENTINEL; planes * ps];
                            // SAFETY: the windows of the first `readable` pixels lie inside the buffer from `first`
                            // (forwards or backwards); planes of n elements.
                            let done = a.vectorize(|| unsafe {
                                let first = guarded.as_ptr().wrapping_add(first);
                                a.deinterleave::<N>(&t, first, back.as_mut_ptr(), ps as isize, readable)
                            });
                            let case =
                                format!("{:?} deinterleave N{N} p{planes} s{slots} rp {rp} rc {rc} n {n}", A::ISA);
                            assert!(
                                done <= readable && (A::ISA == Isa::Scalar || readable - done < 16 / N),
                                "{case}: {done}"
                            );
                            for j in 0..done {
                                let px = if rp { n - 1 - j } else { j };
                                for c in 0..planes {
                                    let ch = if rc { planes - 1 - c } else { c };
                                    let want = &src[(px * slots + ch) * N..][..N];
                                    assert_eq!(&back[c * ps + j * N..][..N], want, "{case}: pixel {j} plane {c}");
                                }
                            }
                            for c in 0..planes {
                                assert!(back[c * ps + done * N..(c + 1) * ps].iter().all(|&b| b == SENTINEL), "{case}");
                            }
                        }
                    }
                }
            }
        }
        width::<A, 1>(a);
        width::<A, 2>(a);
        width::<A, 4>(a);
        width::<A, 8>(a);
        width::<A, 16>(a);
        // Maps on every width their lanes divide (f16 lanes on AVX2 too: there the conversions are calls).
        let (f32s, f16s) = (AffineF32 { scale: -1.5, bias: 0.25 }, AffineF16 { scale: 0.75, bias: -2.0 });
        check_tiles::<A, 4, _>(a, f32s);
        check_tiles::<A, 8, _>(a, f32s);
        check_tiles::<A, 2, _>(a, f16s);
        check_tiles::<A, 4, _>(a, f16s);
        check_tiles::<A, 16, _>(a, f16s);
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
        // f32 → f16 transposed through tiles (every level: the default one element at a time): blocks of 64 rows of
        // 32 values, rows padded on both sides, and of 96 packed rows of 16 (AVX2: one run down the block); the
        // output's padding untouched.
        let shapes = [(64usize, 32usize, 32 * 4 + 16, 64 * 2 + 64), (96, 16, 16 * 4, 96 * 2 + 64)];
        for (ni, nj, si, dj) in shapes {
            for block in x.chunks_exact(ni * nj).step_by(97).take(8) {
                let mut src = vec![0f32; ni * si / 4];
                for (i, row) in block.chunks(nj).enumerate() {
                    src[i * si / 4..][..nj].copy_from_slice(row);
                }
                let mut out = vec![0xEEEEu16; nj * dj / 2];
                let (s, d) = (src.as_ptr().cast(), out.as_mut_ptr().cast());
                // SAFETY: ni rows of nj f32 si bytes apart, nj rows of ni f16 dj bytes apart; multiples of every level's
                // tiles (32 × 16 at most); regular stores.
                a.vectorize(|| unsafe { a.tiles_f32_to_f16(s, si as isize, d, dj as isize, ni, nj, false) });
                for (j, row) in out.chunks(dj / 2).enumerate() {
                    for (i, &h) in row.iter().enumerate() {
                        let want = if i < ni { f32_to_f16_scalar(block[i * nj + j]) } else { 0xEEEE };
                        assert_eq!(h, want, "{:?} tiles_f32_to_f16 {ni}×{nj} ({i}, {j})", A::ISA);
                    }
                }
            }
        }
        // f16 scale/bias: widen, product, sum, round once; also in place.
        for (scale, bias) in [(0.5f32, 1.0f32), (-3.0, 0.125), (1e4, -7.0), (f32::MIN_POSITIVE, 0.0)] {
            let want: Vec<u16> = h.iter().map(|&x| f32_to_f16_scalar(f16_to_f32_scalar(x) * scale + bias)).collect();
            let mut got = vec![0u16; h.len()];
            // SAFETY: 65536 elements each side.
            let done = a.vectorize(|| unsafe {
                a.affine_f16(h.as_ptr().cast(), got.as_mut_ptr().cast(), h.len(), scale, bias)
            });
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
            assert_eq!(
                o[i].to_bits(),
                f64_to_f32_odd_scalar(d[i]).to_bits(),
                "{:?} f64 {:016x}",
                A::ISA,
                d[i].to_bits()
            );
        }
    }
    level_job!(ConversionsJob, check_conversions);

    #[test]
    fn conversions_on_every_level() {
        on_every_level(|l| l.dispatch(ConversionsJob));
    }

    /// The scalar meaning of a normalization in registers: the input element (bytes `x`) exactly in f32, `x·scale +
    /// bias` in f32, stored as f32, f16 rounded to nearest even, or a byte rounded to nearest even and saturated with
    /// NaN giving 0 (Rust's `as` after rounding).
    fn norm_scalar(k: Norm, x: &[u8], scale: f32, bias: f32) -> Vec<u8> {
        let v = match k.from {
            NormType::U8 => f32::from(x[0]),
            NormType::I8 => f32::from(x[0] as i8),
            NormType::F16 => f16_to_f32_scalar(u16::from_le_bytes([x[0], x[1]])),
            NormType::F32 => f32::from_le_bytes([x[0], x[1], x[2], x[3]]),
        };
        let y = v * scale + bias;
        match k.out {
            NormType::F32 => y.to_le_bytes().to_vec(),
            NormType::F16 => f32_to_f16_scalar(y).to_le_bytes().to_vec(),
            NormType::U8 => vec![y.round_ties_even() as u8],
            NormType::I8 => vec![y.round_ties_even() as i8 as u8],
        }
    }

    /// The scalar meaning of a byte normalization of the byte `x`.
    fn byte_norm_scalar(k: Norm, x: u8, scale: f32, bias: f32) -> Vec<u8> {
        norm_scalar(k, &[x], scale, bias)
    }

    /// `normalize_run` of the elements in `src` with one pair, with regular and with streaming stores (into a 64-byte
    /// aligned destination): at most 15 elements left on a SIMD level, every element done equal to its scalar meaning,
    /// nothing written past them.
    fn check_norm_run<A: Arch>(a: A, k: Norm, src: &[u8], [scale, bias]: [f32; 2]) {
        let n = src.len() / k.from.width();
        for stream in [false, true] {
            // SAFETY: n elements in, n elements out (64-byte aligned by `check_norm_output`).
            check_norm_output(
                a,
                k,
                src,
                stream,
                |d| unsafe { a.normalize_run(k, Span { src: src.as_ptr(), dst: d, n, stream }, scale, bias) },
                |_| [scale, bias],
            );
        }
    }

    /// [`check_norm_run`] for `normalize_periodic` with the pattern of the channel pairs `per` from `phase` on.
    fn check_norm_periodic<A: Arch>(a: A, k: Norm, src: &[u8], per: &[[f32; 2]], phase: usize) {
        let n = src.len() / k.from.width();
        let p = crate::tables::Periodic::new(per, k.byte_signs()).unwrap();
        for stream in [false, true] {
            // SAFETY: as above.
            check_norm_output(
                a,
                k,
                src,
                stream,
                |d| unsafe { a.normalize_periodic(k, Span { src: src.as_ptr(), dst: d, n, stream }, &p, phase) },
                |i| per[(phase + i) % per.len()],
            );
        }
    }

    /// Runs `f` into a 64-byte aligned destination of the elements of `src` and checks what it did: element `i`
    /// normalized with the pair `pair(i)`.
    fn check_norm_output<A: Arch>(
        a: A,
        k: Norm,
        src: &[u8],
        stream: bool,
        f: impl FnOnce(*mut u8) -> usize,
        pair: impl Fn(usize) -> [f32; 2],
    ) {
        let (iw, ow) = (k.from.width(), k.out.width());
        let n = src.len() / iw;
        let mut storage = vec![SENTINEL; n * ow + 128];
        let at = storage.as_ptr().align_offset(64);
        let dst = &mut storage[at..at + n * ow + 64];
        let d = dst.as_mut_ptr();
        let done = a.vectorize(|| f(d));
        if stream {
            fence_for_tests();
        }
        assert!(done <= n && (A::ISA == Isa::Scalar || n - done < 16), "{:?} left {} of {n}", A::ISA, n - done);
        for i in 0..done {
            let [scale, bias] = pair(i);
            let want = norm_scalar(k, &src[i * iw..][..iw], scale, bias);
            assert_eq!(
                dst[i * ow..][..ow],
                want,
                "{:?} {k:?} stream {stream} {i} of {:02x?}",
                A::ISA,
                &src[i * iw..][..iw]
            );
        }
        assert!(dst[done * ow..].iter().all(|&b| b == SENTINEL), "{:?} wrote past {done}", A::ISA);
    }

    /// Float inputs (f16, f32) into every output type, constant and periodic pairs: random bit patterns (NaNs of
    /// every payload, infinities, subnormals) mixed with values around the one-byte outputs' ties and bounds.
    fn check_float_norm<A: Arch>(a: A) {
        let outs = [NormType::F32, NormType::F16, NormType::U8, NormType::I8];
        let pairs = [[1.0f32, 0.0], [1.0 / 0.229, -0.485 / 0.229], [-3.5, 1e-3], [1e30, 7.0], [0.0, -0.5]];
        let special = [0.5f32, 1.5, 2.5, -0.5, -1.5, 127.5, 128.5, 254.5, 255.5, -128.5, -129.0, 1e9, -1e9, 0.0, -0.0];
        for from in [NormType::F16, NormType::F32] {
            for out in outs {
                let k = Norm { from, out };
                for n in [0usize, 1, 15, 16, 17, 31, 32, 33, 64, 100, 257] {
                    let raw = bytes(n * from.width(), 11 + n as u32);
                    // Every third element a special value (in the input type), the others random bits.
                    let src: Vec<u8> = (0..n)
                        .flat_map(|i| {
                            let e = &raw[i * from.width()..][..from.width()];
                            let x = special[i % special.len()];
                            match (from, i % 3) {
                                (NormType::F16, 0) => f32_to_f16_scalar(x).to_le_bytes().to_vec(),
                                (NormType::F32, 0) => x.to_le_bytes().to_vec(),
                                _ => e.to_vec(),
                            }
                        })
                        .collect();
                    for pair in pairs {
                        check_norm_run(a, k, &src, pair);
                    }
                    for channels in 1..=5usize {
                        let per: Vec<[f32; 2]> = (0..channels).map(|c| pairs[(c + n) % pairs.len()]).collect();
                        let period = crate::tables::Periodic::new(&per, None).unwrap().period();
                        for phase in [0, 1, channels, period - 1] {
                            check_norm_periodic(a, k, &src, &per, phase);
                        }
                    }
                }
            }
        }
    }
    level_job!(FloatNormJob, check_float_norm);

    #[test]
    fn float_normalization_on_every_level() {
        on_every_level(|l| l.dispatch(FloatNormJob));
    }

    fn check_byte_norm<A: Arch>(a: A) {
        let outs = [NormType::F32, NormType::F16, NormType::U8, NormType::I8];
        let kinds = [NormType::U8, NormType::I8].into_iter().flat_map(|from| outs.map(|out| Norm { from, out }));
        // (Into bytes: ties (0.5 steps), values past both ends, and infinities from a huge scale; results just inside
        // the bound of `byte_results_fit_i32` (the levels' kernels without a float clamp) and just outside it.)
        let pairs = [
            [1.0f32, 0.0],
            [1.0 / (255.0 * 0.229), -0.485 / 0.229],
            [-3.5, 1e-3],
            [1e30, 7.0],
            [0.5, 0.25],
            [4.19e6, 1.0e6],
            [-4.2e6, 0.5],
            [f32::NAN, 1.0],
        ];
        assert!(crate::float::byte_results_fit_i32(4.19e6, 1.0e6) && !crate::float::byte_results_fit_i32(-4.2e6, 0.5));
        for k in kinds {
            for n in [0usize, 1, 15, 16, 17, 31, 32, 33, 48, 64, 96, 100, 257] {
                let src = bytes(n, n as u32);
                for pair in pairs {
                    check_norm_run(a, k, &src, pair);
                }
                // A pair per element from a periodic pattern of 1 to 7 channels, starting at any phase.
                for channels in 1..=7usize {
                    let per: Vec<[f32; 2]> = (0..channels).map(|c| pairs[(c + n) % pairs.len()]).collect();
                    let period = crate::tables::Periodic::new(&per, None).unwrap().period();
                    for phase in [0, 1, channels, period - 1] {
                        check_norm_periodic(a, k, &src, &per, phase);
                    }
                }
                // Deinterleave of 2..4 planes, pixels and channels in either order, regular or streaming stores.
                for (planes, stream) in (2..=4).flat_map(|p| [(p, false), (p, true)]) {
                    check_byte_deinterleave(a, k, n, planes, stream, &pairs);
                }
            }
        }
    }

    /// The fused deinterleave of `n` one-byte pixels of `planes` planes (in slots of `planes` to 4 bytes, read from a
    /// tight buffer next to an inaccessible page) into `k.out` planes with the pairs `pairs[(i + n) % len]` per plane,
    /// pixels and channels in either order, against the scalar meaning; nothing written past the pixels done, at most
    /// 15 left on SIMD levels where the kernel takes the parameters.
    fn check_byte_deinterleave<A: Arch>(a: A, k: Norm, n: usize, planes: usize, stream: bool, pairs: &[[f32; 2]]) {
        let ow = k.out.width();
        let orders = [(false, false), (true, false), (false, true), (true, true)];
        for (slots, (rp, rc)) in (planes..=4).flat_map(|s| orders.map(|o| (s, o))) {
            let t = Planar::deinterleave(1, planes, slots, rp, rc).unwrap();
            let (guards, pixels, first) = slotted::<1>(n, planes, slots, rp, 3 + n as u32);
            let readable = t.readable(n);
            for guarded in &guards {
                // Streaming stores need 64-byte aligned planes.
                let ps = if stream { (n * ow).next_multiple_of(64) + 64 } else { n * ow + 24 };
                let mut params = [[0f32; 2]; 4];
                for (i, p) in params.iter_mut().enumerate().take(planes) {
                    *p = pairs[(i + n) % pairs.len()];
                }
                let mut storage = vec![SENTINEL; planes * ps + 64];
                let at = storage.as_ptr().align_offset(64);
                let dst = &mut storage[at..at + planes * ps];
                // SAFETY: the windows of the first `readable` pixels lie in the buffer from `first`, forwards or
                // backwards; planes of n elements, 64-byte aligned when streaming.
                let done = a.vectorize(|| unsafe {
                    let span =
                        Span { src: guarded.as_ptr().wrapping_add(first), dst: dst.as_mut_ptr(), n: readable, stream };
                    let one = RowRun { count: 1, in_step: 0, out_step: 0 };
                    a.deinterleave_convert(crate::arch::FusedConvert::Bytes(k), &t, span, ps as isize, &params, one)
                });
                if stream {
                    fence_for_tests();
                }
                // (Into one-byte integers only with every plane's results inside i32: no float clamp.)
                let fused = matches!(k.out, NormType::F32 | NormType::F16)
                    || params[..planes].iter().all(|&[s, b]| crate::float::byte_results_fit_i32(s, b));
                let case = format!("{:?} {k:?} planes {planes} slots {slots} rp {rp} rc {rc} n {n}", A::ISA);
                assert!(
                    done <= readable && (A::ISA == Isa::Scalar || !fused || readable - done < 16),
                    "{case}: {done}"
                );
                for j in 0..done {
                    let px = if rp { n - 1 - j } else { j };
                    for c in 0..planes {
                        let ch = if rc { planes - 1 - c } else { c };
                        let [s, b] = params[c];
                        let want = byte_norm_scalar(k, pixels[px * slots + ch], s, b);
                        assert_eq!(dst[c * ps + j * ow..][..ow], want, "{case}: pixel {j} plane {c}");
                    }
                }
                for c in 0..planes {
                    assert!(dst[c * ps + done * ow..(c + 1) * ps].iter().all(|&b| b == SENTINEL));
                }
            }
        }
    }

    level_job!(ByteNormJob, check_byte_norm);

    #[test]
    fn byte_normalization_on_every_level() {
        on_every_level(|l| l.dispatch(ByteNormJob));
    }

    /// Long runs into one-byte integers (where VBMI looks results up in tables of 256), constant and with patterns of
    /// 1 to 5 channels at every phase, against the scalar meaning, element by element.
    fn check_long_byte_runs<A: Arch>(a: A) {
        let pairs = [
            [1.0f32, 0.0],
            [0.5, 0.25],
            [-3.5, 1e-3],
            [1e30, 7.0],
            [1.0 / 0.229, -128.5],
            [0.0, -0.5],
            [0.5, 0.0],
            [1.0 / (0.229 * 0.0186), -113.7],
        ];
        for from in [NormType::U8, NormType::I8] {
            for out in [NormType::U8, NormType::I8] {
                let k = Norm { from, out };
                // Most of these pairs have a fixed-point form (AVX2 takes it on runs of FIXED_RUN_MIN elements or more,
                // and for patterns): x·0.5 has ties, 1e30 no results inside i32.
                let (si, so) = k.byte_signs().unwrap();
                let fixed = |&[s, b]: &[f32; 2]| {
                    let guess = crate::float::FixedAffine::guess(s, b);
                    let form = crate::float::FixedAffine::shift_for(s, b)
                        .and_then(|k| crate::float::FixedAffine::at(s, b, si, so, k));
                    form.is_some() && guess.is_some()
                };
                assert!(pairs.iter().filter(|p| fixed(p)).count() >= 5, "{k:?}");
                assert!(!fixed(&[0.5, 0.0]) && !fixed(&[1e30, 7.0]));
                for n in [2048usize, 2048 + 63, crate::arch::FIXED_RUN_MIN, 5000] {
                    // Long rows of pixels into planes (VBMI through tables).
                    for (planes, stream) in [(3, false), (4, true)] {
                        check_byte_deinterleave(a, k, n, planes, stream, &pairs);
                    }
                    let src = bytes(n, 7 + n as u32);
                    for pair in pairs {
                        check_norm_run(a, k, &src, pair);
                    }
                    for channels in 1..=5usize {
                        let per: Vec<[f32; 2]> = (0..channels).map(|c| pairs[(c + n) % pairs.len()]).collect();
                        for phase in 0..channels + 1 {
                            check_norm_periodic(a, k, &src, &per, phase);
                        }
                    }
                }
            }
        }
    }
    level_job!(LongByteRunsJob, check_long_byte_runs);

    #[test]
    fn long_byte_runs_into_bytes_on_every_level() {
        on_every_level(|l| l.dispatch(LongByteRunsJob));
    }

    /// `convert_windows`: blocks of 16 one-byte pixels of 1, 3 and 4 channels read mirrored, with their channels
    /// reversed, out of wider slots, subsampled and combinations, from tight buffers next to an inaccessible page on
    /// either side, normalized into every output type with one pair (fitting i32 or not) and with per-channel patterns
    /// (with and without a fixed-point form), streamed and not: every block done on the SIMD levels (but the byte
    /// cases they leave to the buffer), each element its scalar meaning in order, nothing written past the blocks.
    fn check_windows<A: Arch>(a: A) {
        use crate::tables::{Periodic, PixelWindows};
        let types = [NormType::U8, NormType::I8];
        let outs = [NormType::F32, NormType::F16, NormType::U8, NormType::I8];
        let singles = [[0.017f32, -2.1], [1.0, 0.0], [1e30, 7.0]];
        let patterns: [&[[f32; 2]]; 3] = [
            &[[0.017, -2.1], [0.0175, -2.0], [0.0174, -1.8], [0.5, 3.0]],
            &[[1.0 / 0.229, -128.5], [0.5, 0.25], [-3.5, 1e-3], [2.0, -7.0]],
            &[[1e30, 7.0], [0.5, 0.25], [1.0, 0.0], [3.0, 1.0]],
        ];
        let mut built = 0;
        for c in [1usize, 3, 4] {
            let ci = c as isize;
            let reads = [(-ci, false), (ci, true), (-ci, true), (ci + 1, false), (-ci - 1, true), (2 * ci, false)];
            for (step, swapped) in reads {
                let Some(w) = PixelWindows::new(c, step, swapped) else { continue };
                built += 1;
                let cstep: isize = if swapped { -1 } else { 1 };
                for (blocks, count) in [(1usize, 1usize), (2, 3), (5, 1)] {
                    let n = 16 * blocks * c;
                    // Input byte of element t, from pixel 0's channel 0; the span from the lowest to the highest. Rows
                    // `in_step` bytes apart (a gap between them), outputs `out_step` apart (64-byte aligned).
                    let from = |t: usize| (t / c) as isize * step + (t % c) as isize * cstep;
                    let (lo, hi) = ((0..n).map(from).min().unwrap(), (0..n).map(from).max().unwrap());
                    let in_step = hi - lo + 1 + 5;
                    let src =
                        bytes((count - 1) * in_step as usize + (hi - lo + 1) as usize, (3 + n as isize + step) as u32);
                    let out_step = (n * 4).next_multiple_of(64) + 64;
                    for guarded in [Guarded::new(&src, false), Guarded::new(&src, true)] {
                        let base = guarded.as_ptr().wrapping_offset(-lo);
                        let x = |row: usize, t: usize| src[row * in_step as usize + (from(t) - lo) as usize];
                        for (fr, out) in types.iter().flat_map(|&f| outs.iter().map(move |&o| (f, o))) {
                            let k = Norm { from: fr, out };
                            let ow = out.width();
                            let mut cases: Vec<(WindowPairs<'_>, Vec<[f32; 2]>)> = Vec::new();
                            let made: Vec<Periodic> =
                                patterns.iter().map(|per| Periodic::new(&per[..c], k.byte_signs()).unwrap()).collect();
                            for &[s, b] in &singles {
                                cases.push((WindowPairs::One(s, b), vec![[s, b]; c]));
                            }
                            for (p, per) in made.iter().zip(patterns) {
                                cases.push((WindowPairs::Pattern(p), per[..c].to_vec()));
                            }
                            for (pairs, per) in &cases {
                                for stream in [false, true] {
                                    let mut storage = vec![SENTINEL; count * out_step + 64];
                                    let at = storage.as_ptr().align_offset(64);
                                    let dst = &mut storage[at..at + count * out_step];
                                    let d = dst.as_mut_ptr();
                                    let rows = RowRun { count, in_step, out_step: out_step as isize };
                                    // SAFETY: every block's pixels' span is readable in every row (the guarded copy),
                                    // n outputs writable at each row's 64-byte aligned output.
                                    let done = a.vectorize(|| unsafe {
                                        a.convert_windows(
                                            k,
                                            &w,
                                            Span { src: base, dst: d, n: blocks, stream },
                                            rows,
                                            *pairs,
                                        )
                                    });
                                    if stream {
                                        fence_for_tests();
                                    }
                                    // (Into one-byte integers: only pairs whose results fit i32; not with VBMI, whose
                                    // tables read through a buffer, nor rows of single elements into f16, unless
                                    // subsampled.)
                                    let fit = match pairs {
                                        WindowPairs::One(s, b) => crate::float::byte_results_fit_i32(*s, *b),
                                        WindowPairs::Pattern(p) => p.bytes_fit(),
                                    };
                                    let vbmi = A::ISA == Isa::V4Vbmi;
                                    let subsampled = c == 1 && step > 1;
                                    let tables =
                                        vbmi && (k.bytes_to_bytes() || (out == NormType::F16 && c == 1)) && !subsampled;
                                    let bytes = k.bytes_to_bytes() && !fit;
                                    let want = if A::ISA == Isa::Scalar || bytes || tables { 0 } else { blocks };
                                    assert_eq!(done, want, "{:?} {k:?} c {c} step {step} {swapped}", A::ISA);
                                    for row in 0..count {
                                        let got = &dst[row * out_step..][..out_step];
                                        for t in 0..done * 16 * c {
                                            let [scale, bias] = per[t % c];
                                            assert_eq!(
                                                got[t * ow..][..ow],
                                                norm_scalar(k, &[x(row, t)], scale, bias)[..],
                                                "{:?} {k:?} c {c} step {step} {swapped} row {row} element {t} stream \
                                                 {stream}",
                                                A::ISA
                                            );
                                        }
                                        assert!(got[done * 16 * c * ow..].iter().all(|&b| b == SENTINEL));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Mirrored, swapped and both, out of slots, for both channel counts; subsampled 4-channel pixels; every read of
        // single elements.
        assert_eq!(built, 17);
    }
    level_job!(WindowsJob, check_windows);

    #[test]
    fn pixel_windows_on_every_level() {
        on_every_level(|l| l.dispatch(WindowsJob));
    }

    /// AVX2's fixed-point kernel for one-byte integers, called directly with every form [`FixedAffine::at`] finds
    /// (the kernels' runs take a form only after checking it against their float kernel, and patterns only the forms
    /// `at` checked, so a wrong kernel would show only here or in the patterns' tests): the scalar meaning, element by
    /// element, nothing written past the elements done.
    ///
    /// [`FixedAffine::at`]: crate::float::FixedAffine::at
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_fixed_point_bytes_are_the_float_bytes() {
        use crate::float::FixedAffine;
        if crate::arch::V3::try_new().is_none() {
            eprintln!("note: AVX2 not available here, skipped");
            return;
        }
        let mut pairs =
            vec![[1.0f32, 0.0], [0.5, 0.25], [-3.5, 1e-3], [1.0 / 0.229, -128.5], [1.0 / 0.0042, -60_000.0]];
        pairs.extend((0..40).map(|i| [0.003 * (i as f32 + 1.0).powi(2) - 2.0, 3.7 * i as f32 - 70.0]));
        let mut tried = 0;
        for from in [NormType::U8, NormType::I8] {
            for out in [NormType::U8, NormType::I8] {
                let k = Norm { from, out };
                for &[scale, bias] in &pairs {
                    let at = |shift| FixedAffine::at(scale, bias, from == NormType::I8, out == NormType::I8, shift);
                    let Some(f) = FixedAffine::shift_for(scale, bias).and_then(at) else { continue };
                    tried += 1;
                    for n in [0usize, 1, 15, 16, 17, 31, 32, 33, 64, 100, 300] {
                        let src = bytes(n, 5 + n as u32);
                        let mut dst = vec![SENTINEL; n + 32];
                        // SAFETY: n bytes in, n + 32 out; AVX2 checked above.
                        let done = unsafe { crate::arch::x86::avx2_fixed_run(k, f, src.as_ptr(), dst.as_mut_ptr(), n) };
                        assert!(done <= n && n - done < 16);
                        for i in 0..done {
                            assert_eq!(
                                [dst[i]],
                                byte_norm_scalar(k, src[i], scale, bias)[..],
                                "{k:?} {scale} {bias} {i}"
                            );
                        }
                        assert!(dst[done..].iter().all(|&b| b == SENTINEL));
                    }
                }
            }
        }
        assert!(tried > pairs.len() * 3, "{tried}");
    }

    /// Orders non-temporal stores before the checks read them back.
    fn fence_for_tests() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE is part of the x86-64 baseline.
        unsafe {
            core::arch::x86_64::_mm_sfence()
        };
    }

    /// The fused deinterleave over a run of rows: each row as if alone, nothing written between rows — runs of few
    /// short rows, and runs long enough for VBMI's tables (2048 pixels and more in all).
    fn check_byte_norm_rows<A: Arch>(a: A) {
        let outs = [NormType::F32, NormType::F16, NormType::U8, NormType::I8];
        for (k, planes) in outs.into_iter().flat_map(|out| (2..=4).map(move |p| (Norm { from: NormType::U8, out }, p)))
        {
            let ow = k.out.width();
            for (slots, rp, rc) in [(planes, false, false), (planes, true, true), (4, false, true), (4, true, false)] {
                let t = Planar::deinterleave(1, planes, slots, rp, rc).unwrap();
                for (n, rows) in [(16usize, 3usize), (37, 3), (64, 3), (64, 70), (100, 41), (4100, 2)] {
                    let readable = t.readable(n);
                    let in_step = n * slots + 5;
                    let pixels = bytes(rows * in_step, n as u32);
                    let ps = n * ow + 12;
                    let out_step = planes * ps + 8;
                    let mut dst = vec![SENTINEL; rows * out_step];
                    let params = [[0.5f32, 1.0], [2.0, -3.0], [-1.0, 0.25], [1.0 / 255.0, 0.0]];
                    let first = if rp { (n - 1) * slots } else { 0 };
                    let run = RowRun { count: rows, in_step: in_step as isize, out_step: out_step as isize };
                    // SAFETY: each row's pixels (their windows) lie in `pixels` from row·in_step + first; its planes
                    // in `dst`.
                    let done = a.vectorize(|| unsafe {
                        let span =
                            Span { src: pixels.as_ptr().add(first), dst: dst.as_mut_ptr(), n: readable, stream: false };
                        a.deinterleave_convert(crate::arch::FusedConvert::Bytes(k), &t, span, ps as isize, &params, run)
                    });
                    let left = readable - done;
                    assert!(done <= readable && (A::ISA == Isa::Scalar || left < 16), "{:?} {k:?} left {left}", A::ISA);
                    for r in 0..rows {
                        for c in 0..planes {
                            let plane = &dst[r * out_step + c * ps..][..ps];
                            for j in 0..done {
                                let px = if rp { n - 1 - j } else { j };
                                let ch = if rc { planes - 1 - c } else { c };
                                let x = pixels[r * in_step + px * slots + ch];
                                let [s, b] = params[c];
                                assert_eq!(
                                    plane[j * ow..j * ow + ow],
                                    byte_norm_scalar(k, x, s, b),
                                    "{:?} {k:?} row {r} plane {c} {j}",
                                    A::ISA
                                );
                            }
                            assert!(plane[done * ow..].iter().all(|&b| b == SENTINEL));
                        }
                    }
                }
            }
        }
    }
    level_job!(ByteNormRowsJob, check_byte_norm_rows);

    /// The fused deinterleave of f32 pixels (2 to 4 planes, in slots of `planes` to 4, read from a tight buffer next to
    /// an inaccessible page) into f32 or f16 planes, cast or normalized, pixels and channels in either order, over a run
    /// of two rows: against the scalar meaning (product, then sum, then f16 nearest even), nothing written past the
    /// pixels done, less than one step left on SIMD levels.
    fn check_float_deinterleave<A: Arch>(a: A) {
        let kinds = [(false, true), (true, true), (true, false)].map(|(affine, f16)| FloatNorm { affine, f16 });
        let orders = [(false, false), (true, false), (false, true), (true, true)];
        for (planes, k) in (2..=4).flat_map(|p| kinds.map(|k| (p, k))) {
            let ow = if k.f16 { 2 } else { 4 };
            for (slots, (rp, rc)) in (planes..=4).flat_map(|s| orders.map(|o| (s, o))) {
                let t = Planar::deinterleave(4, planes, slots, rp, rc).unwrap();
                for n in [0usize, 1, 7, 8, 9, 16, 17, 33, 100] {
                    // Two rows, the second's pixels right after the first's (its window ends at the buffer's).
                    let row = if n == 0 { 0 } else { (n - 1) * slots + planes };
                    let values: Vec<u8> =
                        (0..2 * row).flat_map(|e| (e as f32 * 0.37 - 50.0 + 1.0 / 3.0).to_le_bytes()).collect();
                    let readable = t.readable(n);
                    let case = format!("{:?} {k:?} p{planes} s{slots} rp {rp} rc {rc} n {n}", A::ISA);
                    for end in [false, true] {
                        let guarded = Guarded::new(&values, end);
                        let ps = n * ow + 40;
                        let mut dst = vec![SENTINEL; 2 * planes * ps];
                        let params = [[0.5f32, 1.25], [-2.0, 0.1], [1.0 / 255.0, -0.485], [3.0, 0.0]];
                        let first = if rp { n.saturating_sub(1) * slots * 4 } else { 0 };
                        let run = RowRun { count: 2, in_step: (row * 4) as isize, out_step: (planes * ps) as isize };
                        // SAFETY: each row's windows of `readable` pixels lie in the buffer from row·in_step + first;
                        // each row's planes in `dst`.
                        let done = a.vectorize(|| unsafe {
                            let (src, dst) = (guarded.as_ptr().wrapping_add(first), dst.as_mut_ptr());
                            let span = Span { src, dst, n: readable, stream: false };
                            a.deinterleave_convert(
                                crate::arch::FusedConvert::Floats(k),
                                &t,
                                span,
                                ps as isize,
                                &params,
                                run,
                            )
                        });
                        let left = readable - done;
                        assert!(done <= readable && (A::ISA == Isa::Scalar || left < 16), "{case}: {done}");
                        for r in 0..2 {
                            for c in 0..planes {
                                let plane = &dst[(r * planes + c) * ps..][..ps];
                                for j in 0..done {
                                    let m = if rp { n - 1 - j } else { j };
                                    let ch = if rc { planes - 1 - c } else { c };
                                    let at = (r * row + m * slots + ch) * 4;
                                    let x = f32::from_le_bytes(values[at..at + 4].try_into().unwrap());
                                    let y = if k.affine { x * params[c][0] + params[c][1] } else { x };
                                    let want = if k.f16 {
                                        f32_to_f16_scalar(y).to_le_bytes().to_vec()
                                    } else {
                                        y.to_le_bytes().to_vec()
                                    };
                                    assert_eq!(plane[j * ow..][..ow], want[..], "{case}: row {r} plane {c} pixel {j}");
                                }
                                assert!(plane[done * ow..].iter().all(|&b| b == SENTINEL), "{case}: wrote past {done}");
                            }
                        }
                    }
                }
            }
        }
    }
    level_job!(FloatDeinterleaveJob, check_float_deinterleave);

    #[test]
    fn float_deinterleave_on_every_level() {
        on_every_level(|l| l.dispatch(FloatDeinterleaveJob));
    }

    #[test]
    fn byte_normalization_over_runs_of_rows() {
        on_every_level(|l| l.dispatch(ByteNormRowsJob));
    }

    /// The first `taps` weights in pairs as the resize kernels take them (`w[2i]` low, `w[2i + 1]` high, an odd count's
    /// last high half 0).
    fn paired(weights: &[i16], taps: usize) -> Vec<i32> {
        let w = |t: usize| if t < taps { weights[t] } else { 0 };
        (0..taps.div_ceil(2)).map(|i| i32::from(w(2 * i) as u16) | (i32::from(w(2 * i + 1)) << 16)).collect()
    }

    fn check_resize_taps<A: Arch>(a: A) {
        // 16 lanes × up to 4 channels × 6 blocks of tap pairs (11 taps: the last of an odd count padded), weights over
        // the whole i16 range on bytes, and weights whose |sum| · 32767 fits i32 on i16 over the whole range; blocks
        // 32·G + 3 elements apart at an odd address.
        let weights: Vec<i16> =
            (0..12).map(|t| [32767, -32768, 1234, -5, 0, 77, -3001, 16384, 1, -1, 999, 0][t]).collect();
        let weights16: Vec<i16> =
            (0..12).map(|t| [16384, -16384, 1234, -5, 0, 77, -3001, 8192, 1, -1, 999, 0][t]).collect();
        let len = 6 * (32 * 4 + 3) + 64;
        let small: Vec<i16> = bytes(len, 9).into_iter().map(i16::from).collect();
        let full: Vec<i16> = bytes(2 * len, 3).chunks(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
        for (values, weights) in [(&small, &weights), (&full, &weights16)] {
            let mut at_odd = vec![0u8; 2 * values.len() + 1];
            for (d, w) in at_odd[1..].chunks_mut(2).zip(values) {
                d.copy_from_slice(&w.to_le_bytes());
            }
            for taps in [1usize, 2, 5, 11] {
                let pairs = paired(weights, taps);
                macro_rules! channels {
                    ($g:literal) => {{
                        let step = 32 * $g + 3;
                        let mut got = [[7i32; 16]; $g];
                        // SAFETY: blocks i < pairs.len() ≤ 6 read values[i·step + c·32 + k] < 5·(32·4 + 3) + 128 ≤
                        // values.len() (from an odd byte: any alignment); the sums fit i32; the token proves the level.
                        a.vectorize(|| unsafe {
                            a.taps_pairs::<$g>(at_odd.as_ptr().add(1).cast(), step, &pairs, &mut got)
                        });
                        for c in 0..$g {
                            for l in 0..16 {
                                let k = PAIR_ORDER.iter().position(|&m| m == l).unwrap();
                                let x = |t: usize| i32::from(values[t / 2 * step + c * 32 + 2 * k + t % 2]);
                                let want: i32 = (0..taps).map(|t| x(t) * i32::from(weights[t])).sum();
                                assert_eq!(got[c][l], want, "{:?} taps {taps} channel {c} lane {l}", A::ISA);
                            }
                        }
                    }};
                }
                channels!(1);
                channels!(3);
                channels!(4);
            }
        }
        // Two columns of bytes paired into a block (at an odd address).
        let columns = bytes(32, 13);
        let mut block = vec![SENTINEL; 2 * 32 + 2];
        // SAFETY: 16 bytes at each column, 32 i16 from byte 1 of `block`; the token proves the level.
        a.vectorize(|| unsafe {
            a.pair_bytes(columns.as_ptr(), columns.as_ptr().add(16), block.as_mut_ptr().add(1).cast())
        });
        for (k, &l) in PAIR_ORDER.iter().enumerate() {
            for t in 0..2 {
                let got = i16::from_le_bytes([block[1 + 4 * k + 2 * t], block[2 + 4 * k + 2 * t]]);
                assert_eq!(got, i16::from(columns[16 * t + l]), "{:?} pair_bytes lane {l} column {t}", A::ISA);
            }
        }
        assert_eq!((block[0], block[65]), (SENTINEL, SENTINEL));
        // Taps of 16 lanes of i16 read as they are (`taps_i16`), and the weights down rows.
        let words: Vec<i16> =
            bytes(2 * (16 * 4 * 12 + 64), 3).chunks(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
        let mut words_at = vec![0u8; 2 * words.len() + 1];
        for (d, w) in words_at[1..].chunks_mut(2).zip(&words) {
            d.copy_from_slice(&w.to_le_bytes());
        }
        for taps in [1usize, 2, 5, 11] {
            let pairs = paired(&weights, taps);
            // The same over 16 lanes of i16 (full range), with weights whose |sum| · 32767 fits i32.
            let pairs16 = paired(&weights16, taps);
            macro_rules! words {
                ($g:literal) => {{
                    let step = 16 * $g + 3;
                    let mut got = [[7i32; 16]; $g];
                    // SAFETY: taps t < 2·pairs.len() ≤ 12 read words[t·step + c·16 + l] < 12·(16·4 + 3) + 64 ≤
                    // words.len() (from an odd byte: any alignment); Σ 32767·|w| < 2^31; the token proves the level.
                    a.vectorize(|| unsafe {
                        a.taps_i16::<$g>(words_at.as_ptr().add(1).cast(), step, &pairs16, &mut got)
                    });
                    for c in 0..$g {
                        for l in 0..16 {
                            let want: i32 = (0..taps)
                                .map(|t| i32::from(words[t * step + c * 16 + l]) * i32::from(weights16[t]))
                                .sum();
                            assert_eq!(got[c][l], want, "{:?} i16 taps {taps} channel {c} lane {l}", A::ISA);
                        }
                    }
                }};
            }
            words!(1);
            words!(3);
            words!(4);
            // The same weights down rows: tap rows 77 bytes apart (negative steps too), row lengths around the 16-, 32-
            // and 64-byte chunks, the output at an odd address; the buffer ends with the last tap row (a padded tap is
            // never read).
            let down = bytes(12 * 77 + 256, 5);
            for n in [1usize, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 95, 96, 100, 127, 128, 129, 200, 255, 256, 300] {
                for step in [77isize, -77] {
                    let rows_src = &down[..(taps - 1) * 77 + n];
                    let first = if step > 0 { 0 } else { (taps - 1) * 77 };
                    let want = |x: usize| -> i32 {
                        let at = |t: usize| (first as isize + t as isize * step) as usize + x;
                        (0..taps).map(|t| i32::from(rows_src[at(t)]) * i32::from(weights[t])).sum()
                    };
                    // In 1/128 units, rounded half up and saturated, at several precisions (sums of both signs, some
                    // beyond i16 after the shift).
                    for shift in [8u32, 12, 15, 22] {
                        let mut out = vec![0u8; 2 * n + 1];
                        // SAFETY: rows first + t·step, t < taps, of n bytes inside `rows_src`; `out` holds n i16 from
                        // byte 1; the sums are far below 2^31; 8 ≤ shift < 31; the token proves the level.
                        a.vectorize(|| unsafe {
                            let out = out.as_mut_ptr().add(1).cast();
                            let w = crate::arch::RowWeights { pairs: &pairs, taps, shift };
                            a.rows_u8_q7(rows_src.as_ptr().add(first), step, w, n, out)
                        });
                        for x in 0..n {
                            let got = i16::from_le_bytes(out[1 + 2 * x..][..2].try_into().unwrap());
                            let s = shift - 7;
                            let q = ((want(x) + (1 << (s - 1))) >> s).clamp(-32768, 32767) as i16;
                            assert_eq!(
                                got,
                                q,
                                "{:?} q7 rows: taps {taps} n {n} step {step} shift {shift} x {x}",
                                A::ISA
                            );
                        }
                    }
                }
            }
        }
        // 16 rows of 32 bytes, 45 bytes apart, transposed.
        let rows = bytes(16 * 45, 4);
        let mut dst = [SENTINEL; 512 + 16];
        // SAFETY: rows r < 16 at r·45, 32 bytes each, inside `rows`; `dst` holds 512 bytes; the token proves the level.
        a.vectorize(|| unsafe { a.tile16x32_u8(rows.as_ptr(), 45, dst.as_mut_ptr()) });
        for c in 0..32 {
            for r in 0..16 {
                assert_eq!(dst[c * 16 + r], rows[r * 45 + c], "{:?} column {c} row {r}", A::ISA);
            }
        }
        assert!(dst[512..].iter().all(|&b| b == SENTINEL));
    }
    level_job!(ResizeTapsJob, check_resize_taps);

    /// `Arch::sampled_row_u8` against its definition written out (with row weights, the rows' sum in 1/128 units,
    /// rounded half up and saturated, else the first row's bytes; then the columns' pair, converted and scaled): 1- to
    /// 4-byte pixels into pixels and into planes, rows either way apart, pairs of pixels up to the row's end (one row
    /// ends at an inaccessible page: no 8-byte load passes it), weights of both signs at several precisions, nothing
    /// written past the output.
    fn check_sampled_rows<A: Arch>(a: A) {
        let mut seed = 11;
        for g in 1..=4usize {
            // Pairs up to the row's end (the last ones one element at a time), or three pixels short of it (the
            // output's last pair in registers).
            for (width, spare) in [2usize, 3, 5, 8, 17, 40].into_iter().flat_map(|w| [(w, 0), (w, 3)]) {
                let row_bytes = (width + spare) * g;
                // Two rows, the second ending the buffer; read downward too (the second row first in memory).
                let both = bytes(2 * row_bytes + 5, seed);
                seed += 1;
                let guarded = Guarded::new(&both, true);
                for down in [false, true] {
                    let (r0, r1) = if down { (row_bytes + 5, 0) } else { (0, row_bytes + 5) };
                    // SAFETY: both offsets lie inside the guarded copy of `both`.
                    let rows = unsafe { [guarded.as_ptr().add(r0), guarded.as_ptr().add(r1)] };
                    // Output pixels each reading a pair of adjacent input pixels, increasing.
                    let outs = width.saturating_sub(1).max(1);
                    let starts: Vec<usize> = (0..outs).map(|x| (x * (width - 1) / outs).min(width - 2) * g).collect();
                    let cols: Vec<i32> = (0..outs)
                        .map(|x| {
                            let (w0, w1) = ((x as i32 * 977 + 300) % 20000 - 4000, 16384 - (x as i32 * 131) % 9000);
                            (w0 & 0xFFFF) | (w1 << 16)
                        })
                        .collect();
                    let weights = [(8u32, (100i32, 156i32)), (15, (20000, 12768)), (22, (-3000, 30000)), (0, (0, 0))];
                    for (shift, (wa, wb)) in weights {
                        let pair = [(wa & 0xFFFF) | (wb << 16)];
                        // (Shift 0: one row, the bytes themselves.)
                        let w = (shift > 0).then_some(crate::arch::RowWeights { pairs: &pair, taps: 2, shift });
                        let scale = 1.0 / (1u32 << 14) as f32 / 128.0;
                        for plane in [None, Some(outs + 3)] {
                            let len = plane.map_or(outs * g, |p| g * p);
                            let mut out = vec![f32::NAN; len + 4];
                            // SAFETY: every pair of every output pixel inside both rows (above), `row_bytes` each; `out`
                            // holds outs·g, or g planes of outs + 3 (and 4 more); one pair of weights, sums far below
                            // 2^31; the token proves the level.
                            a.vectorize(|| unsafe {
                                let p = crate::arch::PixelPairs {
                                    rows,
                                    row_bytes,
                                    w,
                                    starts: &starts,
                                    cols: &cols,
                                    g,
                                    plane,
                                    scale,
                                };
                                a.sampled_row_u8(&p, &mut out)
                            });
                            for (x, (&s, &p)) in starts.iter().zip(&cols).enumerate() {
                                for c in 0..g {
                                    let q = |i: usize| {
                                        if shift == 0 {
                                            return i32::from(both[r0 + i]);
                                        }
                                        let sum = i32::from(both[r0 + i]) * wa + i32::from(both[r1 + i]) * wb;
                                        let k = shift - 7;
                                        ((sum + (1 << (k - 1))) >> k).clamp(-32768, 32767)
                                    };
                                    let acc = q(s + c) * i32::from(p as i16) + q(s + g + c) * (p >> 16);
                                    let at = plane.map_or(x * g + c, |p| c * p + x);
                                    let what = format!(
                                        "{:?} g {g} width {width}+{spare} down {down} shift {shift} x {x} c {c}",
                                        A::ISA
                                    );
                                    assert_eq!(out[at].to_bits(), (acc as f32 * scale).to_bits(), "{what}");
                                }
                            }
                            assert!(
                                out[len..].iter().all(|v| v.is_nan()),
                                "{:?} g {g} width {width}: wrote past",
                                A::ISA
                            );
                        }
                    }
                }
            }
        }
    }
    level_job!(SampledRowsJob, check_sampled_rows);

    #[test]
    fn sampled_rows_on_every_level() {
        on_every_level(|l| l.dispatch(SampledRowsJob));
    }

    #[test]
    fn resize_taps_and_byte_tiles_on_every_level() {
        on_every_level(|l| l.dispatch(ResizeTapsJob));
    }

    /// The `Arch` methods an implementation block defines (`fn name` or `unsafe fn name` at the start of a line,
    /// forwarded ones included), read from its source between `start` and the first line that is exactly `end`.
    fn defined_methods(source: &str, start: &str, end: &str) -> std::collections::BTreeSet<String> {
        let body = source.split_once(start).map_or("", |(_, rest)| rest);
        let body = body.split(&format!("\n{end}\n")).next().unwrap_or("");
        body.lines()
            .filter_map(|l| l.trim_start().strip_prefix("unsafe fn ").or_else(|| l.trim_start().strip_prefix("fn ")))
            .map(|l| l.split(['<', '(']).next().unwrap_or("").to_owned())
            .collect()
    }

    /// V4Vbmi defines or forwards every method V4 overrides (its own and the x86 levels' common ones): one missing runs
    /// the trait's portable default on the widest level, silently (it happened: `rows_u8` ran one byte at a time there).
    #[test]
    fn vbmi_forwards_every_method_v4_overrides() {
        let v4 = defined_methods(include_str!("v4.rs"), "unsafe impl Arch for V4 {", "}");
        let common =
            defined_methods(include_str!("x86.rs"), "macro_rules! common_methods {", "pub(super) use common_methods;");
        let vbmi = defined_methods(include_str!("vbmi.rs"), "unsafe impl Arch for V4Vbmi {", "}");
        assert!(v4.len() > 10 && common.len() > 3, "the parse found {v4:?} and {common:?}");
        let missing: Vec<&String> = v4.iter().chain(&common).filter(|m| !vbmi.contains(*m)).collect();
        assert!(missing.is_empty(), "V4Vbmi lacks {missing:?}: forward them to V4");
    }

    /// `f32_to_u8_half_up`: random bit patterns (NaNs, infinities, subnormals, values far outside i32) mixed with values
    /// around 0, 255 and the halves between, runs of every length around the levels' steps, at any alignment: the
    /// elements done are `trunc(clamp(x, 0, 255) + 0.5)` (NaN → 0), nothing written past them, all but 31 done on the
    /// levels with registers.
    fn check_u8_half_up<A: Arch>(a: A) {
        let special =
            [-0.5f32, -0.49, -1.5, 0.0, -0.0, 0.5, 1.5, 2.5, 126.5, 127.5, 254.5, 254.49, 255.0, 255.5, 256.0];
        let special =
            [&special[..], &[1e10, -1e10, 3e9, -3e9, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-40]].concat();
        for n in [0usize, 1, 15, 16, 31, 32, 33, 63, 64, 65, 100, 257] {
            let raw = bytes(4 * n + 4, 5 + n as u32);
            for skip in [0usize, 1] {
                let src: Vec<u8> = (0..n)
                    .flat_map(|i| match i % 3 {
                        0 => special[(i / 3) % special.len()].to_le_bytes(),
                        _ => raw[4 * i + skip..][..4].try_into().unwrap(),
                    })
                    .collect();
                let mut storage = vec![SENTINEL; skip + n + 32];
                let dst = &mut storage[skip..];
                // SAFETY: n f32 at src (any alignment), n + 32 writable bytes at dst; this level runs here.
                let done = a.vectorize(|| unsafe { a.f32_to_u8_half_up(src.as_ptr(), dst.as_mut_ptr(), n) });
                assert!(done <= n && (A::ISA == Isa::Scalar || n - done < 32), "{:?} did {done} of {n}", A::ISA);
                for i in 0..done {
                    let x = f32::from_le_bytes(src[4 * i..][..4].try_into().unwrap());
                    let want = (x.clamp(0.0, 255.0) + 0.5) as u8; // (NaN stays NaN, which `as` makes 0)
                    assert_eq!(dst[i], want, "{:?} element {i} of {n}: {x:?}", A::ISA);
                }
                assert!(dst[done..].iter().all(|&b| b == SENTINEL), "{:?} wrote past {done}", A::ISA);
            }
        }
    }
    level_job!(U8HalfUpJob, check_u8_half_up);

    #[test]
    fn f32_to_u8_half_up_on_every_level() {
        on_every_level(|l| l.dispatch(U8HalfUpJob));
    }
}
