//! The tolerant verifier: what TFLM reads verifies (any alignment, strings of any bytes) and reads
//! the same; everything out of bounds, and past the limits, is still refused.

use flatbuffers::{FlatBufferBuilder, Table, VOffsetT, WIPOffset};
use tinyaot_schema::strings::REPLACEMENT;
use tinyaot_schema::tflite::{self, Model};
use tinyaot_schema::verifier::{
    self, ErrorKind, InvalidFlatbuffer, TraceStep, Verifiable, Verifier, VerifierOptions,
};

/// A small model touching every kind of object: tables, a union, vectors of `i32`, `f32`, `i64`,
/// `u8` and of tables, strings (tensor 0 named `name`), and the metadata.
fn fixture(name: &[u8]) -> Vec<u8> {
    fixture_with(name, |_| {})
}

fn fixture_with(name: &[u8], edit: impl FnOnce(&mut tflite::OperatorArgs)) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let shape = fbb.create_vector(&[1i32, 4]);
    let scale = fbb.create_vector(&[0.5f32, 0.25]);
    let zero_point = fbb.create_vector(&[3i64, i64::MIN]);
    let quantization = tflite::QuantizationParameters::create(
        &mut fbb,
        &tflite::QuantizationParametersArgs {
            scale: Some(scale),
            zero_point: Some(zero_point),
            quantized_dimension: 1,
            ..Default::default()
        },
    );
    let name = WIPOffset::new(fbb.create_byte_string(name).value());
    let t0 = tflite::Tensor::create(
        &mut fbb,
        &tflite::TensorArgs {
            shape: Some(shape),
            type_: tflite::TensorType::INT8,
            buffer: 1,
            name: Some(name),
            quantization: Some(quantization),
            ..Default::default()
        },
    );
    let out = fbb.create_string("out");
    let t1 = tflite::Tensor::create(
        &mut fbb,
        &tflite::TensorArgs {
            shape: Some(shape),
            name: Some(out),
            ..Default::default()
        },
    );
    let conv = tflite::Conv2DOptions::create(
        &mut fbb,
        &tflite::Conv2DOptionsArgs {
            stride_w: 2,
            stride_h: 3,
            ..Default::default()
        },
    );
    let inputs = fbb.create_vector(&[0i32]);
    let outputs = fbb.create_vector(&[1i32]);
    let mut op_args = tflite::OperatorArgs {
        inputs: Some(inputs),
        outputs: Some(outputs),
        builtin_options_type: tflite::BuiltinOptions::Conv2DOptions,
        builtin_options: Some(conv.as_union_value()),
        ..Default::default()
    };
    edit(&mut op_args);
    let op = tflite::Operator::create(&mut fbb, &op_args);
    let tensors = fbb.create_vector(&[t0, t1]);
    let operators = fbb.create_vector(&[op]);
    let main = fbb.create_string("main");
    let subgraph = tflite::SubGraph::create(
        &mut fbb,
        &tflite::SubGraphArgs {
            tensors: Some(tensors),
            operators: Some(operators),
            inputs: Some(inputs),
            outputs: Some(outputs),
            name: Some(main),
            ..Default::default()
        },
    );
    let data = fbb.create_vector(&[1u8, 2, 3, 4]);
    let buffers = [
        tflite::Buffer::create(&mut fbb, &Default::default()),
        tflite::Buffer::create(
            &mut fbb,
            &tflite::BufferArgs {
                data: Some(data),
                ..Default::default()
            },
        ),
    ];
    let custom = fbb.create_string("MyOp");
    let codes = [
        tflite::OperatorCode::create(
            &mut fbb,
            &tflite::OperatorCodeArgs {
                deprecated_builtin_code: 3,
                builtin_code: tflite::BuiltinOperator::CONV_2D,
                version: 1,
                ..Default::default()
            },
        ),
        tflite::OperatorCode::create(
            &mut fbb,
            &tflite::OperatorCodeArgs {
                deprecated_builtin_code: 32,
                builtin_code: tflite::BuiltinOperator::CUSTOM,
                custom_code: Some(custom),
                version: 1,
            },
        ),
    ];
    let meta = fbb.create_string("meta");
    let metadata = [tflite::Metadata::create(
        &mut fbb,
        &tflite::MetadataArgs {
            name: Some(meta),
            buffer: 1,
        },
    )];
    let description = fbb.create_string("fixture");
    let args = tflite::ModelArgs {
        version: 3,
        operator_codes: Some(fbb.create_vector(&codes)),
        subgraphs: Some(fbb.create_vector(&[subgraph])),
        description: Some(description),
        buffers: Some(fbb.create_vector(&buffers)),
        metadata: Some(fbb.create_vector(&metadata)),
        ..Default::default()
    };
    let model = tflite::Model::create(&mut fbb, &args);
    tflite::finish_model_buffer(&mut fbb, model);
    fbb.finished_data().to_vec()
}

