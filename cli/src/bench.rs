//! `strider bench`: time a suite of DML_SLICE1 workloads beside a `memcpy` of the same byte count.
//!
//! Method: for each case and thread count, rounds alternate between the operator and `memcpy`; a round runs
//! [`WARM`] back-to-back samples of each and drops the first (cold) one. Rounds continue until the case's time
//! budget is spent (at least [`MIN_ROUNDS`]); the figures are medians over all kept samples. Alternating rounds
//! cancel the seconds-long slow periods of shared machines; back-to-back samples measure warm calls, as the peer
//! script does. A sample batches enough calls to last [`MIN_SAMPLE`]. `memcpy` is always one thread
//! (`copy_from_slice` between two preallocated buffers of the output's size). GB/s counts output bytes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use strider::{DataType, ExecOptions, Isa, Slice1, TensorDesc};

/// The public workloads (the shared peer suite), embedded.
const WORKLOADS: &str = include_str!("../../benches/workloads.json");

/// Samples per round and per side (the first is dropped).
const WARM: usize = 4;
/// Rounds per case at least.
const MIN_ROUNDS: usize = 5;
/// Rounds per case at most.
const MAX_ROUNDS: usize = 400;
/// Shortest sample.
const MIN_SAMPLE: Duration = Duration::from_micros(50);

/// One workload, in the format of `bench/workloads.json`, plus optional tensor strides (absent: packed) so that
/// layout conversions can be expressed (a full window with stride 1 is an element-wise identity).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub dtype: String,
    pub input_sizes: Vec<u32>,
    pub offsets: Vec<u32>,
    pub window_sizes: Vec<u32>,
    pub window_strides: Vec<i32>,
    pub output_sizes: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_strides: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_strides: Option<Vec<u32>>,
}

/// A layout conversion of `sizes` between two stride sets, as a case.
fn layout_case(name: &str, dtype: &str, sizes: &[u32], input: Option<Vec<u32>>, output: Option<Vec<u32>>) -> Case {
    Case {
        name: name.into(),
        dtype: dtype.into(),
        input_sizes: sizes.to_vec(),
        offsets: vec![0; sizes.len()],
        window_sizes: sizes.to_vec(),
        window_strides: vec![1; sizes.len()],
        output_sizes: sizes.to_vec(),
        input_strides: input,
        output_strides: output,
    }
}

/// Packed strides of `sizes` laid out in `order` (outermost first), from the library's layout helper.
fn permuted(sizes: &[u32], order: &[usize]) -> Vec<u32> {
    TensorDesc::permuted(DataType::Uint8, sizes, order).expect("a valid built-in layout").strides().to_vec()
}

/// The default suite: every public workload under its own name, the layout conversions (NHWC ↔ NCHW, a rank-5
/// permutation, broadcast materialization, padded → packed), plus cache-level sweeps of contiguous, reversed and
/// stride-2 f32 rows from 16 KiB to 64 MiB of output.
pub fn default_suite() -> Vec<Case> {
    let mut cases: Vec<Case> = serde_json::from_str(WORKLOADS).expect("the embedded suite parses");
    let nhwc = |s: &[u32]| Some(permuted(s, &[0, 2, 3, 1]));
    let (a, b, c, d) = ([32, 3, 224, 224], [1, 64, 256, 256], [16, 3, 512, 512], [8, 16, 32, 32, 8]);
    cases.extend([
        layout_case("layout_u8_nhwc_32x224x224x3_to_nchw", "u8", &a, nhwc(&a), None),
        layout_case("layout_f32_nchw_1x64x256x256_to_nhwc", "f32", &b, None, nhwc(&b)),
        layout_case("layout_f16_nchw_16x3x512x512_to_nhwc", "f16", &c, None, nhwc(&c)),
        layout_case("layout_f32_rank5_8x16x32x32x8_perm_04213", "f32", &d, None, Some(permuted(&d, &[0, 4, 2, 1, 3]))),
        layout_case(
            "layout_f32_broadcast_channel_bias_32x64x112x112",
            "f32",
            &[32, 64, 112, 112],
            Some(vec![0, 1, 0, 0]),
            None,
        ),
        layout_case("layout_u8_padded_rows_1080x1920x3_to_packed", "u8", &[1080, 5760], Some(vec![6144, 1]), None),
    ]);
    for (kind, step) in [("contiguous", 1i32), ("reverse", -1), ("stride2", 2)] {
        for kib in [16u32, 256, 4096, 65536] {
            let n = kib * 256;
            let window = (n - 1) * step.unsigned_abs() + 1;
            cases.push(Case {
                name: format!("sweep_f32_{kind}_{kib}KiB"),
                dtype: "f32".into(),
                input_sizes: vec![window],
                offsets: vec![0],
                window_sizes: vec![window],
                window_strides: vec![step],
                output_sizes: vec![n],
                input_strides: None,
                output_strides: None,
            });
        }
    }
    cases
}

