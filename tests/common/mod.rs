//! Shared test support: a naive reference written from the DirectML spec, and buffer helpers.
#![allow(dead_code)]

pub mod arrays;
pub mod cases;
pub mod values;

use rand::{Rng, SeedableRng, rngs::StdRng};
use strider::{DataType, ExecOptions, Isa, Parallelism, TensorDesc};

/// Byte written into every output buffer before a run, so that untouched padding can be checked.
pub const SENTINEL: u8 = 0xA5;

/// The spec's pseudo-code, one obvious loop over output coordinates:
/// `OutputTensor[c] = InputTensor[CopyStart + InputWindowStrides * c]`, where `CopyStart[i]` is the window offset,
/// plus `InputWindowSizes[i] - 1` when the stride is negative. Offsets are dot products with the tensors' strides.
pub fn reference_slice1(
    input: &TensorDesc,
    output: &TensorDesc,
    offsets: &[u32],
    window_sizes: &[u32],
    window_strides: &[i32],
    src: &[u8],
    dst: &mut [u8],
) {
    reference_window_map(input, output, offsets, window_sizes, window_strides, src, dst, |x| x.to_vec());
}

/// [`reference_slice1`] with each element mapped by `f` (input element bytes to output element bytes), for the
/// operators that convert while they slice.
#[allow(clippy::too_many_arguments, dead_code)]
pub fn reference_window_map(
    input: &TensorDesc,
    output: &TensorDesc,
    offsets: &[u32],
    window_sizes: &[u32],
    window_strides: &[i32],
    src: &[u8],
    dst: &mut [u8],
    f: impl Fn(&[u8]) -> Vec<u8>,
) {
    let rank = output.rank();
    let (iw, ow) = (input.data_type().size_in_bytes(), output.data_type().size_in_bytes());
    let start: Vec<i64> = (0..rank)
        .map(|i| {
            let mut s = i64::from(offsets[i]);
            if window_strides[i] < 0 {
                s += i64::from(window_sizes[i]) - 1;
            }
            s
        })
        .collect();
    for_each_coord(output.sizes(), |c| {
        let in_coord: Vec<i64> = (0..rank).map(|i| start[i] + i64::from(window_strides[i]) * c[i] as i64).collect();
        for (i, &x) in in_coord.iter().enumerate() {
            assert!(x >= 0 && x < i64::from(input.sizes()[i]), "reference read outside the input: {in_coord:?}");
        }
        let in_off: i64 = in_coord.iter().zip(input.strides()).map(|(&x, &s)| x * i64::from(s)).sum();
        let out_off: usize = c.iter().zip(output.strides()).map(|(&x, &s)| x * s as usize).sum();
        let (i, o) = (in_off as usize * iw, out_off * ow);
        dst[o..o + ow].copy_from_slice(&f(&src[i..i + iw]));
    });
}

/// Element-wise identity from the spec: `output[c] = input[c]`.
pub fn reference_identity(input: &TensorDesc, output: &TensorDesc, src: &[u8], dst: &mut [u8]) {
    for_each_coord(output.sizes(), |c| {
        let in_coord: Vec<i64> = c.iter().map(|&x| x as i64).collect();
        copy_element(input, output, &in_coord, c, src, dst);
    });
}

/// DML_SLICE (v0) from the spec: `output[c] = input[offsets + strides * c]`.
pub fn reference_slice(
    input: &TensorDesc,
    output: &TensorDesc,
    offsets: &[u32],
    strides: &[u32],
    src: &[u8],
    dst: &mut [u8],
) {
    for_each_coord(output.sizes(), |c| {
        let in_coord: Vec<i64> =
            (0..c.len()).map(|i| i64::from(offsets[i]) + i64::from(strides[i]) * c[i] as i64).collect();
        copy_element(input, output, &in_coord, c, src, dst);
    });
}

fn copy_element(
    input: &TensorDesc,
    output: &TensorDesc,
    in_coord: &[i64],
    out_coord: &[usize],
    src: &[u8],
    dst: &mut [u8],
) {
    let size = input.data_type().size_in_bytes();
    for (i, &x) in in_coord.iter().enumerate() {
        assert!(x >= 0 && x < i64::from(input.sizes()[i]), "reference read outside the input: {in_coord:?}");
    }
    let in_off: i64 = in_coord.iter().zip(input.strides()).map(|(&x, &s)| x * i64::from(s)).sum();
    let out_off: usize = out_coord.iter().zip(output.strides()).map(|(&x, &s)| x * s as usize).sum();
    let (i, o) = (in_off as usize * size, out_off * size);
    dst[o..o + size].copy_from_slice(&src[i..i + size]);
}

/// Calls `f` for every coordinate of `sizes`, last dimension fastest.
pub fn for_each_coord(sizes: &[u32], mut f: impl FnMut(&[usize])) {
    let mut c = vec![0usize; sizes.len()];
    loop {
        f(&c);
        let mut k = sizes.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            c[k] += 1;
            if c[k] < sizes[k] as usize {
                break;
            }
            c[k] = 0;
        }
    }
}