fn verify(bytes: &[u8]) -> Result<Model<'_>, InvalidFlatbuffer> {
    tflite::root_as_model(bytes)
}

fn verify_with(opts: &VerifierOptions, bytes: &[u8]) -> Result<(), InvalidFlatbuffer> {
    tflite::root_as_model_with_opts(opts, bytes).map(|_| ())
}

fn kind(result: Result<impl Sized, InvalidFlatbuffer>) -> ErrorKind {
    match result {
        Ok(_) => panic!("verified"),
        Err(e) => e.kind,
    }
}

/// The whole FlatBuffer `by` bytes further into the file: every offset is relative but the root's.
fn shift(bytes: &[u8], by: usize) -> Vec<u8> {
    let root = u32::from_le_bytes(bytes[..4].try_into().unwrap()) + by as u32;
    let mut out = root.to_le_bytes().to_vec();
    out.resize(4 + by, 0);
    out.extend_from_slice(&bytes[4..]);
    out
}

fn field_position(table: &Table<'_>, field: VOffsetT) -> usize {
    table.loc() + usize::from(table.vtable().get(field))
}

fn u32_at(bytes: &[u8], pos: usize) -> usize {
    u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize
}

fn put_u32(bytes: &mut [u8], pos: usize, value: u32) {
    bytes[pos..pos + 4].copy_from_slice(&value.to_le_bytes());
}