/// Loads a suite file.
pub fn load_suite(path: &std::path::Path) -> Result<Vec<Case>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a workload list", path.display()))
}

/// One timed configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub threads: usize,
    pub ns_per_op: f64,
    pub gb_per_s: f64,
    pub ratio_to_memcpy: f64,
}

/// The results of one case.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub name: String,
    pub dtype: String,
    pub output_bytes: u64,
    pub plan: String,
    pub memcpy_ns: f64,
    pub memcpy_gb_per_s: f64,
    pub runs: Vec<Run>,
}

/// A whole report (what `--json` writes).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub strider_version: String,
    pub isa: String,
    pub method: String,
    pub cases: Vec<CaseResult>,
}

pub struct Options {
    pub threads: Vec<usize>,
    pub filter: Option<String>,
    pub seconds_per_case: f64,
    pub method: Method,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A benchmark buffer. From 4 MiB on it is an anonymous mapping advised to use transparent huge pages, as numpy
/// does for its arrays (the peers are measured on such arrays; with 4-KiB pages large strided walks pay TLB
/// misses that have nothing to do with the kernels).
struct Buffer(BufferInner);

enum BufferInner {
    Heap(Vec<u8>),
    Mapped(memmap2::MmapMut, usize),
}

impl Buffer {
    fn filled(n: usize, fill: impl Fn(usize) -> u8) -> Result<Buffer> {
        let mut b = if n >= 4 << 20 {
            let map = memmap2::MmapMut::map_anon(n).context("cannot map a benchmark buffer")?;
            #[cfg(target_os = "linux")]
            let _ = map.advise(memmap2::Advice::HugePage); // a hint; ignored where THP is off
            Buffer(BufferInner::Mapped(map, n))
        } else {
            Buffer(BufferInner::Heap(vec![0; n]))
        };
        for (i, x) in b.iter_mut().enumerate() {
            *x = fill(i);
        }
        Ok(b)
    }
}

impl std::ops::Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            BufferInner::Heap(v) => v,
            BufferInner::Mapped(m, n) => &m[..*n],
        }
    }
}

impl std::ops::DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.0 {
            BufferInner::Heap(v) => v,
            BufferInner::Mapped(m, n) => &mut m[..*n],
        }
    }
}

/// Deterministic input bytes.
fn input_bytes(n: usize) -> Result<Buffer> {
    Buffer::filled(n, |i| (i.wrapping_mul(2654435761) >> 13) as u8)
}

/// Calls per sample so that a sample lasts at least MIN_SAMPLE.
fn calibrate(mut f: impl FnMut()) -> usize {
    let mut batch = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        if t.elapsed() >= MIN_SAMPLE || batch >= 1 << 20 {
            return batch;
        }
        batch *= 2;
    }
}

/// How samples are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Rounds alternating the operator and memcpy (robust to slow periods; each side sees the cache state the
    /// other leaves).
    Interleaved,
    /// Each side in its own tight loop, as the peer script (`bench/peers.py`) measures: warm caches, comparable
    /// absolute times. Three alternating blocks, median of the block medians.
    Tight,
}