/// A buffer of `len` bytes starting `misalign` bytes past a 64-byte line boundary of its allocation: 0 gives the
/// line-aligned pointers the whole-line (streamed) stores need, others the unaligned pointers kernels must handle.
pub struct Buf {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Buf {
    pub fn random(len: usize, misalign: usize, rng: &mut StdRng) -> Buf {
        let mut b = Buf::filled(len, misalign, 0);
        rng.fill(b.bytes_mut());
        b
    }

    pub fn filled(len: usize, misalign: usize, byte: u8) -> Buf {
        let storage = vec![byte; len + misalign + 64];
        let start = storage.as_ptr().align_offset(64) + misalign;
        Buf { storage, start, len }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Every execution configuration a result must not depend on: each instruction set this CPU has, sequential and
/// split into the smallest pieces, on pools of 1, 2 and 7 threads, with regular and with non-temporal stores.
pub fn configs() -> Vec<(usize, ExecOptions)> {
    let mut out = Vec::new();
    for isa in Isa::available() {
        out.push((1, ExecOptions::sequential().with_isa(isa).with_streaming(false)));
        out.push((1, ExecOptions::sequential().with_isa(isa).with_streaming(true)));
        for threads in [2, 7] {
            out.push((threads, ExecOptions::default().with_isa(isa).with_parallelism(Parallelism::Grain(1))));
        }
        out.push((
            2,
            ExecOptions::default().with_isa(isa).with_parallelism(Parallelism::Grain(1)).with_streaming(true),
        ));
    }
    out
}

/// Reports the instruction sets under test once per test binary.
pub fn note_isas() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let missing: Vec<&str> = Isa::ALL.iter().filter(|i| !i.is_available()).map(|i| i.name()).collect();
        if !missing.is_empty() {
            eprintln!("note: instruction sets not available on this CPU, skipped: {missing:?}");
        }
    });
}

/// Runs `f` inside a rayon pool of `threads` threads (pools are cached per size).
pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let pool = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(threads)
        .or_insert_with(|| Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()))
        .clone();
    pool.install(f)
}

/// Runs the ignored test `name` of this test binary in a child process with the environment variable `key` set to
/// `value` (for process-wide settings read once, such as `STRIDER_MAX_ISA` or `STRIDER_CACHE`), and asserts that it
/// passed.
pub fn run_ignored_with_env(name: &str, key: &str, value: &str) {
    run_ignored_with_env_stderr(name, key, value);
}

/// [`run_ignored_with_env`], returning what the child printed on standard error.
pub fn run_ignored_with_env_stderr(name: &str, key: &str, value: &str) -> String {
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--include-ignored", "--nocapture"])
        .env(key, value)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&child.stdout);
    let err = String::from_utf8_lossy(&child.stderr).into_owned();
    assert!(child.status.success() && out.contains("1 passed"), "{out}{err}");
    err
}

/// Packed row-major strides.
pub fn packed(sizes: &[u32]) -> Vec<u32> {
    let mut s = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for k in (0..sizes.len()).rev() {
        s[k] = acc;
        acc *= sizes[k];
    }
    s
}

/// Every data type with a distinct element size.
pub const WIDTH_TYPES: [DataType; 4] = [DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64];

/// Runs an operator (`run(output, options)`) under every configuration of [`configs`], into sentinel-filled
/// misaligned buffers: every element of type `dt` equals `want`'s (NaNs by class; padding keeps the sentinel `want`
/// has), and every configuration gives the same bits as the first (NaN payloads included). `what` describes the
/// case in failure messages.
pub fn check_configs(
    dt: DataType,
    want: &[u8],
    salt: usize,
    what: &dyn Fn() -> String,
    run: impl Fn(&mut [u8], &ExecOptions) -> Result<(), strider::Error> + Sync,
) {
    let w = dt.size_in_bytes();
    let mut first: Option<Vec<u8>> = None;
    // Streamed runs also start on a line, where whole-line tiles and rows store non-temporally.
    let runs = configs().into_iter().flat_map(|(threads, opts)| {
        let aligned = (opts.streaming == Some(true) && !salt.is_multiple_of(7)).then_some((threads, opts, 0));
        [Some((threads, opts, salt % 7)), aligned].into_iter().flatten()
    });
    for (threads, opts, misalign) in runs {
        let mut dst = Buf::filled(want.len(), misalign, SENTINEL);
        with_threads(threads, || run(dst.bytes_mut(), &opts)).unwrap();
        let got = dst.bytes();
        let bad = got.chunks(w).zip(want.chunks(w)).position(|(g, x)| !(g == x || values::same(dt, g, x)));
        if let Some(i) = bad {
            panic!(
                "{} with {opts:?} on {threads} threads, output {misalign} bytes past a line: element {i} (byte {}) is \
                 {:?}, want {:?}",
                what(),
                i * w,
                &got[i * w..i * w + w],
                &want[i * w..i * w + w]
            );
        }
        match &first {
            None => first = Some(got.to_vec()),
            Some(f) => assert!(f == got, "{}: {opts:?} on {threads} threads gives other bits than the first", what()),
        }
    }
}
