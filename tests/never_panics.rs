//! Arbitrary descriptors — zero, huge and boundary values, wrong lengths — either validate and then match the
//! reference, or return an error. No input makes a public function panic.

mod common;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use strider::{DataType, Error, Slice1, TensorDesc, calc_buffer_tensor_size};

fn u32_value() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![
        6 => 0u32..6,
        1 => Just(u32::MAX),
        1 => Just(u32::MAX - 1),
        1 => Just(1u32 << 31),
        1 => Just(1u32 << 16),
        1 => any::<u32>(),
    ]
}

fn i32_value() -> impl Strategy<Value = i32> + Clone {
    prop_oneof![
        6 => -4i32..5,
        1 => Just(i32::MIN),
        1 => Just(i32::MAX),
        1 => any::<i32>(),
    ]
}

/// A vector of `rank` values, or now and then of a wrong length.
fn of_rank<T: std::fmt::Debug>(rank: usize, value: impl Strategy<Value = T> + Clone) -> impl Strategy<Value = Vec<T>> {
    prop_oneof![
        9 => proptest::collection::vec(value.clone(), rank),
        1 => proptest::collection::vec(value, 0..=9),
    ]
}

#[derive(Debug, Clone)]
struct Raw {
    data_type: DataType,
    in_sizes: Vec<u32>,
    in_strides: Option<Vec<u32>>,
    out_sizes: Vec<u32>,
    out_strides: Option<Vec<u32>>,
    offsets: Vec<u32>,
    sizes: Vec<u32>,
    strides: Vec<i32>,
}

/// A valid case with one field replaced by an arbitrary value: exercises each rule at its boundary.
fn mutated() -> impl Strategy<Value = Raw> {
    (common::cases::slice1_case(), 0usize..8, any::<prop::sample::Index>(), u32_value(), i32_value(), any::<bool>())
        .prop_map(|(case, field, dim, v, w, drop)| {
            let (input, output) = (case.input_desc(), case.output_desc());
            let mut r = Raw {
                data_type: case.data_type,
                in_sizes: input.sizes().to_vec(),
                in_strides: Some(input.strides().to_vec()),
                out_sizes: output.sizes().to_vec(),
                out_strides: output.explicit_strides().map(<[u32]>::to_vec),
                offsets: case.offsets(),
                sizes: case.sizes(),
                strides: case.strides(),
            };
            let d = dim.index(r.in_sizes.len());
            match field {
                0 => r.in_sizes[d] = v,
                1 => r.in_strides.as_mut().unwrap()[d] = v,
                2 => r.out_sizes[d] = v,
                3 => r.out_strides.get_or_insert_with(|| output.strides().to_vec())[d] = v,
                4 => r.offsets[d] = v,
                5 => r.sizes[d] = v,
                6 => r.strides[d] = w,
                _ => {}
            }
            if drop && field == 7 {
                r.offsets.pop();
            }
            r
        })
}

fn raw() -> impl Strategy<Value = Raw> {
    prop_oneof![arbitrary(), mutated()]
}

fn arbitrary() -> impl Strategy<Value = Raw> {
    (0..DataType::ALL.len(), 0usize..=9)
        .prop_flat_map(|(dt, rank)| {
            (
                Just(DataType::ALL[dt]),
                of_rank(rank, u32_value()),
                proptest::option::of(of_rank(rank, u32_value())),
                of_rank(rank, u32_value()),
                proptest::option::of(of_rank(rank, u32_value())),
                of_rank(rank, u32_value()),
                of_rank(rank, u32_value()),
                of_rank(rank, i32_value()),
            )
        })
        .prop_map(|(data_type, in_sizes, in_strides, out_sizes, out_strides, offsets, sizes, strides)| Raw {
            data_type,
            in_sizes,
            in_strides,
            out_sizes,
            out_strides,
            offsets,
            sizes,
            strides,
        })
}

fn desc(dt: DataType, sizes: &[u32], strides: &Option<Vec<u32>>) -> Result<TensorDesc, Error> {
    // The calculator and the descriptor agree on every malformed shape.
    let calc = calc_buffer_tensor_size(dt, sizes, strides.as_deref());
    let d = match strides {
        Some(s) => TensorDesc::with_strides(dt, sizes, s),
        None => TensorDesc::new(dt, sizes),
    };
    if let Ok(d) = &d {
        assert_eq!(calc.as_ref().ok(), Some(&d.min_buffer_size_in_bytes()));
    }
    d
}

const MAX_RUN_BYTES: u64 = 1 << 20;

proptest! {
    #![proptest_config(Config { cases: 4096, rng_seed: RngSeed::Fixed(0xbad_1de5), failure_persistence: None, ..Config::default() })]

    #[test]
    fn random_descriptors_never_panic(r in raw()) {
        let (Ok(input), Ok(output)) = (desc(r.data_type, &r.in_sizes, &r.in_strides), desc(r.data_type, &r.out_sizes, &r.out_strides)) else {
            return Ok(());
        };
        let Ok(op) = Slice1::new(&input, &output, &r.offsets, &r.sizes, &r.strides) else {
            return Ok(());
        };
        let (in_len, out_len) = (input.addressed_bytes(), output.addressed_bytes());
        if in_len <= MAX_RUN_BYTES && out_len <= MAX_RUN_BYTES {
            let mut rng = common::rng(in_len ^ out_len);
            let src = common::Buf::random(in_len as usize, 0, &mut rng);
            let mut got = vec![common::SENTINEL; out_len as usize];
            let mut want = got.clone();
            op.execute(src.bytes(), &mut got).unwrap();
            common::reference_slice1(&input, &output, &r.offsets, &r.sizes, &r.strides, src.bytes(), &mut want);
            prop_assert!(got == want);
        } else {
            // Too large to allocate here: short buffers must be refused, not overrun.
            let mut dst = [0u8; 64];
            let e = op.execute(&[0u8; 64], &mut dst).unwrap_err();
            prop_assert!(matches!(e, Error::BufferTooSmall { .. }), "{e}");
            prop_assert_eq!(dst, [0u8; 64]);
        }
    }
}
