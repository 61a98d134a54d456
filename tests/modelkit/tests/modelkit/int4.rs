use tinyaot_modelkit::int4::*;

#[test]
fn packs_low_nibble_first() {
    assert_eq!(pack(&[2, 1, 4, 3]), vec![0x12, 0x34]);
    assert_eq!(pack(&[-8, -1, 7]), vec![0xF8, 0x07]);
    assert_eq!(wrap(-9), 7);
    assert_eq!(wrap(23), 7);
    assert_eq!(wrap(-3), -3);
}