fn tensor0(model: Model<'_>) -> tflite::Tensor<'_> {
    model.subgraphs().unwrap().get(0).tensors().unwrap().get(0)
}

/// Where tensor 0's zero-point vector starts (its length).
fn zero_point_vector(bytes: &[u8]) -> usize {
    let q = tensor0(verify(bytes).unwrap()).quantization().unwrap();
    let field = field_position(&q._tab, tflite::QuantizationParameters::VT_ZERO_POINT);
    field + u32_at(bytes, field)
}

#[test]
fn a_model_off_every_alignment_verifies_and_reads_the_same() {
    let bytes = fixture(b"input");
    let expected = format!("{:?}", verify(&bytes).expect("the fixture verifies"));
    assert!(
        expected.contains("zero_point: Some([3, -9223372036854775808])"),
        "{expected}"
    );
    for by in 1..=8 {
        let shifted = shift(&bytes, by);
        let model = verify(&shifted).unwrap_or_else(|e| panic!("shifted by {by}: {e}"));
        assert_eq!(format!("{model:?}"), expected, "shifted by {by}");
    }
    // The case real files have: only the i64 vector off its 8-byte alignment.
    let at = zero_point_vector(&shift(&bytes, 4));
    assert_eq!((at + 4) % 8, 4);
}

#[test]
fn strings_of_any_bytes_verify_and_read_checked() {
    let bytes = fixture(b"in\xffput");
    let model = verify(&bytes).expect("a name that is not UTF-8 verifies");
    let t = tensor0(model);
    assert_eq!(t.name(), Some(REPLACEMENT));
    assert_eq!(t.name_bytes(), Some(&b"in\xffput"[..]));
    // Valid strings read as they are, through both accessors.
    let t1 = model.subgraphs().unwrap().get(0).tensors().unwrap().get(1);
    assert_eq!(t1.name(), Some("out"));
    assert_eq!(t1.name_bytes(), Some(&b"out"[..]));
    assert_eq!(model.description(), Some("fixture"));
    assert_eq!(
        model.operator_codes().unwrap().get(1).custom_code(),
        Some("MyOp")
    );
    // A truncated sequence, a lone continuation byte, an overlong encoding, a surrogate.
    for bad in [&b"\xe2\x82"[..], b"\x80", b"\xc0\xaf", b"\xed\xa0\x80"] {
        let bytes = fixture(bad);
        let t = tensor0(verify(&bytes).unwrap());
        assert_eq!((t.name(), t.name_bytes()), (Some(REPLACEMENT), Some(bad)));
    }
    // The Debug of every table reads its strings through the checked accessor.
    assert!(format!("{model:?}").contains(&format!("name: Some({REPLACEMENT:?})")));
}

#[test]
fn strings_must_end_with_a_null_unless_the_options_waive_it() {
    let mut bytes = fixture(b"input");
    let t = tensor0(verify(&bytes).unwrap());
    let field = field_position(&t._tab, tflite::Tensor::VT_NAME);
    let string = field + u32_at(&bytes, field);
    let end = string + 4 + u32_at(&bytes, string);
    assert_eq!(bytes[end], 0);
    bytes[end] = b'x';
    assert_eq!(
        kind(verify(&bytes)),
        ErrorKind::MissingNullTerminator {
            range: string + 4..end
        }
    );
    let lenient = VerifierOptions {
        ignore_missing_null_terminator: true,
        ..Default::default()
    };
    verify_with(&lenient, &bytes).expect("terminator waived");
}

#[test]
fn every_truncation_is_refused() {
    let bytes = fixture(b"input");
    for len in 0..bytes.len() {
        match verify(&bytes[..len]) {
            Ok(_) => panic!("{len} of {} bytes verified", bytes.len()),
            Err(e) => assert!(
                matches!(
                    e.kind,
                    ErrorKind::OutOfBounds { .. }
                        | ErrorKind::VTableOutOfBounds { .. }
                        | ErrorKind::MissingNullTerminator { .. }
                ),
                "{len}: {e}"
            ),
        }
    }
}

#[test]
fn offsets_out_of_bounds_are_refused() {
    let bytes = fixture(b"input");
    let len = bytes.len();

    // The root offset.
    let mut b = bytes.clone();
    put_u32(&mut b, 0, len as u32);
    assert!(matches!(kind(verify(&b)), ErrorKind::OutOfBounds { .. }));

    // A string offset, with a trace down to it.
    let model = verify(&bytes).unwrap();
    let field = field_position(&tensor0(model)._tab, tflite::Tensor::VT_NAME);
    for offset in [(len - field) as u32, 0xffff_fff0] {
        let mut b = bytes.clone();
        put_u32(&mut b, field, offset);
        let e = verify(&b).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }), "{e}");
        assert!(
            matches!(e.trace.first(), Some(TraceStep::Field { name: "name", position }) if *position == field),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.contains("field `name`") && text.contains("field `tensors`"),
            "{text}"
        );
    }

    // A vector length: the range saturates instead of wrapping.
    let at = zero_point_vector(&bytes);
    let mut b = bytes.clone();
    put_u32(&mut b, at, u32::MAX);
    assert!(matches!(kind(verify(&b)), ErrorKind::OutOfBounds { range } if range.end > len));

    // A table's vtable offset: past the end, and before the start.
    let model_table = verify(&bytes).unwrap()._tab.loc();
    for vtable in [len as i64 + 4, -1] {
        let mut b = bytes.clone();
        let soffset = (model_table as i64 - vtable) as i32;
        b[model_table..model_table + 4].copy_from_slice(&soffset.to_le_bytes());
        assert_eq!(
            kind(verify(&b)),
            ErrorKind::VTableOutOfBounds {
                soffset,
                position: model_table
            }
        );
    }

    // A vtable longer than the rest of the file.
    let vtable = verify(&bytes).unwrap()._tab.vtable();
    let vtable_at = (model_table as i64
        - i64::from(i32::from_le_bytes(
            bytes[model_table..model_table + 4].try_into().unwrap(),
        ))) as usize;
    assert_eq!(
        vtable.num_bytes(),
        usize::from(u16::from_le_bytes([bytes[vtable_at], bytes[vtable_at + 1]]))
    );
    let mut b = bytes.clone();
    b[vtable_at..vtable_at + 2].copy_from_slice(&0xfffeu16.to_le_bytes());
    assert!(matches!(kind(verify(&b)), ErrorKind::OutOfBounds { .. }));
    // An odd vtable length is no whole number of entries (the C++ verifier refuses it too), and
    // one shorter than the header has no room for the table's size.
    for length in [vtable.num_bytes() as u16 + 1, 2, 0] {
        let mut b = bytes.clone();
        b[vtable_at..vtable_at + 2].copy_from_slice(&length.to_le_bytes());
        assert_eq!(
            kind(verify(&b)),
            ErrorKind::BadVTableLength {
                position: vtable_at,
                length
            }
        );
    }
}