/// Median seconds per call of `f` over back-to-back samples for about `budget`.
fn tight(budget: Duration, f: &mut dyn FnMut()) -> f64 {
    for _ in 0..3 {
        f(); // warm-up
    }
    let batch = calibrate(&mut *f);
    let mut v = Vec::new();
    let start = Instant::now();
    while v.len() < 20 || (start.elapsed() < budget && v.len() < 200) {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        v.push(t.elapsed().as_secs_f64() / batch as f64);
    }
    median(v)
}

fn measure(method: Method, budget: Duration, op: &mut dyn FnMut(), copy: &mut dyn FnMut()) -> (f64, f64) {
    if method == Method::Interleaved {
        return interleaved(budget, op, copy);
    }
    let (mut to, mut tc) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        to.push(tight(budget / 3, &mut *op));
        tc.push(tight(budget / 3, &mut *copy));
    }
    (median(to), median(tc))
}

/// Median seconds per call of `op` and of `memcpy`, alternating rounds within a budget.
fn interleaved(budget: Duration, op: &mut dyn FnMut(), copy: &mut dyn FnMut()) -> (f64, f64) {
    let (ob, cb) = (calibrate(&mut *op), calibrate(&mut *copy));
    let (mut to, mut tc) = (Vec::new(), Vec::new());
    let start = Instant::now();
    let mut rounds = 0;
    let samples = |f: &mut dyn FnMut(), batch: usize, out: &mut Vec<f64>| {
        for k in 0..WARM {
            let t = Instant::now();
            for _ in 0..batch {
                f();
            }
            if k > 0 {
                out.push(t.elapsed().as_secs_f64() / batch as f64);
            }
        }
    };
    while rounds < MIN_ROUNDS || (start.elapsed() < budget && rounds < MAX_ROUNDS) {
        samples(&mut *op, ob, &mut to);
        samples(&mut *copy, cb, &mut tc);
        rounds += 1;
    }
    (median(to), median(tc))
}

fn run_case(
    case: &Case,
    opts: &Options,
    pools: &[(usize, rayon::ThreadPool)],
    bar: &ProgressBar,
) -> Result<CaseResult> {
    let dt: DataType = case.dtype.parse().with_context(|| format!("case {}", case.name))?;
    let desc = |sizes: &[u32], strides: &Option<Vec<u32>>| match strides {
        Some(s) => TensorDesc::with_strides(dt, sizes, s),
        None => TensorDesc::new(dt, sizes),
    };
    let input = desc(&case.input_sizes, &case.input_strides).with_context(|| format!("case {}: input", case.name))?;
    let output =
        desc(&case.output_sizes, &case.output_strides).with_context(|| format!("case {}: output", case.name))?;
    let op = Slice1::new(&input, &output, &case.offsets, &case.window_sizes, &case.window_strides)
        .with_context(|| format!("case {}", case.name))?;
    let src = input_bytes(input.addressed_bytes() as usize)?;
    let bytes = output.addressed_bytes() as usize;
    let mut dst = Buffer::filled(bytes, |_| 0)?;
    let mut want = vec![0u8; bytes];
    op.execute_reference(&src, &mut want)?;
    op.execute(&src, &mut dst)?;
    if dst[..] != want[..] {
        bail!("case {}: the result differs from the reference", case.name);
    }
    drop(want);
    let (a, mut b) = (Buffer::filled(bytes, |_| 1)?, Buffer::filled(bytes, |_| 0)?);
    let budget = Duration::from_secs_f64(opts.seconds_per_case);
    let mut runs = Vec::new();
    let mut memcpy = Vec::new();
    for &(threads, ref pool) in pools {
        let exec = if threads == 1 { ExecOptions::sequential() } else { ExecOptions::default() };
        let (t_op, t_copy) = pool.install(|| {
            measure(
                opts.method,
                budget,
                &mut || op.execute_with(black_box(&src), black_box(&mut dst), &exec).expect("validated buffers"),
                &mut || black_box(&mut b[..]).copy_from_slice(black_box(&a[..])),
            )
        });
        memcpy.push(t_copy);
        runs.push((threads, t_op));
        bar.inc(1);
    }
    // One memcpy figure per case (always one thread): the median over the thread counts' rounds.
    let t_copy = median(memcpy);
    Ok(CaseResult {
        name: case.name.clone(),
        dtype: dt.short_name().into(),
        output_bytes: bytes as u64,
        plan: format!("{} · {}", op.row_kind(), op.plan()),
        memcpy_ns: t_copy * 1e9,
        memcpy_gb_per_s: bytes as f64 / t_copy / 1e9,
        runs: runs
            .into_iter()
            .map(|(threads, t)| Run {
                threads,
                ns_per_op: t * 1e9,
                gb_per_s: bytes as f64 / t / 1e9,
                ratio_to_memcpy: t / t_copy,
            })
            .collect(),
    })
}

