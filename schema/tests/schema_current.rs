//! The checked-in generated code must come from the checked-in schema. This needs no flatc: it
//! compares the schema's SHA-256 with the hash `schema/regen.sh` recorded when it last ran.

use tinyaot_schema::{tflite, SCHEMA_FBS, SCHEMA_SHA256};

#[test]
fn generated_code_matches_schema() {
    let actual = hex(&sha256(SCHEMA_FBS.as_bytes()));
    let recorded = SCHEMA_SHA256.trim();
    assert_eq!(
        actual, recorded,
        "schema/tflite.fbs changed since schema/src/tflite_generated.rs was generated: \
         run schema/regen.sh"
    );
}

#[test]
fn sha256_known_answers() {
    // FIPS 180-2 test vectors, so a broken hash cannot make the check above vacuous.
    assert_eq!(
        hex(&sha256(b"")),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        hex(&sha256(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        hex(&sha256(
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        )),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
}

#[test]
fn wire_ids_of_well_known_members() {
    // Spot checks of values the loader and real files depend on.
    assert_eq!(tflite::BuiltinOperator::CONV_2D.0, 3);
    assert_eq!(
        tflite::BuiltinOperator::PLACEHOLDER_FOR_GREATER_OP_CODES.0,
        127
    );
    assert_eq!(tflite::BuiltinOperator::STABLEHLO_COMPOSITE.0, 206);
    assert_eq!(
        tflite::BuiltinOperator(4).variant_name(),
        Some("DEPTHWISE_CONV_2D")
    );
    assert_eq!(tflite::BuiltinOptions::Conv2DOptions.0, 1);
    assert_eq!(tflite::BuiltinOptions::SVDFOptions.0, 6);
    assert_eq!(tflite::BuiltinOptions::ReshapeOptions.0, 17);
    assert_eq!(tflite::BuiltinOptions::StridedSliceOptions.0, 32);
    assert_eq!(tflite::BuiltinOptions::LeakyReluOptions.0, 75);
    assert_eq!(tflite::BuiltinOptions::RightShiftOptions.0, 126);
    assert_eq!(tflite::BuiltinOptions2::StableHLOCompositeOptions.0, 21);
    assert_eq!(tflite::TensorType::INT8.0, 9);
    assert_eq!(tflite::TensorType::UINT16.0, 16);
    assert_eq!(tflite::MODEL_IDENTIFIER, "TFL3");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A plain SHA-256 (FIPS 180-4), enough to hash one small text file without a dependency.
fn sha256(message: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut data = message.to_vec();
    let bit_len = (message.len() as u64).wrapping_mul(8);
    data.push(0x80);
    while data.len() % 64 != 56 {
        data.push(0);
    }
    data.extend_from_slice(&bit_len.to_be_bytes());
    for block in data.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (state, v) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *state = state.wrapping_add(v);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}