#[test]
fn unions_are_verified_as_their_variant() {
    // A type without a value, and a value without a type.
    let no_value = fixture_with(b"input", |op| op.builtin_options = None);
    assert_eq!(
        kind(verify(&no_value)),
        ErrorKind::InconsistentUnion {
            field: "builtin_options",
            type_field: "builtin_options_type"
        }
    );
    let no_type = fixture_with(b"input", |op| {
        op.builtin_options_type = tflite::BuiltinOptions::NONE
    });
    assert!(matches!(
        kind(verify(&no_type)),
        ErrorKind::InconsistentUnion { .. }
    ));

    // The value is verified as the table its type names: a Conv2DOptions field out of bounds is
    // found.
    let bytes = fixture(b"input");
    let op = verify(&bytes)
        .unwrap()
        .subgraphs()
        .unwrap()
        .get(0)
        .operators()
        .unwrap()
        .get(0);
    let conv = op.builtin_options_as_conv_2_doptions().unwrap()._tab.loc();
    let soffset = i32::from_le_bytes(bytes[conv..conv + 4].try_into().unwrap());
    let stride_w = (conv as i64 - i64::from(soffset)) as usize
        + usize::from(tflite::Conv2DOptions::VT_STRIDE_W);
    let mut b = bytes.clone();
    b[stride_w..stride_w + 2].copy_from_slice(&0xfffcu16.to_le_bytes());
    let e = verify(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }), "{e}");
    assert!(
        matches!(
            e.trace.first(),
            Some(TraceStep::Field {
                name: "stride_w",
                ..
            })
        ),
        "{e:?}"
    );
    assert!(
        e.trace.iter().any(|s| matches!(s, TraceStep::Variant { variant, .. } if variant.ends_with("Conv2DOptions"))),
        "{e:?}"
    );
    // An unknown variant is read by no typed accessor and is not verified as any table; but the
    // raw accessor returns it as a `Table`, whose vtable must be in bounds.
    let unknown = fixture_with(b"input", |op| {
        op.builtin_options_type = tflite::BuiltinOptions(250)
    });
    let model = verify(&unknown).expect("an unknown variant verifies");
    let op = model
        .subgraphs()
        .unwrap()
        .get(0)
        .operators()
        .unwrap()
        .get(0);
    assert!(op.builtin_options_as_conv_2_doptions().is_none());
    let table = op.builtin_options().expect("the raw value");
    assert_eq!(table.vtable().num_bytes(), 4 + 2 * 3);
    let mut b = unknown.clone();
    let conv = table.loc();
    b[conv..conv + 4].copy_from_slice(&i32::MIN.to_le_bytes());
    let e = verify(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::VTableOutOfBounds { .. }), "{e}");
    assert!(
        matches!(
            e.trace.first(),
            Some(TraceStep::Field {
                name: "builtin_options",
                ..
            })
        ),
        "{e:?}"
    );
}

#[test]
fn depth_is_limited() {
    // Model → SubGraph → Tensor → QuantizationParameters.
    let bytes = fixture(b"input");
    let opts = |max_depth| VerifierOptions {
        max_depth,
        ..Default::default()
    };
    verify_with(&opts(4), &bytes).expect("four levels");
    assert_eq!(
        kind(verify_with(&opts(3), &bytes)),
        ErrorKind::DepthLimitReached { limit: 3 }
    );
}