/// Runs the suite, printing progress on stderr.
pub fn run(cases: &[Case], opts: &Options) -> Result<Report> {
    let selected: Vec<&Case> =
        cases.iter().filter(|c| opts.filter.as_ref().is_none_or(|f| c.name.contains(f.as_str()))).collect();
    if selected.is_empty() {
        bail!("no case of the suite matches --filter {:?}", opts.filter.as_deref().unwrap_or(""));
    }
    let pools = opts
        .threads
        .iter()
        .map(|&t| Ok((t, rayon::ThreadPoolBuilder::new().num_threads(t).build()?)))
        .collect::<Result<Vec<_>>>()?;
    let bar = ProgressBar::new((selected.len() * pools.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} [{elapsed}, ~{eta} left]").expect("template"),
    );
    let mut out = Vec::new();
    for case in selected {
        bar.set_message(case.name.clone());
        out.push(run_case(case, opts, &pools, &bar)?);
    }
    bar.finish_and_clear();
    Ok(Report {
        strider_version: env!("CARGO_PKG_VERSION").into(),
        isa: Isa::best().to_string(),
        method: match opts.method {
            Method::Interleaved => format!(
                "rounds alternating operator and memcpy ({WARM} back-to-back samples each, the first dropped), \
                 medians; {:.2} s per case and thread count; GB/s = output bytes / time; memcpy = one thread",
                opts.seconds_per_case
            ),
            Method::Tight => format!(
                "tight loops per side as bench/peers.py (3 warm-up calls, batched samples, 3 alternating blocks, \
                 median of block medians); {:.2} s per case and thread count; GB/s = output bytes / time; memcpy = \
                 one thread",
                opts.seconds_per_case
            ),
        },
        cases: out,
    })
}

fn human_time(ns: f64) -> String {
    if ns < 1e4 {
        format!("{ns:.0} ns")
    } else if ns < 1e7 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

fn human_bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / (1 << 20) as f64)
    } else if b >= 1 << 10 {
        format!("{:.1} KiB", b as f64 / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// The report as a text table.
pub fn table(r: &Report) -> String {
    let mut s = String::new();
    let threads: Vec<usize> = r.cases.first().map(|c| c.runs.iter().map(|x| x.threads).collect()).unwrap_or_default();
    s += &format!("strider {} · {} · {}\n", r.strider_version, r.isa, r.method);
    s += &format!("{:<42} {:>10} {:>10}", "case", "bytes", "memcpy");
    for t in &threads {
        s += &format!(" │ {:>9} {:>7} {:>7}", format!("{t}t time"), "GB/s", "×memcpy");
    }
    s += "\n";
    for c in &r.cases {
        s += &format!("{:<42} {:>10} {:>10}", c.name, human_bytes(c.output_bytes), human_time(c.memcpy_ns));
        for run in &c.runs {
            s += &format!(" │ {:>9} {:>7.1} {:>7.2}", human_time(run.ns_per_op), run.gb_per_s, run.ratio_to_memcpy);
        }
        s += "\n";
    }
    s
}