/// A model whose buffers are `n` references to one buffer of `size` bytes.
fn aliased_buffers(n: usize, size: usize) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let data = fbb.create_vector(&vec![7u8; size]);
    let buffer = tflite::Buffer::create(
        &mut fbb,
        &tflite::BufferArgs {
            data: Some(data),
            ..Default::default()
        },
    );
    let buffers = fbb.create_vector(&vec![buffer; n]);
    let model = tflite::Model::create(
        &mut fbb,
        &tflite::ModelArgs {
            version: 3,
            buffers: Some(buffers),
            ..Default::default()
        },
    );
    tflite::finish_model_buffer(&mut fbb, model);
    fbb.finished_data().to_vec()
}

#[test]
fn tables_are_counted_per_reference() {
    let bytes = aliased_buffers(1000, 1);
    let opts = |max_tables| VerifierOptions {
        max_tables,
        ..Default::default()
    };
    // The model and 1000 visits of the one buffer table.
    verify_with(&opts(1001), &bytes).expect("1001 tables");
    assert_eq!(
        kind(verify_with(&opts(1000), &bytes)),
        ErrorKind::TooManyTables { limit: 1000 }
    );
}

#[test]
fn apparent_size_is_limited() {
    // 1000 references to one 1000-byte vector: a file of about 5 kB that reads as 1 MB.
    let bytes = aliased_buffers(1000, 1000);
    assert!(bytes.len() < 6000);
    let opts = |max_apparent_size| VerifierOptions {
        max_apparent_size,
        ..Default::default()
    };
    verify_with(&opts(2_000_000), &bytes).expect("within 2 MB");
    let e = verify_with(&opts(1_000_000), &bytes).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ApparentSizeTooLarge { limit: 1_000_000 });
    // Limit errors carry no trace.
    assert!(e.trace.is_empty());
}

/// A table type with one required `u32` field, to check the required-field rule (the TFLite
/// schema has none).
struct Required;

impl Verifiable for Required {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<u32>("needed", 4, true)?
            .finish();
        Ok(())
    }
}

impl<'a> flatbuffers::Follow<'a> for Required {
    type Inner = Table<'a>;
    unsafe fn follow(buf: &'a [u8], loc: usize) -> Table<'a> {
        // SAFETY: the caller's contract.
        unsafe { Table::new(buf, loc) }
    }
}

#[test]
fn required_fields_must_be_present() {
    let build = |with: bool| {
        let mut fbb = FlatBufferBuilder::new();
        let start = fbb.start_table();
        if with {
            fbb.push_slot_always::<u32>(4, 9);
        }
        let table = fbb.end_table(start);
        fbb.finish_minimal(table);
        fbb.finished_data().to_vec()
    };
    let present = build(true);
    let table = verifier::root::<Required>(&present).expect("present");
    // SAFETY: verified as a table with a u32 at field 4.
    assert_eq!(unsafe { table.get::<u32>(4, None) }, Some(9));
    let absent = build(false);
    assert_eq!(
        kind(verifier::root::<Required>(&absent)),
        ErrorKind::MissingRequiredField { field: "needed" }
    );
}

#[test]
fn the_generated_code_follows_no_str_and_uses_this_verifier() {
    // What schema/postprocess.pl guarantees, checked on the file as committed.
    let src = include_str!("../src/tflite_generated.rs");
    assert!(!src.contains("ForwardsUOffset<&str>") && !src.contains("ForwardsUOffset<&'a str>"));
    assert!(!src.contains("::flatbuffers::Verif") && !src.contains("::flatbuffers::root::<"));
    assert!(!src.contains("::flatbuffers::root_with_opts"));
    let accessors = src
        .matches("_tab.get::<::flatbuffers::ForwardsUOffset<crate::strings::LenientStr>>")
        .count();
    let bytes = src
        .matches("_tab.get::<::flatbuffers::ForwardsUOffset<&[u8]>>")
        .count();
    assert!(
        accessors > 10 && accessors == bytes,
        "{accessors} string accessors, {bytes} bytes"
    );
}
